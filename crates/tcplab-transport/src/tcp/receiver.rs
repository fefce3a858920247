//! The receiving endpoint: reassembly, delayed ACKs, SACK and D-SACK blocks, and the
//! timestamp echo.

use crate::error::Violation;
use crate::ranges::Ranges;
use crate::tcp::config::{AckPolicy, ReceiverConfig};
use crate::tcp::sack_recency::SackRecency;
use crate::tcp::segment::{SackBlock, Segment, Timestamps, MAX_SACK_BLOCKS};
use crate::tcp::stats::ReceiverStats;
use crate::tcp::timestamps::{tsval, TsRecent};
use tcplab_core::Time;

/// A sans-IO TCP receiver whose application reads every in-order byte at once.
#[derive(Debug)]
pub struct Receiver {
    flow: u32,
    cfg: ReceiverConfig,
    rcv_nxt: u64,
    /// Out-of-order ranges above `rcv_nxt`.
    ooo: Ranges,
    /// Which held ranges the SACK blocks report, most recently changed first (RFC 2018).
    recent: SackRecency,
    /// Distinct bytes ever received, to cross-check reassembly.
    received_unique: u64,
    /// Bytes held in `ooo`.
    ooo_bytes: u64,
    /// Right edge of the window last advertised (rcv_nxt + wnd): it never moves left.
    right_edge: u64,
    unacked_segments: u32,
    /// Segments still ACKed at once in quick-ACK mode.
    quick: u32,
    ack_now: bool,
    /// A SYN arrived: answer with a SYN-ACK (`handshake.rs`).
    syn_ack_due: bool,
    ack_at: Option<Time>,
    /// RFC 7323 TS.Recent and Last.ACK.sent (with `cfg.timestamps`).
    ts: TsRecent,
    /// A duplicate segment to report in the next ACK's first SACK block (RFC 2883).
    dsack: Option<SackBlock>,
    stats: ReceiverStats,
}

impl Receiver {
    pub fn new(flow: u32, cfg: ReceiverConfig) -> Receiver {
        Receiver {
            flow,
            quick: cfg.quick_ack,
            cfg,
            rcv_nxt: 0,
            ooo: Ranges::default(),
            recent: SackRecency::new(),
            received_unique: 0,
            ooo_bytes: 0,
            right_edge: 0,
            unacked_segments: 0,
            ack_now: false,
            syn_ack_due: false,
            ack_at: None,
            ts: TsRecent::default(),
            dsack: None,
            stats: ReceiverStats::default(),
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

    /// Echoes timestamps from now on (a peer that sends them; RFC 7323 negotiates this in
    /// the handshake, which drivers without one do on the first stamped segment).
    pub fn use_timestamps(&mut self) {
        self.cfg.timestamps = true;
    }

    /// Processes a data segment.
    pub fn handle_segment(&mut self, now: Time, seg: &Segment) -> Result<(), Violation> {
        if seg.syn {
            self.on_syn();
            return Ok(());
        }
        if seg.len == 0 {
            return Ok(());
        }
        self.stats.segments_received += 1;
        let (start, end) = (seg.seq, seg.seq + seg.len as u64);
        if let (true, Some(t)) = (self.cfg.timestamps, seg.ts) {
            self.ts.on_segment(start, t.val);
        }
        if let Some(total) = self.cfg.total_bytes {
            if end > total {
                return Err(Violation::DataBeyondEnd {
                    flow: self.flow,
                    end,
                    total,
                });
            }
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
            self.touch_recent(merged);
            // Out-of-order data: ACK at once so the sender sees a duplicate ACK (and, as
            // Linux, ACK the next segments at once too while recovery is under way).
            self.ack_now = true;
            self.quick = self.cfg.quick_ack;
            return Ok(());
        }
        // In order (possibly overlapping old data or held out-of-order data).
        let had_gap = !self.ooo.is_empty();
        if start < self.rcv_nxt {
            self.note_duplicate(start, self.rcv_nxt);
        }
        if had_gap {
            self.insert_ooo(self.rcv_nxt, end);
            self.absorb_ooo();
        } else {
            // Nothing held: what inserting and absorbing `[rcv_nxt, end)` would do.
            self.received_unique += end - self.rcv_nxt;
            self.rcv_nxt = end;
            self.recent.absorbed(self.rcv_nxt, 0);
        }
        self.stats.delivered = self.rcv_nxt;
        if self.received_unique != self.rcv_nxt + self.ooo_bytes {
            return Err(Violation::ReassemblyMismatch {
                flow: self.flow,
                delivered: self.rcv_nxt,
                received: self.received_unique,
            });
        }
        if self.cfg.total_bytes == Some(self.rcv_nxt) && self.stats.completed_at.is_none() {
            self.stats.completed_at = Some(now);
        }
        if had_gap || seg.fin {
            // Filling a gap (RFC 5681 4.2) or the end of the transfer: ACK at once.
            self.ack_now = true;
            return Ok(());
        }
        match self.cfg.ack_policy {
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
        if self.cfg.dsack && self.cfg.sack {
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
    fn touch_recent(&mut self, merged: SackBlock) {
        self.recent.touched(merged, &self.ooo, self.rcv_nxt);
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
    /// covers a lost SYN-ACK.
    #[cold]
    #[inline(never)]
    fn on_syn(&mut self) {
        self.syn_ack_due = true;
        self.ack_now = true;
    }

    #[cold]
    #[inline(never)]
    fn syn_ack(&mut self, wnd: u64) -> Segment {
        self.syn_ack_due = false;
        Segment {
            flow: self.flow,
            syn: true,
            wnd,
            ..Segment::default()
        }
    }

    /// The window to advertise: the free receive buffer (only out-of-order data occupies
    /// it), but never less than keeps the last advertised right edge (no shrinking).
    fn window(&mut self) -> u64 {
        let free = self.cfg.rcv_buf.saturating_sub(self.ooo_bytes);
        self.right_edge = self.right_edge.max(self.rcv_nxt + free);
        self.right_edge - self.rcv_nxt
    }

    /// The pending acknowledgement, if one is due.
    pub fn poll_transmit(&mut self, now: Time) -> Option<Segment> {
        if !self.ack_now {
            return None;
        }
        self.ack_now = false;
        self.ack_at = None;
        self.unacked_segments = 0;
        self.stats.acks_sent += 1;
        let wnd = self.window();
        if self.syn_ack_due {
            return Some(self.syn_ack(wnd));
        }
        let mut seg = Segment {
            flow: self.flow,
            ack: self.rcv_nxt,
            wnd,
            ..Segment::default()
        };
        if self.cfg.timestamps {
            let ecr = self.ts.on_ack_sent(self.rcv_nxt);
            seg.ts = Some(Timestamps {
                val: tsval(now),
                ecr,
            });
        }
        if self.cfg.sack {
            let mut n = self.take_dsack(&mut seg);
            let first_sack = n.min(1);
            // RFC 2018 section 4: as many distinct blocks as fit, most recent first.
            if n == 0 {
                n = self.recent.blocks(&self.ooo, self.rcv_nxt, &mut seg.sack);
            } else {
                // After a D-SACK: the recent blocks not already reported, as fit.
                let mut recent = [SackBlock::default(); MAX_SACK_BLOCKS];
                let m = self.recent.blocks(&self.ooo, self.rcv_nxt, &mut recent);
                for &b in &recent[..m] {
                    if n == MAX_SACK_BLOCKS {
                        break;
                    }
                    if !seg.sack[first_sack..n].contains(&b) {
                        seg.sack[n] = b;
                        n += 1;
                    }
                }
            }
            seg.n_sack = n as u8;
        }
        Some(seg)
    }

    /// RFC 2883 section 4: a pending duplicate goes in the first block, followed by the
    /// held block that contains it, if any. Returns the blocks written.
    fn take_dsack(&mut self, seg: &mut Segment) -> usize {
        let Some(d) = self.dsack.take() else {
            return 0;
        };
        seg.sack[0] = d;
        match self.ooo.containing(d.start) {
            Some((start, end)) if d.start >= self.rcv_nxt => {
                seg.sack[1] = SackBlock { start, end };
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
