//! The sender's ECN CWR state, kept in `SendState` and driven by `ecn.rs`.

/// The CWR state (read only once ECN is on).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct EcnState {
    /// snd_nxt when the reduction began (Linux's `high_seq`).
    pub cwr_end: u64,
    /// The next new data segment carries CWR.
    pub cwr_due: bool,
}
