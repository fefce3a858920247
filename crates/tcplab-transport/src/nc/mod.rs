//! TCP/NC (`transport = "tcp-nc"`): random linear network coding under TCP, with "seen"
//! acknowledgements (Sundararajan et al., Proc. IEEE 2011; seed 004). TCP's sender runs
//! unchanged above a coding layer that sends R random combinations of the packets in its
//! window per packet TCP hands down; the sink acknowledges each packet it has *seen*.
//! The packet, payload stores and cost model are the coded transports' (`coded/`).
//!
//! - `coding.rs`: the `coding` table ([`NcParams`]); `keys.rs`: the flow's keys;
//! - `spec.rs`: the settings and building the two ends ([`NcSpec`]);
//! - `source.rs`, `sink.rs`: the coding layer's two ends; `seen.rs`: the sink's rank and
//!   "seen" tracking;
//! - `summary.rs`: its columns of the flows table;
//! - `transport.rs`: the [`Transport`](crate::Transport), listed in `builtin.rs`.

mod coding;
mod keys;
mod seen;
mod sink;
mod source;
mod spec;
mod summary;
mod transport;

pub use coding::NcParams;
pub use seen::{Receipt, SeenTracker};
pub use sink::NcSink;
pub use source::NcSource;
pub use spec::NcSpec;
pub use summary::NcSourceSummary;
pub use transport::NcTransport;
