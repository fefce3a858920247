//! The 802.11 cell: airtime and DCF timing by hand, collisions against Bianchi's model,
//! aggregation limits, frame errors and the retry limit.

use tcplab_core::{Dur, Rng, Time};
use tcplab_link::wlan::{bianchi, Ampdu, WlanParams};
use tcplab_link::{Admit, Medium, Packet, Wlan};

#[derive(Clone, Copy, Debug, PartialEq)]
struct P {
    id: u32,
    len: u32,
    payload: u32,
}

impl Packet for P {
    fn wire_len(&self) -> u32 {
        self.len
    }
    fn carries_payload(&self) -> bool {
        self.payload != 0
    }
}

fn data(id: u32) -> P {
    P {
        id,
        len: 1500,
        payload: 1460,
    }
}

/// Runs the cell until nothing is pending; returns (time, port, packet) of deliveries.
fn drain(m: &mut Wlan<P>) -> Vec<(Time, u16, P)> {
    let mut out = vec![];
    while let Some(t) = m.poll_timeout() {
        m.handle_timeout(t);
        while let Some(d) = m.poll_transmit(t) {
            out.push((t, d.to, d.pkt));
        }
    }
    out
}

/// One 802.11g frame on an idle channel leaves at once (the channel has been idle for
/// DIFS) and arrives 254 µs later; the next one waits SIFS + ACK (10 + 34 µs), DIFS
/// (28 µs) and a backoff of whole 9 µs slots, at most CWmin = 31.
#[test]
fn one_exchange_by_hand() {
    let p = WlanParams::preset("802.11g").unwrap();
    assert_eq!(p.frame_airtime(1500), Dur::from_micros(254));
    assert_eq!(p.response_airtime(), Dur::from_micros(34));
    assert_eq!(p.difs(), Dur::from_micros(28));
    let mut m = Wlan::new(p, 2, Rng::from_seed(7));
    assert_eq!(m.handle_packet(Time::ZERO, 1, 0, data(1)), Admit::Queued);
    assert_eq!(m.handle_packet(Time::ZERO, 1, 0, data(2)), Admit::Queued);
    let got = drain(&mut m);
    assert_eq!(got[0], (Time::ZERO + Dur::from_micros(254), 0, data(1)));
    let second_start = got[1].0 - Dur::from_micros(254);
    let after_first = Time::ZERO + Dur::from_micros(254 + 10 + 34 + 28);
    let backoff = second_start - after_first;
    assert_eq!(backoff.0 % 9_000, 0, "{backoff:?} is not whole slots");
    assert!(backoff <= Dur::from_micros(31 * 9));
    let c = m.counters(1);
    assert_eq!((c.accesses, c.collisions, c.delivered_pkts), (2, 0, 2));
    assert_eq!(c.airtime, Dur::from_micros(2 * (254 + 44)));
    assert_eq!(m.busy_time(), c.airtime);
}

/// 802.11n aggregates: 64 queued packets leave in A-MPDUs capped by the byte limit
/// (ns-3's 65,535 bytes: 42 subframes of 1544 bytes), each answered by one Block ACK; the
/// queue's frames arrive in order. An airtime cap below aPPDUMaxTime binds instead.
#[test]
fn aggregation_respects_the_limits() {
    let mut p = WlanParams::preset("802.11n").unwrap();
    let cap = p.ampdu.unwrap();
    let mut m = Wlan::new(p.clone(), 2, Rng::from_seed(1));
    for i in 0..64 {
        m.handle_packet(Time::ZERO, 0, 1, data(i));
    }
    let got = drain(&mut m);
    let ids: Vec<u32> = got.iter().map(|x| x.2.id).collect();
    assert_eq!(ids, (0..64).collect::<Vec<_>>());
    let c = m.counters(0);
    let per_ppdu = got.iter().filter(|x| x.0 == got[0].0).count();
    assert_eq!(per_ppdu, 42);
    assert!(42 * 1544 <= cap.max_bytes && 43 * 1544 > cap.max_bytes);
    assert_eq!(c.accesses, 2);
    // 1544-byte subframes at 300 Mbit/s: 12 fit in 0.55 ms (12·1544 bytes take 537 µs).
    p.ampdu = Some(Ampdu {
        max_time: Dur::from_micros(550),
        ..cap
    });
    assert!(p.data_phy.duration(12 * 1544) <= Dur::from_micros(550));
    assert!(p.data_phy.duration(13 * 1544) > Dur::from_micros(550));
    let mut m = Wlan::new(p, 2, Rng::from_seed(1));
    for i in 0..64 {
        m.handle_packet(Time::ZERO, 0, 1, data(i));
    }
    let got = drain(&mut m);
    assert_eq!(m.counters(0).accesses, 64u64.div_ceil(12));
    assert_eq!(got.iter().filter(|x| x.0 == got[0].0).count(), 12);
}

/// Transport ACKs (payload 0) are reported as ACK airtime; a station's queue overflows
/// into tail drops.
#[test]
fn ack_airtime_and_queue_limit() {
    let mut p = WlanParams::preset("802.11g").unwrap();
    p.queue = 2;
    let mut m = Wlan::new(p, 2, Rng::from_seed(1));
    let ack = P {
        id: 9,
        len: 52,
        payload: 0,
    };
    assert_eq!(m.handle_packet(Time::ZERO, 0, 1, data(1)), Admit::Queued);
    assert_eq!(m.handle_packet(Time::ZERO, 1, 0, ack), Admit::Queued);
    assert_eq!(m.handle_packet(Time::ZERO, 0, 1, data(2)), Admit::Queued);
    assert_eq!(
        m.handle_packet(Time::ZERO, 0, 1, data(3)),
        Admit::DroppedQueue
    );
    drain(&mut m);
    assert_eq!(m.counters(1).ack_airtime, m.counters(1).airtime);
    assert_eq!(m.counters(0).ack_airtime, Dur::ZERO);
    assert_eq!(m.counters(0).dropped_queue, 1);
}

/// A node-wide limit (ns-3's one `WifiMacQueue` per access category, shared by every
/// receiver) caps what the access point holds for all its stations together: with 500
/// packets offered to each of four stations, the per-destination queues (1000 each) take
/// all 2000, a 500-packet node queue takes 500 and drops the rest, and serves them all.
#[test]
fn node_queue_is_shared_by_every_destination() {
    let offer = |node_queue: Option<u32>| {
        let mut p = WlanParams::preset("802.11ac").unwrap();
        p.node_queue = node_queue;
        let mut m = Wlan::new(p, 5, Rng::from_seed(3));
        let mut queued = 0;
        for i in 0..2000u32 {
            let to = 1 + (i % 4) as u16;
            if m.handle_packet(Time::ZERO, 0, to, data(i)) == Admit::Queued {
                queued += 1;
            }
        }
        let delivered = drain(&mut m).len();
        (
            queued,
            m.counters(0).dropped_queue,
            m.counters(0).max_queue_pkts,
            delivered,
        )
    };
    assert_eq!(offer(None), (2000, 0, 2000, 2000));
    assert_eq!(offer(Some(500)), (500, 1500, 500, 500));
}

/// With every frame in error, an MPDU is tried `retry_limit` times, the contention
/// window doubling each time, then dropped and reported once.
#[test]
fn retry_limit_drops_and_reports() {
    let mut p = WlanParams::preset("802.11g").unwrap();
    p.per = 0.999_999;
    let mut m = Wlan::new(p, 2, Rng::from_seed(3));
    m.handle_packet(Time::ZERO, 1, 0, data(1));
    assert!(drain(&mut m).is_empty());
    assert_eq!(m.poll_dropped(), Some(data(1)));
    assert_eq!(m.poll_dropped(), None);
    let c = m.counters(1);
    assert_eq!(
        (c.accesses, c.mpdu_errors, c.dropped_retry, c.retries),
        (7, 7, 1, 6)
    );
}

/// Frame errors at 20 % cost retransmissions, not packets (7 attempts each).
#[test]
fn per_costs_retransmissions() {
    let mut p = WlanParams::preset("802.11n").unwrap();
    p.per = 0.2;
    p.queue = 5000;
    let mut m = Wlan::new(p, 2, Rng::from_seed(5));
    for i in 0..2000 {
        m.handle_packet(Time::ZERO, 0, 1, data(i));
    }
    let got = drain(&mut m);
    assert_eq!(got.len(), 2000);
    let c = m.counters(0);
    let err = c.mpdu_errors as f64 / c.mpdus_sent as f64;
    assert!((err - 0.2).abs() < 0.02, "{err}");
}

/// `n` saturated stations: the fraction of accesses that collide matches the fixed point
/// of Bianchi's model within 5 % (relative; measured: within 2.1 % for these four). The
/// 802.11g cells use CWmin 31 (a BSS open to 802.11b clients); with the preset's 15 and
/// 2 stations the cell's collisions exceed the model's by 8.4 % (0.1134 against 0.1046).
#[test]
fn collisions_match_bianchi() {
    for (preset, n) in [
        ("802.11g", 2),
        ("802.11g", 5),
        ("802.11n", 10),
        ("802.11b", 20),
    ] {
        let mut p = WlanParams::preset(preset).unwrap();
        p.ampdu = None;
        if preset == "802.11g" {
            p.cw_min = 31;
        }
        let mut m = Wlan::new(p.clone(), n + 1, Rng::from_seed(11));
        let mut t = Time::ZERO;
        let mut id = 0;
        // Stations 1..=n always have two frames for the AP (which sends nothing).
        while m.counters(1).accesses < 3000 {
            for s in 1..=n as u16 {
                while m.queued(s) < 2 {
                    id += 1;
                    m.handle_packet(t, s, 0, data(id));
                }
            }
            t = m.poll_timeout().unwrap();
            m.handle_timeout(t);
            while m.poll_transmit(t).is_some() {}
        }
        let (acc, col) = (1..=n as u16).fold((0, 0), |(a, c), s| {
            (a + m.counters(s).accesses, c + m.counters(s).collisions)
        });
        let measured = col as f64 / acc as f64;
        let (_, model) = bianchi::fixed_point(n as u32, p.cw_min, p.cw_max, p.retry_limit);
        let rel = (measured - model).abs() / model;
        assert!(
            rel < 0.05,
            "{preset} n={n}: measured {measured:.4}, Bianchi {model:.4} ({:.1} %)",
            rel * 100.0
        );
    }
}

/// 802.11n with `per` frame errors and `reorder`: delivers 2000 packets from the AP to a
/// station; returns the deliveries and the AP's counters.
fn lossy_transfer(
    per: f64,
    reorder: bool,
    seed: u64,
) -> (Vec<(Time, u16, P)>, tcplab_link::wlan::StationCounters) {
    let mut p = WlanParams::preset("802.11n").unwrap();
    p.per = per;
    p.queue = 5000;
    // A-MPDUs of at most 12 MPDUs (550 µs), so the agreement's 64-frame window never binds
    // and both runs build the same A-MPDUs: only the reordering differs. With the preset's
    // 42 the window binds under a Block Ack agreement alone, and a few packets then arrive
    // earlier with the buffer than without it.
    p.ampdu = p.ampdu.map(|a| Ampdu {
        max_time: Dur::from_micros(550),
        ..a
    });
    if !reorder {
        p.reorder_timeout = None;
    }
    let mut m = Wlan::new(p, 2, Rng::from_seed(seed));
    for i in 0..2000 {
        m.handle_packet(Time::ZERO, 0, 1, data(i));
    }
    let got = drain(&mut m);
    (got, *m.counters(0))
}

/// Packets that arrive after a later one (what a transport sees as reordering).
fn reordered(got: &[(Time, u16, P)]) -> usize {
    let mut max = None;
    got.iter()
        .filter(|x| {
            let late = max.is_some_and(|m| x.2.id < m);
            max = max.max(Some(x.2.id));
            late
        })
        .count()
}

/// Block Ack reordering (IEEE 802.11-2020 10.25.6): with 10 % frame errors, MPDUs the
/// Block ACK reports missing are retransmitted in a later A-MPDU. Without the recipient's
/// reordering buffer they reach the station after their successors; with it, in order,
/// the successors held meanwhile. Without frame errors the buffer holds nothing and
/// changes nothing: the same deliveries at the same times.
#[test]
fn block_ack_reordering_hides_mac_retries() {
    let (without, _) = lossy_transfer(0.1, false, 5);
    let (with, c) = lossy_transfer(0.1, true, 5);
    assert_eq!(with.len(), 2000);
    assert!(reordered(&without) > 100, "{}", reordered(&without));
    assert_eq!(reordered(&with), 0);
    assert!(c.reorder_held > 100, "{c:?}");
    assert_eq!(c.reorder_late, 0);
    // Held packets wait for the retransmission: the same packets arrive no earlier.
    let at = |v: &[(Time, u16, P)], id: u32| v.iter().find(|x| x.2.id == id).unwrap().0;
    assert!((0..2000).all(|id| at(&with, id) >= at(&without, id)));
    let (a, _) = lossy_transfer(0.0, false, 5);
    let (b, cb) = lossy_transfer(0.0, true, 5);
    assert_eq!(a, b);
    assert_eq!(cb.reorder_held, 0);
}

/// Under a Block Ack agreement a retry-limit drop moves the recipient's window (the
/// originator's BlockAckReq): with one attempt per MPDU and 30 % errors, what arrives
/// arrives in order and at once, and every packet comes back once, delivered or dropped.
#[test]
fn retry_limit_drops_move_the_window() {
    let mut p = WlanParams::preset("802.11n").unwrap();
    p.per = 0.3;
    p.retry_limit = 1;
    let mut m = Wlan::new(p, 2, Rng::from_seed(9));
    for i in 0..500 {
        m.handle_packet(Time::ZERO, 0, 1, data(i));
    }
    let got = drain(&mut m);
    let mut dropped = 0;
    while m.poll_dropped().is_some() {
        dropped += 1;
    }
    let c = m.counters(0);
    assert_eq!(got.len() + dropped, 500);
    assert_eq!(dropped as u64, c.dropped_retry);
    assert!(c.dropped_retry > 100, "{c:?}");
    assert_eq!(reordered(&got), 0);
    assert_eq!(c.reorder_held, 0, "a dropped MPDU leaves no gap to wait on");
}

/// The reorder timeout (mac80211: 100 ms): when retransmissions take longer than it (a
/// 32767-slot contention window: ~150 ms per backoff), the recipient skips the gap and
/// discards the retransmission that arrives after it; with a 10 s timeout none is late.
#[test]
fn reorder_timeout_skips_slow_gaps() {
    let run = |timeout: Dur| {
        let mut p = WlanParams::preset("802.11n").unwrap();
        p.per = 0.3;
        p.cw_min = 32767;
        p.cw_max = 32767;
        p.reorder_timeout = Some(timeout);
        let mut m = Wlan::new(p, 2, Rng::from_seed(4));
        for i in 0..300 {
            m.handle_packet(Time::ZERO, 0, 1, data(i));
        }
        let got = drain(&mut m);
        let mut dropped = 0u64;
        while m.poll_dropped().is_some() {
            dropped += 1;
        }
        (got, dropped, *m.counters(0))
    };
    let (got, dropped, c) = run(Dur::from_millis(100));
    assert!(c.reorder_late > 0, "{c:?}");
    assert_eq!(dropped, c.reorder_late + c.dropped_retry);
    assert_eq!(got.len() as u64 + dropped, 300);
    assert_eq!(reordered(&got), 0);
    let (got, _, c) = run(Dur::from_secs(10));
    assert_eq!(c.reorder_late, 0);
    assert_eq!(reordered(&got), 0);
}

/// MAC retransmissions cost airtime: with 20 % frame errors the AP spends more channel
/// time per delivered MPDU than without (each lost MPDU is sent again).
#[test]
fn retries_raise_airtime_per_delivered_mpdu() {
    let (_, clean) = lossy_transfer(0.0, true, 6);
    let (_, lossy) = lossy_transfer(0.2, true, 6);
    let per_mpdu =
        |c: &tcplab_link::wlan::StationCounters| c.airtime.as_secs_f64() / c.delivered_pkts as f64;
    assert_eq!((clean.retries, clean.delivered_pkts), (0, 2000));
    assert!(lossy.retries > 300, "{lossy:?}");
    let ratio = per_mpdu(&lossy) / per_mpdu(&clean);
    assert!(ratio > 1.15, "{ratio}");
}

/// Frame errors from the SNR (ns-3's NIST model): at 24 dB an 802.11n MCS 15 MPDU of
/// 1538 bytes (64-QAM 5/6) is lost about as often as the model says (measured within 2
/// points), a 90-byte one (a TCP ACK) far less often, and at 30 dB almost never.
#[test]
fn snr_sets_the_frame_error_rate() {
    use tcplab_link::wlan::nist;
    let run = |snr: f64, len: u32| {
        let mut p = WlanParams::preset("802.11n").unwrap();
        p.snr_db = Some(snr);
        p.queue = 5000;
        p.reorder_timeout = None;
        let model = nist::frame_error(p.modulation.unwrap(), snr, (len + p.mac_overhead) as u64);
        let mut m = Wlan::new(p, 2, Rng::from_seed(8));
        for i in 0..3000 {
            m.handle_packet(
                Time::ZERO,
                0,
                1,
                P {
                    id: i,
                    len,
                    payload: 0,
                },
            );
        }
        drain(&mut m);
        let c = m.counters(0);
        (c.mpdu_errors as f64 / c.mpdus_sent as f64, model)
    };
    let (big, model) = run(24.0, 1500);
    assert!(
        model > 0.02 && (big - model).abs() < 0.02,
        "{big} vs {model}"
    );
    let (small, _) = run(24.0, 52);
    assert!(small < big / 5.0, "{small} {big}");
    let (clean, _) = run(30.0, 1500);
    assert!(clean < 1e-3, "{clean}");
}

/// Oldest head first (`fcfs`, ns-3's `FcfsWifiQueueScheduler`, whose priority is the
/// enqueue time of a queue's head) against round robin: the access point holds 42 frames
/// for station 1, then 42 for station 2, with 10 % frame errors. Both serve station 1
/// first. Round robin then moves on to station 2, so station 1's MPDUs in error wait
/// for station 2's A-MPDU; oldest head first sends them first (they were queued before
/// all of station 2's), so station 1 has everything before station 2 gets anything.
/// Returns (last arrival at station 1, first arrival at station 2).
fn two_stations(fcfs: bool) -> (Time, Time) {
    let mut p = WlanParams::preset("802.11ac").unwrap();
    p.per = 0.1;
    p.fcfs = fcfs;
    let mut m = Wlan::new(p, 3, Rng::from_seed(11));
    for i in 0..84u32 {
        m.handle_packet(Time::ZERO, 0, 1 + (i / 42) as u16, data(i));
    }
    let got = drain(&mut m);
    assert_eq!(got.len(), 84);
    assert!(m.counters(0).mpdu_errors > 0);
    let at = |port: u16| got.iter().filter(move |x| x.1 == port).map(|x| x.0);
    (at(1).max().unwrap(), at(2).min().unwrap())
}

#[test]
fn fcfs_retransmits_before_serving_newer_frames() {
    let (last1, first2) = two_stations(true);
    assert!(last1 < first2, "fcfs: {last1:?} {first2:?}");
    let (last1, first2) = two_stations(false);
    assert!(last1 > first2, "round robin: {last1:?} {first2:?}");
}
