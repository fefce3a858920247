//! The delivery opportunities a link direction actually offered over a run, as a
//! Mahimahi trace: its rate, trace-driven capacity, schedule changes and outages replayed
//! as opportunities of [`OPPORTUNITY_BYTES`]. Writing the trace of one run lets another
//! run (here, or in Mahimahi's `mm-link`) replay the same capacity.

use crate::params::LinkParams;
use crate::trace::{DeliveryTrace, OPPORTUNITY_BYTES};
use std::sync::Arc;
use tcplab_core::Time;

/// The most opportunities one call returns (8 bytes each): beyond it the caller should ask
/// for a shorter span.
pub const MAX_OPPORTUNITIES: usize = 50_000_000;

/// Times (ns) of the opportunities in `[0, until)` of a link direction whose parameters
/// are `initial` from time 0 and then `changes` (in time order). A constant rate R gives
/// one opportunity every `OPPORTUNITY_BYTES · 8 / R` after each change; a delivery trace
/// runs from when it was applied (a change that keeps the same trace keeps its clock, as
/// the link's transmitter does) and repeats; a link that is down offers none.
pub fn realised_opportunities(
    initial: &LinkParams,
    changes: &[(Time, &LinkParams)],
    until: Time,
) -> Result<Vec<u64>, String> {
    let mut out = Vec::new();
    let mut anchor: Option<(Arc<DeliveryTrace>, u64)> = None;
    let mut pieces = vec![(Time::ZERO, initial)];
    pieces.extend(changes.iter().copied());
    for (i, &(start, p)) in pieces.iter().enumerate() {
        let end = pieces.get(i + 1).map_or(until, |c| c.0).min(until);
        let (s, e) = (start.as_nanos(), end.as_nanos());
        anchor = match (&p.trace, anchor) {
            (Some(t), Some((a, at))) if Arc::ptr_eq(t, &a) => Some((a, at)),
            (Some(t), _) => Some((t.clone(), s)),
            (None, _) => None,
        };
        if !p.up || e <= s {
            continue;
        }
        match &anchor {
            Some((t, at)) => trace_times(t, *at, s, e, &mut out)?,
            None => rate_times(p.rate_bps, s, e, &mut out)?,
        }
    }
    Ok(out)
}

/// Refuses before allocating when a piece would take the total past the cap.
fn reserve(out: &mut Vec<u64>, more: u128) -> Result<(), String> {
    if out.len() as u128 + more > MAX_OPPORTUNITIES as u128 {
        return Err(format!(
            "more than {MAX_OPPORTUNITIES} delivery opportunities: ask for a shorter span"
        ));
    }
    out.reserve(more as usize);
    Ok(())
}

/// Opportunity k ≥ 1 of a constant rate from `s` falls when k opportunities' bits have been
/// serialised.
fn rate_times(rate_bps: u64, s: u64, e: u64, out: &mut Vec<u64>) -> Result<(), String> {
    if rate_bps == 0 {
        return Ok(());
    }
    let bits_ns = OPPORTUNITY_BYTES as u128 * 8 * 1_000_000_000;
    reserve(out, (e - s) as u128 * rate_bps as u128 / bits_ns + 1)?;
    for k in 1u128.. {
        let t = s as u128 + (k * bits_ns).div_ceil(rate_bps as u128);
        if t >= e as u128 {
            break;
        }
        out.push(t as u64);
    }
    Ok(())
}

/// The trace's opportunities (anchored at `anchor`, repeating) that fall in `[s, e)`.
fn trace_times(
    t: &DeliveryTrace,
    anchor: u64,
    s: u64,
    e: u64,
    out: &mut Vec<u64>,
) -> Result<(), String> {
    let period = t.period().as_nanos();
    let per_cycle = t.timestamps().len() as u128;
    reserve(out, ((e - s) / period + 2) as u128 * per_cycle)?;
    let mut cycle = (s - anchor) / period;
    loop {
        let base = anchor + cycle * period;
        if base >= e {
            return Ok(());
        }
        for &ms in t.timestamps() {
            let at = base + ms * 1_000_000;
            if at >= e {
                return Ok(());
            }
            if at >= s {
                out.push(at);
            }
        }
        cycle += 1;
    }
}

/// A Mahimahi trace of opportunity times (ns) over `[0, until)`: each time rounded up to
/// its millisecond, and a last line at `until` (one extra opportunity at most) so that
/// the trace's period is the run's length when it is replayed.
pub fn to_mahimahi(times_ns: &[u64], until: Time) -> Result<DeliveryTrace, String> {
    let mut ms: Vec<u64> = times_ns.iter().map(|&t| t.div_ceil(1_000_000)).collect();
    let end = until.as_nanos().div_ceil(1_000_000);
    if end == 0 {
        return Err("the span must be at least 1 ms long".into());
    }
    if ms.last().is_none_or(|&l| l < end) {
        ms.push(end);
    }
    DeliveryTrace::new(ms)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tcplab_core::Dur;

    fn at(ms: u64) -> Time {
        Time::ZERO + Dur::from_millis(ms)
    }

    #[test]
    fn constant_rate_and_outage() {
        // 12 Mbit/s = one 1500 B opportunity per ms; down from 10 ms to 15 ms.
        let up = LinkParams::new(12_000_000, Dur::ZERO);
        let mut down = up.clone();
        down.up = false;
        let ch = [(at(10), &down), (at(15), &up)];
        let t = realised_opportunities(&up, &ch, at(20)).unwrap();
        let ms: Vec<u64> = t.iter().map(|x| x / 1_000_000).collect();
        assert_eq!(ms, vec![1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 17, 18, 19]);
        let trace = to_mahimahi(&t, at(20)).unwrap();
        assert_eq!(trace.timestamps().last(), Some(&20));
        assert_eq!(trace.period(), Dur::from_millis(20));
    }

    #[test]
    fn traces_keep_their_clock_and_repeat() {
        let tr = Arc::new(DeliveryTrace::new(vec![2, 3]).unwrap());
        let p = LinkParams::new(1, Dur::ZERO).with_trace(tr.clone());
        let mut slower = p.clone();
        slower.delay = Dur::from_millis(5); // same trace: the clock goes on
        let ch = [(at(4), &slower)];
        let t = realised_opportunities(&p, &ch, at(8)).unwrap();
        let ms: Vec<u64> = t.iter().map(|x| x / 1_000_000).collect();
        assert_eq!(ms, vec![2, 3, 5, 6]);
        // A new trace starts at its own time 0.
        let other = LinkParams::new(1, Dur::ZERO).with_trace(Arc::new(tr.as_ref().clone()));
        let ch = [(at(4), &other)];
        let t = realised_opportunities(&p, &ch, at(8)).unwrap();
        let ms: Vec<u64> = t.iter().map(|x| x / 1_000_000).collect();
        assert_eq!(ms, vec![2, 3, 6, 7]);
    }

    #[test]
    fn replays_as_the_same_capacity() {
        // A trace written from a constant-rate run has that rate.
        let p = LinkParams::new(10_000_000, Dur::ZERO);
        let t = realised_opportunities(&p, &[], at(1000)).unwrap();
        let trace = to_mahimahi(&t, at(1000)).unwrap();
        assert!((trace.mean_rate_bps() - 10e6).abs() / 10e6 < 0.002);
        assert_eq!(DeliveryTrace::parse(&trace.to_text()).unwrap(), trace);
    }

    #[test]
    fn refuses_huge_spans() {
        let p = LinkParams::new(1_000_000_000_000, Dur::ZERO);
        let err = realised_opportunities(&p, &[], at(1000)).unwrap_err();
        assert!(err.contains("shorter span"));
    }
}
