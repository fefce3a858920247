//! Building a coded flow's two ends from its settings.

use super::forward_sink::ForwardSink;
use super::forward_source::ForwardSource;
use super::nc_sink::NcSink;
use super::nc_source::NcSource;
use super::params::{ForwardParams, NcParams};
use super::symbol_bytes::{SymbolBytes, NO_PORT};
use crate::cc::{self, CcParams, Window};
use crate::flow_context::FlowContext;
use crate::tcp::{Sender, TcpSpec};

/// The ports a `payload = true` flow's ends use (both `None` without payload).
fn ports(
    payload: bool,
    ctx: &FlowContext,
) -> Result<(Option<SymbolBytes>, Option<SymbolBytes>), String> {
    if !payload {
        return Ok((None, None));
    }
    match (&ctx.payload.source, &ctx.payload.sink) {
        (Some(a), Some(b)) => Ok((Some(a.clone()), Some(b.clone()))),
        _ => Err(NO_PORT.into()),
    }
}

/// A TCP/NC flow: TCP's settings (any controller; the receiver side is the coding layer)
/// and the coding parameters.
#[derive(Clone, Debug)]
pub struct NcSpec {
    pub tcp: TcpSpec,
    pub coding: NcParams,
}

impl NcSpec {
    pub fn build(&self, mut ctx: FlowContext) -> Result<(NcSource, NcSink), String> {
        let controller = cc::build(&self.tcp.cc, &self.tcp.cc_params)?;
        let mut cfg = self.tcp.sender.clone();
        cfg.total_bytes = ctx.bytes;
        let mss = cfg.mss;
        let tcp = Sender::new(ctx.flow, cfg, controller);
        let (tx, rx) = ports(self.coding.payload, &ctx)?;
        let seed = ctx.source_rng.next_u64() as u32;
        Ok((
            NcSource::new(ctx.flow, tcp, self.coding.clone(), seed, tx)?,
            NcSink::new(ctx.flow, mss, ctx.bytes, self.coding.clone(), rx)?,
        ))
    }
}

/// A TCP-Forward flow.
#[derive(Clone, Debug)]
pub struct ForwardSpec {
    /// The controller ("vegas" in the seed).
    pub cc: String,
    pub cc_params: CcParams,
    pub mss: u32,
    pub initial_cwnd: u32,
    pub coding: ForwardParams,
}

impl ForwardSpec {
    pub fn build(&self, mut ctx: FlowContext) -> Result<(ForwardSource, ForwardSink), String> {
        let total = ctx.bytes.ok_or(
            "tcp-forward needs a byte count: its LT decoder works on an object of known \
             length (docs/coding.md, Limits)",
        )?;
        let controller = cc::build(&self.cc, &self.cc_params)?;
        let (tx, rx) = ports(self.coding.payload, &ctx)?;
        let seed = ctx.source_rng.next_u64() as u32;
        let w = Window {
            cwnd: u64::from(self.initial_cwnd) * u64::from(self.mss),
            ssthresh: u64::MAX,
            mss: self.mss,
        };
        let p = self.coding.clone();
        Ok((
            ForwardSource::new(ctx.flow, total, w, controller, p, seed, tx)?,
            ForwardSink::new(ctx.flow, total, self.mss, self.coding.clone(), rx)?,
        ))
    }
}
