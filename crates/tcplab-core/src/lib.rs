//! Primitives shared by every tcplab crate.
//!
//! Nothing here knows about TCP, links or the simulator: these are the building blocks that
//! keep every component deterministic (integer time, named RNG streams) and every input
//! readable (units with clear errors).

pub mod column_def;
pub mod detmath;
pub mod keys;
pub mod metrics;
pub mod pcapng;
pub mod peak_heap;
pub mod rng;
pub mod splitmix;
pub mod table_columns;
pub mod time;
pub mod units;

pub use column_def::ColumnDef;
pub use keys::{KeyError, Keys};
pub use metrics::{Metrics, Value};
pub use rng::{Rng, RngStream};
pub use splitmix::SplitMix64;
pub use table_columns::TableColumns;
pub use time::{Dur, Time};
