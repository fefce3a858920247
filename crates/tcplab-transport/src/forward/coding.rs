//! TCP-Forward's coding parameters (a flow's `coding = { ... }` table), with their
//! defaults and why. docs/coded-transports.md lists them with the seed's words.

use crate::cc::CcParams;
use crate::coded::cost::CostModel;
use crate::coded::params::{cpu, flag, whole};

/// TCP-Forward (seed 004, Sec. IV).
#[derive(Clone, Debug, PartialEq)]
pub struct ForwardParams {
    /// N: segments in the coding window.
    pub window: u32,
    /// Robust Soliton constants (seed 004, Def. IV.2).
    pub c: f64,
    pub delta: f64,
    /// R before any timeout (adaptive: R = N_segments / (N_segments − N_timeout)).
    pub redundancy: f64,
    /// Adapt R from the timeouts (false: keep `redundancy`).
    pub adaptive: bool,
    /// Upper bound on the adaptive R.
    pub max_redundancy: f64,
    /// Segments the counters of R remember (0: the seed's totals "ever").
    pub memory: u32,
    /// Diff_p exceeds the Timeout when a segment has spent this many times the shortest
    /// time any segment spent in the coding window (see `diff.rs`).
    pub timeout_factor: f64,
    /// Shortest time in the coding window assumed before any segment is acknowledged.
    pub initial_timeout_ms: f64,
    /// Largest congestion window in segments (the receiver's buffer).
    pub buffer: u32,
    /// Earn R credits per segment entering a coding window position (each segment enters
    /// two: N·R symbols per window) instead of per segment pushed into the coding buffer.
    pub window_credit: bool,
    /// Slide the coding window ⌊N/2⌋ after N·R symbols, so consecutive windows overlap
    /// by half and each segment is coded in two (the seed's Fig. 5: "The sliding windows
    /// are overlapped to further provide reliability"); false: slide N, no overlap.
    pub overlap: bool,
    pub payload: bool,
    pub cost: CostModel,
}

impl ForwardParams {
    pub fn from_params(p: &mut CcParams) -> Result<ForwardParams, String> {
        let redundancy = p.take("redundancy", 1.0, |v| v >= 1.0, ">= 1")?;
        let max_redundancy = p.take("max_redundancy", 20.0, |v| v >= 1.0, ">= 1")?;
        if max_redundancy < redundancy {
            return Err(format!(
                "parameter 'max_redundancy' = {max_redundancy}: must be >= redundancy ({redundancy})"
            ));
        }
        Ok(ForwardParams {
            window: whole(p, "window", 16, 1, 65_535)?,
            c: p.take("c", 0.1, |v| v > 0.0, "> 0")?,
            delta: p.take("delta", 0.5, |v| v > 0.0 && v < 1.0, "in (0, 1)")?,
            redundancy,
            adaptive: flag(p, "adaptive", true)?,
            max_redundancy,
            memory: whole(p, "memory", 0, 0, 1 << 24)?,
            timeout_factor: p.take("timeout_factor", 2.0, |v| v > 1.0, "> 1")?,
            initial_timeout_ms: p.take("initial_timeout_ms", 1000.0, |v| v > 0.0, "> 0")?,
            buffer: whole(p, "buffer", 256, 2, 32_768)?,
            window_credit: flag(p, "window_credit", true)?,
            overlap: flag(p, "overlap", true)?,
            payload: flag(p, "payload", false)?,
            cost: cpu(p)?,
        })
    }
}

impl Default for ForwardParams {
    fn default() -> Self {
        ForwardParams::from_params(&mut CcParams::new()).expect("defaults are valid")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_values_are_named() {
        let e = ForwardParams::from_params(&mut CcParams::new().with("payload", 2.0)).unwrap_err();
        assert!(
            e.contains("'payload'") && e.contains("true or false"),
            "{e}"
        );
        let e = ForwardParams::from_params(
            &mut CcParams::new()
                .with("redundancy", 3.0)
                .with("max_redundancy", 2.0),
        )
        .unwrap_err();
        assert!(e.contains("max_redundancy"), "{e}");
        assert_eq!(ForwardParams::default().window, 16);
    }
}
