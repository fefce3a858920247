//! The coding parameters of TCP/NC and TCP-Forward (a flow's `coding = { ... }` table),
//! with their defaults and why. docs/coded-transports.md lists them with the seed's words.

use super::cost::CostModel;
use crate::cc::CcParams;

fn flag(p: &mut CcParams, name: &'static str, default: bool) -> Result<bool, String> {
    let v = p.take(
        name,
        f64::from(u8::from(default)),
        |v| v == 0.0 || v == 1.0,
        "true or false",
    )?;
    Ok(v == 1.0)
}

fn whole(
    p: &mut CcParams,
    name: &'static str,
    default: u32,
    min: u32,
    max: u32,
) -> Result<u32, String> {
    let what = format!("a whole number in [{min}, {max}]");
    let v = p.take(
        name,
        f64::from(default),
        |v| v.fract() == 0.0 && v >= f64::from(min) && v <= f64::from(max),
        &what,
    )?;
    Ok(v as u32)
}

fn cpu(p: &mut CcParams) -> Result<CostModel, String> {
    let scale = p.take(
        "cpu_scale",
        1.0,
        |v| v >= 0.0,
        ">= 0 (0: coding takes no time)",
    )?;
    Ok(CostModel::REFERENCE.with_scale(scale))
}

/// TCP/NC (Sundararajan et al., Proc. IEEE 2011, Sec. V).
#[derive(Clone, Debug, PartialEq)]
pub struct NcParams {
    /// R: coded packets per packet TCP hands down (the paper's redundancy factor; it
    /// should be at least 1/(1 − p) for a loss rate p).
    pub redundancy: f64,
    /// Most packets one combination may mix (0: every packet not yet seen, as in the
    /// paper's theory; the real implementation bounds it).
    pub window: u32,
    /// The receiver's decoding buffer in packets, advertised as TCP's receive window.
    pub buffer: u32,
    /// Generations of this many packets (0: none, the paper's sliding coding window).
    /// With G > 0 a combination mixes only the packets of one generation (packets
    /// `g·G .. g·G + G` handed down so far) and the receiver delivers a generation only
    /// once all of it is decoded: the "preliminary TCP/NC" seed 004 compares against
    /// ("decoding operations is only possible after node B receives 4 linear
    /// combinations", Sec. III). Excludes `window`.
    pub generation: u32,
    /// ACK non-innovative combinations too (a duplicate ACK) instead of only innovative ones.
    pub ack_redundant: bool,
    /// Carry real bytes through `tcplab-coding` and check every delivered byte.
    pub payload: bool,
    pub cost: CostModel,
}

impl NcParams {
    pub fn from_params(p: &mut CcParams) -> Result<NcParams, String> {
        let nc = NcParams {
            redundancy: p.take(
                "redundancy",
                1.25,
                |v| (1.0..=1000.0).contains(&v),
                "in [1, 1000] (coded packets per TCP packet)",
            )?,
            window: whole(p, "window", 0, 0, 65_535)?,
            buffer: whole(p, "buffer", 256, 2, 32_768)?,
            generation: whole(p, "generation", 0, 0, 65_535)?,
            ack_redundant: flag(p, "ack_redundant", false)?,
            payload: flag(p, "payload", false)?,
            cost: cpu(p)?,
        };
        if nc.generation > 0 && nc.window > 0 {
            return Err(format!(
                "parameters 'generation' = {} and 'window' = {}: a generation is the coding \
                 window, set one of them",
                nc.generation, nc.window
            ));
        }
        if nc.generation > nc.buffer {
            return Err(format!(
                "parameter 'generation' = {}: must be <= buffer ({}), or no generation fits \
                 the receiver's window",
                nc.generation, nc.buffer
            ));
        }
        Ok(nc)
    }

    /// The first packet of the generation of packet `i` (`i` without generations).
    pub fn generation_start(&self, i: u32) -> u32 {
        i.checked_div(self.generation)
            .map_or(i, |g| g * self.generation)
    }
}

impl Default for NcParams {
    fn default() -> Self {
        NcParams::from_params(&mut CcParams::new()).expect("defaults are valid")
    }
}

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
        let e = NcParams::from_params(&mut CcParams::new().with("redundancy", 0.5)).unwrap_err();
        assert!(e.contains("'redundancy'") && e.contains("[1, 1000]"), "{e}");
        let e = NcParams::from_params(&mut CcParams::new().with("window", 2.5)).unwrap_err();
        assert!(e.contains("'window'"), "{e}");
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
        assert_eq!(NcParams::default().redundancy, 1.25);
    }
}
