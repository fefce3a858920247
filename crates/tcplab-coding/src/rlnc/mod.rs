//! Random linear network coding over GF(2^8), as in TCP/NC (seed 004 §II).
//!
//! * [`RlncEncoder`]: combinations of a coding window that grows as packets
//!   are pushed and slides as they are acknowledged.
//! * [`RlncDecoder`]: incremental Gauss–Jordan elimination reporting rank,
//!   *seen* and decoded packets after every symbol; drops packets below a
//!   sliding boundary; can recode.
//! * [`RlncSymbol`]: the wire format (seeded or explicit coefficients).

mod decoder;
mod encoder;
mod symbol;

pub use decoder::{RlncDecoder, RlncDecoderStats, RlncOutcome, RlncReceipt};
pub use encoder::RlncEncoder;
pub use symbol::{
    seeded_coefficients, Coefficients, CoefficientsRef, RlncSymbol, RlncSymbolRef,
    RLNC_SEEDED_HEADER_LEN, RLNC_TAG, RLNC_VERSION,
};
