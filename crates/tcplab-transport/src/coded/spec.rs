//! Building a coded flow's two ends from its settings.

use super::channel::PayloadChannel;
use super::entry::EntryLog;
use super::forward_sink::ForwardSink;
use super::forward_source::ForwardSource;
use super::nc_sink::NcSink;
use super::nc_source::NcSource;
use super::params::{ForwardParams, NcParams};
use crate::cc::{self, CcParams};
use crate::tcp::{Sender, TcpSpec};
use crate::transport::FlowContext;

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
        let channel = self.coding.payload.then(PayloadChannel::new);
        let seed = ctx.source_rng.next_u64() as u32;
        let entries = EntryLog::new();
        Ok((
            NcSource::new(ctx.flow, tcp, self.coding.clone(), seed, channel.clone())?
                .with_entries(entries.clone()),
            NcSink::new(ctx.flow, mss, ctx.bytes, self.coding.clone(), channel)?
                .with_entries(entries),
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
        cc::build(&self.cc, &self.cc_params)?;
        let channel = self.coding.payload.then(PayloadChannel::new);
        let seed = ctx.source_rng.next_u64() as u32;
        let entries = EntryLog::new();
        Ok((
            ForwardSource::new(ctx.flow, total, self, seed, channel.clone())?
                .with_entries(entries.clone()),
            ForwardSink::new(ctx.flow, total, self.mss, self.coding.clone(), channel)?
                .with_entries(entries),
        ))
    }
}
