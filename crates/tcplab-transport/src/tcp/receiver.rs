//! The receiving endpoint: reassembly, delayed ACKs, SACK and D-SACK blocks, the
//! timestamp echo and the echo of ECN marks.
//!
//! ECN (with `ReceiverConfig::ecn` on, agreed in the handshake when there is one): RFC
//! 3168 section 6.1.3 sets ECE on every ACK from the first segment marked CE until a
//! segment with CWR arrives (a CE mark on that same segment starts it again), and, as
//! Linux's `tcp_ecn_check_ce`, ACKs the two segments after a first mark at once
//! (quick-ACK mode) so that a sender with a small window hears of it soon. DCTCP's
//! receiver (RFC 8257 section 3.2) instead sets ECE exactly when the segments an ACK
//! covers were marked: it keeps the last segment's mark (DCTCP.CE) and, when a segment's
//! mark differs while a delayed ACK is pending, first sends an ACK for the segments
//! before it with the old state (Linux `dctcp_ece_ack_update`: `__tcp_send_ack(sk,
//! prior_rcv_nxt)`), then starts a new delayed-ACK cycle with the new one.

use crate::error::Violation;
use crate::packet::Packet;
use crate::ranges::Ranges;
use crate::tcp::config::{AckPolicy, EcnEcho, ReceiverConfig};
use crate::tcp::sack_recency::SackRecency;
use crate::tcp::segment::{IpEcn, SackBlock, Segment, Timestamps, MAX_SACK_BLOCKS};
use crate::tcp::stats::ReceiverStats;
use crate::tcp::timestamps::{tsval, TsRecent};
use tcplab_core::Time;

/// A sans-IO TCP receiver whose application reads every in-order byte at once.
///
/// Laid out for the cache (`repr(C)`, line-aligned): with a thousand flows a receiver has
/// left the cache by its next segment, so every line a segment touches is a miss. An
/// in-order data segment and the ACK after it (nothing held out of order) touch lines 0
/// and 1 only: the sequence state and the settings they read (copied out of
/// [`ReceiverConfig`], whose fields would otherwise spread over two more lines), then
/// the ACK policy and the per-segment counters. The out-of-order ranges, the SACK
/// blocks' recency, the D-SACK block and the timestamp echo (off by default) follow,
/// touched only around out-of-order data or with timestamps.
#[derive(Debug)]
#[repr(C, align(64))]
pub struct Receiver {
    rcv_nxt: u64,
    /// Distinct bytes ever received, to cross-check reassembly.
    received_unique: u64,
    /// Bytes held in `ooo`.
    ooo_bytes: u64,
    /// Right edge of the window last advertised (rcv_nxt + wnd): it never moves left.
    right_edge: u64,
    /// `ReceiverConfig::rcv_buf`.
    rcv_buf: u64,
    /// `ReceiverConfig::total_bytes`, `u64::MAX` if unknown (no byte lies beyond it, and
    /// `rcv_nxt` never reaches it: the same answers as `None`).
    total_end: u64,
    unacked_segments: u32,
    /// Segments still ACKed at once in quick-ACK mode.
    quick: u32,
    flow: u32,
    ack_now: bool,
    /// A SYN arrived: answer with a SYN-ACK (`handshake.rs`).
    syn_ack_due: bool,
    /// `ReceiverConfig::timestamps`: echo timestamps and stamp ACKs.
    timestamps: bool,
    /// `ReceiverConfig::sack`.
    sack: bool,
    // -- line 1 --
    ack_policy: AckPolicy,
    ack_at: Option<Time>,
    /// `ReceiverConfig::dsack && ReceiverConfig::sack`: duplicates are reported.
    dsack_on: bool,
    /// How CE marks are echoed (`ReceiverConfig::ecn`, `Off` if the SYN did not ask).
    ecn: EcnEcho,
    /// ECE for the next ACK: RFC 3168's echo until CWR, or DCTCP.CE.
    ece: bool,
    /// `ReceiverConfig::ecn`, what a SYN asking for ECN is agreed with.
    ecn_cfg: EcnEcho,
    /// `ReceiverConfig::quick_ack`, read on every out-of-order segment.
    quick_ack: u32,
    /// Counters: the per-segment ones (segments, ACKs, delivered) end line 1.
    stats: ReceiverStats,
    // -- line 2 (out-of-order data) --
    /// Out-of-order ranges above `rcv_nxt` (empty exactly when `ooo_bytes` is 0: a held
    /// range is never empty).
    ooo: Ranges,
    /// Which held ranges the SACK blocks report, most recently changed first (RFC 2018).
    /// Read only while data is held (it caches no block when none is).
    recent: SackRecency,
    /// A duplicate segment to report in the next ACK's first SACK block (RFC 2883).
    dsack: Option<SackBlock>,
    /// RFC 7323 TS.Recent and Last.ACK.sent (with `timestamps`).
    ts: TsRecent,
    /// DCTCP: an ACK of the segments before a change of mark, due before the next ACK
    /// (its ECE is the old state, `!ece`).
    prior_ack: Option<u64>,
    /// Data segments that arrived marked CE (with ECN on).
    ce_received: u64,
}

impl Receiver {
    pub fn new(flow: u32, cfg: ReceiverConfig) -> Receiver {
        Receiver {
            rcv_nxt: 0,
            received_unique: 0,
            ooo_bytes: 0,
            right_edge: 0,
            rcv_buf: cfg.rcv_buf,
            total_end: cfg.total_bytes.unwrap_or(u64::MAX),
            unacked_segments: 0,
            quick: cfg.quick_ack,
            flow,
            ack_now: false,
            syn_ack_due: false,
            timestamps: cfg.timestamps,
            sack: cfg.sack,
            ooo: Ranges::default(),
            ack_policy: cfg.ack_policy,
            ack_at: None,
            dsack_on: cfg.dsack && cfg.sack,
            ecn: cfg.ecn,
            ece: false,
            ecn_cfg: cfg.ecn,
            prior_ack: None,
            ce_received: 0,
            stats: ReceiverStats::default(),
            recent: SackRecency::new(),
            dsack: None,
            ts: TsRecent::default(),
            quick_ack: cfg.quick_ack,
        }
    }

    pub fn flow(&self) -> u32 {
        self.flow
    }
    pub fn stats(&self) -> &ReceiverStats {
        &self.stats
    }
    /// Next byte expected; every byte below it was delivered in order exactly once.
    pub fn rcv_nxt(&self) -> u64 {
        self.rcv_nxt
    }
    pub fn out_of_order_bytes(&self) -> u64 {
        self.ooo_bytes
    }
    /// Data segments that arrived marked Congestion Experienced (counted with ECN on).
    pub fn ce_received(&self) -> u64 {
        self.ce_received
    }

    /// Echoes timestamps from now on (a peer that sends them; RFC 7323 negotiates this in
    /// the handshake, which drivers without one do on the first stamped segment).
    pub fn use_timestamps(&mut self) {
        self.timestamps = true;
    }

    /// Processes a data segment.
    pub fn handle_segment(&mut self, now: Time, seg: &Segment) -> Result<(), Violation> {
        if seg.syn {
            self.on_syn(seg);
            return Ok(());
        }
        if seg.len == 0 {
            return Ok(());
        }
        self.stats.segments_received += 1;
        if self.ecn != EcnEcho::Off {
            self.on_ecn_field(seg);
        }
        let (start, end) = (seg.seq, seg.seq + seg.len as u64);
        if let (true, Some(t)) = (self.timestamps, seg.ts) {
            self.ts.on_segment(start, t.val);
        }
        if end > self.total_end {
            return Err(Violation::DataBeyondEnd {
                flow: self.flow,
                end,
                total: self.total_end,
            });
        }
        if end <= self.rcv_nxt {
            // Entirely old: the sender missed our ACK; tell it again now (RFC 5681 4.2).
            self.stats.duplicate_segments += 1;
            self.note_duplicate(start, end);
            self.ack_now = true;
            return Ok(());
        }
        if start > self.rcv_nxt {
            self.stats.out_of_order_segments += 1;
            let held = self.ooo_bytes;
            let merged = self.insert_ooo(start, end);
            if self.ooo_bytes == held {
                self.note_duplicate(start, end);
            }
            self.touch_recent(merged, self.ooo_bytes - held);
            // Out-of-order data: ACK at once so the sender sees a duplicate ACK (and, as
            // Linux, ACK the next segments at once too while recovery is under way).
            self.ack_now = true;
            self.quick = self.quick_ack;
            return Ok(());
        }
        // In order (possibly overlapping old data or held out-of-order data).
        // (`ooo_bytes`, in line 0: the ranges' vector lies in line 2.)
        debug_assert_eq!(self.ooo_bytes == 0, self.ooo.is_empty());
        let had_gap = self.ooo_bytes != 0;
        if start < self.rcv_nxt {
            self.note_duplicate(start, self.rcv_nxt);
        }
        if had_gap {
            self.insert_ooo(self.rcv_nxt, end);
            self.absorb_ooo();
        } else {
            // Nothing held: what inserting and absorbing `[rcv_nxt, end)` would do. The
            // recency cache's `absorbed` would find no block to drop (it caches held
            // ranges only) and its count already matching none held: nothing to do.
            debug_assert!(self.recent.holds_none());
            self.received_unique += end - self.rcv_nxt;
            self.rcv_nxt = end;
        }
        self.stats.delivered = self.rcv_nxt;
        if self.received_unique != self.rcv_nxt + self.ooo_bytes {
            return Err(Violation::ReassemblyMismatch {
                flow: self.flow,
                delivered: self.rcv_nxt,
                received: self.received_unique,
            });
        }
        if self.total_end == self.rcv_nxt && self.stats.completed_at.is_none() {
            self.stats.completed_at = Some(now);
        }
        if had_gap || seg.fin {
            // Filling a gap (RFC 5681 4.2) or the end of the transfer: ACK at once.
            self.ack_now = true;
            return Ok(());
        }
        match self.ack_policy {
            AckPolicy::PerPacket => self.ack_now = true,
            AckPolicy::Delayed { every, max_delay } => {
                self.unacked_segments += 1;
                if self.quick > 0 {
                    self.quick -= 1;
                    self.ack_now = true;
                } else if self.unacked_segments >= every {
                    self.ack_now = true;
                } else if self.ack_at.is_none() {
                    self.ack_at = Some(now + max_delay);
                }
            }
        }
        Ok(())
    }

    /// RFC 2883: `[start, end)` arrived a second time; the next ACK reports it first.
    fn note_duplicate(&mut self, start: u64, end: u64) {
        if self.dsack_on {
            self.dsack = Some(SackBlock { start, end });
        }
    }

    /// Adds `[start, end)` above rcv_nxt, merging neighbours; counts only new bytes.
    /// Returns the merged range.
    fn insert_ooo(&mut self, start: u64, end: u64) -> SackBlock {
        let ((start, end), new) = self.ooo.insert(start, end);
        self.received_unique += new;
        self.ooo_bytes += new;
        SackBlock { start, end }
    }

    /// RFC 2018: the block holding the newest segment goes first, then the others by recency.
    fn touch_recent(&mut self, merged: SackBlock, new: u64) {
        self.recent.touched(merged, new, &self.ooo, self.rcv_nxt);
    }

    fn absorb_ooo(&mut self) {
        let (mut absorbed, mut nxt) = (false, self.rcv_nxt);
        let mut held = 0;
        self.ooo.pop_starting_at_or_below(self.rcv_nxt, |a, b| {
            held += b - a;
            nxt = nxt.max(b);
            absorbed = true;
        });
        if absorbed {
            self.ooo_bytes -= held;
            self.rcv_nxt = nxt;
            self.recent.absorbed(self.rcv_nxt, self.ooo.len());
        }
    }

    /// Call when `poll_timeout` has passed.
    pub fn handle_timeout(&mut self, now: Time) {
        if self.ack_at.is_some_and(|t| t <= now) {
            self.ack_now = true;
        }
    }

    /// A (possibly retransmitted) SYN: answer each with a SYN-ACK; the sender's SYN timer
    /// covers a lost SYN-ACK. ECN is used if the SYN asks for it with ECE and CWR and
    /// the receiver is configured for it (RFC 3168 section 6.1.1).
    #[cold]
    #[inline(never)]
    fn on_syn(&mut self, seg: &Segment) {
        self.syn_ack_due = true;
        self.ack_now = true;
        self.ecn = if seg.ece && seg.cwr {
            self.ecn_cfg
        } else {
            EcnEcho::Off
        };
    }

    #[cold]
    #[inline(never)]
    fn syn_ack(&mut self, wnd: u64) -> Segment {
        self.syn_ack_due = false;
        Segment {
            flow: self.flow,
            syn: true,
            wnd,
            // RFC 3168 section 6.1.1: an ECN-setup SYN-ACK has ECE set and CWR clear.
            ece: self.ecn != EcnEcho::Off,
            ..Segment::default()
        }
    }

    /// A data segment's ECN field and CWR flag (see the module docs).
    #[inline]
    fn on_ecn_field(&mut self, seg: &Segment) {
        let ce = seg.ip_ecn == IpEcn::Ce;
        self.ce_received += u64::from(ce);
        match self.ecn {
            EcnEcho::Off => {}
            EcnEcho::Rfc3168 => {
                if seg.cwr {
                    self.ece = false;
                }
                if ce && !self.ece {
                    // tcp_ecn_check_ce: "Better not delay acks, sender can have a very
                    // low cwnd" (tcp_enter_quickack_mode(sk, 2)).
                    self.quick = self.quick.max(2);
                    self.ece = true;
                }
            }
            EcnEcho::Dctcp => {
                if ce != self.ece {
                    if self.unacked_segments > 0 || self.ack_at.is_some() {
                        // The segments before this one are ACKed now with the old
                        // state; this one starts a new delayed-ACK cycle.
                        self.prior_ack = Some(self.rcv_nxt);
                        self.unacked_segments = 0;
                        self.ack_at = None;
                        self.ack_now = true;
                    }
                    self.ece = ce;
                }
            }
        }
    }

    /// DCTCP's ACK of the segments before a change of mark, with the old state; the
    /// ACK the latest segment asked for stays due (at once if it set no timer).
    #[cold]
    #[inline(never)]
    fn prior_dctcp_ack(&mut self, now: Time, ack: u64) -> Segment {
        self.prior_ack = None;
        self.ack_now = self.ack_at.is_none();
        self.stats.acks_sent += 1;
        let wnd = self.window();
        let ts = self.timestamps.then(|| Timestamps {
            val: tsval(now),
            ecr: self.ts.on_ack_sent(ack),
        });
        Segment {
            flow: self.flow,
            ack,
            wnd,
            ts,
            ece: !self.ece,
            ..Segment::default()
        }
    }

    /// The window to advertise: the free receive buffer (only out-of-order data occupies
    /// it), but never less than keeps the last advertised right edge (no shrinking).
    fn window(&mut self) -> u64 {
        let free = self.rcv_buf.saturating_sub(self.ooo_bytes);
        self.right_edge = self.right_edge.max(self.rcv_nxt + free);
        self.right_edge - self.rcv_nxt
    }

    /// The pending acknowledgement, if one is due.
    pub fn poll_transmit(&mut self, now: Time) -> Option<Segment> {
        if !self.ack_now {
            return None;
        }
        self.poll_wrapped(now, |seg| seg)
    }

    /// [`poll_transmit`](Self::poll_transmit) as the [`Packet`] the simulator stores, the
    /// ACK built in the packet's place: an `Option<Segment>` wrapped afterwards is copied
    /// (96 bytes, twice) on every poll's way out.
    ///
    /// Inlined into the caller up to the question whether an ACK is due (about half the
    /// polls find none): the call and its register saves only when one is.
    #[inline]
    pub fn poll_packet(&mut self, now: Time) -> Option<Packet> {
        if !self.ack_now {
            return None;
        }
        self.ack_packet(now)
    }

    #[inline(never)]
    fn ack_packet(&mut self, now: Time) -> Option<Packet> {
        self.poll_wrapped(now, Packet::Tcp)
    }

    /// The body of the polls once an ACK is due: `wrap` turns the ACK into what the
    /// caller returns. The ACK is built as one value from its fields (the SACK blocks
    /// from a local array), so it lands in the caller's return slot without a copy of
    /// the whole segment.
    #[inline(always)]
    fn poll_wrapped<T>(&mut self, now: Time, wrap: impl FnOnce(Segment) -> T) -> Option<T> {
        // Only DCTCP's echo sets it.
        if let Some(a) = self.prior_ack {
            return Some(wrap(self.prior_dctcp_ack(now, a)));
        }
        self.ack_now = false;
        self.ack_at = None;
        self.unacked_segments = 0;
        self.stats.acks_sent += 1;
        let wnd = self.window();
        if self.syn_ack_due {
            return Some(wrap(self.syn_ack(wnd)));
        }
        let ts = self.timestamps.then(|| Timestamps {
            val: tsval(now),
            ecr: self.ts.on_ack_sent(self.rcv_nxt),
        });
        let mut sack = [SackBlock::default(); MAX_SACK_BLOCKS];
        let mut n = 0;
        // With nothing held and no duplicate to report there is no block (and the
        // recency cache, in another line, is not read: a rebuild it may owe finds the
        // same blocks later, from the same log).
        debug_assert!(self.ooo_bytes != 0 || self.recent.holds_none());
        if self.sack && (self.ooo_bytes != 0 || self.dsack_on) {
            // A duplicate is noted only with D-SACK on (`note_duplicate`).
            if self.dsack_on {
                n = self.take_dsack(&mut sack);
            }
            let first_sack = n.min(1);
            // RFC 2018 section 4: as many distinct blocks as fit, most recent first.
            if n == 0 {
                n = self.recent.blocks(&self.ooo, self.rcv_nxt, &mut sack);
            } else {
                // After a D-SACK: the recent blocks not already reported, as fit.
                let mut recent = [SackBlock::default(); MAX_SACK_BLOCKS];
                let m = self.recent.blocks(&self.ooo, self.rcv_nxt, &mut recent);
                for &b in &recent[..m] {
                    if n == MAX_SACK_BLOCKS {
                        break;
                    }
                    if !sack[first_sack..n].contains(&b) {
                        sack[n] = b;
                        n += 1;
                    }
                }
            }
        }
        Some(wrap(Segment {
            flow: self.flow,
            ack: self.rcv_nxt,
            wnd,
            ts,
            n_sack: n as u8,
            sack,
            ece: self.ece,
            ..Segment::default()
        }))
    }

    /// RFC 2883 section 4: a pending duplicate goes in the first block, followed by the
    /// held block that contains it, if any. Returns the blocks written.
    fn take_dsack(&mut self, sack: &mut [SackBlock; MAX_SACK_BLOCKS]) -> usize {
        let Some(d) = self.dsack.take() else {
            return 0;
        };
        sack[0] = d;
        match self.ooo.containing(d.start) {
            Some((start, end)) if d.start >= self.rcv_nxt => {
                sack[1] = SackBlock { start, end };
                2
            }
            _ => 1,
        }
    }

    pub fn poll_timeout(&self) -> Option<Time> {
        if self.ack_now {
            return None;
        }
        self.ack_at
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{align_of, offset_of, size_of};

    /// The fields an in-order segment and its ACK touch (nothing held) stay in the
    /// first two lines (see the layout note on [`Receiver`]).
    #[test]
    fn the_per_segment_fields_share_two_lines() {
        assert_eq!(align_of::<Receiver>(), 64);
        let line = crate::tcp::cache_line;
        assert_eq!(line(offset_of!(Receiver, rcv_nxt), 8), 0);
        assert_eq!(line(offset_of!(Receiver, sack), 1), 0);
        assert_eq!(line(offset_of!(Receiver, ack_at), 16), 1);
        assert_eq!(line(offset_of!(Receiver, dsack_on), 1), 1);
        assert_eq!(line(offset_of!(Receiver, quick_ack), 4), 1);
        assert_eq!(line(offset_of!(Receiver, ack_policy), 16), 1);
        // Out of order: the ranges' vector and the recency cache's counts in line 2, its
        // copy of the log's last entry and its blocks in line 3.
        assert_eq!(line(offset_of!(Receiver, ooo), 24), 2);
        let recent = offset_of!(Receiver, recent);
        assert_eq!(line(recent, 2), 2);
        assert_eq!(line(recent + 8, SackRecency::TOP_END - 8), 3);
        let stats = offset_of!(Receiver, stats);
        assert_eq!(
            line(stats + offset_of!(ReceiverStats, segments_received), 8),
            1
        );
        assert_eq!(line(stats + offset_of!(ReceiverStats, acks_sent), 8), 1);
        assert_eq!(line(stats + offset_of!(ReceiverStats, delivered), 8), 1);
        assert!(size_of::<Receiver>() <= 6 * 64);
    }
}
