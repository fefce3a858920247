//! The fate of a packet offered to a link.

/// What happened to a packet offered to the link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admit {
    /// Will reach the far end.
    Queued,
    /// Tail-dropped: the queue was full.
    DroppedQueue,
    /// Takes its slot on the wire but the loss model destroys it.
    DroppedLoss,
    /// The link is down.
    DroppedDown,
}
