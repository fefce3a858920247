//! Erasure codes for tcplab's coded transports.
//!
//! * [`lt`] — LT codes with Ideal/Robust Soliton degrees, an online peeling
//!   decoder and TCP-Forward's overlapping, sliding generations (seed 004).
//! * [`rlnc`] — random linear network coding over GF(2^8) with an
//!   incremental Gauss–Jordan decoder that reports TCP/NC's *seen* packets.
//! * [`gf256`] — field arithmetic and the SIMD kernels both codes run on.
//!
//! Every symbol has a compact wire format (`to_bytes`/`from_bytes`); any
//! malformed input yields a [`CodingError`], never a panic.

pub mod error;
pub mod fuzzing;
pub mod gf256;
pub mod lt;
pub mod rlnc;

/// The generator behind degrees, neighbours and coefficients: tcplab-core's SplitMix64.
pub use tcplab_core::splitmix as rng;
mod wire;

pub use error::{CodingError, Result};
