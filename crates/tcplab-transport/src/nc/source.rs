//! TCP/NC's sending end: an unchanged TCP sender above a network-coding layer.
//!
//! Sundararajan et al. (Proc. IEEE 2011, Sec. V, "source side"): for every packet TCP hands
//! down, add it to the coding buffer if it is not there yet, set NUM ← NUM + R, send ⌊NUM⌋
//! random linear combinations of the packets in the coding window and keep the fractional
//! part of NUM; when an ACK arrives, drop the packets it acknowledges as seen from the
//! coding buffer and give the ACK to TCP. Losses are therefore masked from TCP: every
//! innovative combination that arrives is acknowledged, whichever packet it carries.
//!
//! The coding window is every packet in the buffer that is not yet acknowledged as seen,
//! or the newest `window` of them when that limit is set. A packet that fell out of a
//! limited window unseen comes back when TCP retransmits it: its combinations then cover
//! `window` packets from it onwards (the paper's "if the packet is not already in the
//! coding window, add it").
//!
//! With generations (`generation` = G > 0, seed 004's preliminary TCP/NC) a packet's
//! combinations mix every packet of its generation handed down so far, seen or not, and
//! never a packet of another generation.

use super::coding::NcParams;
use super::summary::NcSourceSummary;
use crate::coded::app_bytes::segment_bytes;
use crate::coded::cost::Cpu;
use crate::coded::packet::{Code, CodedPacket, Symbol, NC_FRAMING_BYTES};
use crate::coded::ready_queue::{earliest, ReadyQueue};
use crate::coded::symbol_bytes::SymbolBytes;
use crate::endpoint::{Endpoint, Progress};
use crate::error::Violation;
use crate::packet::Packet;
use crate::series_columns::SYMBOLS_SENT;
use crate::tcp::{Segment, Sender};
use tcplab_coding::rlnc::{seeded_coefficients, RlncEncoder, RlncSymbolRef};
use tcplab_core::{Metrics, Time};

/// Real bytes (`payload = true`): the encoder holds the unacknowledged packets.
struct PayloadTx {
    port: SymbolBytes,
    enc: RlncEncoder,
    coeffs: Vec<u8>,
    data: Vec<u8>,
    /// The encoded symbol in `tcplab-coding`'s wire form (its payload goes to `port`).
    wire: Vec<u8>,
}

/// The TCP/NC source (see the module docs).
pub struct NcSource {
    flow: u32,
    tcp: Sender,
    p: NcParams,
    mss: u32,
    total: Option<u64>,
    /// One past the newest packet TCP has handed down.
    hi: u32,
    /// The oldest packet not acknowledged as seen: the coding buffer starts here.
    acked: u32,
    /// The paper's NUM.
    num: f64,
    next_seed: u32,
    /// Encoded symbols and when the CPU has finished each.
    queue: ReadyQueue<Symbol>,
    cpu: Cpu,
    payload: Option<PayloadTx>,
    /// When the newest packet handed down (`hi - 1`) entered the coding layer.
    entered: Time,
    /// A payload-mode failure, reported as a violation at the next input.
    fault: Option<String>,
    packets: u64,
    handed: u64,
    symbols: u64,
}

impl NcSource {
    /// `seed` picks the coefficient seeds (the flow's own random stream).
    pub fn new(
        flow: u32,
        tcp: Sender,
        p: NcParams,
        seed: u32,
        port: Option<SymbolBytes>,
    ) -> Result<NcSource, String> {
        let mss = tcp.config().mss;
        let payload = match port {
            Some(port) => Some(PayloadTx {
                port,
                enc: RlncEncoder::new(mss as usize, (p.buffer + p.generation) as usize + 1)
                    .map_err(|e| e.to_string())?,
                coeffs: Vec::new(),
                data: vec![0; mss as usize],
                wire: Vec::new(),
            }),
            None => None,
        };
        Ok(NcSource {
            flow,
            total: tcp.config().total_bytes,
            tcp,
            mss,
            cpu: Cpu::new(p.cost),
            p,
            hi: 0,
            acked: 0,
            num: 0.0,
            next_seed: seed,
            queue: ReadyQueue::default(),
            payload,
            entered: Time::ZERO,
            fault: None,
            packets: 0,
            handed: 0,
            symbols: 0,
        })
    }

    /// The TCP sender above the coding layer.
    pub fn tcp(&self) -> &Sender {
        &self.tcp
    }

    /// Packets `lo..hi` of the coding window for packet `idx` just handed down.
    pub fn window_for(&self, idx: u32) -> (u32, u32) {
        if self.p.generation > 0 {
            // The whole generation of `idx` handed down so far, seen or not.
            let lo = self.p.generation_start(idx);
            return (lo, self.hi.min(lo.saturating_add(self.p.generation)));
        }
        let w = if self.p.window == 0 {
            u32::MAX
        } else {
            self.p.window
        };
        let lo = self.acked.max(self.hi.saturating_sub(w));
        if idx >= lo {
            (lo, self.hi)
        } else {
            (idx, idx.saturating_add(w).min(self.hi))
        }
    }

    fn len_of(&self, idx: u32) -> usize {
        let start = u64::from(idx) * u64::from(self.mss);
        let end = self.total.unwrap_or(u64::MAX);
        (end - start).min(u64::from(self.mss)) as usize
    }

    /// The coding layer's response to a packet from TCP.
    fn hand_down(&mut self, now: Time, seg: &Segment) -> Result<(), String> {
        let idx = (seg.seq / u64::from(self.mss)) as u32;
        self.handed += 1;
        if idx >= self.hi {
            debug_assert_eq!(idx, self.hi, "TCP sends new data in order");
            self.hi = idx + 1;
            self.entered = now;
            self.packets += 1;
            let len = self.len_of(idx);
            if let Some(tx) = self.payload.as_mut() {
                segment_bytes(self.flow, idx, &mut tx.data[..len]);
                tx.enc
                    .push(&tx.data[..len])
                    .map_err(|e| format!("payload encoder: {e}"))?;
            }
        }
        let (lo, hi) = self.window_for(idx);
        self.num += self.p.redundancy;
        let n = self.num.floor();
        self.num -= n;
        let unit = self.mss + NC_FRAMING_BYTES;
        for _ in 0..n as u64 {
            let sym = Symbol {
                flow: self.flow,
                code: Code::Rlnc,
                start: lo,
                span: hi - lo,
                seed: self.next_seed,
                base: self.p.generation_start(self.acked),
                payload: unit,
                repair: false,
                newest: self.hi - 1,
                entered: self.entered,
            };
            self.next_seed = self.next_seed.wrapping_add(1);
            // Encoding multiplies every packet of the window into the symbol.
            let work = self.p.cost.rlnc(u64::from(sym.span), unit);
            let ready = self.cpu.run(now, work);
            if let Some(tx) = self.payload.as_mut() {
                encode(tx, &sym)?;
            }
            self.queue.push(ready, sym);
        }
        Ok(())
    }
}

/// Writes symbol `sym`'s payload (one framed unit) into the port: the combination with
/// the coefficients its seed gives over `start..start + span` (zero elsewhere in the
/// encoder's window). The header already says which window and seed, so the receiver
/// regenerates the coefficients as TCP/NC's seeded header has it.
fn encode(tx: &mut PayloadTx, sym: &Symbol) -> Result<(), String> {
    let w = tx.enc.window();
    let (off, span) = ((sym.start - w.start) as usize, sym.span as usize);
    tx.coeffs.clear();
    tx.coeffs.resize(w.len(), 0);
    seeded_coefficients(sym.start, sym.seed, &mut tx.coeffs[off..off + span]);
    tx.enc
        .encode_with_coefficients_into(&tx.coeffs, &mut tx.wire)
        .map_err(|e| format!("payload encoder: {e}"))?;
    let parsed =
        RlncSymbolRef::from_bytes(&tx.wire).map_err(|e| format!("payload encoder: {e}"))?;
    tx.port
        .put(sym.seed, |buf| buf.extend_from_slice(parsed.payload));
    Ok(())
}

impl Endpoint for NcSource {
    fn handle_packet(&mut self, now: Time, pkt: &Packet) -> Result<(), Violation> {
        if let Some(why) = self.fault.take() {
            return Err(Violation::Coding {
                flow: self.flow,
                why,
            });
        }
        let Packet::Tcp(seg) = pkt else {
            return Err(Violation::ForeignPacket {
                flow: self.flow,
                expected: "TCP/NC acknowledgement",
            });
        };
        if seg.ack <= self.tcp.snd_max() {
            // The receiver acknowledged every packet below `seen` as seen.
            let seen = seg.ack.div_ceil(u64::from(self.mss)) as u32;
            if seen > self.acked {
                self.acked = seen;
                if let Some(tx) = self.payload.as_mut() {
                    tx.enc
                        .slide_to(self.p.generation_start(seen))
                        .map_err(|e| Violation::Coding {
                            flow: self.flow,
                            why: format!("payload encoder: {e}"),
                        })?;
                }
            }
        }
        self.tcp.handle_segment(now, seg)
    }

    fn handle_timeout(&mut self, now: Time) {
        self.tcp.handle_timeout(now)
    }

    fn poll_transmit(&mut self, now: Time) -> Option<Packet> {
        loop {
            if !self.queue.is_empty() {
                let (_, sym) = self.queue.pop_ready(now)?;
                self.symbols += 1;
                return Some(Packet::Coded(CodedPacket::Symbol(sym)));
            }
            let seg = self.tcp.poll_transmit(now)?;
            if let Err(why) = self.hand_down(now, &seg) {
                self.fault.get_or_insert(why);
            }
        }
    }

    fn poll_timeout(&self) -> Option<Time> {
        earliest(self.tcp.poll_timeout(), self.queue.next_ready())
    }

    fn start(&mut self, now: Time) {
        self.tcp.start(now)
    }

    fn stop(&mut self, _now: Time) {
        self.tcp.stop()
    }

    fn progress(&self) -> Progress {
        Endpoint::progress(&self.tcp)
    }

    fn sample(&self, out: &mut dyn Metrics) {
        Endpoint::sample(&self.tcp, out);
        out.put(&SYMBOLS_SENT, self.symbols.into());
    }

    fn summary(&self, out: &mut dyn Metrics) {
        Endpoint::summary(&self.tcp, out);
        NcSourceSummary {
            payload_mode: self.p.payload,
            symbols_sent: self.symbols,
            coded_segments: self.packets,
            segments_handed_down: self.handed,
            redundancy: self.p.redundancy,
            redundancy_measured: (self.packets > 0)
                .then(|| self.symbols as f64 / self.packets as f64),
            coding_window: u64::from(self.p.window),
            encode_busy_s: self.cpu.busy().as_secs_f64(),
        }
        .publish(out);
    }
}
