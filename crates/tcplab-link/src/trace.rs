//! Mahimahi delivery traces: one millisecond timestamp per line, each line one
//! delivery opportunity of [`OPPORTUNITY_BYTES`]; the trace repeats with a period equal
//! to its last timestamp (Mahimahi `mm-link`, `link_queue.cc`).

use tcplab_core::Dur;

/// Bytes one opportunity carries. Mahimahi uses 1504 (its TUN MTU); tcplab's packets are
/// at most one 1500-byte MTU, so 1500 makes one opportunity carry one full packet.
pub const OPPORTUNITY_BYTES: u32 = 1500;

/// Largest timestamp accepted, in ms (2^42 ms, about 139 years): its nanoseconds, plus
/// a period and a start time of the same size, still fit the simulator's u64 clock.
pub const MAX_TIMESTAMP_MS: u64 = 1 << 42;

/// Largest trace file read, in bytes. A trace repeats, so a long one is rarely needed;
/// the cap keeps `trace = "/dev/zero"` or a wrong file from exhausting memory.
pub const MAX_TRACE_FILE_BYTES: u64 = 64 << 20;

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
        if let Some(i) = ms.iter().position(|&m| m > MAX_TIMESTAMP_MS) {
            return Err(format!(
                "line {}: timestamp {} ms is too large (at most {MAX_TIMESTAMP_MS} ms, about 139 years)",
                i + 1,
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

    /// Reads a trace file: a regular file of at most [`MAX_TRACE_FILE_BYTES`] in UTF-8.
    pub fn read(path: &std::path::Path) -> Result<DeliveryTrace, String> {
        use std::io::Read;
        let f = std::fs::File::open(path).map_err(|e| format!("cannot read: {e}"))?;
        let meta = f.metadata().map_err(|e| format!("cannot read: {e}"))?;
        if !meta.is_file() {
            return Err("not a regular file".into());
        }
        let mut bytes = Vec::new();
        f.take(MAX_TRACE_FILE_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| format!("cannot read: {e}"))?;
        if bytes.len() as u64 > MAX_TRACE_FILE_BYTES {
            return Err(format!(
                "larger than {} MiB (a trace repeats: a shorter period does the same)",
                MAX_TRACE_FILE_BYTES >> 20
            ));
        }
        let text = String::from_utf8(bytes).map_err(|e| {
            format!(
                "not UTF-8 text (byte 0x{:02x} at offset {})",
                e.as_bytes()[e.utf8_error().valid_up_to()],
                e.utf8_error().valid_up_to()
            )
        })?;
        DeliveryTrace::parse(&text)
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

    #[test]
    fn huge_timestamps_are_refused_not_wrapped() {
        // 2^58 ms overflowed the ms -> ns conversion to a zero period (a divide by zero in
        // the run); 2^58 + 1 wrapped to a 1 ms trace.
        for big in [1u64 << 58, (1 << 58) + 1, u64::MAX, MAX_TIMESTAMP_MS + 1] {
            let e = DeliveryTrace::parse(&format!("1\n{big}\n")).unwrap_err();
            assert!(e.contains("line 2") && e.contains("too large"), "{e}");
        }
        let t = DeliveryTrace::parse(&format!("{MAX_TIMESTAMP_MS}\n")).unwrap();
        assert_eq!(t.period(), Dur::from_millis(MAX_TIMESTAMP_MS));
    }

    #[test]
    fn reading_refuses_devices_and_oversized_files() {
        let e = DeliveryTrace::read(std::path::Path::new("/dev/zero")).unwrap_err();
        assert!(e.contains("not a regular file"), "{e}");
        let dir = std::env::temp_dir().join(format!("tcplab-trace-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let big = dir.join("big.mahi");
        let f = std::fs::File::create(&big).unwrap();
        f.set_len(MAX_TRACE_FILE_BYTES + 1).unwrap(); // sparse
        let e = DeliveryTrace::read(&big).unwrap_err();
        assert!(e.contains("larger than 64 MiB"), "{e}");
        std::fs::write(&big, b"1\n\xe92\n").unwrap();
        let e = DeliveryTrace::read(&big).unwrap_err();
        assert!(e.contains("not UTF-8 text (byte 0xe9 at offset 2)"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
