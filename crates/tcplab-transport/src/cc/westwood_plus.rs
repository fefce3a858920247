//! TCP Westwood+ (Mascolo, Grieco, Ferorelli, Camarda, Piscitelli, 2004), with ns-3's
//! `TcpWestwoodPlus` filter.
//!
//! Westwood's per-ACK samples overestimate the bandwidth when ACKs are compressed, so
//! Westwood+ takes one sample per round-trip time: the bytes acknowledged during an
//! interval of one RTT divided by its length. ns-3 smooths the samples with a Tustin
//! filter, bw = a·bw + (1 − a)·(sample + previous sample)/2 with a = 0.9; after a loss
//! ssthresh = bw·RTTmin (at least two segments), as Westwood.
//!
//! Linux's `tcp_westwood.c` differs: an interval lasts at least max(RTT, 50 ms)
//! (`min_interval_ms` = 50 here), and the samples pass through two cascaded 7/8 EWMAs
//! instead of the Tustin filter. Both start from the first sample (`seed_first` = 1);
//! ns-3 starts its filter at zero (`seed_first` = 0), which makes an early loss set
//! ssthresh far below the path's capacity.
//!
//! Two switches follow what ns-3's `TcpSocketBase` hands its controllers through
//! `PktsAcked(tcb, segments, rtt)`: `rtt_sample = "smoothed"` takes `rtt` as ns-3 does,
//! the smoothed RTT (`m_srtt`), both as the sampling interval and for RTTmin (ns-3's
//! `m_minRtt` is the minimum of the smoothed RTT); `ack_counting = "ns3"` counts one
//! segment per duplicate ACK and everything a cumulative ACK acknowledges, so the
//! segments SACKed during a recovery count twice, once per duplicate ACK and again in the
//! ACK that ends the recovery (ns-3 counts a partial ACK as one segment; tcplab counts
//! what it acknowledges). The default `"credit"` counts each segment once, as Linux's
//! `westwood_acked_count`.
//!
//! How an interval is closed: by default (`interval = "ack"`) the first ACK one RTT after
//! it opened closes it, and the sample is the bytes acknowledged after the opening ACK
//! over the time measured between the two. ns-3 (`interval = "timer"`) counts the bytes
//! of the ACK that opens the interval too, closes it by a timer one RTT later and divides
//! by that RTT (`TcpWestwoodPlus::PktsAcked` adds `packetsAcked` before it schedules
//! `EstimateBW` after `rtt`, which divides by `rtt`): one ACK more per interval than was
//! delivered in it, so the estimate runs above the rate by one ACK per RTT, and a loss
//! sets ssthresh at or above the window it ends.

use super::westwood::{bandwidth_window, trace_bandwidth, AckCounter};
use super::{AckInfo, Capabilities, CcParams, CongestionControl, CongestionEvent, NewReno, Window};
use tcplab_core::{Dur, Time};

/// TCP Westwood+: Reno growth, one bandwidth sample per RTT.
#[derive(Clone, Debug)]
pub struct WestwoodPlus {
    growth: NewReno,
    gain: f64,
    min_interval: Dur,
    seed_first: bool,
    smoothed: bool,
    double_count: bool,
    /// ns-3's interval (module docs).
    timer: bool,
    counter: AckCounter,
    /// Start and length of the sampling interval under way.
    epoch: Option<(Time, Dur)>,
    acked: u64,
    /// Filtered estimate and the previous sample, bytes per second.
    bw: f64,
    sample: f64,
    samples: u64,
    rtt_min: Option<Dur>,
}

impl WestwoodPlus {
    /// Parameters:
    /// - `gain` = 0.9: Tustin filter pole a (ns-3);
    /// - `min_interval_ms` = 0: shortest sampling interval (ns-3: one RTT; Linux: 50 ms);
    /// - `seed_first` = 1: the first sample initialises the filter (Linux); 0 starts it
    ///   at zero (ns-3);
    /// - `rtt_sample` = `"latest"`: the RTT that sets the interval and RTTmin; `"smoothed"`:
    ///   the smoothed RTT, as ns-3 (module docs);
    /// - `ack_counting` = `"credit"`: each segment once; `"ns3"`: as ns-3 (module docs);
    /// - `interval` = `"ack"`: closed by an ACK, over the measured time; `"timer"`: as
    ///   ns-3 (module docs);
    /// - `abc_limit`: as for [`NewReno`].
    pub fn from_params(p: &mut CcParams) -> Result<WestwoodPlus, String> {
        let gain = p.take("gain", 0.9, |v| (0.0..1.0).contains(&v), "in [0, 1)")?;
        let min_ms = p.take("min_interval_ms", 0.0, |v| v >= 0.0, ">= 0")?;
        let seed = p.take("seed_first", 1.0, |v| v == 0.0 || v == 1.0, "0 or 1")?;
        let smoothed =
            p.take_choice("rtt_sample", "latest", &["latest", "smoothed"], &[])? == "smoothed";
        let double_count =
            p.take_choice("ack_counting", "credit", &["credit", "ns3"], &[])? == "ns3";
        let timer = p.take_choice("interval", "ack", &["ack", "timer"], &[])? == "timer";
        Ok(WestwoodPlus {
            growth: NewReno::from_params(p)?,
            gain,
            min_interval: Dur::from_secs_f64(min_ms / 1000.0),
            seed_first: seed == 1.0,
            smoothed,
            double_count,
            timer,
            counter: AckCounter::default(),
            epoch: None,
            acked: 0,
            bw: 0.0,
            sample: 0.0,
            samples: 0,
            rtt_min: None,
        })
    }

    /// The filtered bandwidth estimate in bytes per second.
    pub fn bandwidth(&self) -> f64 {
        self.bw
    }

    /// Counts `bytes` into the interval; closes it once it has lasted its length, and
    /// opens the next one with the latest RTT (`rtt`) as its length.
    fn account(&mut self, now: Time, bytes: u64, rtt: Option<Dur>) {
        if !self.timer {
            self.acked += bytes;
        }
        match self.epoch {
            Some((start, len)) if now >= start + len => {
                // ns-3's timer expired before this ACK: the interval is exactly `len`.
                let dt = if self.timer {
                    len
                } else {
                    now.saturating_since(start)
                };
                if dt > Dur::ZERO {
                    self.filter(self.acked as f64 / dt.as_secs_f64());
                }
                self.epoch = None;
            }
            Some(_) => {
                if self.timer {
                    self.acked += bytes;
                }
                return;
            }
            None => {}
        }
        // Bytes of the ACK that opens an interval were delivered before it started; ns-3
        // counts them in it.
        self.acked = if self.timer { bytes } else { 0 };
        if let Some(r) = rtt {
            self.epoch = Some((now, r.max(self.min_interval)));
        }
    }

    fn filter(&mut self, s: f64) {
        if self.samples == 0 && self.seed_first {
            self.bw = s;
        } else {
            self.bw = self.gain * self.bw + (1.0 - self.gain) * (s + self.sample) / 2.0;
        }
        self.sample = s;
        self.samples += 1;
    }
}

super::default_from_params!(WestwoodPlus);

impl CongestionControl for WestwoodPlus {
    fn name(&self) -> &'static str {
        "westwoodplus"
    }

    fn capabilities(&self) -> Capabilities {
        // A duplicate ACK counts as data that left the network (`on_dup_ack`).
        Capabilities::HEARS_DUP_ACKS
    }

    fn on_ack(&mut self, w: &mut Window, ack: &AckInfo) {
        if ack.bytes_acked == 0 {
            return; // a SACK-only update of a duplicate ACK, already counted
        }
        let mss = w.mss as u64;
        let credited = self.counter.cumulative(ack.bytes_acked, mss, u64::MAX);
        let counted = if self.double_count {
            ack.bytes_acked
        } else {
            credited
        };
        let rtt = if self.smoothed {
            let s = ack.srtt.or(ack.rtt);
            if let Some(s) = s {
                self.rtt_min = Some(self.rtt_min.map_or(s, |m| m.min(s)));
            }
            s
        } else {
            self.rtt_min = ack.min_rtt;
            ack.rtt.or(ack.srtt)
        };
        self.account(ack.now, counted, rtt);
        self.growth.on_ack(w, ack);
    }

    fn on_dup_ack(&mut self, w: &mut Window, now: Time, _in_flight: u64) {
        let bytes = self.counter.dup_ack(w.mss as u64);
        if self.epoch.is_some() {
            self.account(now, bytes, None);
        }
    }

    fn on_congestion_event(
        &mut self,
        w: &mut Window,
        ev: CongestionEvent,
        now: Time,
        in_flight: u64,
    ) {
        self.growth.on_congestion_event(w, ev, now, in_flight);
        let bw = (self.samples > 0).then_some(self.bw);
        bandwidth_window(w, ev, bw, self.rtt_min, in_flight);
    }

    fn trace(&self, emit: &mut dyn FnMut(&'static str, f64)) {
        trace_bandwidth(emit, self.bw, self.rtt_min);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn ack(now_ms: u64, bytes: u64, rtt_ms: u64, srtt_ms: u64) -> AckInfo {
        AckInfo {
            rtt: Some(Dur::from_millis(rtt_ms)),
            srtt: Some(Dur::from_millis(srtt_ms)),
            min_rtt: Some(Dur::from_millis(rtt_ms)),
            ..AckInfo::bare(Time::ZERO + Dur::from_millis(now_ms), bytes)
        }
    }

    /// One interval of 10 ms in which 9 duplicate ACKs report 9 segments, the ACK ending
    /// the recovery then acknowledges those 9 and the lost one, and one more segment is
    /// acknowledged as the interval closes: 11 segments were delivered. Counting each
    /// once gives 11 segments per 10 ms; ns-3's counting (`ack_counting = "ns3"`) 20.
    fn one_recovery(counting: &str) -> f64 {
        let mut p = CcParams::new()
            .with_name("ack_counting", counting)
            .with("gain", 0.0)
            .with("seed_first", 1.0);
        let mut cc = WestwoodPlus::from_params(&mut p).unwrap();
        let mut w = Window {
            cwnd: 20 * MSS,
            ssthresh: 10 * MSS,
            mss: MSS as u32,
        };
        cc.on_ack(&mut w, &ack(0, MSS, 10, 10)); // opens the interval
        for i in 1..=9 {
            cc.on_dup_ack(&mut w, Time::ZERO + Dur::from_millis(i), 0);
        }
        cc.on_ack(&mut w, &ack(9, 10 * MSS, 10, 10));
        cc.on_ack(&mut w, &ack(10, 0, 10, 10)); // nothing: a SACK-only update
        cc.on_ack(&mut w, &ack(10, MSS, 10, 10)); // closes it
        cc.bandwidth() * 0.010 / MSS as f64
    }

    #[test]
    fn ns3_counting_counts_sacked_segments_twice() {
        assert_eq!(one_recovery("credit"), 11.0);
        assert_eq!(one_recovery("ns3"), 20.0);
    }

    /// ACKs of 2 segments at 0, 5 and 15 ms, RTT 10 ms: by ACK, the interval opened at 0
    /// is closed at 15 ms and holds the second and third ACKs' 4 segments over 15 ms; by
    /// ns-3's timer it ended at 10 ms and holds the first two ACKs' 4 segments over 10 ms.
    #[test]
    fn ns3_timer_interval_counts_the_opening_ack() {
        for (interval, segments) in [("ack", 4.0 * 10.0 / 15.0), ("timer", 4.0)] {
            let mut p = CcParams::new()
                .with_name("interval", interval)
                .with("gain", 0.0)
                .with("seed_first", 1.0);
            let mut cc = WestwoodPlus::from_params(&mut p).unwrap();
            let mut w = Window {
                cwnd: 20 * MSS,
                ssthresh: u64::MAX,
                mss: MSS as u32,
            };
            for t in [0, 5, 15] {
                cc.on_ack(&mut w, &ack(t, 2 * MSS, 10, 10));
            }
            let got = cc.bandwidth() * 0.010 / MSS as f64;
            assert!((got - segments).abs() < 1e-9, "{interval}: {got}");
        }
    }

    /// `rtt_sample = "smoothed"` takes RTTmin from the smoothed RTT (ns-3's `m_minRtt`),
    /// so a loss sets ssthresh = bw·min(SRTT), not bw·min(RTT).
    #[test]
    fn smoothed_rtt_sets_rtt_min() {
        for (sample, rtt_min_ms) in [("latest", 10), ("smoothed", 30)] {
            let mut p = CcParams::new().with_name("rtt_sample", sample);
            let mut cc = WestwoodPlus::from_params(&mut p).unwrap();
            let mut w = Window {
                cwnd: 20 * MSS,
                ssthresh: u64::MAX,
                mss: MSS as u32,
            };
            cc.on_ack(&mut w, &ack(0, MSS, 10, 30));
            assert_eq!(cc.rtt_min, Some(Dur::from_millis(rtt_min_ms)), "{sample}");
        }
    }
}
