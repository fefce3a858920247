//! Stop-and-wait ARQ: the smallest reliable transport, and the worked example of
//! docs/transports.md (every file here is one step of it).
//!
//! The source sends one packet, waits for its acknowledgement or a timeout, and sends
//! it again on a timeout; the sink acknowledges every copy it receives.
//!
//! - `spec.rs`: its settings and how they are read from `params` ([`StopWaitSpec`]);
//! - `packet.rs`: its header ([`StopWaitPacket`]) and what it is on the wire;
//! - `pcap.rs`: how a capture shows it;
//! - `wire.rs`: its messages in the UDP driver's datagrams (`tcplab send`/`recv`);
//! - `source.rs`, `sink.rs`: the two endpoints;
//! - `summary.rs`: its columns of the flows table ([`StopWaitSummary`]);
//! - `transport.rs`: the [`Transport`](crate::Transport) that ties them together,
//!   listed in `builtin.rs`;
//! - `registered.rs`: the same ends registered at run time instead, their packets
//!   carried as [`Opaque`](crate::Opaque) headers (docs/transports.md's last section).

mod packet;
mod pcap;
pub mod registered;
mod sink;
mod source;
mod spec;
mod summary;
mod transport;
pub mod wire;

pub use packet::{StopWaitPacket, HEADER_BYTES};
pub use sink::StopWaitSink;
pub use source::StopWaitSource;
pub use spec::StopWaitSpec;
pub use summary::StopWaitSummary;
pub use transport::StopWait;
