//! Trace-driven capacity (Mahimahi semantics) and jitter.

mod common;

use common::{drain, Pkt};
use std::sync::Arc;
use tcplab_core::{Dur, Rng, Time};
use tcplab_link::{DeliveryTrace, Link, LinkParams};

fn ms(x: u64) -> Time {
    Time(x * 1_000_000)
}

fn trace_link(text: &str, delay_ms: u64) -> Link<Pkt> {
    let t = Arc::new(DeliveryTrace::parse(text).unwrap());
    Link::new(
        LinkParams::new(1, Dur::from_millis(delay_ms)).with_trace(t),
        Rng::from_seed(1),
    )
}

#[test]
fn deliveries_follow_the_opportunities_and_wrap() {
    // Opportunities at 1, 2, 4, 5 ms; period 5 ms; 10 ms propagation.
    let mut l = trace_link("1\n2\n4\n5\n", 10);
    for i in 0..6 {
        l.handle_packet(Time::ZERO, Pkt(i, 1500));
    }
    let got = drain(&mut l);
    // Two packets spill into the second cycle: 5+1, 5+2 ms.
    let times: Vec<u64> = got.iter().map(|(t, _)| t.0 / 1_000_000).collect();
    assert_eq!(times, vec![11, 12, 14, 15, 16, 17]);
    // After idling, a packet takes the first opportunity strictly after its admission:
    // at 23 ms (cycle 4 starts at 20) the next is 24 ms.
    l.handle_packet(ms(23), Pkt(9, 1500));
    assert_eq!(drain(&mut l), vec![(ms(34), 9)]);
    // Admitted exactly at an opportunity (25 ms): that one is gone, next is 26 ms.
    l.handle_packet(ms(25), Pkt(10, 1500));
    assert_eq!(drain(&mut l), vec![(ms(36), 10)]);
}

#[test]
fn opportunity_bytes_are_shared_spanned_and_lost() {
    let mut l = trace_link("1\n2\n3\n4\n", 0);
    // Three 500 B packets queued together share the 1 ms opportunity.
    for i in 0..3 {
        l.handle_packet(Time::ZERO, Pkt(i, 500));
    }
    // A 3000 B packet queued behind them needs the 2 and 3 ms opportunities.
    l.handle_packet(Time::ZERO, Pkt(3, 3000));
    // 1000 B left at 3.5 ms: the 3 ms opportunity was used up; it takes the 4 ms one.
    l.handle_packet(Time(3_500_000), Pkt(4, 1000));
    // Arriving after 4 ms the 500 B left in that opportunity are lost to it: next
    // cycle's 1 ms opportunity (4 + 1 = 5 ms).
    l.handle_packet(Time(4_200_000), Pkt(5, 100));
    let got = drain(&mut l);
    assert_eq!(
        got,
        vec![
            (ms(1), 0),
            (ms(1), 1),
            (ms(1), 2),
            (ms(3), 3),
            (ms(4), 4),
            (ms(5), 5)
        ]
    );
}

#[test]
fn generated_trace_has_its_rate() {
    // 12 Mbit/s for 1 s then 24 Mbit/s for 1 s: a backlogged link delivers 1000 then
    // 2000 packets of 1500 B per second.
    let t = Arc::new(DeliveryTrace::from_rates(&[(1000, 12_000_000), (1000, 24_000_000)]).unwrap());
    let mut l: Link<Pkt> = Link::new(
        LinkParams::new(1, Dur::ZERO).with_trace(t),
        Rng::from_seed(1),
    );
    for i in 0..3000 {
        l.handle_packet(Time::ZERO, Pkt(i, 1500));
    }
    let got = drain(&mut l);
    let first_s = got.iter().filter(|(t, _)| *t <= ms(1000)).count();
    assert_eq!(first_s, 1000);
    assert_eq!(got.last().unwrap().0, ms(2000));
}

#[test]
fn jitter_stays_in_bounds_and_keeps_order() {
    // 12 Mbit/s: packet i (1500 B, all offered at 0) ends serialisation at (i + 1) ms.
    let jitter = Dur::from_millis(5);
    let mut l: Link<Pkt> = Link::new(
        LinkParams::new(12_000_000, Dur::from_millis(10)).with_jitter(jitter),
        Rng::from_seed(7),
    );
    for i in 0..500 {
        l.handle_packet(Time::ZERO, Pkt(i, 1500));
    }
    let got = drain(&mut l);
    assert_eq!(got.len(), 500);
    let mut extra = vec![];
    for (k, &(t, id)) in got.iter().enumerate() {
        assert_eq!(id, k as u32, "reordered");
        let base = ms(id as u64 + 1) + Dur::from_millis(10);
        assert!(t >= base && t <= base + jitter, "packet {id} at {t}");
        extra.push((t - base).0);
    }
    // The jitter is real: spread over most of the range.
    let max = *extra.iter().max().unwrap();
    assert!(max > 4_000_000, "max extra delay {max}");
    assert!(got.windows(2).all(|w| w[0].0 <= w[1].0));
}
