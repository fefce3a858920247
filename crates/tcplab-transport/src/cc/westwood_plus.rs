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
    /// - `abc_limit`: as for [`NewReno`].
    pub fn from_params(p: &mut CcParams) -> Result<WestwoodPlus, String> {
        let gain = p.take("gain", 0.9, |v| (0.0..1.0).contains(&v), "in [0, 1)")?;
        let min_ms = p.take("min_interval_ms", 0.0, |v| v >= 0.0, ">= 0")?;
        let seed = p.take("seed_first", 1.0, |v| v == 0.0 || v == 1.0, "0 or 1")?;
        Ok(WestwoodPlus {
            growth: NewReno::from_params(p)?,
            gain,
            min_interval: Dur::from_secs_f64(min_ms / 1000.0),
            seed_first: seed == 1.0,
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
        self.acked += bytes;
        match self.epoch {
            Some((start, len)) if now >= start + len => {
                let dt = now.saturating_since(start).as_secs_f64();
                if dt > 0.0 {
                    self.filter(self.acked as f64 / dt);
                }
                self.epoch = None;
            }
            Some(_) => return,
            None => {}
        }
        // Bytes of the ACK that opens an interval were delivered before it started.
        self.acked = 0;
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
        self.rtt_min = ack.min_rtt;
        let mss = w.mss as u64;
        let counted = self.counter.cumulative(ack.bytes_acked, mss, u64::MAX);
        self.account(ack.now, counted, ack.rtt.or(ack.srtt));
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
