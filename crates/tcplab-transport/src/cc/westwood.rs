//! TCP Westwood (Casetti, Gerla, Mascolo, Sanadidi, Wang, Wireless Networks 8(5), 2002),
//! with the per-ACK estimator of INET's `TcpWestwood` (seed 001, Alg. 2).
//!
//! Every ACK gives a bandwidth sample: the data it reports delivered over the time since
//! the previous ACK. A low-pass filter smooths the samples,
//! bwe = a·bwe + ((1 − a)/2)·(sample + previous sample), a = 19/21. After a loss the
//! window is set to what the path was seen to carry: ssthresh = bwe·RTTmin (at least two
//! segments), cwnd = ssthresh after three duplicate ACKs or one segment after a timeout
//! ("faster recovery"). Growth between losses is Reno's.

use super::{AckInfo, Capabilities, CcParams, CongestionControl, CongestionEvent, NewReno, Window};
use tcplab_core::{Dur, Time};

/// Casetti et al.'s ACK counting: a duplicate ACK reports one segment delivered, so the
/// cumulative ACK that follows counts only what the duplicates did not already report.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct AckCounter {
    /// Bytes already credited by duplicate ACKs.
    credited: u64,
}

impl AckCounter {
    /// A duplicate ACK: one segment.
    pub(super) fn dup_ack(&mut self, mss: u64) -> u64 {
        self.credited += mss;
        mss
    }

    /// A cumulative ACK of `acked` bytes: what the duplicates did not report, at least one
    /// segment (the ACK itself stands for one) and at most `cap` bytes.
    pub(super) fn cumulative(&mut self, acked: u64, mss: u64, cap: u64) -> u64 {
        let counted = if self.credited >= acked {
            mss
        } else {
            acked - self.credited
        };
        self.credited = 0;
        counted.min(cap)
    }
}

/// TCP Westwood: Reno growth, bandwidth-based window after losses.
#[derive(Clone, Debug)]
pub struct Westwood {
    growth: NewReno,
    /// Filter pole a (19/21).
    gain: f64,
    /// Most bytes one cumulative ACK may report, in segments (2).
    max_ack_segments: u64,
    counter: AckCounter,
    /// Filtered estimate and the previous sample, bytes per second.
    bwe: f64,
    sample: f64,
    last_ack: Time,
    rtt_min: Option<Dur>,
}

impl Westwood {
    /// Parameters (defaults from seed 001 Alg. 2 / INET `TcpWestwood`):
    /// - `gain` = 19/21: filter pole a in bwe = a·bwe + ((1 − a)/2)·(s + s_prev);
    /// - `max_ack_segments` = 2: a cumulative ACK reports at most this many segments
    ///   (delayed ACKs cover two; more means segments the duplicates already reported);
    /// - `abc_limit`: as for [`NewReno`].
    pub fn from_params(p: &mut CcParams) -> Result<Westwood, String> {
        let gain = p.take(
            "gain",
            19.0 / 21.0,
            |v| (0.0..1.0).contains(&v),
            "in [0, 1)",
        )?;
        let cap = p.take(
            "max_ack_segments",
            2.0,
            |v| v >= 1.0 && v.fract() == 0.0,
            "a whole number >= 1",
        )?;
        Ok(Westwood {
            growth: NewReno::from_params(p)?,
            gain,
            max_ack_segments: cap as u64,
            counter: AckCounter::default(),
            bwe: 0.0,
            sample: 0.0,
            last_ack: Time::ZERO,
            rtt_min: None,
        })
    }

    /// The filtered bandwidth estimate in bytes per second.
    pub fn bandwidth(&self) -> f64 {
        self.bwe
    }

    /// Seed 001 Alg. 2: one sample per ACK, skipped when no time has passed.
    fn update(&mut self, now: Time, bytes: u64) {
        let dt = now.saturating_since(self.last_ack);
        if dt > Dur::ZERO {
            let s = bytes as f64 / dt.as_secs_f64();
            self.bwe = self.gain * self.bwe + (1.0 - self.gain) / 2.0 * (s + self.sample);
            self.sample = s;
        }
        self.last_ack = now;
    }
}

super::default_from_params!(Westwood);

/// Westwood's "faster recovery": ssthresh = bw·RTTmin (at least 2 segments; Reno's rule
/// until both are known), cwnd = ssthresh after duplicate ACKs or 1 segment after a timeout.
pub(super) fn bandwidth_window(
    w: &mut Window,
    ev: CongestionEvent,
    bw: Option<f64>,
    rtt_min: Option<Dur>,
    flight: u64,
) {
    let ssthresh = match (bw, rtt_min) {
        (Some(bw), Some(r)) => ((bw * r.as_secs_f64()) as u64).max(2 * w.mss as u64),
        _ => super::reno_ssthresh(flight, w.mss),
    };
    super::reno_cut(w, ev, ssthresh, w.mss as u64);
}

/// The estimate (bit/s) and RTTmin, for `cc_trace`.
pub(super) fn trace_bandwidth(
    emit: &mut dyn FnMut(&'static str, f64),
    bw: f64,
    rtt_min: Option<Dur>,
) {
    emit("bwe_bps", bw * 8.0);
    if let Some(r) = rtt_min {
        emit("rtt_min_s", r.as_secs_f64());
    }
}

impl CongestionControl for Westwood {
    fn name(&self) -> &'static str {
        "westwood"
    }

    fn capabilities(&self) -> Capabilities {
        // A duplicate ACK counts as data that left the network (`on_dup_ack`).
        Capabilities::HEARS_DUP_ACKS
    }

    fn init(&mut self, _w: &mut Window, now: Time) {
        self.last_ack = now;
    }

    fn on_ack(&mut self, w: &mut Window, ack: &AckInfo) {
        if ack.bytes_acked == 0 {
            return; // a SACK-only update of a duplicate ACK, already counted
        }
        self.rtt_min = ack.min_rtt;
        let mss = w.mss as u64;
        let counted = self
            .counter
            .cumulative(ack.bytes_acked, mss, self.max_ack_segments * mss);
        self.update(ack.now, counted);
        self.growth.on_ack(w, ack);
    }

    fn on_dup_ack(&mut self, w: &mut Window, now: Time, _in_flight: u64) {
        let bytes = self.counter.dup_ack(w.mss as u64);
        self.update(now, bytes);
    }

    fn on_congestion_event(
        &mut self,
        w: &mut Window,
        ev: CongestionEvent,
        now: Time,
        in_flight: u64,
    ) {
        self.growth.on_congestion_event(w, ev, now, in_flight);
        bandwidth_window(w, ev, Some(self.bwe), self.rtt_min, in_flight);
    }

    fn trace(&self, emit: &mut dyn FnMut(&'static str, f64)) {
        trace_bandwidth(emit, self.bwe, self.rtt_min);
    }
}
