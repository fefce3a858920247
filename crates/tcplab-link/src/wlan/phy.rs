//! Frame airtime from the PHY: preamble and header time, then the PSDU at the PHY rate.
//!
//! Two families cover 802.11b/g/n/ac:
//! - DSSS/CCK (802.11b, IEEE 802.11-2016 clause 16): a PLCP preamble and header (long:
//!   144 + 48 µs; short: 72 + 24 µs), then the PSDU bit by bit at the data rate.
//! - OFDM (802.11a/g clause 17/18, HT clause 19, VHT clause 21): the training and signal
//!   fields (`preamble`), then whole OFDM symbols, each carrying `bits_per_symbol` data
//!   bits, holding the 16 SERVICE bits, the PSDU and 6 tail bits per BCC encoder; ERP-OFDM
//!   in 2.4 GHz adds a 6 µs signal extension.
//!
//! These are the duration rules of ns-3's `DsssPhy`, `OfdmPhy`, `HtPhy` and `VhtPhy`
//! (`GetPayloadDuration`, `GetPreambleDuration`); docs/wlan.md ("PHY timing", "The presets
//! and their sources") gives the clauses and each preset's values.

use tcplab_core::Dur;

/// SERVICE field bits ahead of the PSDU in every OFDM PPDU.
pub const SERVICE_BITS: u64 = 16;
/// Tail bits per BCC encoder.
pub const TAIL_BITS: u64 = 6;

/// How a PPDU's airtime follows from its PSDU length (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Phy {
    /// DSSS/CCK: `plcp` (preamble + header), then the PSDU at `rate_bps`.
    Dsss { rate_bps: u64, plcp: Dur },
    /// OFDM: `preamble` (every field before DATA), then `symbol`-long symbols of
    /// `bits_per_symbol` data bits (SERVICE, PSDU and `encoders` × 6 tail bits),
    /// then `signal_ext`.
    Ofdm {
        preamble: Dur,
        symbol: Dur,
        bits_per_symbol: u32,
        encoders: u32,
        signal_ext: Dur,
    },
}

impl Phy {
    /// Airtime of a PPDU carrying `psdu_bytes`.
    pub fn duration(&self, psdu_bytes: u64) -> Dur {
        match *self {
            Phy::Dsss { rate_bps, plcp } => plcp + Dur::transmission(psdu_bytes, rate_bps),
            Phy::Ofdm {
                preamble,
                symbol,
                bits_per_symbol,
                encoders,
                signal_ext,
            } => {
                let bits = SERVICE_BITS + 8 * psdu_bytes + TAIL_BITS * encoders as u64;
                let symbols = bits.div_ceil(bits_per_symbol.max(1) as u64);
                preamble + Dur(symbol.0 * symbols) + signal_ext
            }
        }
    }

    /// The data rate in bit/s (what the standard calls the PHY rate).
    pub fn rate_bps(&self) -> f64 {
        match *self {
            Phy::Dsss { rate_bps, .. } => rate_bps as f64,
            Phy::Ofdm {
                symbol,
                bits_per_symbol,
                ..
            } => bits_per_symbol as f64 / symbol.as_secs_f64(),
        }
    }

    /// Legacy OFDM (802.11a/g) at `mbps` (6, 9, 12, 18, 24, 36, 48, 54): 20 µs of
    /// preamble and SIGNAL, 4 µs symbols of `mbps` × 4 bits, one encoder.
    pub fn legacy_ofdm(mbps: u32, signal_ext: Dur) -> Phy {
        Phy::Ofdm {
            preamble: Dur::from_micros(20),
            symbol: Dur::from_micros(4),
            bits_per_symbol: mbps * 4,
            encoders: 1,
            signal_ext,
        }
    }

    pub(crate) fn validate(&self, what: &str) -> Result<(), String> {
        let ok = match *self {
            Phy::Dsss { rate_bps, .. } => rate_bps > 0,
            Phy::Ofdm {
                symbol,
                bits_per_symbol,
                encoders,
                ..
            } => symbol > Dur::ZERO && bits_per_symbol > 0 && encoders > 0,
        };
        if ok {
            Ok(())
        } else {
            Err(format!("{what}: the PHY rate must be > 0"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hand-computed airtimes of one 1538-byte MPDU (a 1500-byte IP packet in a QoS data
    /// frame) and of an ACK / Block ACK on each preset's PHY.
    #[test]
    fn airtime_by_hand() {
        // 802.11b, 11 Mbit/s, short PLCP (96 µs): 96 + 1536·8/11 µs = 96 + 1117.09 µs.
        let b = Phy::Dsss {
            rate_bps: 11_000_000,
            plcp: Dur::from_micros(96),
        };
        assert_eq!(b.duration(1536), Dur(96_000 + 1_117_091));
        // 802.11g, 54 Mbit/s: (16 + 12288 + 6) / 216 = 56.99 -> 57 symbols: 20 + 228 + 6 µs.
        let g = Phy::legacy_ofdm(54, Dur::from_micros(6));
        assert_eq!(g.duration(1536), Dur::from_micros(254));
        // Its ACK (14 bytes) at 24 Mbit/s: (16 + 112 + 6) / 96 -> 2 symbols: 20 + 8 + 6 µs.
        let g_ack = Phy::legacy_ofdm(24, Dur::from_micros(6));
        assert_eq!(g_ack.duration(14), Dur::from_micros(34));
        // HT MCS15, 40 MHz, short GI: 1080 bits per 3.6 µs symbol (300 Mbit/s), 40 µs of
        // HT-mixed preamble with 2 LTFs. 1544 bytes: (16 + 12352 + 6)/1080 -> 12 symbols.
        let ht = Phy::Ofdm {
            preamble: Dur::from_micros(40),
            symbol: Dur(3_600),
            bits_per_symbol: 1080,
            encoders: 1,
            signal_ext: Dur::ZERO,
        };
        assert_eq!(ht.duration(1544), Dur(40_000 + 12 * 3_600));
        assert!((ht.rate_bps() - 300e6).abs() < 1.0);
        // VHT MCS9, 80 MHz, 2 streams, short GI: 3120 bits per symbol (866.7 Mbit/s), two
        // BCC encoders. 10 subframes of 1544 bytes: (16 + 123520 + 12)/3120 -> 40 symbols.
        let vht = Phy::Ofdm {
            preamble: Dur::from_micros(40),
            symbol: Dur(3_600),
            bits_per_symbol: 3120,
            encoders: 2,
            signal_ext: Dur::ZERO,
        };
        assert_eq!(vht.duration(15_440), Dur(40_000 + 40 * 3_600));
        // A compressed Block ACK (32 bytes) at 24 Mbit/s in 5 GHz: (16+256+6)/96 -> 3 symbols.
        let ba = Phy::legacy_ofdm(24, Dur::ZERO);
        assert_eq!(ba.duration(32), Dur::from_micros(32));
    }
}
