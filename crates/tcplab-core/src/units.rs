//! Human units for scenario files: `"100Mbps"`, `"1.5ms"`, `"10MiB"`, `"0.5%"`.
//!
//! Parsers return the value in base units (bit/s, ns, bytes, probability) or a message that
//! says why the text is not acceptable; the caller adds the file and key.

use crate::time::Dur;

/// Splits `"12.5ms"` into `(12.5, "ms")`; the number may use `_` separators.
fn split_number(s: &str) -> Result<(f64, &str), String> {
    let s = s.trim();
    let end = s
        .char_indices()
        .find(|&(_, c)| !(c.is_ascii_digit() || matches!(c, '.' | '_' | '-' | '+' | 'e' | 'E')))
        .map(|(i, _)| i)
        .unwrap_or(s.len());
    // An exponent 'e' directly followed by a letter is a unit ("1e" is not a number), so
    // walk back over trailing 'e'/'E' that belong to the unit.
    let mut end = end;
    while end > 0 && matches!(s.as_bytes()[end - 1], b'e' | b'E') {
        end -= 1;
    }
    let (num, unit) = s.split_at(end);
    let num = num.replace('_', "");
    if num.is_empty() {
        return Err("expected a number followed by a unit".into());
    }
    let v: f64 = num
        .parse()
        .map_err(|_| format!("'{num}' is not a number"))?;
    if !v.is_finite() {
        return Err("number is not finite".into());
    }
    Ok((v, unit.trim()))
}

fn non_negative(v: f64, what: &str) -> Result<f64, String> {
    if v < 0.0 {
        Err(format!("{what} must not be negative"))
    } else {
        Ok(v)
    }
}

/// `x` (a value in base units, computed in floating point) as a whole number: refused when
/// it has a fraction (`"1.5B"`, `"0.5bps"`, `"0.5ns"`) or does not fit in 64 bits, rather
/// than rounded or saturated. The decimal-to-binary step may leave a few ulps ("1.1GB" is
/// 1100000000.0000002), which are not a fraction anyone wrote.
fn whole(x: f64, what: &str, base: &str) -> Result<u64, String> {
    // 2^64 is exact as f64; anything at or above it does not fit (`as u64` would saturate).
    if x >= 18_446_744_073_709_551_616.0 {
        return Err(format!("{what} is too large (at most {} {base})", u64::MAX));
    }
    let r = x.round();
    if (x - r).abs() > x * 8.0 * f64::EPSILON {
        return Err(format!(
            "{what} must be a whole number of {base}, not {x} {base}"
        ));
    }
    Ok(r as u64)
}

/// A data rate in bit/s. Units: bps, kbps, Mbps, Gbps, Tbps (decimal), also `bit/s` forms;
/// the prefix and `bps` may be written in any case ("mbps").
///
/// Byte rates are refused, not converted: an uppercase `B` ("MBps", "MB/s") or "byte"
/// names bytes per second, and reading it as bits (as case-folding did) silently ran links
/// 8x slower than asked. The message gives the bit rate to write instead.
pub fn parse_rate(s: &str) -> Result<u64, String> {
    let (v, unit) = split_number(s)?;
    let v = non_negative(v, "a rate")?;
    let lower = unit.to_ascii_lowercase();
    let mult = |base: &str| -> Option<f64> {
        let prefix = lower.strip_suffix(base)?;
        match prefix {
            "" => Some(1.0),
            "k" => Some(1e3),
            "m" => Some(1e6),
            "g" => Some(1e9),
            "t" => Some(1e12),
            _ => None,
        }
    };
    let bytes = ["bps", "b/s", "byte/s", "bytes/s"]
        .iter()
        .find_map(|b| mult(b).filter(|_| unit.contains('B') || lower.contains("byte")));
    if let Some(m) = bytes {
        return Err(format!(
            "'{unit}' is bytes per second, but rates are bits per second (a lowercase b): \
             write \"{}\" for {v} {unit}",
            format_bits(v * m * 8.0)
        ));
    }
    let Some(mult) = ["bps", "bit/s", "b/s"].iter().find_map(|b| mult(b)) else {
        return Err(if unit.is_empty() {
            "a rate needs a unit, e.g. \"100Mbps\"".into()
        } else {
            format!("unknown rate unit '{unit}' (use bps, kbps, Mbps, Gbps)")
        });
    };
    whole(v * mult, "a rate", "bit/s")
}

/// A bit rate in the largest unit that keeps it readable ("800Mbps", "100kbps").
fn format_bits(bps: f64) -> String {
    for (m, u) in [(1e12, "Tbps"), (1e9, "Gbps"), (1e6, "Mbps"), (1e3, "kbps")] {
        if bps >= m {
            return format!("{}{u}", (bps / m * 1e6).round() / 1e6);
        }
    }
    format!("{bps}bps")
}

/// A duration. Units: ns, us (or µs), ms, s, min, h.
pub fn parse_duration(s: &str) -> Result<Dur, String> {
    let (v, unit) = split_number(s)?;
    let v = non_negative(v, "a duration")?;
    let ns_per = match unit {
        "ns" => 1.0,
        "us" | "µs" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        "min" => 60e9,
        "h" => 3600e9,
        "" => return Err("a duration needs a unit, e.g. \"10ms\"".into()),
        u => {
            return Err(format!(
                "unknown duration unit '{u}' (use ns, us, ms, s, min, h)"
            ))
        }
    };
    whole(v * ns_per, "a duration", "ns").map(Dur)
}

/// A size in bytes. Units: B, KB/MB/GB (10^3), KiB/MiB/GiB (2^10).
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let (v, unit) = split_number(s)?;
    let v = non_negative(v, "a size")?;
    let mult = match unit {
        "B" | "" => 1.0,
        "KB" | "kB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        u => {
            return Err(format!(
                "unknown size unit '{u}' (use B, KB, MB, GB, KiB, MiB, GiB)"
            ))
        }
    };
    whole(v * mult, "a size", "bytes")
}

/// A probability: `"0.5%"` or a plain fraction in [0, 1].
pub fn parse_probability(s: &str) -> Result<f64, String> {
    let t = s.trim();
    let (v, pct) = match t.strip_suffix('%') {
        Some(n) => (split_number(n)?, true),
        None => (split_number(t)?, false),
    };
    if !v.1.is_empty() {
        return Err(format!("unexpected '{}' after the number", v.1));
    }
    let p = if pct { v.0 / 100.0 } else { v.0 };
    check_probability(p)
}

/// Checks a fraction is a probability; says how to write percent when it looks like one.
pub fn check_probability(p: f64) -> Result<f64, String> {
    if !(0.0..=1.0).contains(&p) || p.is_nan() {
        if p > 1.0 && p <= 100.0 {
            return Err(format!(
                "a probability must be in [0, 1]; write \"{p}%\" if you meant percent"
            ));
        }
        return Err("a probability must be between 0 and 1 (0% and 100%)".into());
    }
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates() {
        assert_eq!(parse_rate("100Mbps").unwrap(), 100_000_000);
        assert_eq!(parse_rate("1.5 Gbps").unwrap(), 1_500_000_000);
        assert_eq!(parse_rate("64kbit/s").unwrap(), 64_000);
        assert!(parse_rate("100").unwrap_err().contains("unit"));
        assert!(parse_rate("100MBs")
            .unwrap_err()
            .contains("unknown rate unit"));
        assert!(parse_rate("-1Mbps").unwrap_err().contains("negative"));
        assert_eq!(parse_rate("100mbps").unwrap(), 100_000_000);
        assert_eq!(parse_rate("2 Tbit/s").unwrap(), 2_000_000_000_000);
    }

    #[test]
    fn byte_rates_are_refused_with_the_bit_rate_to_write() {
        // Case-folding once read "100MBps" as 100 Mbit/s: an 8x error.
        for (s, want) in [
            ("100MBps", "\"800Mbps\""),
            ("100MB/s", "\"800Mbps\""),
            ("100MBPS", "\"800Mbps\""),
            ("12.5kBps", "\"100kbps\""),
            ("1GB/s", "\"8Gbps\""),
            ("8Bps", "\"64bps\""),
            ("3 Mbyte/s", "\"24Mbps\""),
        ] {
            let e = parse_rate(s).unwrap_err();
            assert!(
                e.contains("bits per second") && e.contains(want),
                "{s}: {e}"
            );
        }
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("1ms").unwrap(), Dur::from_millis(1));
        assert_eq!(parse_duration("2.5s").unwrap(), Dur::from_millis(2500));
        assert_eq!(parse_duration("10us").unwrap(), Dur::from_micros(10));
        assert_eq!(parse_duration("1_000ns").unwrap(), Dur(1000));
        assert!(parse_duration("ms").is_err());
        assert!(parse_duration("3 parsecs").is_err());
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_bytes("10MiB").unwrap(), 10 * 1024 * 1024);
        assert_eq!(parse_bytes("150KB").unwrap(), 150_000);
        assert_eq!(parse_bytes("1460").unwrap(), 1460);
        assert_eq!(parse_bytes("1e3B").unwrap(), 1000);
        assert!(parse_bytes("3 floppies").is_err());
    }

    #[test]
    fn fractions_and_overflow_are_refused_not_rounded() {
        // Once "1.5B" became 2, "0.5bps" 1 bit/s, 2^64 bytes saturated.
        assert!(parse_bytes("1.5B")
            .unwrap_err()
            .contains("whole number of bytes"));
        assert!(parse_bytes("1.5").unwrap_err().contains("whole number"));
        assert!(parse_rate("0.5bps")
            .unwrap_err()
            .contains("whole number of bit/s"));
        assert!(parse_duration("0.5ns")
            .unwrap_err()
            .contains("whole number of ns"));
        for s in [
            "18446744073709551616",
            "18446744073709551616B",
            "20000000000GB",
        ] {
            assert!(parse_bytes(s).unwrap_err().contains("too large"), "{s}");
        }
        assert!(parse_rate("20000000Tbps")
            .unwrap_err()
            .contains("too large"));
        assert!(parse_duration("1e12h").unwrap_err().contains("too large"));
        // Decimal fractions of a larger unit that come to whole base units still work.
        assert_eq!(parse_bytes("1.1GB").unwrap(), 1_100_000_000);
        assert_eq!(parse_bytes("1.5KB").unwrap(), 1500);
        assert_eq!(parse_rate("0.3Mbps").unwrap(), 300_000);
        assert_eq!(parse_rate("2.4Gbps").unwrap(), 2_400_000_000);
        assert_eq!(parse_duration("0.3ms").unwrap(), Dur(300_000));
        assert_eq!(parse_duration("1.1s").unwrap(), Dur(1_100_000_000));
        // 2^64 - 1 itself reads as 2^64 in floating point: refused, never saturated.
        assert!(parse_bytes("18446744073709551615")
            .unwrap_err()
            .contains("too large"));
    }

    #[test]
    fn probabilities() {
        assert_eq!(parse_probability("0.5%").unwrap(), 0.005);
        assert_eq!(parse_probability("0.25").unwrap(), 0.25);
        assert!(parse_probability("150%").is_err());
        assert!(parse_probability("5").unwrap_err().contains("5%"));
    }
}
