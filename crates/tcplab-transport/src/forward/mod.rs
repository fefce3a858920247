//! TCP-Forward (`transport = "tcp-forward"`): LT codes under Vegas (Chi & Agrawal; seed
//! 004). The source codes a window of segments into LT symbols paced by a congestion
//! controller, repairs late segments (`diff.rs`) and adapts its redundancy
//! (`redundancy.rs`); the sink peels. The packet, payload stores and cost model are the
//! coded transports' (`coded/`).
//!
//! - `coding.rs`: the `coding` table ([`ForwardParams`]); `keys.rs`: the flow's keys;
//! - `spec.rs`: the settings and building the two ends ([`ForwardSpec`]);
//! - `source.rs`, `sink.rs`: the two ends;
//! - `summary.rs`: its columns of the flows table;
//! - `transport.rs`: the [`Transport`](crate::Transport), listed in `builtin.rs`.

mod coding;
mod diff;
mod keys;
mod redundancy;
mod sink;
mod source;
mod spec;
mod summary;
mod transport;

pub use coding::ForwardParams;
pub use diff::DiffDetector;
pub use redundancy::Redundancy;
pub use sink::ForwardSink;
pub use source::ForwardSource;
pub use spec::ForwardSpec;
pub use summary::ForwardSourceSummary;
pub use transport::ForwardTransport;
