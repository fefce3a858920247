//! The retransmission columns of a flows-table row, shared by every transport that sends
//! segments again (TCP, TACK) and by the kernel tool's rows: defined once, so the ratio
//! means the same in each.

use tcplab_core::{ColumnDef, Metrics};

/// Segments a source sent, retransmissions included, and how many of them were resent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Retransmissions {
    pub segments_sent: u64,
    pub retransmitted_segments: u64,
}

impl Retransmissions {
    pub const SEGMENTS_SENT: ColumnDef = ColumnDef::new(
        "segments_sent",
        "segments",
        "TCP segments sent, retransmissions included",
    )
    .at_least(0.0);
    pub const RETRANSMITTED_SEGMENTS: ColumnDef = ColumnDef::new(
        "retransmitted_segments",
        "segments",
        "TCP segments sent again",
    )
    .at_least(0.0);
    pub const RETRANSMISSION_RATIO: ColumnDef =
        ColumnDef::new("retransmission_ratio", "", "retransmitted / sent segments")
            .within(0.0, 1.0);

    /// The columns [`Retransmissions::publish`] writes, in its order: unit, meaning, range.
    pub const COLUMNS: [ColumnDef; 3] = [
        Self::SEGMENTS_SENT,
        Self::RETRANSMITTED_SEGMENTS,
        Self::RETRANSMISSION_RATIO,
    ];

    /// Retransmitted over sent segments (0 when none was sent).
    pub fn ratio(&self) -> f64 {
        if self.segments_sent > 0 {
            self.retransmitted_segments as f64 / self.segments_sent as f64
        } else {
            0.0
        }
    }

    /// `segments_sent`, `retransmitted_segments` and `retransmission_ratio`.
    pub fn publish(&self, out: &mut dyn Metrics) {
        out.put(&Self::SEGMENTS_SENT, self.segments_sent.into());
        out.put(
            &Self::RETRANSMITTED_SEGMENTS,
            self.retransmitted_segments.into(),
        );
        out.put(&Self::RETRANSMISSION_RATIO, self.ratio().into());
    }
}
