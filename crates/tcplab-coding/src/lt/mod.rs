//! LT codes (Luby 2002) as used by TCP-Forward (seed 004).
//!
//! * [`DegreeSpec`]/[`DegreeDistribution`]: Ideal and Robust Soliton, or any
//!   distribution.
//! * [`LtParams`]/[`Layout`]: symbol size and sliding generations (a window
//!   of N source symbols advancing by a stride, ⌊N/2⌋ for TCP-Forward).
//! * [`LtEncoder`]: rateless symbols keyed by (generation, seed).
//! * [`LtStreamEncoder`]: window symbols over a stream pushed in order (a
//!   sender's coding buffer, not the whole object).
//! * [`LtDecoder`]: online peeling over absolute source indices; a stream's
//!   recovered prefix can be forgotten.
//! * [`WindowSampler`]: symbols over any window `start..start + span`
//!   (TCP-Forward's variable coding window), keyed by (start, seed).
//! * [`analysis`]: exact expected reception overhead of peeling.

pub mod analysis;
mod decoder;
mod distribution;
mod encoder;
mod neighbours;
mod params;
mod stream_encoder;
mod symbol;
mod window;

pub use decoder::{LtDecoder, LtDecoderStats};
pub use distribution::{DegreeDistribution, DegreeSpec};
pub use encoder::LtEncoder;
pub use params::{Layout, LtParams};
pub use stream_encoder::LtStreamEncoder;
pub use symbol::{LtSymbol, LtSymbolRef, LT_HEADER_LEN, LT_TAG, LT_VERSION};
pub use window::WindowSampler;
