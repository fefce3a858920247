//! Building a TCP-Forward flow's two ends from its settings.

use super::coding::ForwardParams;
use super::sink::ForwardSink;
use super::source::ForwardSource;
use crate::cc::{self, CcParams, Window};
use crate::coded::ports::ports;
use crate::flow_context::FlowContext;

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
