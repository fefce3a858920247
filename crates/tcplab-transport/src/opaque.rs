//! The header of a transport registered at run time (see [`crate::transport::register`]).

/// Header fields of a transport registered at run time.
///
/// Six 64-bit words and a 16-bit kind are enough for a sequence number, an
/// acknowledgement, a timestamp and a few flags; the size on the wire is given explicitly.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Opaque {
    /// Free for the transport (e.g. data vs acknowledgement).
    pub kind: u16,
    pub words: [u64; 6],
    /// Bytes this packet occupies on the wire, headers included (must be > 0).
    pub wire_len: u32,
}
