//! Invariant violations: a run that breaks one is wrong and must fail loudly.

use std::fmt;

/// A broken transport invariant, with the numbers that show it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Violation {
    /// The receiver acknowledged bytes the sender never sent.
    AckBeyondSent { flow: u32, ack: u64, snd_max: u64 },
    /// A SACK block covers bytes that were never sent.
    SackBeyondSent { flow: u32, end: u64, snd_max: u64 },
    /// The receiver received bytes beyond the end of the transfer.
    DataBeyondEnd { flow: u32, end: u64, total: u64 },
    /// The receiver's in-order byte count disagrees with the bytes it actually received.
    ReassemblyMismatch {
        flow: u32,
        delivered: u64,
        received: u64,
    },
    /// At the end of a run, the receiver delivered a different byte count than was sent.
    DeliveredMismatch {
        flow: u32,
        delivered: u64,
        expected: u64,
    },
    /// An endpoint got a packet of another transport (a wiring bug in a driver).
    ForeignPacket { flow: u32, expected: &'static str },
    /// A coded transport's decoders disagree, or decoded bytes differ from what was sent
    /// (`payload = true` checks every symbol and every byte).
    Coding { flow: u32, why: String },
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Violation::AckBeyondSent { flow, ack, snd_max } => write!(
                f,
                "flow {flow}: ACK {ack} covers unsent data (highest byte sent {snd_max})"
            ),
            Violation::SackBeyondSent { flow, end, snd_max } => write!(
                f,
                "flow {flow}: SACK block ends at {end}, beyond the highest byte sent {snd_max}"
            ),
            Violation::DataBeyondEnd { flow, end, total } => write!(
                f,
                "flow {flow}: receiver got data up to byte {end} of a {total}-byte transfer"
            ),
            Violation::ReassemblyMismatch {
                flow,
                delivered,
                received,
            } => write!(
                f,
                "flow {flow}: receiver delivered {delivered} bytes in order but only received {received} distinct bytes below that point"
            ),
            Violation::DeliveredMismatch {
                flow,
                delivered,
                expected,
            } => write!(
                f,
                "flow {flow}: receiver delivered {delivered} bytes, sender sent {expected}"
            ),
            Violation::ForeignPacket { flow, expected } => write!(
                f,
                "flow {flow}: an endpoint expecting {expected} packets got another kind"
            ),
            Violation::Coding { flow, why } => write!(f, "flow {flow}: coding: {why}"),
        }
    }
}

impl std::error::Error for Violation {}
