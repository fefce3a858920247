//! Mahimahi delivery traces: one millisecond timestamp per line, each line one
//! delivery opportunity of [`OPPORTUNITY_BYTES`]; the trace repeats with a period equal
//! to its last timestamp (Mahimahi `mm-link`, `link_queue.cc`).

use tcplab_core::Dur;

/// Bytes one opportunity carries. Mahimahi uses 1504 (its TUN MTU); tcplab's packets are
/// at most one 1500-byte MTU, so 1500 makes one opportunity carry one full packet.
pub const OPPORTUNITY_BYTES: u32 = 1500;

/// A delivery trace: non-decreasing millisecond timestamps, the last one > 0.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeliveryTrace {
    ms: Vec<u64>,
}

impl DeliveryTrace {
    /// Validates timestamps as Mahimahi does: at least one, non-decreasing, last > 0.
    pub fn new(ms: Vec<u64>) -> Result<DeliveryTrace, String> {
        if ms.is_empty() {
            return Err("no timestamps".into());
        }
        if let Some(i) = ms.windows(2).position(|w| w[1] < w[0]) {
            return Err(format!(
                "line {}: timestamps must not decrease ({} after {})",
                i + 2,
                ms[i + 1],
                ms[i]
            ));
        }
        if *ms.last().expect("non-empty") == 0 {
            return Err("the trace must last a nonzero time (last timestamp is 0)".into());
        }
        Ok(DeliveryTrace { ms })
    }

    /// Parses Mahimahi text (blank lines are errors, as in Mahimahi; `#` comments allowed).
    pub fn parse(text: &str) -> Result<DeliveryTrace, String> {
        let mut ms = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let l = line.trim();
            if l.starts_with('#') {
                continue;
            }
            let v = l
                .parse::<u64>()
                .map_err(|_| format!("line {}: expected a whole number of ms, got {l:?}", i + 1))?;
            ms.push(v);
        }
        DeliveryTrace::new(ms)
    }

    /// Mahimahi text: one timestamp per line.
    pub fn to_text(&self) -> String {
        let mut s = String::with_capacity(self.ms.len() * 6);
        for m in &self.ms {
            s.push_str(&m.to_string());
            s.push('\n');
        }
        s
    }

    /// Builds a trace from piecewise-constant rates: `(duration_ms, rate_bps)` segments in
    /// order. Opportunities are spread evenly: the k-th opportunity of the whole trace
    /// falls at the first millisecond by which k·1500 B fit under the cumulative rate, so
    /// the long-run rate is exact to one opportunity per segment. A zero rate is an
    /// off period. The period is the total duration.
    pub fn from_rates(segments: &[(u64, u64)]) -> Result<DeliveryTrace, String> {
        let bits = OPPORTUNITY_BYTES as u128 * 8;
        let mut ms = Vec::new();
        let mut t0 = 0u64;
        let mut credit: u128 = 0; // bit·ms carried over between segments
        for &(dur, rate) in segments {
            for t in t0 + 1..=t0 + dur {
                credit += rate as u128; // bits per s × 1 ms = rate/1000 bits; scaled by 1000
                while credit >= bits * 1000 {
                    credit -= bits * 1000;
                    ms.push(t);
                }
            }
            t0 += dur;
        }
        if ms.last() != Some(&t0) {
            // The period is the last timestamp: pin it to the total duration with a final
            // opportunity (at most one extra per period).
            ms.push(t0);
        }
        DeliveryTrace::new(ms)
    }

    pub fn timestamps(&self) -> &[u64] {
        &self.ms
    }

    /// The repeat period.
    pub fn period(&self) -> Dur {
        Dur::from_millis(*self.ms.last().expect("validated non-empty"))
    }

    /// Mean capacity in bit/s over one period.
    pub fn mean_rate_bps(&self) -> f64 {
        self.ms.len() as f64 * OPPORTUNITY_BYTES as f64 * 8.0 / self.period().as_secs_f64()
    }
}

/// The traces bundled under `examples/traces/` (file name, trace), regenerated with
/// `cargo run -p tcplab-link --example make_traces`; a test checks the files match.
/// - `stepped.mahi`: 12 → 4 → 8 Mbit/s, 4 s each (period 12 s);
/// - `onoff.mahi`: 8 Mbit/s for 2 s, then 1 s without any opportunity (period 3 s).
pub fn example_traces() -> Vec<(&'static str, DeliveryTrace)> {
    let stepped = [(4000, 12_000_000), (4000, 4_000_000), (4000, 8_000_000)];
    let onoff = [(2000, 8_000_000), (1000, 0)];
    vec![
        (
            "stepped.mahi",
            DeliveryTrace::from_rates(&stepped).expect("valid"),
        ),
        (
            "onoff.mahi",
            DeliveryTrace::from_rates(&onoff).expect("valid"),
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_read_round_trip() {
        let t =
            DeliveryTrace::from_rates(&[(100, 12_000_000), (50, 0), (100, 24_000_000)]).unwrap();
        let back = DeliveryTrace::parse(&t.to_text()).unwrap();
        assert_eq!(back, t);
        // 12 Mbit/s = one 1500 B opportunity per ms; off for 50 ms; then two per ms.
        let ms = t.timestamps();
        assert_eq!(&ms[..3], &[1, 2, 3]);
        assert_eq!(ms.iter().filter(|&&m| m <= 100).count(), 100);
        assert_eq!(ms.iter().filter(|&&m| m > 100 && m <= 150).count(), 0);
        assert_eq!(ms.iter().filter(|&&m| m > 150).count(), 200);
        assert_eq!(t.period(), Dur::from_millis(250));
    }

    #[test]
    fn bundled_files_match_the_generator() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/traces");
        for (name, t) in example_traces() {
            let text = std::fs::read_to_string(format!("{dir}/{name}")).expect(name);
            assert_eq!(DeliveryTrace::parse(&text).unwrap(), t, "{name} is stale");
        }
    }

    #[test]
    fn rejects_bad_traces() {
        assert!(DeliveryTrace::parse("").is_err());
        assert!(DeliveryTrace::parse("0\n0\n").is_err());
        assert!(DeliveryTrace::parse("5\n3\n")
            .unwrap_err()
            .contains("line 2"));
        assert!(DeliveryTrace::parse("1\n\n2\n").is_err());
        assert!(DeliveryTrace::parse("1\nx\n").is_err());
    }
}
