//! Building a TCP/NC flow's two ends from its settings.

use super::coding::NcParams;
use super::sink::NcSink;
use super::source::NcSource;
use crate::cc;
use crate::coded::ports::ports;
use crate::flow_context::FlowContext;
use crate::tcp::{Sender, TcpSpec};

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
