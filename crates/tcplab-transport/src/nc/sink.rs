//! TCP/NC's receiving end: online Gaussian elimination and "seen" acknowledgements.
//!
//! Sundararajan et al. (Proc. IEEE 2011, Sec. V, "receiver side"): add each combination's
//! coefficient vector to the matrix and eliminate to update the set of seen packets; apply
//! the same operations to the payloads and deliver every decoded packet; send a TCP ACK
//! whose number is the oldest *unseen* packet. So every innovative arrival acknowledges one
//! more degree of freedom and TCP's ACK clock keeps running through random losses.
//! Non-innovative combinations are not acknowledged unless `ack_redundant` (then they
//! produce a duplicate ACK). With generations (`generation` = G, seed 004's preliminary
//! TCP/NC) the ACKs stay seen ACKs, but a generation's packets are delivered (and count as
//! decoded in the statistics) only once the whole generation is decoded. Decoding costs CPU time (`cost.rs`): ACKs and deliveries of a
//! symbol happen when the receiver's CPU has finished it.

use super::coding::NcParams;
use super::seen::{Receipt, SeenTracker};
use crate::coded::app_bytes::segment_bytes;
use crate::coded::cost::Cpu;
use crate::coded::decode_record::DecodeRecord;
use crate::coded::packet::{Code, CodedPacket, Symbol, NC_FRAMING_BYTES};
use crate::coded::ready_queue::ReadyQueue;
use crate::coded::sink_summary::CodedSinkSummary;
use crate::coded::symbol_bytes::SymbolBytes;
use crate::endpoint::{Endpoint, Progress};
use crate::error::Violation;
use crate::packet::Packet;
use crate::series_columns::DELIVERED;
use crate::tcp::Segment;
use std::collections::VecDeque;
use tcplab_coding::gf256;
use tcplab_coding::rlnc::{
    seeded_coefficients, CoefficientsRef, RlncDecoder, RlncOutcome, RlncSymbolRef,
};
use tcplab_core::{ColumnDef, Metrics, Time};

/// What a symbol leads to once the CPU has processed it.
#[derive(Clone, Copy, Debug)]
struct Done {
    /// The ACK number to send, if any.
    ack: Option<u64>,
    /// Packets delivered in order by then.
    delivered: u32,
}

/// `payload = true`: `tcplab-coding`'s decoder on the real bytes, checked against the
/// tracker symbol by symbol.
struct PayloadRx {
    port: SymbolBytes,
    dec: RlncDecoder,
    /// Decoded packets the decoder has forgotten, as framed units, from `kept_base`: a
    /// combination sent before the sender heard of them may still mix them in.
    kept: VecDeque<Vec<u8>>,
    kept_base: u32,
    /// Oldest packet the sender still held in any symbol so far.
    sender_base: u32,
    bytes: Vec<u8>,
    coeffs: Vec<u8>,
    expect: Vec<u8>,
}

/// The TCP/NC sink (see the module docs).
pub struct NcSink {
    flow: u32,
    mss: u32,
    total: Option<u64>,
    p: NcParams,
    tracker: SeenTracker,
    cpu: Cpu,
    pending: ReadyQueue<Done>,
    acks: VecDeque<u64>,
    delivered: u32,
    /// Generations: every packet below is decoded and released to delivery (a whole
    /// number of generations, or the whole transfer).
    released: u32,
    completed_at: Option<Time>,
    record: DecodeRecord,
    payload: Option<PayloadRx>,
    received: u64,
    innovative: u64,
    acks_sent: u64,
}

impl NcSink {
    pub fn new(
        flow: u32,
        mss: u32,
        total: Option<u64>,
        p: NcParams,
        port: Option<SymbolBytes>,
    ) -> Result<NcSink, String> {
        let payload = match port {
            Some(port) => {
                // Held packets span at most the advertised window plus one coding window.
                let w = match (p.window, p.generation) {
                    (0, 0) => p.buffer,
                    (0, g) => g,
                    (w, _) => w,
                };
                let cap = (2 * p.buffer + w + 64).min(65_535) as usize;
                Some(PayloadRx {
                    port,
                    dec: RlncDecoder::new(mss as usize, cap).map_err(|e| e.to_string())?,
                    kept: VecDeque::new(),
                    kept_base: 0,
                    sender_base: 0,
                    bytes: Vec::new(),
                    coeffs: Vec::new(),
                    expect: vec![0; mss as usize],
                })
            }
            None => None,
        };
        Ok(NcSink {
            flow,
            mss,
            total,
            cpu: Cpu::new(p.cost),
            p,
            tracker: SeenTracker::new(),
            pending: ReadyQueue::default(),
            acks: VecDeque::new(),
            delivered: 0,
            released: 0,
            completed_at: None,
            record: DecodeRecord::default(),
            payload,
            received: 0,
            innovative: 0,
            acks_sent: 0,
        })
    }

    /// The receiver's seen/decoded state.
    pub fn tracker(&self) -> &SeenTracker {
        &self.tracker
    }

    fn bytes_of(&self, packets: u32) -> u64 {
        let b = u64::from(packets) * u64::from(self.mss);
        self.total.map_or(b, |t| b.min(t))
    }

    /// What may be delivered when every packet below `decoded` is decoded: all of it, or
    /// with generations only the whole generations (and the transfer's last, short one).
    fn gate(&self, decoded: u32) -> u32 {
        let g = self.p.generation;
        if g == 0 || self.total.is_some_and(|t| self.bytes_of(decoded) >= t) {
            decoded
        } else {
            decoded / g * g
        }
    }

    fn on_symbol(&mut self, now: Time, sym: &Symbol) -> Result<(), Violation> {
        let end = sym.start.checked_add(sym.span).filter(|_| sym.span > 0);
        let Some(end) = end.filter(|&e| self.total.is_none_or(|t| self.bytes_of(e - 1) < t)) else {
            return Err(Violation::Coding {
                flow: self.flow,
                why: format!(
                    "symbol window {}..+{} is empty or beyond the transfer",
                    sym.start, sym.span
                ),
            });
        };
        self.received += 1;
        self.record.symbol(now, sym, end);
        let before = self.tracker.first_undecoded();
        let r = self.tracker.receive(sym.start, sym.span, sym.seed);
        if self.payload.is_some() {
            self.check_payload(sym, &r)?;
        }
        let work = self.p.cost.rlnc(r.ops, self.mss + NC_FRAMING_BYTES);
        let done = self.cpu.run(now, work);
        let cum = if self.p.generation == 0 {
            if !self.tracker.newly_decoded().is_empty() {
                self.record.decode_event();
                for &i in self.tracker.newly_decoded() {
                    self.record.decoded(done, i);
                }
            }
            before.max(self.tracker.first_undecoded())
        } else {
            // A generation's packets count as decoded when the generation is whole.
            let rel = self.gate(self.tracker.first_undecoded());
            if rel > self.released {
                self.record.decode_event();
                for i in self.released..rel {
                    self.record.decoded(done, i);
                }
                self.released = rel;
            }
            self.released
        };
        self.record.forget_below(cum);
        if r.innovative {
            self.innovative += 1;
        }
        let ack = (r.innovative || self.p.ack_redundant)
            .then(|| self.bytes_of(self.tracker.first_unseen()));
        self.pending.push(
            done,
            Done {
                ack,
                delivered: self.gate(self.tracker.first_undecoded()),
            },
        );
        self.release(now);
        Ok(())
    }

    /// Applies what the CPU has finished by `now`.
    fn release(&mut self, now: Time) {
        while let Some((at, d)) = self.pending.pop_ready(now) {
            self.delivered = self.delivered.max(d.delivered);
            if let Some(a) = d.ack {
                self.acks.push_back(a);
            }
            if self.completed_at.is_none()
                && self
                    .total
                    .is_some_and(|t| self.bytes_of(self.delivered) >= t)
            {
                self.completed_at = Some(at);
            }
        }
    }

    /// Runs the real decoder on the symbol's bytes and checks it agrees with the tracker
    /// on everything: innovative or not, the packet seen, the packets decoded, the work
    /// done, and every decoded byte.
    fn check_payload(&mut self, sym: &Symbol, r: &Receipt) -> Result<(), Violation> {
        let (flow, mss, total) = (self.flow, self.mss, self.total);
        let len_of = |k: u32| {
            let b = |k: u32| {
                let b = u64::from(k) * u64::from(mss);
                total.map_or(b, |t| b.min(t))
            };
            (b(k + 1) - b(k)) as usize
        };
        let fail = |why: String| Violation::Coding { flow, why };
        let tx = self.payload.as_mut().expect("payload mode");
        // `tx.bytes`: the symbol's payload, reduced below by forgotten packets.
        if !tx.port.take_into(sym.seed, &mut tx.bytes) {
            return Err(fail(format!("the bytes of symbol {} are gone", sym.seed)));
        }
        tx.sender_base = tx.sender_base.max(sym.base);
        if tx.bytes.len() != mss as usize + NC_FRAMING_BYTES as usize {
            let n = tx.bytes.len();
            return Err(fail(format!("symbol {} carries {n} bytes", sym.seed)));
        }
        // The header's window and seed give the coefficients (TCP/NC's seeded header).
        let (ws, we) = (sym.start, sym.start + sym.span);
        tx.coeffs.clear();
        tx.coeffs.resize(sym.span as usize, 0);
        seeded_coefficients(sym.start, sym.seed, &mut tx.coeffs);
        // Subtract decoded packets the decoder has already forgotten.
        let base = tx.dec.base();
        let mut ops = 0u64;
        for j in ws..base.min(we) {
            let f = tx.coeffs[(j - ws) as usize];
            if f == 0 {
                continue;
            }
            let unit = j
                .checked_sub(tx.kept_base)
                .and_then(|o| tx.kept.get(o as usize))
                .ok_or_else(|| fail(format!("decoded packet {j} is no longer kept")))?;
            gf256::mul_acc(&mut tx.bytes, unit, f);
            ops += 1;
        }
        let (outcome, seen, decoded) = if we <= base {
            (RlncOutcome::NonInnovative, None, Vec::new())
        } else {
            let s = ws.max(base);
            let before = tx.dec.stats().row_ops;
            let sym2 = RlncSymbolRef {
                start: s,
                window_len: (we - s) as u16,
                coefficients: CoefficientsRef::Explicit(&tx.coeffs[(s - ws) as usize..]),
                payload: &tx.bytes,
            };
            let rc = tx
                .dec
                .receive_symbol(sym2)
                .map_err(|e| fail(e.to_string()))?;
            let out = (rc.outcome, rc.newly_seen, rc.newly_decoded.to_vec());
            ops += tx.dec.stats().row_ops - before;
            out
        };
        let innovative = outcome == RlncOutcome::Innovative;
        if innovative != r.innovative
            || seen != r.newly_seen
            || decoded != self.tracker.newly_decoded()
            || ops != r.ops
        {
            return Err(fail(format!(
                "decoders disagree on symbol {}: real {outcome:?} seen {seen:?} decoded \
                 {decoded:?} ops {ops}, tracker {r:?} decoded {:?}",
                sym.seed,
                self.tracker.newly_decoded()
            )));
        }
        for &i in &decoded {
            let len = len_of(i);
            segment_bytes(flow, i, &mut tx.expect[..len]);
            let got = tx
                .dec
                .packet(i)
                .ok_or_else(|| fail(format!("packet {i} missing")))?;
            if got != &tx.expect[..len] {
                return Err(fail(format!(
                    "packet {i}: decoded bytes differ from those sent"
                )));
            }
        }
        // Keep decoded units the sender may still combine; forget the rest.
        let new_base = tx.dec.drop_decoded_prefix();
        if tx.kept.is_empty() {
            tx.kept_base = tx.kept_base.max(base);
        }
        for j in base..new_base {
            let mut unit = vec![0; mss as usize + 2];
            let len = len_of(j);
            unit[..2].copy_from_slice(&(len as u16).to_be_bytes());
            segment_bytes(flow, j, &mut unit[2..2 + len]);
            debug_assert_eq!(tx.kept_base + tx.kept.len() as u32, j);
            tx.kept.push_back(unit);
        }
        while tx.kept_base < tx.sender_base && !tx.kept.is_empty() {
            tx.kept.pop_front();
            tx.kept_base += 1;
        }
        Ok(())
    }
}

impl NcSink {
    pub const UNDECODED_ROWS: ColumnDef = ColumnDef::new(
        "undecoded_rows",
        "",
        "tcp-nc: combinations held, not yet decoded",
    )
    .at_least(0.0);

    /// The `flow_series` columns its `sample` writes, in its order.
    pub const SERIES: [ColumnDef; 2] = [DELIVERED, Self::UNDECODED_ROWS];
}

impl Endpoint for NcSink {
    fn handle_packet(&mut self, now: Time, pkt: &Packet) -> Result<(), Violation> {
        match pkt {
            Packet::Coded(CodedPacket::Symbol(s)) if s.code == Code::Rlnc => self.on_symbol(now, s),
            _ => Err(Violation::ForeignPacket {
                flow: self.flow,
                expected: "TCP/NC symbol",
            }),
        }
    }

    fn handle_timeout(&mut self, now: Time) {
        self.release(now)
    }

    fn poll_transmit(&mut self, _now: Time) -> Option<Packet> {
        let ack = self.acks.pop_front()?;
        self.acks_sent += 1;
        // The decoding buffer holds every packet from the oldest undelivered one: the
        // window's right edge is `buffer` packets past it, so packets seen but not yet
        // decoded close the window instead of growing the decoder without bound.
        let edge = u64::from(self.delivered) + u64::from(self.p.buffer);
        let wnd = edge.saturating_sub(ack.div_ceil(u64::from(self.mss))) * u64::from(self.mss);
        Some(Packet::Tcp(Segment {
            flow: self.flow,
            ack,
            wnd,
            ..Segment::default()
        }))
    }

    fn poll_timeout(&self) -> Option<Time> {
        self.pending.next_ready()
    }

    fn progress(&self) -> Progress {
        Progress {
            app_bytes: self.bytes_of(self.delivered),
            sent_bytes: 0,
            finished_at: self.completed_at,
        }
    }

    fn sample(&self, out: &mut dyn Metrics) {
        out.put(&DELIVERED, self.bytes_of(self.delivered).into());
        out.put(
            &Self::UNDECODED_ROWS,
            (self.tracker.undecoded_rows() as u64).into(),
        );
    }

    fn summary(&self, out: &mut dyn Metrics) {
        CodedSinkSummary {
            acks_sent: self.acks_sent,
            symbols_received: self.received,
            innovative_symbols: Some(self.innovative),
            redundant_symbols: self.received - self.innovative,
            decode: self.record.stats(),
            decode_busy_s: self.cpu.busy().as_secs_f64(),
        }
        .publish(out);
    }
}
