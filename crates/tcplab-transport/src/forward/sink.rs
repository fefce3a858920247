//! TCP-Forward's receiving end (seed 004, Sec. IV-B): peel, acknowledge each decoded
//! segment at once, deliver in order.
//!
//! "The decoding ... starts by looking for an encoded symbol with degree d = 1. Once such a
//! packet is identified, it will be bitwise XOR-ed with all the other encoded symbols in
//! which it is included." `tcplab-coding`'s online peeling decoder does exactly that. In
//! description mode it runs on one-byte symbols (the peeling decisions depend only on the
//! neighbour sets, which the seeds fix); with `payload = true` a second decoder runs on
//! the real bytes and must agree on every recovered segment and every byte. "An
//! acknowledgement will be generated and sent back to the sender immediately after a
//! segment gets decoded", and decoded segments wait in a buffer until they can be
//! delivered in order.
//!
//! State is bounded by the window, not by the transfer: decoded segments are forgotten
//! once the sender can no longer combine them. The sender's coding window never starts
//! more than one coding window below its oldest unacknowledged segment, which lags the
//! in-order decoded point by at most what is in flight (its buffer), so the decoders keep
//! decoded segments from `buffer + window + REORDER_SLACK` below that point; a symbol
//! reaching further back is dropped as stale. The bound uses only the sink's own
//! settings: the header's `base` could be forged.

use super::coding::ForwardParams;
use crate::coded::app_bytes::segment_bytes;
use crate::coded::cost::Cpu;
use crate::coded::decode_record::DecodeRecord;
use crate::coded::packet::{Code, CodedAck, CodedPacket, Symbol};
use crate::coded::ready_queue::ReadyQueue;
use crate::coded::sink_summary::CodedSinkSummary;
use crate::coded::symbol_bytes::SymbolBytes;
use crate::endpoint::{Endpoint, Progress};
use crate::error::Violation;
use crate::packet::Packet;
use crate::series_columns::DELIVERED;
use std::collections::VecDeque;
use tcplab_coding::lt::{DegreeSpec, LtDecoder, LtParams};
use tcplab_core::{ColumnDef, Metrics, Time};

/// Segments of progress a reordered symbol may lag behind the newest before it is
/// dropped: what the decoders keep below the sender's coding window (a memory bound
/// of about 6 bytes per segment without payload, one segment each with it).
const REORDER_SLACK: u32 = 1024;

struct PayloadRx {
    port: SymbolBytes,
    dec: LtDecoder,
    bytes: Vec<u8>,
    expect: Vec<u8>,
}

/// The TCP-Forward sink (see the module docs).
pub struct ForwardSink {
    flow: u32,
    mss: u32,
    total: u64,
    segments: u32,
    p: ForwardParams,
    /// Peeling on the descriptions (one-byte symbols).
    dec: LtDecoder,
    payload: Option<PayloadRx>,
    record: DecodeRecord,
    cpu: Cpu,
    /// ACKs and in-order points, released when the CPU is done.
    pending: ReadyQueue<CodedAck>,
    acks: VecDeque<CodedAck>,
    /// First segment not yet decoded (everything below is decoded).
    cum: u32,
    delivered: u32,
    completed_at: Option<Time>,
    received: u64,
    acks_sent: u64,
    newly: Vec<u32>,
}

fn lt_params(symbol: usize, p: &ForwardParams) -> Result<LtParams, String> {
    let degrees = DegreeSpec::RobustSoliton {
        c: p.c,
        delta: p.delta,
    };
    LtParams::tcp_forward(symbol, p.window, degrees).map_err(|e| e.to_string())
}

impl ForwardSink {
    pub fn new(
        flow: u32,
        total: u64,
        mss: u32,
        p: ForwardParams,
        port: Option<SymbolBytes>,
    ) -> Result<ForwardSink, String> {
        let segments = u32::try_from(total.div_ceil(u64::from(mss)))
            .map_err(|_| format!("{total} bytes need more than 2^32 segments"))?;
        let dec =
            LtDecoder::new(lt_params(1, &p)?, u64::from(segments)).map_err(|e| e.to_string())?;
        let payload = match port {
            Some(port) => Some(PayloadRx {
                port,
                dec: LtDecoder::new(lt_params(mss as usize, &p)?, total)
                    .map_err(|e| e.to_string())?,
                bytes: Vec::new(),
                expect: vec![0; mss as usize],
            }),
            None => None,
        };
        Ok(ForwardSink {
            flow,
            mss,
            total,
            segments,
            cpu: Cpu::new(p.cost),
            p,
            dec,
            payload,
            record: DecodeRecord::default(),
            pending: ReadyQueue::default(),
            acks: VecDeque::new(),
            cum: 0,
            delivered: 0,
            completed_at: None,
            received: 0,
            acks_sent: 0,
            newly: Vec::new(),
        })
    }

    fn bytes_of(&self, k: u32) -> u64 {
        (u64::from(k) * u64::from(self.mss)).min(self.total)
    }

    fn on_symbol(&mut self, now: Time, sym: &Symbol) -> Result<(), Violation> {
        let flow = self.flow;
        let fail = |why: String| Violation::Coding { flow, why };
        let end = u64::from(sym.start) + u64::from(sym.span);
        if sym.span == 0 || end > u64::from(self.segments) {
            return Err(fail(format!(
                "symbol window {}..+{} is empty or beyond the {} segments",
                sym.start, sym.span, self.segments
            )));
        }
        self.received += 1;
        if sym.start < self.dec.forgotten() {
            // Its window reaches segments decoded and forgotten: stale.
            return Ok(());
        }
        self.record.symbol(now, sym, end as u32);
        let ops_before = self.dec.stats().ops;
        let newly = self
            .dec
            .receive_window(sym.start, sym.span, sym.seed, &[0])
            .map_err(|e| fail(e.to_string()))?;
        self.newly.clear();
        self.newly.extend_from_slice(newly);
        let ops = self.dec.stats().ops - ops_before;
        if self.payload.is_some() {
            self.check_payload(sym, ops)?;
        }
        if !self.newly.is_empty() {
            self.record.decode_event();
        }
        let done = self.cpu.run(now, self.p.cost.lt(ops, self.mss));
        while self.cum < self.segments && self.dec.is_recovered(self.cum) {
            self.cum += 1;
        }
        for k in 0..self.newly.len() {
            let i = self.newly[k];
            self.record.decoded(done, i);
            let ack = CodedAck {
                flow,
                index: i,
                cum: self.cum,
                echo: sym.seed,
            };
            self.pending.push(done, ack);
        }
        self.record.forget_below(self.cum);
        self.forget();
        self.release(now);
        Ok(())
    }

    /// Forgets decoded segments the sender can no longer combine (see the module docs).
    fn forget(&mut self) {
        let below = self
            .cum
            .saturating_sub(self.p.buffer + self.p.window + REORDER_SLACK);
        if below > self.dec.forgotten() {
            self.dec.forget_below(below);
            if let Some(rx) = self.payload.as_mut() {
                rx.dec.forget_below(below);
            }
        }
    }

    fn release(&mut self, now: Time) {
        while let Some((at, ack)) = self.pending.pop_ready(now) {
            self.acks.push_back(ack);
            self.delivered = self.delivered.max(ack.cum);
            if self.delivered == self.segments && self.completed_at.is_none() {
                self.completed_at = Some(at);
            }
        }
    }

    /// The real decoder must recover the same segments with the same work, and every
    /// recovered byte must be the one sent.
    fn check_payload(&mut self, sym: &Symbol, ops: u64) -> Result<(), Violation> {
        let (flow, mss, total) = (self.flow, self.mss, self.total);
        let fail = |why: String| Violation::Coding { flow, why };
        let rx = self.payload.as_mut().expect("payload mode");
        if !rx.port.take_into(sym.seed, &mut rx.bytes) {
            return Err(fail(format!("the bytes of symbol {} are gone", sym.seed)));
        }
        let before = rx.dec.stats().ops;
        let real = rx
            .dec
            .receive_window(sym.start, sym.span, sym.seed, &rx.bytes)
            .map_err(|e| fail(e.to_string()))?
            .to_vec();
        if real != self.newly || rx.dec.stats().ops - before != ops {
            return Err(fail(format!(
                "decoders disagree on symbol {}: real {real:?}, description {:?}",
                sym.seed, self.newly
            )));
        }
        for &i in &self.newly {
            let start = u64::from(i) * u64::from(mss);
            let len = (total - start).min(u64::from(mss)) as usize;
            segment_bytes(flow, i, &mut rx.expect[..len]);
            if rx.dec.source(i) != Some(&rx.expect[..len]) {
                return Err(fail(format!(
                    "segment {i}: decoded bytes differ from those sent"
                )));
            }
        }
        Ok(())
    }
}

impl ForwardSink {
    pub const BUFFERED_SYMBOLS: ColumnDef = ColumnDef::new(
        "buffered_symbols",
        "symbols",
        "tcp-forward: symbols the peeling decoder holds undecoded",
    )
    .at_least(0.0);

    /// The `flow_series` columns its `sample` writes, in its order.
    pub const SERIES: [ColumnDef; 2] = [DELIVERED, Self::BUFFERED_SYMBOLS];
}

impl Endpoint for ForwardSink {
    fn handle_packet(&mut self, now: Time, pkt: &Packet) -> Result<(), Violation> {
        match pkt {
            Packet::Coded(CodedPacket::Symbol(s)) if s.code == Code::Lt => self.on_symbol(now, s),
            _ => Err(Violation::ForeignPacket {
                flow: self.flow,
                expected: "TCP-Forward symbol",
            }),
        }
    }

    fn handle_timeout(&mut self, now: Time) {
        self.release(now)
    }

    fn poll_transmit(&mut self, _now: Time) -> Option<Packet> {
        let a = self.acks.pop_front()?;
        self.acks_sent += 1;
        Some(Packet::Coded(CodedPacket::Ack(a)))
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
            &Self::BUFFERED_SYMBOLS,
            u64::from(self.dec.stats().buffered).into(),
        );
    }

    fn summary(&self, out: &mut dyn Metrics) {
        CodedSinkSummary {
            acks_sent: self.acks_sent,
            symbols_received: self.received,
            innovative_symbols: None,
            redundant_symbols: self.dec.stats().redundant,
            decode: self.record.stats(),
            decode_busy_s: self.cpu.busy().as_secs_f64(),
        }
        .publish(out);
    }
}
