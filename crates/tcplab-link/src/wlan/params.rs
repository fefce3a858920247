//! The parameters of an 802.11 cell and the presets for 802.11b/g/n/ac.
//!
//! Every constant is a named field; a preset only fills them in. The presets follow the
//! TACK paper's Figure 7 (PHY rate 11 / 54 / 300 / 866.7 Mbit/s) with the standard's
//! timing (IEEE 802.11-2020 Tables 16-4 and 17-21 via ns-3's `wifi-constants`) and ns-3's
//! default A-MPDU limits; docs/wlan.md ("The presets and their sources") cites each
//! constant and "UDP ceilings of the presets" derives what one saturating UDP flow
//! carries.

use super::mcs::{self, McsConfig, McsTable};
use super::nist::Modulation;
use super::phy::Phy;
use tcplab_core::Dur;

/// A-MPDU aggregation limits (802.11n/ac): one PPDU carries up to `max_frames` MPDUs
/// (the Block Ack window), `max_bytes` of A-MPDU and `max_time` of airtime.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ampdu {
    pub max_frames: u32,
    pub max_bytes: u64,
    pub max_time: Dur,
}

/// Everything the DCF and the PHY of one cell need (see the module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct WlanParams {
    /// The PHY data frames use.
    pub data_phy: Phy,
    /// The PHY of control responses (ACK, Block ACK): a basic rate.
    pub control_phy: Phy,
    pub slot: Dur,
    pub sifs: Dur,
    /// DIFS / AIFS = SIFS + `aifsn` slots (2: DCF's DIFS; 3: EDCA best effort).
    pub aifsn: u32,
    /// Contention window bounds in slots: backoff is uniform in [0, CW], CW doubles
    /// (2·CW + 1) after each failed attempt up to `cw_max`, back to `cw_min` on success.
    pub cw_min: u32,
    pub cw_max: u32,
    /// Transmission attempts per MPDU before it is dropped (dot11ShortRetryLimit: 7).
    pub retry_limit: u32,
    /// Bytes added to each IP packet to make an MPDU: MAC header, LLC/SNAP and FCS.
    pub mac_overhead: u32,
    /// ACK frame (14) and compressed Block ACK frame (32) sizes in bytes.
    pub ack_bytes: u32,
    pub block_ack_bytes: u32,
    /// A-MPDU aggregation with Block ACK; `None`: one MPDU per access, a normal ACK.
    pub ampdu: Option<Ampdu>,
    /// Whether the stations aggregate too (the access point always does with `ampdu`):
    /// `false` sends a station's MPDUs, its transport ACKs among them, one per access.
    pub station_ampdu: bool,
    /// Packets each transmit queue holds (one queue per destination at each node).
    pub queue: u32,
    /// Packets a node holds over all its destinations' queues together, `None`: no limit
    /// beyond `queue`. ns-3's model keeps one `WifiMacQueue` per access category shared
    /// by every receiver (`MaxSize` 500 packets), so its access point holds 500 packets
    /// however many stations it serves.
    pub node_queue: Option<u32>,
    /// How a node picks the destination queue an access serves: round robin over the
    /// non-empty queues after each successful access (Linux mac80211's per-station
    /// scheduling), or oldest head first (`true`: ns-3's `FcfsWifiQueueScheduler`, whose
    /// priority is the enqueue time of a queue's head, so MPDUs left in error go back out
    /// in the node's next access).
    pub fcfs: bool,
    /// Probability that an MPDU is received in error (per station link, both directions).
    pub per: f64,
    /// The data PHY's modulation and code rate (`None` for DSSS or a rate outside the
    /// standard's set), for the SNR error model.
    pub modulation: Option<Modulation>,
    /// The HT/VHT MCS of the data PHY (`None` for legacy PHYs or a `data_rate`).
    pub mcs: Option<McsConfig>,
    /// Minstrel-HT style rate adaptation over the MCS group of `mcs` (`minstrel.rs`);
    /// `false`: the fixed `data_phy`.
    pub minstrel: bool,
    /// Signal-to-noise ratio of every station's link in dB: frame errors follow from it
    /// by ns-3's NIST model (`nist.rs`), on top of `per`. `None`: only `per`.
    pub snr_db: Option<f64>,
    /// Block Ack receive reordering (with A-MPDU only): the recipient's reorder timeout,
    /// or `None` to hand MPDUs up as they arrive (see `medium.rs`).
    pub reorder_timeout: Option<Dur>,
}

/// The names [`WlanParams::preset`] understands.
pub const PRESETS: &[&str] = &["802.11b", "802.11g", "802.11n", "802.11ac"];

/// 2^(13+7) − 1: the largest VHT A-MPDU (Maximum A-MPDU Length Exponent 7).
pub const VHT_MAX_AMPDU_BYTES: u64 = 1_048_575;
/// 2^16 − 1: the largest HT A-MPDU.
pub const HT_MAX_AMPDU_BYTES: u64 = 65_535;
/// aPPDUMaxTime of HT/VHT: 5.484 ms.
pub const PPDU_MAX_TIME: Dur = Dur(5_484_000);
/// Linux mac80211's receive reorder timeout, `HT_RX_REORDER_BUF_TIMEOUT` = HZ/10
/// (net/mac80211/rx.c): 100 ms.
pub const REORDER_TIMEOUT: Dur = Dur(100_000_000);
/// ns-3's default A-MPDU size limit for best effort, `WifiMac::BE_MaxAmpduSize` = 65,535
/// bytes (ns-3 3.44 `src/wifi/model/wifi-mac.cc`), used by the n and ac presets.
pub const NS3_BE_MAX_AMPDU_BYTES: u64 = 65_535;
/// The Block Ack window, 64 MPDUs (IEEE 802.11-2020 10.25; mac80211's
/// `IEEE80211_MAX_AMPDU_BUF_HT`, ns-3's default buffer size for HT/VHT agreements).
pub const BLOCK_ACK_WINDOW: u32 = 64;

/// The A-MPDU limits of the 802.11n and 802.11ac presets, ns-3's Wi-Fi model's defaults:
/// the Block Ack window (64 MPDUs), `BE_MaxAmpduSize` (65,535 bytes) and no airtime cap
/// but aPPDUMaxTime (5.484 ms, which ns-3's `MpduAggregator` enforces). One source for
/// both presets, the one `scripts/ns3_wifi_side_by_side.py` checks the cell against.
pub const NS3_AMPDU: Ampdu = Ampdu {
    max_frames: BLOCK_ACK_WINDOW,
    max_bytes: NS3_BE_MAX_AMPDU_BYTES,
    max_time: PPDU_MAX_TIME,
};

impl WlanParams {
    /// The DIFS (AIFS): SIFS + `aifsn` slots.
    pub fn difs(&self) -> Dur {
        self.sifs + Dur(self.slot.0 * self.aifsn as u64)
    }

    /// A preset by name (see [`PRESETS`]).
    pub fn preset(name: &str) -> Option<WlanParams> {
        let us = Dur::from_micros;
        let common = WlanParams {
            data_phy: Phy::legacy_ofdm(54, Dur::ZERO),
            control_phy: Phy::legacy_ofdm(24, Dur::ZERO),
            slot: us(9),
            sifs: us(16),
            aifsn: 2,
            cw_min: 15,
            cw_max: 1023,
            retry_limit: 7,
            mac_overhead: 24 + 8 + 4,
            ack_bytes: 14,
            block_ack_bytes: 32,
            ampdu: None,
            station_ampdu: true,
            queue: 1000,
            node_queue: None,
            fcfs: false,
            per: 0.0,
            modulation: None,
            mcs: None,
            minstrel: false,
            snr_db: None,
            // Every HT/VHT A-MPDU runs under a Block Ack agreement, whose recipient
            // reorders (IEEE 802.11-2020 10.25.6); inert without aggregation.
            reorder_timeout: Some(REORDER_TIMEOUT),
        };
        Some(match name {
            // DSSS/CCK 11 Mbit/s with the short PLCP (72 + 24 µs); ACKs at 2 Mbit/s (the
            // highest basic rate of the usual {1, 2} basic set); slot 20, SIFS 10, CWmin 31.
            "802.11b" => WlanParams {
                data_phy: Phy::Dsss {
                    rate_bps: 11_000_000,
                    plcp: us(96),
                },
                control_phy: Phy::Dsss {
                    rate_bps: 2_000_000,
                    plcp: us(96),
                },
                slot: us(20),
                sifs: us(10),
                cw_min: 31,
                ..common
            },
            // ERP-OFDM 54 Mbit/s, 6 µs signal extension, short slot, SIFS 10; ACKs at 24
            // Mbit/s; CWmin 15: the TACK paper's router runs "802.11g only" (§6.5), a BSS
            // of ERP stations only, whose aCWmin is 15 (IEEE 802.11-2020 clause 18; Linux
            // mac80211's `ieee80211_set_wmm_default` sets 15 in G mode, 31 only for 11b).
            "802.11g" => WlanParams {
                data_phy: Phy::legacy_ofdm(54, us(6)),
                control_phy: Phy::legacy_ofdm(24, us(6)),
                sifs: us(10),
                cw_min: 15,
                // 54 Mbit/s: 64-QAM, code rate 3/4 (IEEE 802.11-2020 Table 17-4).
                modulation: Some(Modulation {
                    bits: 6,
                    rate_num: 3,
                    rate_den: 4,
                }),
                ..common
            },
            // HT MCS15: 2 streams, 64-QAM 5/6, 40 MHz, 400 ns GI = 300 Mbit/s; HT-mixed
            // preamble 16 + 4 + 8 + 4·(1 + 2) = 40 µs; 5 GHz timing; QoS data frames (26-byte
            // header); EDCA best effort (AIFSN 3); ns-3's A-MPDU limits (`NS3_AMPDU`).
            "802.11n" => WlanParams {
                data_phy: Phy::Ofdm {
                    preamble: us(40),
                    symbol: Dur(3_600),
                    bits_per_symbol: 1080,
                    encoders: 1,
                    signal_ext: Dur::ZERO,
                },
                aifsn: 3,
                mac_overhead: 26 + 8 + 4,
                modulation: Some(mcs::modulation(McsTable::Ht, 15)),
                mcs: Some(McsConfig {
                    table: McsTable::Ht,
                    mcs: 15,
                    streams: 2,
                    width_mhz: 40,
                    short_gi: true,
                }),
                ampdu: Some(NS3_AMPDU),
                ..common
            },
            // VHT MCS9: 2 streams, 256-QAM 5/6, 80 MHz, 400 ns GI = 866.7 Mbit/s (two BCC
            // encoders); VHT-SU preamble 16 + 4 + 8 + 4 + 4·2 = 40 µs; ns-3's A-MPDU limits
            // (`NS3_AMPDU`; the standard allows VHT up to `VHT_MAX_AMPDU_BYTES`).
            "802.11ac" => WlanParams {
                data_phy: Phy::Ofdm {
                    preamble: us(40),
                    symbol: Dur(3_600),
                    bits_per_symbol: 3120,
                    encoders: 2,
                    signal_ext: Dur::ZERO,
                },
                aifsn: 3,
                mac_overhead: 26 + 8 + 4,
                modulation: Some(mcs::modulation(McsTable::Vht, 9)),
                mcs: Some(McsConfig {
                    table: McsTable::Vht,
                    mcs: 9,
                    streams: 2,
                    width_mhz: 80,
                    short_gi: true,
                }),
                ampdu: Some(NS3_AMPDU),
                ..common
            },
            _ => return None,
        })
    }

    /// Checks the parameters for consistency; the message names the offending field.
    pub fn validate(&self) -> Result<(), String> {
        self.data_phy.validate("data_phy")?;
        self.control_phy.validate("control_phy")?;
        if self.slot == Dur::ZERO {
            return Err("slot: must be > 0".into());
        }
        if self.cw_min == 0 || self.cw_max < self.cw_min {
            return Err("cw_min / cw_max: need 0 < cw_min <= cw_max".into());
        }
        if self.retry_limit == 0 {
            return Err("retry_limit: at least one attempt".into());
        }
        if self.queue == 0 {
            return Err("queue: must hold at least one packet".into());
        }
        if self.node_queue == Some(0) {
            return Err("node_queue: must hold at least one packet".into());
        }
        if !(0.0..1.0).contains(&self.per) {
            return Err("per: a probability in [0, 1)".into());
        }
        if let Some(snr) = self.snr_db {
            if !snr.is_finite() {
                return Err("snr: a finite number of dB".into());
            }
            if self.modulation.is_none() {
                return Err(
                    "snr: the error model needs an OFDM data rate of the standard \
                    (802.11g/n/ac; with n/ac set it by mcs, not data_rate)"
                        .into(),
                );
            }
        }
        if self.minstrel && self.mcs.is_none() {
            return Err(
                "rate_control: Minstrel adapts the MCS of 802.11n/ac (no data_rate)".into(),
            );
        }
        if self.reorder_timeout == Some(Dur::ZERO) {
            return Err("reorder_timeout: must be > 0".into());
        }
        if let Some(a) = self.ampdu {
            if a.max_frames == 0 || a.max_bytes == 0 || a.max_time == Dur::ZERO {
                return Err("ampdu limits must be > 0".into());
            }
        }
        Ok(())
    }

    /// Airtime of a single-MPDU data PPDU carrying an IP packet of `ip_bytes`.
    pub fn frame_airtime(&self, ip_bytes: u32) -> Dur {
        self.data_phy
            .duration((ip_bytes + self.mac_overhead) as u64)
    }

    /// The control response to a data PPDU: a Block ACK when aggregating, else an ACK.
    pub fn response_airtime(&self) -> Dur {
        let bytes = if self.ampdu.is_some() {
            self.block_ack_bytes
        } else {
            self.ack_bytes
        };
        self.control_phy.duration(bytes as u64)
    }
}
