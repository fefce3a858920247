//! What a transport needs to know about the flow it serves.

use crate::coded::PayloadPorts;
use tcplab_core::Rng;

/// What a transport needs to know about the flow it serves.
#[derive(Clone, Debug)]
pub struct FlowContext {
    /// The flow's index (the demultiplexing key of its packets).
    pub flow: u32,
    /// Bytes the application writes; `None`: until it stops.
    pub bytes: Option<u64>,
    /// The source's and the sink's own random streams (`flow.<name>.source` / `.sink`).
    pub source_rng: Rng,
    pub sink_rng: Rng,
    /// The driver's store for bytes that packets do not carry (coded symbols with
    /// `payload = true`); empty for a driver that carries none.
    pub payload: PayloadPorts,
}
