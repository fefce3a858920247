//! The cell as a medium: DCF contention, collisions, retries, aggregation, frame errors.
//!
//! **Slots.** The channel alternates between busy periods (a frame exchange, or a
//! collision and its ACK timeout) and idle periods. An idle period's *slot origin* is the
//! end of the previous busy period plus AIFS (DIFS); slot `k` starts `k` slots later. A
//! node with a frame transmits in slot `max(backoff, from_slot)`: its backoff counter, or
//! the first slot boundary after its frame arrived. Every node's counter counts down in
//! idle slots whether or not it has a frame (post-backoff), and a busy period takes one
//! more off every deferring counter: the EDCA rule that lets a counter decrement at the
//! slot boundary where AIFS ends, which is also what Bianchi's model assumes (a busy
//! "virtual slot" advances every counter). A node transmits when its slot comes; two or
//! more in the same slot collide.
//!
//! **Outcomes are decided when the PPDU starts**, so each access costs two wake-ups:
//! the start (contention resolved, counters and queues updated, the next idle period's
//! origin known) and the delivery of its MPDUs at the end of the PPDU. A success frees
//! its MPDUs (each may still be lost to the link's PER; a Block ACK reports which) and
//! resets CW; a collision, or an access whose every MPDU was in error, doubles CW. An MPDU
//! that used its `retry_limit` attempts is dropped and reported by `poll_dropped`. After
//! every access the node draws a new backoff from [0, CW].
//!
//! **Block Ack agreements.** With A-MPDU aggregation and a reorder timeout
//! ([`WlanParams::reorder_timeout`]), each (originator, recipient) pair numbers its MPDUs;
//! an A-MPDU only carries MPDUs within the agreement's window of `ampdu.max_frames`
//! sequence numbers from the oldest unacknowledged one (IEEE 802.11-2020 10.25.2), and
//! the recipient hands MPDUs up in sequence through its reordering buffer (`reorder.rs`).
//! An MPDU dropped at the retry limit moves the recipient's window as the originator's
//! BlockAckReq does (its airtime is not charged). Without frame errors (`per` 0, no SNR)
//! MPDUs arrive in sequence and a buffer would never hold one: the cell then skips the
//! buffers, and results are those of a cell without them.

use super::columns::{series, summary};
use super::minstrel::{Minstrel, PERFECT_BYTES};
use super::nist::{self, Modulation};
use super::params::WlanParams;
use super::phy::Phy;
use super::reorder::{Reorder, Verdict};
use super::station::{Frame, Station, StationCounters};
use crate::admit::Admit;
use crate::medium::{Delivery, Medium, Port};
use crate::Packet;
use std::collections::VecDeque;
use tcplab_core::{Dur, Metrics, Rng, Time};

/// A-MPDU subframe delimiter.
const DELIMITER: u64 = 4;

/// A data rate a node may send at: the fixed one, or each of Minstrel's candidates.
#[derive(Clone, Copy, Debug)]
struct Rate {
    phy: Phy,
    modulation: Option<Modulation>,
    /// Airtime of a `PERFECT_BYTES` MPDU, in seconds (Minstrel's yardstick).
    perfect: f64,
    kbps: u64,
}

/// An MPDU at the end of its PPDU, or (`pkt: None`) a window move to `seq` after the
/// originator dropped `seq - 1`.
#[derive(Debug)]
struct Arrival<P> {
    from: Port,
    to: Port,
    seq: u64,
    pkt: Option<P>,
}

/// An 802.11 cell (see the module docs). Port 0 is the access point by convention; the
/// model itself treats every node alike.
#[derive(Debug)]
pub struct Wlan<P> {
    p: WlanParams,
    difs: Dur,
    /// SIFS + the ACK / Block ACK airtime (also the ACK timeout after a failure).
    response: Dur,
    sta: Vec<Station<P>>,
    /// Frame error rate of each node's link with the access point.
    per: Vec<f64>,
    /// The data rates: one, or Minstrel's candidates (lowest first).
    rates: Vec<Rate>,
    perfect: Vec<f64>,
    /// ln(1 − bit error probability after decoding) of each node's link at its SNR
    /// (ns-3's NIST model) at each rate, `port * rates + rate`; 0 without an SNR.
    ln_ok: Vec<f64>,
    /// Minstrel's state per (sender, receiver), `from * ports + to`, if adapting.
    minstrel: Vec<Minstrel>,
    origin: Time,
    next_tx: Option<Time>,
    /// What reaches the recipients, in time order: straight to the transport, or (when
    /// reordering) to the recipients' reordering buffers.
    deliveries: VecDeque<(Time, Delivery<P>)>,
    arrivals: VecDeque<(Time, Arrival<P>)>,
    /// Handed up by a reordering buffer, ready for `poll_transmit`.
    ready: VecDeque<Delivery<P>>,
    /// The reorder timeout when Block Ack agreements reorder (`None`: MPDUs are handed
    /// up as they arrive).
    reorder_timeout: Option<Dur>,
    /// Whether the agreements reorder: with a timeout and frame errors possible (without
    /// errors MPDUs arrive in sequence and the buffers would never hold one).
    reordering: bool,
    /// One receive window per (originator, recipient), `from * ports + to`; the indices
    /// of those holding MPDUs behind a gap.
    reorder: Vec<Reorder<P>>,
    waiting: Vec<usize>,
    dropped: Vec<P>,
    /// Scratch space, reused on every access.
    winners: Vec<usize>,
    batch: Vec<Frame<P>>,
    keep: Vec<Frame<P>>,
    rng: Rng,
    /// Channel time in busy periods, and the part lost to collisions.
    busy: Dur,
    collision_time: Dur,
}

impl<P: Packet> Wlan<P> {
    /// A cell of `ports` nodes with parameters `p` (validated with
    /// [`WlanParams::validate`]); `rng` draws backoffs and frame errors.
    pub fn new(p: WlanParams, ports: usize, rng: Rng) -> Self {
        assert!(
            ports >= 2,
            "a cell has an access point and at least one station"
        );
        debug_assert!(p.validate().is_ok(), "{:?}", p.validate());
        let reorder_timeout = p.ampdu.and(p.reorder_timeout);
        let rate = |phy: Phy, modulation| Rate {
            phy,
            modulation,
            perfect: (phy.duration(PERFECT_BYTES)).as_secs_f64(),
            kbps: (phy.rate_bps() / 1e3).round() as u64,
        };
        let rates: Vec<Rate> = match (p.minstrel, p.mcs) {
            (true, Some(m)) => m
                .group()
                .iter()
                .map(|c| rate(c.phy().expect("a valid MCS"), Some(c.modulation())))
                .collect(),
            _ => vec![rate(p.data_phy, p.modulation)],
        };
        let windows = if reorder_timeout.is_some() {
            ports * ports
        } else {
            0
        };
        let mut w = Wlan {
            difs: p.difs(),
            response: p.sifs + p.response_airtime(),
            sta: (0..ports).map(|_| Station::new(ports, p.cw_min)).collect(),
            per: vec![p.per; ports],
            ln_ok: rates
                .iter()
                .map(|r| ln_ok(r.modulation, p.snr_db))
                .cycle()
                .take(ports * rates.len())
                .collect(),
            minstrel: if p.minstrel {
                (0..ports * ports)
                    .map(|_| Minstrel::new(rates.len()))
                    .collect()
            } else {
                vec![]
            },
            perfect: rates.iter().map(|r| r.perfect).collect(),
            rates,
            origin: Time::ZERO,
            next_tx: None,
            deliveries: VecDeque::new(),
            arrivals: VecDeque::new(),
            ready: VecDeque::new(),
            reorder_timeout,
            reordering: false,
            reorder: (0..windows).map(|_| Reorder::default()).collect(),
            waiting: Vec::new(),
            dropped: Vec::new(),
            winners: Vec::with_capacity(ports),
            batch: Vec::new(),
            keep: Vec::new(),
            rng,
            busy: Dur::ZERO,
            collision_time: Dur::ZERO,
            p,
        };
        w.update_reordering();
        w
    }

    fn update_reordering(&mut self) {
        self.reordering = self.reorder_timeout.is_some()
            && (self.per.iter().any(|&p| p > 0.0) || self.ln_ok.iter().any(|&l| l != 0.0));
    }

    pub fn params(&self) -> &WlanParams {
        &self.p
    }

    /// Sets the frame error rate of `port`'s link with the access point (before the
    /// first packet).
    pub fn set_per(&mut self, port: Port, per: f64) {
        self.per[port as usize] = per;
        self.update_reordering();
    }

    /// Sets the SNR (dB) of `port`'s link with the access point (needs the parameters'
    /// `modulation`; before the first packet).
    pub fn set_snr(&mut self, port: Port, snr_db: f64) {
        let n = self.rates.len();
        for (r, rate) in self.rates.iter().enumerate() {
            self.ln_ok[port as usize * n + r] = ln_ok(rate.modulation, Some(snr_db));
        }
        self.update_reordering();
    }

    pub fn counters(&self, port: Port) -> &StationCounters {
        &self.sta[port as usize].c
    }

    /// Channel time spent in frame exchanges and collisions so far.
    pub fn busy_time(&self) -> Dur {
        self.busy
    }

    pub fn collision_time(&self) -> Dur {
        self.collision_time
    }

    /// Packets waiting at `port`.
    pub fn queued(&self, port: Port) -> u32 {
        self.sta[port as usize].queued
    }

    fn per_between(&self, a: usize, b: usize) -> f64 {
        match (a, b) {
            (0, x) | (x, 0) => self.per[x],
            (x, y) => 1.0 - (1.0 - self.per[x]) * (1.0 - self.per[y]),
        }
    }

    fn ln_ok_between(&self, a: usize, b: usize, rate: usize) -> f64 {
        let n = self.rates.len();
        match (a, b) {
            (0, x) | (x, 0) => self.ln_ok[x * n + rate],
            (x, y) => self.ln_ok[x * n + rate] + self.ln_ok[y * n + rate],
        }
    }

    fn mpdu_bytes(&self, pkt: &P) -> u64 {
        (pkt.wire_len() + self.p.mac_overhead) as u64
    }

    /// How many frames of `s`'s queue for `d` the next PPDU carries, its PSDU bytes and
    /// the bytes of transport ACKs among them.
    fn aggregate(&self, s: usize, d: usize, phy: &Phy) -> (usize, u64, u64) {
        let q = &self.sta[s].queues[d];
        let first = self.mpdu_bytes(&q[0].pkt);
        let ack_bytes = |f: &Frame<P>, b: u64| if f.pkt.carries_payload() { 0 } else { b };
        let Some(a) = self.p.ampdu.filter(|_| s == 0 || self.p.station_ampdu) else {
            return (1, first, ack_bytes(&q[0], first));
        };
        let (mut n, mut bytes, mut acks) = (0usize, 0u64, 0u64);
        let window_end = match self.reordering {
            true => q[0].seq + a.max_frames as u64,
            false => u64::MAX,
        };
        for f in q.iter() {
            if n as u32 == a.max_frames || f.seq >= window_end {
                break;
            }
            let sub = (self.mpdu_bytes(&f.pkt) + DELIMITER).next_multiple_of(4);
            if n > 0 && (bytes + sub > a.max_bytes || phy.duration(bytes + sub) > a.max_time) {
                break;
            }
            n += 1;
            bytes += sub;
            acks += ack_bytes(f, sub);
        }
        (n, bytes, acks)
    }

    fn recompute_next(&mut self) {
        let slot = self.p.slot.0;
        self.next_tx = self
            .sta
            .iter()
            .filter(|s| s.queued > 0)
            .map(|s| s.tx_slot())
            .min()
            .map(|k| self.origin + Dur(k.saturating_mul(slot)));
    }

    /// Counts a failed attempt on the first `n` frames of `s`'s queue for `d`; frames out
    /// of attempts are dropped.
    fn fail_frames(&mut self, s: usize, d: usize, n: usize, end: Time) {
        self.settle(s, d, n, None, end, 0);
    }

    /// Takes the first `n` frames of `s`'s queue for `d` off the air: with `arrive`, each
    /// is delivered then unless a frame error (the link's PER) hits it; without, all
    /// failed. Failed frames spend an attempt and go back to the head of the queue, or
    /// are dropped at the retry limit (under a Block Ack agreement the recipient's window
    /// then moves at `end`). Returns whether any was delivered.
    fn settle(
        &mut self,
        s: usize,
        d: usize,
        n: usize,
        arrive: Option<Time>,
        end: Time,
        rate: usize,
    ) -> bool {
        let per = if arrive.is_some() {
            self.per_between(s, d)
        } else {
            0.0
        };
        let ln_ok = if arrive.is_some() {
            self.ln_ok_between(s, d, rate)
        } else {
            0.0
        };
        let overhead = self.p.mac_overhead;
        let limit = self.p.retry_limit;
        let agreement = self.reordering;
        let Wlan {
            sta,
            batch,
            keep,
            rng,
            dropped,
            arrivals,
            deliveries,
            ..
        } = self;
        let st = &mut sta[s];
        batch.extend(st.queues[d].drain(..n));
        let mut any = false;
        for mut f in batch.drain(..) {
            let per = if ln_ok == 0.0 {
                per
            } else {
                let bits = 8.0 * (f.pkt.wire_len() + overhead) as f64;
                1.0 - (1.0 - per) * (ln_ok * bits).exp()
            };
            match arrive {
                Some(at) if per == 0.0 || !rng.chance(per) => {
                    any = true;
                    st.queued -= 1;
                    st.c.delivered_pkts += 1;
                    st.c.delivered_bytes += f.pkt.wire_len() as u64;
                    if agreement {
                        arrivals.push_back((
                            at,
                            Arrival {
                                from: s as Port,
                                to: d as Port,
                                seq: f.seq,
                                pkt: Some(f.pkt),
                            },
                        ));
                    } else {
                        deliveries.push_back((
                            at,
                            Delivery {
                                to: d as Port,
                                pkt: f.pkt,
                            },
                        ));
                    }
                }
                _ => {
                    if arrive.is_some() {
                        st.c.mpdu_errors += 1;
                    }
                    f.attempts += 1;
                    if f.attempts >= limit {
                        st.c.dropped_retry += 1;
                        st.queued -= 1;
                        dropped.push(f.pkt);
                        if agreement {
                            arrivals.push_back((
                                end,
                                Arrival {
                                    from: s as Port,
                                    to: d as Port,
                                    seq: f.seq + 1,
                                    pkt: None,
                                },
                            ));
                        }
                    } else {
                        keep.push(f);
                    }
                }
            }
        }
        for f in keep.drain(..).rev() {
            st.queues[d].push_front(f);
        }
        if any {
            st.rr = (d + 1) % st.queues.len();
        }
        any
    }

    /// The earliest reorder timeout of the windows holding MPDUs.
    fn reorder_deadline(&self) -> Option<Time> {
        if !self.reordering {
            return None;
        }
        let timeout = self.reorder_timeout?;
        self.waiting
            .iter()
            .filter_map(|&w| self.reorder[w].deadline(timeout))
            .min()
    }

    /// Hands the first arrival to its recipient's reordering buffer.
    fn receive(&mut self) {
        let Some((at, a)) = self.arrivals.pop_front() else {
            return;
        };
        let ports = self.sta.len();
        let w = a.from as usize * ports + a.to as usize;
        let Wlan {
            reorder,
            ready,
            sta,
            dropped,
            waiting,
            ..
        } = self;
        let r = &mut reorder[w];
        let to = a.to;
        let mut out = |pkt| ready.push_back(Delivery { to, pkt });
        let c = &mut sta[a.from as usize].c;
        match a.pkt {
            Some(pkt) => match r.receive(a.seq, pkt, at, &mut out) {
                Ok(Verdict::Released) => {}
                Ok(Verdict::Held) => c.reorder_held += 1,
                Err(pkt) => {
                    c.reorder_late += 1;
                    dropped.push(pkt);
                }
            },
            None => r.move_window(a.seq, &mut out),
        }
        let holding = r.holding();
        match waiting.iter().position(|&x| x == w) {
            Some(i) if !holding => {
                waiting.swap_remove(i);
            }
            None if holding => waiting.push(w),
            _ => {}
        }
    }

    /// The reorder timer fired at `at`: every window whose first held MPDU has waited
    /// the timeout skips its gap.
    fn expire(&mut self, at: Time) {
        let timeout = self.reorder_timeout.expect("reordering");
        let ports = self.sta.len();
        let Wlan {
            reorder,
            ready,
            waiting,
            ..
        } = self;
        waiting.retain(|&w| {
            let to = (w % ports) as Port;
            let r = &mut reorder[w];
            r.expire(at, timeout, &mut |pkt| {
                ready.push_back(Delivery { to, pkt })
            });
            r.holding()
        });
    }

    /// A node's CW after an access: reset on success, doubled (up to CWmax) on failure;
    /// then a fresh backoff.
    fn after_access(&mut self, s: usize, success: bool) {
        let st = &mut self.sta[s];
        st.cw = if success {
            self.p.cw_min
        } else {
            (2 * st.cw + 1).min(self.p.cw_max)
        };
        st.draw_backoff(&mut self.rng);
    }

    /// Resolves the contention of the slot starting at `t`.
    fn transmit(&mut self, t: Time) {
        let k = (t - self.origin).0 / self.p.slot.0;
        self.winners.clear();
        for (i, s) in self.sta.iter().enumerate() {
            if s.queued > 0 && s.tx_slot() == k {
                self.winners.push(i);
            }
        }
        for (i, s) in self.sta.iter_mut().enumerate() {
            if self.winners.contains(&i) {
                continue;
            }
            if s.queued > 0 && s.backoff <= k {
                // Its frame arrived mid-period and the channel turned busy before its
                // slot: it found the medium busy, so it backs off.
                s.draw_backoff(&mut self.rng);
            } else {
                // k idle slots, and the busy period's boundary decrement.
                s.backoff = s.backoff.saturating_sub(k + 1);
            }
            s.from_slot = 0;
        }
        let mut exchange = Dur::ZERO;
        let collided = self.winners.len() > 1;
        for w in 0..self.winners.len() {
            let s = self.winners[w];
            let d = self.sta[s]
                .next_destination(self.p.fcfs)
                .expect("a winner has a frame");
            let ports = self.sta.len();
            let rate = match self.minstrel.get_mut(s * ports + d) {
                Some(m) => m.choose(t, &self.perfect, &mut self.rng),
                None => 0,
            };
            let phy = self.rates[rate].phy;
            let (n, bytes, ack_bytes) = self.aggregate(s, d, &phy);
            let data = phy.duration(bytes);
            let own = data + self.response;
            exchange = exchange.max(own);
            let st = &mut self.sta[s];
            let retries = st.queues[d]
                .iter()
                .take(n)
                .filter(|f| f.attempts > 0)
                .count();
            let c = &mut st.c;
            c.accesses += 1;
            c.mpdus_sent += n as u64;
            c.rate_kbps_sum += n as u64 * self.rates[rate].kbps;
            c.retries += retries as u64;
            c.airtime += own;
            c.ack_airtime += Dur((own.0 as u128 * ack_bytes as u128 / bytes as u128) as u64);
            if collided {
                c.collisions += 1;
                self.fail_frames(s, d, n, t);
                if let Some(m) = self.minstrel.get_mut(s * ports + d) {
                    m.record(rate, n as u64, 0);
                }
                self.after_access(s, false);
            } else {
                self.sta[s].c.ampdu_frames += n as u64;
                let before = self.sta[s].c.delivered_pkts;
                let ok = self.settle(s, d, n, Some(t + data), t + data, rate);
                self.after_access(s, ok);
                if let Some(m) = self.minstrel.get_mut(s * ports + d) {
                    m.record(rate, n as u64, self.sta[s].c.delivered_pkts - before);
                }
            }
        }
        self.busy += exchange;
        if collided {
            self.collision_time += exchange;
        }
        self.origin = t + exchange + self.difs;
        self.recompute_next();
    }
}

/// ln(1 − Pe) of `modulation` at `snr_db` (0 without an SNR).
fn ln_ok(modulation: Option<Modulation>, snr_db: Option<f64>) -> f64 {
    match (snr_db, modulation) {
        (Some(db), Some(m)) => nist::chunk_success(m, 10f64.powf(db / 10.0), 1)
            .max(f64::MIN_POSITIVE)
            .ln(),
        _ => 0.0,
    }
}

impl<P: Packet> Medium<P> for Wlan<P> {
    fn ports(&self) -> usize {
        self.sta.len()
    }

    fn handle_packet(&mut self, now: Time, from: Port, to: Port, pkt: P) -> Admit {
        let (from, to) = (from as usize, to as usize);
        debug_assert!(from != to && to < self.sta.len(), "bad addressing");
        let limit = self.p.queue as usize;
        let node_limit = self.p.node_queue.unwrap_or(u32::MAX);
        let st = &mut self.sta[from];
        st.c.offered_pkts += 1;
        if st.queues[to].len() >= limit || st.queued >= node_limit {
            st.c.dropped_queue += 1;
            return Admit::DroppedQueue;
        }
        let seq = st.next_seq[to];
        st.next_seq[to] += 1;
        st.queues[to].push_back(Frame {
            pkt,
            attempts: 0,
            seq,
            order: st.enqueued,
        });
        st.enqueued += 1;
        st.queued += 1;
        st.c.max_queue_pkts = st.c.max_queue_pkts.max(st.queued as u64);
        if st.queued == 1 {
            if now < self.origin {
                // Busy, or not yet idle for AIFS: the station defers and backs off.
                if st.backoff == 0 {
                    st.draw_backoff(&mut self.rng);
                }
                st.from_slot = 0;
            } else {
                st.from_slot = (now - self.origin).0.div_ceil(self.p.slot.0);
            }
            let t = self.origin + Dur(st.tx_slot().saturating_mul(self.p.slot.0));
            if self.next_tx.is_none_or(|n| t < n) {
                self.next_tx = Some(t);
            }
        }
        Admit::Queued
    }

    fn handle_timeout(&mut self, now: Time) {
        if let Some(t) = self.next_tx {
            if t <= now {
                self.transmit(t);
            }
        }
    }

    #[inline]
    fn poll_transmit(&mut self, now: Time) -> Option<Delivery<P>> {
        if !self.reordering {
            return match self.deliveries.front() {
                Some(&(t, _)) if t <= now => self.deliveries.pop_front().map(|(_, d)| d),
                _ => None,
            };
        }
        loop {
            if let Some(d) = self.ready.pop_front() {
                return Some(d);
            }
            let arrival = self.arrivals.front().map(|a| a.0).filter(|&t| t <= now);
            let expiry = self.reorder_deadline().filter(|&t| t <= now);
            match (arrival, expiry) {
                (None, None) => return None,
                (Some(a), Some(e)) if e < a => self.expire(e),
                (None, Some(e)) => self.expire(e),
                _ => self.receive(),
            }
        }
    }

    fn poll_dropped(&mut self) -> Option<P> {
        self.dropped.pop()
    }

    fn poll_timeout(&self) -> Option<Time> {
        let first = if self.reordering {
            self.arrivals.front().map(|a| a.0)
        } else {
            self.deliveries.front().map(|d| d.0)
        };
        let next = match (first, self.next_tx) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (Some(a), None) => Some(a),
            (None, b) => b,
        };
        if !self.reordering {
            return next;
        }
        match (next, self.reorder_deadline()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn channels(&self) -> usize {
        self.sta.len()
    }

    fn channel_label(&self, i: usize) -> &'static str {
        if i == 0 {
            "ap"
        } else {
            "station"
        }
    }

    fn sample(&mut self, i: usize, _now: Time, out: &mut dyn Metrics) {
        let s = &self.sta[i];
        out.put(&series::QUEUE_PKTS, (s.queued as u64).into());
        out.put(&series::DELIVERED_BYTES, s.c.delivered_bytes.into());
        out.put(&series::DROPPED_QUEUE, s.c.dropped_queue.into());
        out.put(&series::DROPPED_RETRY, s.c.dropped_retry.into());
        out.put(&series::COLLISIONS, s.c.collisions.into());
        out.put(&series::AIRTIME, s.c.airtime.as_secs_f64().into());
    }

    fn summary(&self, i: usize, out: &mut dyn Metrics) {
        let c = &self.sta[i].c;
        let busy = self.busy.as_secs_f64();
        let share = |d: Dur| {
            if busy > 0.0 {
                d.as_secs_f64() / busy
            } else {
                0.0
            }
        };
        out.put(&summary::OFFERED_PKTS, c.offered_pkts.into());
        out.put(&summary::DELIVERED_PKTS, c.delivered_pkts.into());
        out.put(&summary::DELIVERED_BYTES, c.delivered_bytes.into());
        out.put(&summary::DROPPED_QUEUE, c.dropped_queue.into());
        out.put(&summary::DROPPED_RETRY, c.dropped_retry.into());
        out.put(&summary::MAX_QUEUE_PKTS, c.max_queue_pkts.into());
        out.put(&summary::TX_ATTEMPTS, c.accesses.into());
        out.put(&summary::COLLISIONS, c.collisions.into());
        out.put(&summary::MPDUS_SENT, c.mpdus_sent.into());
        out.put(&summary::RETRIES, c.retries.into());
        out.put(&summary::MPDU_ERRORS, c.mpdu_errors.into());
        out.put(&summary::REORDER_HELD, c.reorder_held.into());
        out.put(&summary::REORDER_LATE, c.reorder_late.into());
        out.put(
            &summary::PHY_RATE_MEAN,
            (c.mpdus_sent > 0)
                .then(|| c.rate_kbps_sum as f64 * 1e3 / c.mpdus_sent as f64)
                .into(),
        );
        let successes = c.accesses - c.collisions;
        out.put(
            &summary::AMPDU_MEAN,
            (successes > 0)
                .then(|| c.ampdu_frames as f64 / successes as f64)
                .into(),
        );
        out.put(&summary::AIRTIME, c.airtime.as_secs_f64().into());
        out.put(&summary::ACK_AIRTIME, c.ack_airtime.as_secs_f64().into());
        out.put(&summary::AIRTIME_SHARE, share(c.airtime).into());
        out.put(&summary::ACK_AIRTIME_SHARE, share(c.ack_airtime).into());
        out.put(&summary::BUSY, busy.into());
        out.put(
            &summary::COLLISION,
            self.collision_time.as_secs_f64().into(),
        );
    }
}
