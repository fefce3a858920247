//! The TACK sender: paced transmissions with per-transmission packet numbers, loss
//! recovery driven by the receiver's reports, RTT_min from one-way delays, and any of the
//! crate's congestion controllers.
//!
//! - **Losses** are what ACKs report: an IACK's gap, or a TACK's unacked list. The
//!   latest transmission of a segment reported lost is queued and resent — the first
//!   retransmission at once, later ones at most once per smoothed RTT — paced, but not
//!   held back by cwnd (it replaces a packet that left the network). A retransmission timeout (srtt + 4·rttvar, at least `min_rto`) is
//!   the last resort: every transmission older than it is declared lost.
//! - **RTT.** Each TACK names the interval's min-OWD packet and its TACK delay: its RTT
//!   is a minimum-RTT sample, min-filtered over `rtt_window` (the advanced estimate,
//!   sent back to the receiver in data packets). The largest PN and its TACK delay give
//!   the legacy sample, which also feeds srtt and the RTO.
//! - **Rate.** Pacing is mandatory: at the controller's rate (BBR), or cwnd/srtt for a
//!   window controller (×2 in slow start, ×1.2 after, as Linux paces). BBR gets the
//!   receiver's delivery-rate estimate as its rate sample and the OWD minimum as RTT
//!   (TCP-TACK's receiver-side bandwidth estimation, §5.3).

use super::config::{LossResponse, TackConfig};
use super::ledger::Ledger;
use super::owd::MinFilter;
use super::packet::{AckKind, TackAck, TackData, TACK_DATA_HEADER_BYTES};
use crate::cc::{AckInfo, CongestionControl, CongestionEvent, Controller, Window};
use crate::pacing::Pacer;
use crate::rate::RateSample;
use crate::rtt::RttEstimator;
use tcplab_core::{Dur, Time};

/// What the sender did and heard.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TackSenderStats {
    pub packets_sent: u64,
    pub retransmissions: u64,
    pub bytes_sent: u64,
    pub tacks_received: u64,
    pub iacks_received: u64,
    /// Highest TACK sequence number seen (TACKs sent, as far as the sender knows).
    pub tack_seq_max: u32,
    pub loss_events: u64,
    pub lost_packets: u64,
    pub rtos: u64,
    pub acked_all_at: Option<Time>,
}

/// The TACK source (see the module docs).
#[derive(Debug)]
pub struct TackSender {
    flow: u32,
    cfg: TackConfig,
    cc: Controller,
    w: Window,
    led: Ledger,
    started: bool,
    /// Bytes the application has made available (`u64::MAX`: unlimited, until stopped).
    app_end: u64,
    snd_nxt: u64,
    next_pn: u64,
    delivered: u64,
    rcv_nxt: u64,
    rwnd: u64,
    rtt: RttEstimator,
    rtt_min: MinFilter,
    rtt_min_legacy: MinFilter,
    pacer: Pacer,
    pacing_wait: bool,
    retx_wait: Option<Time>,
    rto_at: Option<Time>,
    /// The highest PN sent when the current loss event began.
    recovery: Option<u64>,
    /// The controller is in its recovery for the current loss event (only with
    /// [`LossResponse::Conservation`]).
    in_cc_recovery: bool,
    /// Nonzero while app-limited: the delivered count at which that ends.
    app_limited_until: u64,
    stats: TackSenderStats,
}

impl TackSender {
    pub fn new(flow: u32, cfg: TackConfig, cc: Controller) -> Self {
        let mss = cfg.mss;
        TackSender {
            flow,
            cc,
            w: Window {
                cwnd: cfg.initial_cwnd as u64 * mss as u64,
                ssthresh: u64::MAX,
                mss,
            },
            led: Ledger::default(),
            started: false,
            app_end: cfg.total_bytes.unwrap_or(u64::MAX),
            snd_nxt: 0,
            next_pn: 0,
            delivered: 0,
            rcv_nxt: 0,
            rwnd: cfg.rcv_buf,
            rtt: RttEstimator::new(
                cfg.initial_rto,
                cfg.min_rto,
                Dur::from_secs(60),
                Dur::from_millis(1),
            ),
            rtt_min: MinFilter::new(cfg.rtt_window),
            rtt_min_legacy: MinFilter::new(cfg.rtt_window),
            pacer: Pacer::new((cfg.mss + TACK_DATA_HEADER_BYTES) as u64),
            pacing_wait: false,
            retx_wait: None,
            rto_at: None,
            recovery: None,
            in_cc_recovery: false,
            app_limited_until: 0,
            stats: TackSenderStats::default(),
            cfg,
        }
    }

    pub fn flow(&self) -> u32 {
        self.flow
    }
    /// A reported loss enters the controller's recovery (not the paper's co-designed
    /// BBR, see [`LossResponse`]).
    fn conserves(&self) -> bool {
        self.cfg.loss_response == LossResponse::Conservation
    }
    pub fn stats(&self) -> &TackSenderStats {
        &self.stats
    }
    pub fn window(&self) -> &Window {
        &self.w
    }
    pub fn controller(&self) -> &Controller {
        &self.cc
    }
    pub fn in_flight(&self) -> u64 {
        self.led.in_flight
    }
    pub fn srtt(&self) -> Option<Dur> {
        self.rtt.srtt()
    }
    pub fn latest_rtt(&self) -> Option<Dur> {
        self.rtt.latest()
    }
    /// RTT_min from one-way delays (the advanced estimate).
    pub fn rtt_min(&self) -> Option<Dur> {
        self.rtt_min.get()
    }
    /// RTT_min from legacy sampling (one sample per TACK, of its largest PN).
    pub fn rtt_min_legacy(&self) -> Option<Dur> {
        self.rtt_min_legacy.get()
    }
    pub fn rto(&self) -> Dur {
        self.rtt.rto()
    }
    /// Bytes written by the application so far (all of them for a finite transfer).
    pub fn app_bytes(&self) -> u64 {
        self.cfg
            .total_bytes
            .unwrap_or(self.snd_nxt)
            .min(self.app_end)
    }
    pub fn snd_max(&self) -> u64 {
        self.snd_nxt
    }
    /// The ACK-path loss the sender can infer: TACKs missing from the sequence.
    pub fn ack_path_loss(&self) -> Option<f64> {
        let n = self.stats.tack_seq_max;
        (n > 0).then(|| 1.0 - self.stats.tacks_received.min(n as u64) as f64 / n as f64)
    }

    pub fn start(&mut self, now: Time) {
        if !self.started {
            self.started = true;
            self.cc.init(&mut self.w, now);
        }
    }

    /// The application stops writing: what was written is still delivered.
    pub fn stop(&mut self, now: Time) {
        self.app_end = self.app_end.min(self.snd_nxt);
        self.check_done(now);
    }

    fn is_complete(&self) -> bool {
        self.stats.acked_all_at.is_some()
    }

    fn check_done(&mut self, now: Time) {
        if self.app_end != u64::MAX
            && self.rcv_nxt >= self.app_end
            && self.stats.acked_all_at.is_none()
        {
            self.stats.acked_all_at = Some(now);
            self.rto_at = None;
        }
    }

    fn seg_len(&self, seg: u64) -> u32 {
        let seq = seg * self.cfg.mss as u64;
        self.app_end.saturating_sub(seq).min(self.cfg.mss as u64) as u32
    }

    /// The pacing rate in bytes/s (see the module docs).
    pub fn pacing_rate(&self) -> u64 {
        if let Some(r) = self.cc.pacing_rate() {
            return r.max(1);
        }
        let srtt = self
            .rtt
            .srtt()
            .unwrap_or(Dur::from_millis(1))
            .max(Dur(1_000));
        let gain = if self.w.cwnd < self.w.ssthresh {
            2.0
        } else {
            1.2
        };
        ((gain * self.w.cwnd as f64 / srtt.as_secs_f64()) as u64).max(1)
    }

    fn arm_rto(&mut self, now: Time) {
        self.rto_at = (!self.led.idle()).then(|| now + self.rtt.rto());
    }

    /// Processes an ACK.
    pub fn handle_ack(&mut self, now: Time, a: &TackAck) {
        match a.kind {
            AckKind::Tack => {
                self.stats.tacks_received += 1;
                self.stats.tack_seq_max = self.stats.tack_seq_max.max(a.tack_seq);
            }
            _ => self.stats.iacks_received += 1,
        }
        self.rwnd = a.wnd as u64;
        // RTT samples, before the records they need are released.
        if let Some(r) = self.led.pn(a.largest) {
            let legacy = now - r.sent - Dur(a.largest_delay_ns as u64);
            if legacy > Dur::ZERO {
                self.rtt.on_sample(legacy, 0, 0); // RFC 6298: no sequence numbers
                self.rtt_min_legacy.update(now, legacy);
            }
        }
        let mut owd_sample = None;
        if a.kind == AckKind::Tack {
            let pn = a.largest.saturating_sub(a.min_owd_back as u64);
            if let Some(r) = self.led.pn(pn) {
                let s = now - r.sent - Dur(a.min_owd_delay_ns as u64);
                if s > Dur::ZERO {
                    self.rtt_min.update(now, s);
                    owd_sample = Some(s);
                }
            }
        }
        let (prior_delivered, sample_app_limited) = self
            .led
            .pn(a.largest)
            .map_or((self.delivered, true), |r| (r.delivered, r.app_limited));
        // What the ACK says.
        let mut acked = self.led.cumulative(a.rcv_nxt, self.cfg.mss);
        self.rcv_nxt = self.rcv_nxt.max(a.rcv_nxt);
        let mut lost = 0;
        let lo = a.base.max(self.led.floor());
        let end = a.base + a.covered as u64; // exclusive
        let mut cur = a.base;
        for g in a.gaps() {
            let (gs, ge) = (
                a.base + g.start as u64,
                a.base + g.start as u64 + g.len as u64,
            );
            for pn in cur.max(lo)..gs.min(end) {
                acked += self.led.ack(pn);
            }
            for pn in gs.max(lo)..ge.min(end) {
                lost += self.led.lose(pn) as u64;
            }
            cur = ge;
        }
        for pn in cur.max(lo)..end {
            acked += self.led.ack(pn);
        }
        acked += self.led.ack(a.largest);
        self.delivered += acked;
        if self.app_limited_until != 0 && self.delivered > self.app_limited_until {
            self.app_limited_until = 0;
        }
        let in_flight = self.led.in_flight;
        if lost > 0 {
            self.stats.lost_packets += lost;
            if self.recovery.is_none() {
                self.stats.loss_events += 1;
                self.recovery = Some(self.next_pn.saturating_sub(1));
            }
            if self.recovery.is_some() && !self.in_cc_recovery && self.conserves() {
                self.in_cc_recovery = true;
                self.cc.on_congestion_event(
                    &mut self.w,
                    CongestionEvent::FastRetransmit,
                    now,
                    in_flight,
                );
            }
        }
        if acked > 0 || a.delivery_rate > 0 {
            let rate = RateSample {
                delivered: acked,
                interval: Dur::ZERO,
                delivery_rate: a.delivery_rate as u64,
                is_app_limited: sample_app_limited,
                rtt: owd_sample,
                prior_delivered,
            };
            let info = AckInfo {
                now,
                bytes_acked: acked,
                rtt: owd_sample,
                srtt: self.rtt.srtt(),
                min_rtt: self.rtt_min.get(),
                in_flight,
                in_recovery: self.in_cc_recovery,
                rate: Some(rate),
                delivered: self.delivered,
                ece: false,
            };
            self.cc.on_ack(&mut self.w, &info);
        }
        if self.recovery.is_some_and(|r| a.largest >= r) && lost == 0 {
            self.recovery = None;
            if std::mem::take(&mut self.in_cc_recovery) {
                self.cc.on_recovery_exit(&mut self.w, now);
            }
        }
        self.led.trim();
        self.check_done(now);
        if !self.is_complete() {
            self.arm_rto(now);
        }
    }

    pub fn handle_timeout(&mut self, now: Time) {
        if self.rto_at.is_some_and(|t| t <= now) {
            self.stats.rtos += 1;
            let lost = self
                .led
                .lose_sent_before(now - self.rtt.srtt().unwrap_or(Dur::ZERO));
            self.stats.lost_packets += lost;
            let in_flight = self.led.in_flight;
            self.cc.on_congestion_event(
                &mut self.w,
                CongestionEvent::Rto {
                    repeated: self.rtt.backoff_count() > 0,
                },
                now,
                in_flight,
            );
            self.recovery = None;
            self.in_cc_recovery = false;
            self.rtt.back_off();
            // Resend even what was sent less than an RTT ago at the previous timeout.
            self.retx_wait = None;
            self.led.trim();
            self.arm_rto(now);
        }
    }

    /// The next data packet to send at `now`, if pacing, the window and the once-per-RTT
    /// rule allow one.
    pub fn poll_transmit(&mut self, now: Time) -> Option<TackData> {
        self.pacing_wait = false;
        self.retx_wait = None;
        if !self.started || self.is_complete() {
            return None;
        }
        let rate = self.pacing_rate();
        let quantum = self.cc.send_quantum();
        let wnd = self.w.cwnd.min(self.rwnd).max(self.cfg.mss as u64);
        let gap = self.rtt.srtt().unwrap_or(self.cfg.initial_rto);
        let seg = match self.led.next_retx(now, gap) {
            Ok(Some(seg)) => Some((seg, true)),
            Ok(None) => None,
            Err(at) => {
                self.retx_wait = Some(at);
                None
            }
        };
        let seg = seg.or_else(|| {
            let s = self.snd_nxt / self.cfg.mss as u64;
            (self.snd_nxt < self.app_end).then_some((s, false))
        });
        let Some((seg, retx)) = seg else {
            if self.led.in_flight < self.w.cwnd {
                self.app_limited_until = (self.delivered + self.led.in_flight).max(1);
            }
            return None;
        };
        let len = self.seg_len(seg);
        // A retransmission replaces a packet that left the network (lost packets are not
        // in flight): only new data waits for the window.
        if !retx && self.led.in_flight + len as u64 > wnd {
            return None;
        }
        self.pacer.begin_attempt();
        if self.pacer.holds(now, Some(rate), quantum) {
            self.pacing_wait = true;
            return None;
        }
        if retx {
            self.led.take_retx();
            self.stats.retransmissions += 1;
        } else {
            self.snd_nxt += len as u64;
        }
        let pn = self.next_pn;
        self.next_pn += 1;
        let app_limited = self.app_limited_until != 0;
        self.led
            .on_send(pn, seg, len, now, self.delivered, app_limited);
        let seq = seg * self.cfg.mss as u64;
        let d = TackData {
            flow: self.flow,
            len,
            seq,
            pn,
            pn_floor: self.led.floor(),
            sent_at: now,
            rtt_min_ns: self.rtt_min.get().map_or(0, |d| d.0),
            fin: seq + len as u64 == self.app_end,
            retransmission: retx,
        };
        self.pacer.on_sent(now, d.wire_len() as u64, Some(rate));
        self.cc.on_sent(now, len, self.led.in_flight);
        self.stats.packets_sent += 1;
        self.stats.bytes_sent += len as u64;
        if self.rto_at.is_none() {
            self.rto_at = Some(now + self.rtt.rto());
        }
        Some(d)
    }

    pub fn poll_timeout(&self) -> Option<Time> {
        if !self.started || self.is_complete() {
            return None;
        }
        let mut t = self.rto_at;
        let mut consider = |x: Option<Time>| {
            if let Some(x) = x {
                t = Some(t.map_or(x, |y| y.min(x)));
            }
        };
        consider(self.retx_wait);
        if self.pacing_wait {
            consider(
                self.pacer
                    .wakeup(Some(self.pacing_rate()), self.cc.send_quantum()),
            );
        }
        t
    }
}
