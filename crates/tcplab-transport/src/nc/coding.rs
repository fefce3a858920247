//! TCP/NC's coding parameters (a flow's `coding = { ... }` table), with their defaults
//! and why. docs/coded-transports.md lists them with the seed's words.

use crate::cc::CcParams;
use crate::coded::cost::CostModel;
use crate::coded::params::{cpu, flag, whole};

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_values_are_named() {
        let e = NcParams::from_params(&mut CcParams::new().with("redundancy", 0.5)).unwrap_err();
        assert!(e.contains("'redundancy'") && e.contains("[1, 1000]"), "{e}");
        let e = NcParams::from_params(&mut CcParams::new().with("window", 2.5)).unwrap_err();
        assert!(e.contains("'window'"), "{e}");
        assert_eq!(NcParams::default().redundancy, 1.25);
    }
}
