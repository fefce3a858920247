//! Jitter distributions and `reorder`: order kept unless asked, every packet delivered
//! exactly once in arrival order when reordering, and queue accounting that does not
//! depend on the jitter at all.

mod common;

use common::{drain, Pkt};
use proptest::prelude::*;
use tcplab_core::{Dur, Rng, Time};
use tcplab_link::{Admit, Jitter, Link, LinkParams, LossModel, QueueLimit};

const RATE: u64 = 12_000_000; // 1500 B = 1 ms

fn normal(mean_ms: u64, sd_ms: u64) -> Jitter {
    Jitter::Normal {
        mean: Dur::from_millis(mean_ms),
        sd: Dur::from_millis(sd_ms),
    }
}

fn link(j: Jitter, reorder: bool, q: QueueLimit) -> Link<Pkt> {
    let p = LinkParams::new(RATE, Dur::from_millis(10))
        .with_queue(q)
        .with_jitter(j)
        .with_reorder(reorder);
    Link::new(p, Rng::from_seed(5))
}

/// Inversions: pairs delivered in the opposite order to their admission.
fn inversions(ids: &[u32]) -> usize {
    let mut n = 0;
    for i in 0..ids.len() {
        n += ids[i + 1..].iter().filter(|&&b| b < ids[i]).count();
    }
    n
}

#[test]
fn reorder_overtakes_and_delivers_each_packet_once_in_arrival_order() {
    // 20 ms of uniform jitter against 1 ms per packet: many overtakes.
    let mut l = link(Dur::from_millis(20).into(), true, QueueLimit::Unlimited);
    for i in 0..400 {
        assert_eq!(l.handle_packet(Time::ZERO, Pkt(i, 1500)), Admit::Queued);
    }
    let got = drain(&mut l);
    let ids: Vec<u32> = got.iter().map(|x| x.1).collect();
    let mut sorted = ids.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, (0..400).collect::<Vec<_>>(), "each exactly once");
    assert!(got.windows(2).all(|w| w[0].0 <= w[1].0), "arrival order");
    let inv = inversions(&ids);
    assert!(inv > 1000, "only {inv} inversions");
    for &(t, id) in &got {
        // Packet i ends serialisation at (i + 1) ms; jitter within [0, 20 ms].
        let base = Time::ZERO + Dur::from_millis(id as u64 + 11);
        assert!(
            t >= base && t <= base + Dur::from_millis(20),
            "{id} at {t:?}"
        );
    }
    assert_eq!(l.counters().delivered_pkts, 400);
}

#[test]
fn equal_arrivals_leave_in_admission_order() {
    // sd = 0: every packet gets exactly 30 ms; a bursty trace-free link with zero-length
    // packets makes all arrivals equal, so only the tie-break decides.
    let mut l = link(normal(30, 0), true, QueueLimit::Unlimited);
    for i in 0..50 {
        l.handle_packet(Time::ZERO, Pkt(i, 0));
    }
    let got = drain(&mut l);
    assert!(got
        .iter()
        .all(|&(t, _)| t == Time::ZERO + Dur::from_millis(40)));
    assert_eq!(
        got.iter().map(|x| x.1).collect::<Vec<_>>(),
        (0..50).collect::<Vec<_>>()
    );
}

#[test]
fn outage_loses_what_has_not_arrived_under_reorder() {
    let mut l = link(Dur::from_millis(20).into(), true, QueueLimit::Unlimited);
    for i in 0..100 {
        l.handle_packet(Time::ZERO, Pkt(i, 1500));
    }
    let cut = Time::ZERO + Dur::from_millis(40);
    let mut before = vec![];
    while let Some(t) = l.poll_timeout().filter(|&t| t <= cut) {
        while let Some(p) = l.poll_transmit(t) {
            before.push(p.0);
        }
    }
    let mut p = l.params().clone();
    p.up = false;
    l.set_params(cut, p.clone());
    assert_eq!(l.poll_timeout(), None, "nothing left in flight");
    p.up = true;
    l.set_params(cut + Dur::from_millis(5), p);
    l.handle_packet(cut + Dur::from_millis(5), Pkt(1000, 1500));
    let after = drain(&mut l);
    assert_eq!(after.len(), 1);
    assert_eq!(after[0].1, 1000);
    // Sent at 45 ms on an idle link: ends at 46 ms, +10 ms delay, + up to 20 ms jitter.
    assert!(after[0].0 >= Time::ZERO + Dur::from_millis(56));
    let c = l.counters();
    assert_eq!(c.dropped_down as usize + before.len(), 100);
    assert!(before.len() > 5 && c.dropped_down > 50, "{before:?}");
    assert_eq!(c.delivered_pkts as usize, before.len() + 1);
}

#[test]
fn turning_reorder_off_delivers_later_packets_after_pending_ones() {
    let mut l = link(Dur::from_millis(20).into(), true, QueueLimit::Unlimited);
    for i in 0..30 {
        l.handle_packet(Time::ZERO, Pkt(i, 1500));
    }
    let mut p = l.params().clone();
    p.reorder = false;
    let t = Time::ZERO + Dur::from_millis(35);
    l.set_params(t, p);
    for i in 30..60 {
        l.handle_packet(t, Pkt(i, 1500));
    }
    let got = drain(&mut l);
    assert_eq!(got.len(), 60);
    let pos = |id: u32| got.iter().position(|x| x.1 == id).unwrap();
    let last_old = (0..30).map(pos).max().unwrap();
    assert!(
        (30..60).all(|i| pos(i) > last_old),
        "a new packet overtook an old one"
    );
    let new: Vec<u32> = got[30..].iter().map(|x| x.1).collect();
    assert_eq!(
        new,
        (30..60).collect::<Vec<_>>(),
        "new ones keep their order"
    );
    assert!(inversions(&got[..30].iter().map(|x| x.1).collect::<Vec<_>>()) > 0);
}

fn jitter_strategy() -> impl Strategy<Value = Jitter> {
    prop_oneof![
        (0u64..20).prop_map(|m| Dur::from_millis(m).into()),
        (0u64..20, 0u64..10).prop_map(|(m, s)| normal(m, s)),
    ]
}

proptest! {
    /// Without `reorder`, under either distribution and with losses and a bounded queue,
    /// packets arrive in admission order, never before their earliest possible time.
    #[test]
    fn order_is_kept_without_reorder(
        arrivals in proptest::collection::vec((0u64..3_000_000, 40u32..1500), 1..300),
        jitter in jitter_strategy(),
        limit in 1u32..30,
    ) {
        let mut l = link(jitter, false, QueueLimit::Packets(limit));
        let mut p = l.params().clone();
        p.loss = LossModel::Bernoulli { p: 0.05 };
        l.set_params(Time::ZERO, p);
        let mut t = Time::ZERO;
        let mut admitted = vec![];
        let mut got = vec![];
        for (i, &(gap, len)) in arrivals.iter().enumerate() {
            t += Dur(gap);
            while let Some(p) = l.poll_transmit(t) { got.push((t, p.0)); }
            if l.handle_packet(t, Pkt(i as u32, len)) == Admit::Queued {
                admitted.push((t, i as u32, len));
            }
        }
        got.extend(drain(&mut l));
        let ids: Vec<u32> = got.iter().map(|x| x.1).collect();
        prop_assert_eq!(ids, admitted.iter().map(|x| x.1).collect::<Vec<_>>());
        for (&(at, _), &(sent, _, len)) in got.iter().zip(&admitted) {
            let earliest = sent + Dur::transmission(len as u64, RATE) + Dur::from_millis(10);
            prop_assert!(at >= earliest);
        }
    }

    /// The transmitter and its drop-tail queue see only admissions: with or without
    /// jitter, reordering or not, and whenever the driver collects, every admission has
    /// the same fate and the queue the same length.
    #[test]
    fn queue_accounting_ignores_jitter(
        arrivals in proptest::collection::vec((0u64..2_000_000, 40u32..1500, 0u8..4), 1..300),
        jitter in jitter_strategy(),
        limit in 1u32..20,
    ) {
        let q = QueueLimit::Packets(limit);
        let mut links = [
            link(Jitter::NONE, false, q),
            link(jitter, false, q),
            link(jitter, true, q),
            link(Dur::from_millis(30).into(), true, q),
        ];
        let mut t = Time::ZERO;
        let mut delivered = vec![vec![]; links.len()];
        for (i, &(gap, len, poll)) in arrivals.iter().enumerate() {
            t += Dur(gap);
            let mut fates = vec![];
            let mut queues = vec![];
            for (k, l) in links.iter_mut().enumerate() {
                // Collect at different moments per link: it must not matter.
                if (poll as usize + k) % 2 == 0 {
                    while let Some(p) = l.poll_transmit(t) { delivered[k].push(p.0); }
                }
                queues.push(l.queue_len(t));
                fates.push(l.handle_packet(t, Pkt(i as u32, len)));
            }
            prop_assert!(fates.iter().all(|f| *f == fates[0]), "{:?}", fates);
            prop_assert!(queues.iter().all(|x| *x == queues[0]), "{:?}", queues);
        }
        for (k, l) in links.iter_mut().enumerate() {
            delivered[k].extend(drain(l).iter().map(|x| x.1));
            delivered[k].sort_unstable();
            prop_assert_eq!(l.queue_len(Time::MAX), (0, 0));
        }
        prop_assert!(delivered.iter().all(|d| *d == delivered[0]));
        let c0 = links[0].counters();
        for l in &links[1..] {
            prop_assert_eq!(l.counters(), c0);
        }
    }

    /// With the same seed both links draw the same jitter, so without `reorder` each
    /// arrival is the running maximum of the reordering link's arrivals, also after a
    /// mid-run rate and delay change re-timed the waiting packets.
    #[test]
    fn fifo_arrivals_are_the_running_max_of_reordered_ones(
        n in 1usize..200,
        jitter in jitter_strategy(),
        change_at in 0u64..100_000_000,
        new_rate in 1_000_000u64..50_000_000,
        new_delay_ms in 0u64..30,
    ) {
        let mut pair = [
            link(jitter, false, QueueLimit::Unlimited),
            link(jitter, true, QueueLimit::Unlimited),
        ];
        let mut out = [vec![], vec![]];
        for (k, l) in pair.iter_mut().enumerate() {
            for i in 0..n {
                l.handle_packet(Time(i as u64 * 400_000), Pkt(i as u32, 1500));
            }
            let at = Time(change_at);
            while let Some(t) = l.poll_timeout().filter(|&t| t <= at) {
                while let Some(p) = l.poll_transmit(t) { out[k].push((t, p.0)); }
            }
            let mut p = l.params().clone();
            p.rate_bps = new_rate;
            p.delay = Dur::from_millis(new_delay_ms);
            l.set_params(at, p);
            out[k].extend(drain(l));
        }
        let mut reordered = vec![Time::ZERO; n];
        for &(t, id) in &out[1] { reordered[id as usize] = t; }
        prop_assert!(out[1].windows(2).all(|w| w[0].0 <= w[1].0));
        let mut max = Time::ZERO;
        let fifo: Vec<(Time, u32)> = (0..n).map(|i| {
            max = max.max(reordered[i]);
            (max, i as u32)
        }).collect();
        prop_assert_eq!(&out[0], &fifo);
    }
}
