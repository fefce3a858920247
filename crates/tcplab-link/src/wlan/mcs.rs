//! HT and VHT modulation and coding schemes: the data PHY a given MCS, stream count,
//! channel width and guard interval give.
//!
//! Data bits per OFDM symbol N_DBPS = N_SD · N_BPSCS · R · N_SS (IEEE 802.11-2020
//! 19.3.5 / 21.3.5; ns-3 `HtPhy::CalculateDataRate`), with the data subcarriers N_SD of
//! the width (52 / 108 / 234 / 468 for 20 / 40 / 80 / 160 MHz: ns-3
//! `HtPhy::GetUsableSubcarriers`, `VhtPhy::GetUsableSubcarriers`) and the modulation and
//! code rate of the MCS (ns-3 `HtPhy::GetHtConstellationSize` / `GetHtCodeRate`,
//! `VhtPhy::GetConstellationSize` / `GetCodeRate`). A symbol lasts 3.6 µs with the short
//! (400 ns) guard interval and 4 µs with the long one. BCC encoders: one per 350 (HT) or
//! 600 (VHT) Mbit/s with the short guard interval, per 320 / 540 Mbit/s with the long
//! (ns-3 `HtPhy::GetNumberBccEncoders`, `VhtPhy::GetNumberBccEncoders`). The preamble:
//! HT-mixed 16 + 4 + 8 + 4 µs and VHT 16 + 4 + 8 + 4 µs before the training fields (no
//! VHT-SIG-B in a single-user PPDU: ns-3 `VhtPhy::GetSigBDuration`), plus
//! 4 µs per HT/VHT-LTF, N_LTF = 1, 2, 4, 4 for 1–4 streams (19.3.9.4.6, 21.3.8.3.5).

use super::nist::Modulation;
use super::phy::Phy;
use tcplab_core::Dur;

/// Which MCS table: HT (802.11n, MCS 0–31, the stream count in the index) or VHT
/// (802.11ac, MCS 0–9 per stream count).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum McsTable {
    Ht,
    Vht,
}

/// (bits per subcarrier, code rate numerator, denominator) of MCS 0–9 on one stream.
const MODULATION: [(u32, u32, u32); 10] = [
    (1, 1, 2), // BPSK 1/2
    (2, 1, 2), // QPSK 1/2
    (2, 3, 4), // QPSK 3/4
    (4, 1, 2), // 16-QAM 1/2
    (4, 3, 4), // 16-QAM 3/4
    (6, 2, 3), // 64-QAM 2/3
    (6, 3, 4), // 64-QAM 3/4
    (6, 5, 6), // 64-QAM 5/6
    (8, 3, 4), // 256-QAM 3/4 (VHT)
    (8, 5, 6), // 256-QAM 5/6 (VHT)
];

/// The lowest HT/VHT data rate: MCS 0, one stream, 20 MHz, long guard interval.
pub const HT_MIN_RATE_BPS: u64 = 6_500_000;

/// The data PHY of `mcs` on `table` (for HT, `streams` must match the index's), at
/// `width_mhz` with the short (400 ns) or long (800 ns) guard interval. The error says
/// which of the four the PHY lacks.
pub fn phy(
    table: McsTable,
    mcs: u32,
    streams: u32,
    width_mhz: u32,
    short_gi: bool,
) -> Result<Phy, String> {
    let (index, nss) = match table {
        McsTable::Ht => {
            if mcs > 31 {
                return Err(format!("HT has MCS 0-31, not {mcs}"));
            }
            (mcs % 8, mcs / 8 + 1)
        }
        McsTable::Vht => {
            if mcs > 9 {
                return Err(format!("VHT has MCS 0-9, not {mcs}"));
            }
            if !(1..=4).contains(&streams) {
                return Err(format!("1 to 4 spatial streams, not {streams}"));
            }
            (mcs, streams)
        }
    };
    let sd = match (table, width_mhz) {
        (_, 20) => 52,
        (_, 40) => 108,
        (McsTable::Vht, 80) => 234,
        (McsTable::Vht, 160) => 468,
        (McsTable::Ht, _) => return Err(format!("HT channels are 20 or 40 MHz, not {width_mhz}")),
        (McsTable::Vht, _) => {
            return Err(format!(
                "VHT channels are 20, 40, 80 or 160 MHz, not {width_mhz}"
            ))
        }
    };
    // IEEE 802.11-2020 Table 21-30 ff.: combinations with a non-integer number of data
    // bits per encoder are not allowed (ns-3 `VhtPhy::IsCombinationAllowed`, streams ≤ 4).
    if table == McsTable::Vht
        && ((index == 9 && width_mhz == 20 && nss != 3)
            || (index == 6 && width_mhz == 80 && nss == 3))
    {
        return Err(format!(
            "VHT MCS {index} is not defined at {width_mhz} MHz with {nss} stream(s)"
        ));
    }
    let (bits, num, den) = MODULATION[index as usize];
    let (bits, num, den) = (bits as u64, num as u64, den as u64);
    let bits_per_symbol = sd * bits * num * nss as u64 / den;
    let symbol = Dur(if short_gi { 3_600 } else { 4_000 });
    let rate = bits_per_symbol as f64 / symbol.as_secs_f64();
    let per_encoder = match (table, short_gi) {
        (McsTable::Ht, true) => 350e6,
        (McsTable::Ht, false) => 320e6,
        (McsTable::Vht, true) => 600e6,
        (McsTable::Vht, false) => 540e6,
    };
    let ltfs = if nss == 3 { 4 } else { nss as u64 };
    Ok(Phy::Ofdm {
        preamble: Dur::from_micros(32 + 4 * ltfs),
        symbol,
        bits_per_symbol: bits_per_symbol as u32,
        encoders: (rate / per_encoder).ceil() as u32,
        signal_ext: Dur::ZERO,
    })
}

/// An HT/VHT data rate as the standard names it (see [`phy`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct McsConfig {
    pub table: McsTable,
    pub mcs: u32,
    pub streams: u32,
    pub width_mhz: u32,
    pub short_gi: bool,
}

impl McsConfig {
    pub fn phy(&self) -> Result<Phy, String> {
        phy(
            self.table,
            self.mcs,
            self.streams,
            self.width_mhz,
            self.short_gi,
        )
    }

    pub fn modulation(&self) -> Modulation {
        modulation(self.table, self.mcs)
    }

    /// Every MCS of the same streams, width and guard interval the standard defines,
    /// lowest first (for rate adaptation).
    pub fn group(&self) -> Vec<McsConfig> {
        let (first, last) = match self.table {
            McsTable::Ht => (self.mcs / 8 * 8, self.mcs / 8 * 8 + 7),
            McsTable::Vht => (0, 9),
        };
        (first..=last)
            .map(|mcs| McsConfig { mcs, ..*self })
            .filter(|c| c.phy().is_ok())
            .collect()
    }
}

/// The modulation and code rate of `mcs` (HT: its index within the stream group).
pub fn modulation(table: McsTable, mcs: u32) -> Modulation {
    let i = match table {
        McsTable::Ht => mcs % 8,
        McsTable::Vht => mcs,
    };
    let (bits, rate_num, rate_den) = MODULATION[i.min(9) as usize];
    Modulation {
        bits,
        rate_num,
        rate_den,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The presets' PHYs and a few rates of the standard's tables.
    #[test]
    fn rates_of_the_tables() {
        let mbps = |p: Phy| (p.rate_bps() / 1e5).round() / 10.0;
        // HT MCS15, 40 MHz, short GI: the 802.11n preset (300 Mbit/s, 1080 bits, 1 BCC).
        let ht = phy(McsTable::Ht, 15, 2, 40, true).unwrap();
        assert_eq!(mbps(ht), 300.0);
        assert!(
            matches!(ht, Phy::Ofdm { bits_per_symbol: 1080, encoders: 1, preamble, .. }
            if preamble == Dur::from_micros(40))
        );
        // VHT MCS9, 2 streams, 80 MHz, short GI: the 802.11ac preset (866.7, 2 BCC).
        let vht = phy(McsTable::Vht, 9, 2, 80, true).unwrap();
        assert_eq!(mbps(vht), 866.7);
        assert!(matches!(
            vht,
            Phy::Ofdm {
                bits_per_symbol: 3120,
                encoders: 2,
                ..
            }
        ));
        // HT MCS0, 20 MHz, long GI: the lowest rate; HT MCS7 20 MHz short GI: 72.2.
        assert_eq!(
            phy(McsTable::Ht, 0, 1, 20, false).unwrap().rate_bps(),
            HT_MIN_RATE_BPS as f64
        );
        assert_eq!(mbps(phy(McsTable::Ht, 7, 1, 20, true).unwrap()), 72.2);
        // VHT MCS9 3 streams 20 MHz exists (260 Mbit/s long GI); 1 stream does not.
        assert_eq!(mbps(phy(McsTable::Vht, 9, 3, 20, false).unwrap()), 260.0);
        assert!(phy(McsTable::Vht, 9, 1, 20, true).is_err());
        assert!(phy(McsTable::Vht, 6, 3, 80, true).is_err());
        assert!(phy(McsTable::Ht, 32, 1, 20, true).is_err());
        assert!(phy(McsTable::Ht, 7, 1, 80, true).is_err());
        assert!(phy(McsTable::Vht, 10, 1, 80, true).is_err());
    }
}
