//! TACK's receiver and sender, driven directly (sans-IO): the TACK frequency in both
//! regimes, IACKs on gaps, block lists, and retransmission at most once per RTT.

use tcplab_core::{Dur, Time};
use tcplab_transport::cc;
use tcplab_transport::tack::{
    AckKind, Gap, TackAck, TackConfig, TackData, TackReceiver, TackSender,
};

const MSS: u32 = 1448;

fn data(pn: u64, seq: u64, sent: Time, rtt_min: Dur) -> TackData {
    TackData {
        flow: 0,
        len: MSS,
        seq,
        pn,
        pn_floor: 0,
        sent_at: sent,
        rtt_min_ns: rtt_min.0,
        fin: false,
        retransmission: false,
    }
}

/// Feeds `secs` of an even stream at `rate_bps` (one-way delay 1 ms) and counts TACKs.
fn tack_rate(rate_bps: u64, rtt: Dur, beta: u32, l: u32, secs: u64) -> f64 {
    let cfg = TackConfig {
        mss: MSS,
        beta,
        l,
        ..TackConfig::default()
    };
    let mut r = TackReceiver::new(0, cfg);
    let gap = Dur::transmission(MSS as u64, rate_bps);
    let end = Time::ZERO + Dur::from_secs(secs);
    let (mut t, mut pn) = (Time::ZERO, 0u64);
    let mut tacks_in_second_half = 0;
    while t < end {
        // Timers due before the next arrival.
        while let Some(w) = r.poll_timeout() {
            if w > t {
                break;
            }
            r.handle_timeout(w);
            while let Some(a) = r.poll_transmit(w) {
                assert_eq!(a.kind, AckKind::Tack);
                if w.0 * 2 >= end.0 {
                    tacks_in_second_half += 1;
                }
            }
        }
        r.handle_data(t, &data(pn, pn * MSS as u64, t - Dur::from_millis(1), rtt))
            .unwrap();
        while let Some(a) = r.poll_transmit(t) {
            assert_eq!(a.kind, AckKind::Tack);
            if t.0 * 2 >= end.0 {
                tacks_in_second_half += 1;
            }
        }
        pn += 1;
        t += gap;
    }
    tacks_in_second_half as f64 / (secs as f64 / 2.0)
}

/// f_tack = min(bw / (L·MSS), β / RTT_min): byte-counting below bdp = β·L·MSS, periodic
/// above, the two equal at the pivot. With β = 4, L = 2 and RTT_min = 20 ms the pivot is
/// at bw = β·L·MSS / RTT_min = 4.63 Mbit/s.
#[test]
fn frequency_switches_regime_at_the_pivot_bdp() {
    let rtt = Dur::from_millis(20);
    let pivot_bps = 4 * 2 * MSS as u64 * 8 * 1000 / 20;
    for factor in [0.25, 0.5, 1.0, 2.0, 4.0, 16.0] {
        let rate = (pivot_bps as f64 * factor) as u64;
        let got = tack_rate(rate, rtt, 4, 2, 4);
        let bytes_hz = rate as f64 / 8.0 / (2.0 * MSS as f64);
        let want = bytes_hz.min(4.0 / 0.020);
        let err = (got - want).abs() / want;
        assert!(
            err < 0.03,
            "{factor}x pivot: {got:.1} Hz, formula {want:.1} Hz"
        );
        if factor < 1.0 {
            assert!(got < 195.0, "byte-counting below the pivot");
        } else {
            assert!((got - 200.0).abs() < 6.0, "periodic at or above the pivot");
        }
    }
    // L scales the byte-counting regime only.
    let low = pivot_bps / 4;
    let l8 = tack_rate(low, rtt, 4, 8, 4);
    let want = low as f64 / 8.0 / (8.0 * MSS as f64);
    assert!((l8 - want).abs() / want < 0.05, "L = 8: {l8} vs {want}");
}

/// Without an IACK delay, a gap in packet numbers brings an IACK at once, with the
/// second-largest and largest PNs around the gap; the next TACK lists the gap,
/// TACK-poor only the first.
#[test]
fn iack_on_gap_and_block_lists() {
    for rich in [true, false] {
        let cfg = TackConfig {
            mss: MSS,
            rich,
            iack_delay_div: 0,
            ..TackConfig::default()
        };
        let mut r = TackReceiver::new(0, cfg);
        let rtt = Dur::from_millis(40);
        let t = |ms| Time::ZERO + Dur::from_millis(ms);
        let mut seen = vec![];
        for (i, pn) in [0u64, 1, 3, 4, 7, 8, 12].into_iter().enumerate() {
            r.handle_data(t(i as u64), &data(pn, pn * MSS as u64, t(0), rtt))
                .unwrap();
            while let Some(a) = r.poll_transmit(t(i as u64)) {
                seen.push(a);
            }
        }
        let iacks: Vec<&TackAck> = seen
            .iter()
            .filter(|a| a.kind == AckKind::IackLoss)
            .collect();
        assert_eq!(iacks.len(), 3, "gaps at 2, 5-6, 9-11");
        // The first: second largest 1, largest 3, the gap {2}.
        assert_eq!(
            (iacks[0].base, iacks[0].largest, iacks[0].covered),
            (1, 3, 3)
        );
        assert_eq!(iacks[0].gaps(), &[Gap { start: 1, len: 1 }]);
        assert_eq!(iacks[2].gaps(), &[Gap { start: 1, len: 3 }]);
        // Force a TACK: it lists the gaps from the floor up.
        r.handle_timeout(t(1000));
        let a = r.poll_transmit(t(1000)).unwrap();
        assert_eq!(a.kind, AckKind::Tack);
        assert_eq!((a.base, a.largest), (0, 12));
        if rich {
            assert_eq!(
                a.gaps(),
                &[
                    Gap { start: 2, len: 1 },
                    Gap { start: 5, len: 2 },
                    Gap { start: 9, len: 3 }
                ]
            );
            assert_eq!(a.covered, 13);
        } else {
            assert_eq!(a.gaps(), &[Gap { start: 2, len: 1 }]);
            assert_eq!(a.covered, 5, "covers 0..=4 only: the rest is unknown");
        }
        assert_eq!(a.wire_len(), 64 + 16 * a.n_gaps as u32);
    }
}

/// With loss IACKs off (`loss_iack = false`) the same gaps bring no IACK; the next TACK
/// lists them (all three, TACK-rich), and records the bytes then blocked out of order.
#[test]
fn without_loss_iacks_the_next_tack_reports_the_gaps() {
    let cfg = TackConfig {
        mss: MSS,
        iack_delay_div: 0,
        loss_iack: false,
        ..TackConfig::default()
    };
    let mut r = TackReceiver::new(0, cfg);
    let rtt = Dur::from_millis(40);
    let t = |ms| Time::ZERO + Dur::from_millis(ms);
    let mut kinds = vec![];
    for (i, pn) in [0u64, 1, 3, 4, 7, 8, 12].into_iter().enumerate() {
        r.handle_data(t(i as u64), &data(pn, pn * MSS as u64, t(0), rtt))
            .unwrap();
        while let Some(a) = r.poll_transmit(t(i as u64)) {
            kinds.push(a.kind);
        }
    }
    assert!(!kinds.contains(&AckKind::IackLoss), "{kinds:?}");
    r.handle_timeout(t(1000));
    let a = r.poll_transmit(t(1000)).unwrap();
    assert_eq!(a.kind, AckKind::Tack);
    assert_eq!(
        a.gaps(),
        &[
            Gap { start: 2, len: 1 },
            Gap { start: 5, len: 2 },
            Gap { start: 9, len: 3 }
        ]
    );
    // PNs 3, 4, 7, 8 and 12 wait behind the hole at 2.
    assert_eq!(r.ooo_bytes(), 5 * MSS as u64);
    assert_eq!(r.blocked().max(), Some(5 * MSS as u64));
    assert_eq!(r.blocked().count(), r.stats().tacks_sent);
}

/// The sender retransmits a reported loss once, ignores repeated reports about the old
/// transmission, and resends a lost retransmission only one smoothed RTT after it.
#[test]
fn retransmits_at_most_once_per_rtt() {
    let cfg = TackConfig {
        mss: MSS,
        total_bytes: Some(20 * MSS as u64),
        initial_cwnd: 20,
        ..TackConfig::default()
    };
    let mut s = TackSender::new(0, cfg, cc::build("cubic", &Default::default()).unwrap());
    let t = |ms| Time::ZERO + Dur::from_millis(ms);
    s.start(t(0));
    let mut sent = vec![];
    let mut now = t(0);
    while sent.len() < 20 {
        match s.poll_transmit(now) {
            Some(d) => sent.push(d),
            None => now = s.poll_timeout().unwrap().max(now),
        }
    }
    // Everything but PN 3 arrived; the receiver's IACK came back 50 ms after sending.
    let ack = |kind, base, covered, gaps: &[Gap], largest, rcv_nxt| {
        let mut a = TackAck {
            kind,
            base,
            covered,
            largest,
            rcv_nxt,
            wnd: u32::MAX,
            ..TackAck::default()
        };
        a.gaps[..gaps.len()].copy_from_slice(gaps);
        a.n_gaps = gaps.len() as u8;
        a
    };
    let gap3 = [Gap { start: 1, len: 1 }];
    s.handle_ack(
        t(50),
        &ack(AckKind::IackLoss, 2, 3, &gap3, 4, 3 * MSS as u64),
    );
    let r1 = s.poll_transmit(t(50)).expect("the loss is resent at once");
    assert!(r1.retransmission && r1.seq == 3 * MSS as u64 && r1.pn == 20);
    // A TACK repeating the loss of PN 3 (the old transmission) changes nothing.
    let all = [Gap { start: 3, len: 1 }];
    s.handle_ack(t(60), &ack(AckKind::Tack, 0, 20, &all, 19, 3 * MSS as u64));
    assert!(s.poll_transmit(t(60)).is_none());
    assert_eq!(s.stats().retransmissions, 1);
    // The retransmission (PN 20) is reported lost right away (by a later probe): it may
    // go again only one srtt after it left.
    let srtt = s.srtt().unwrap();
    let gap20 = [Gap { start: 0, len: 1 }];
    s.handle_ack(
        t(70),
        &ack(AckKind::Tack, 20, 2, &gap20, 21, 3 * MSS as u64),
    );
    assert!(s.poll_transmit(t(70)).is_none(), "not within an RTT");
    let wake = s.poll_timeout().unwrap();
    assert_eq!(wake, t(50) + srtt);
    let r2 = s.poll_transmit(wake).expect("resent one srtt later");
    assert_eq!((r2.seq, r2.pn), (3 * MSS as u64, 21));
    assert_eq!(s.stats().retransmissions, 2);
}

/// On a reordering path the first packet can arrive after later ones: until an IACK has
/// reported that gap, a TACK covers nothing below it (it used to compute its coverage as
/// `gap start - 1` and underflow at PN 0, which in a release build told the sender that
/// four billion packet numbers had arrived).
#[test]
fn tack_before_the_first_packet_covers_nothing() {
    let mut r = TackReceiver::new(
        0,
        TackConfig {
            mss: MSS,
            ..TackConfig::default()
        },
    );
    let t = |ms| Time::ZERO + Dur::from_millis(ms);
    let rtt = Dur::from_millis(40);
    // PN 1 arrives first (PN 0 is late): no gap above the largest, so no IACK.
    r.handle_data(t(1), &data(1, MSS as u64, t(0), rtt))
        .unwrap();
    r.handle_timeout(t(1000));
    let a = r.poll_transmit(t(1000)).expect("a TACK is due");
    assert_eq!(a.kind, AckKind::Tack);
    assert_eq!((a.base, a.covered, a.largest, a.n_gaps), (0, 0, 1, 0));
    assert_eq!(a.rcv_nxt, 0, "nothing delivered in order yet");
    // PN 0 arrives: now everything up to 1 is covered.
    r.handle_data(t(1001), &data(0, 0, t(0), rtt)).unwrap();
    r.handle_timeout(t(2000));
    let b = r.poll_transmit(t(2000)).expect("a TACK is due");
    assert_eq!((b.base, b.covered, b.rcv_nxt), (0, 2, 2 * MSS as u64));
}

/// Reordering (the paper's §7): a gap is reported only if it is still open RTT_min / 4
/// after it appeared. A packet that arrives late but within that delay brings no IACK;
/// a gap still open then brings one at exactly that time, reporting the gap.
#[test]
fn reordering_within_the_iack_delay_is_not_a_loss() {
    let mut r = TackReceiver::new(
        0,
        TackConfig {
            mss: MSS,
            ..TackConfig::default()
        },
    );
    let rtt = Dur::from_millis(40); // IACK delay 10 ms
    let t = |ms| Time::ZERO + Dur::from_millis(ms);
    let mut iacks = vec![];
    let feed = |r: &mut TackReceiver, at: u64, pn: u64, iacks: &mut Vec<(Time, TackAck)>| {
        while let Some(w) = r.poll_timeout().filter(|w| *w <= t(at)) {
            r.handle_timeout(w);
            while let Some(a) = r.poll_transmit(w) {
                if a.kind == AckKind::IackLoss {
                    iacks.push((w, a));
                }
            }
        }
        if pn != u64::MAX {
            r.handle_data(t(at), &data(pn, pn * MSS as u64, t(0), rtt))
                .unwrap();
        }
        while let Some(a) = r.poll_transmit(t(at)) {
            if a.kind == AckKind::IackLoss {
                iacks.push((t(at), a));
            }
        }
    };
    // PN 1 overtaken by PN 2, arrives 9 ms later: no loss.
    for (at, pn) in [(0, 0), (1, 2), (10, 1), (11, 3)] {
        feed(&mut r, at, pn, &mut iacks);
    }
    assert!(iacks.is_empty(), "{iacks:?}");
    // PN 4 never arrives: an IACK 10 ms after PN 5 opened the gap, naming PN 4.
    for (at, pn) in [(12, 5), (13, 6), (50, u64::MAX)] {
        feed(&mut r, at, pn, &mut iacks);
    }
    assert_eq!(iacks.len(), 1, "{iacks:?}");
    let (when, a) = iacks[0];
    assert_eq!(when, t(22));
    // From PN 3 (received below the gap) through the block 5-6 received above it.
    assert_eq!((a.base, a.covered), (3, 4));
    assert_eq!(a.gaps(), &[Gap { start: 1, len: 1 }]);
}

/// A burst of scattered losses (an overflowing AP queue): as the gaps outlive their IACK
/// delay, loss IACKs report every one of them exactly once, up to MAX_GAPS per IACK
/// (reporting only the gap below the PN whose check fired, when checks had merged,
/// starved the sender of loss reports: measured on 802.11ac at RTT_min 200 ms, 43
/// instead of 352 Mbit/s).
#[test]
fn delayed_iacks_report_every_gap_of_a_burst() {
    let mut r = TackReceiver::new(
        0,
        TackConfig {
            mss: MSS,
            ..TackConfig::default()
        },
    );
    let rtt = Dur::from_millis(40);
    let t = |us| Time::ZERO + Dur::from_micros(us);
    // Every third PN of 0..60 is lost: 19 gaps (PNs 3, 6, ..., 57).
    let mut at = 0;
    for pn in (0..60u64).filter(|p| p % 3 != 0 || *p == 0) {
        r.handle_data(t(at), &data(pn, pn * MSS as u64, t(0), rtt))
            .unwrap();
        while let Some(a) = r.poll_transmit(t(at)) {
            assert_ne!(a.kind, AckKind::IackLoss, "no IACK within the delay");
        }
        at += 10;
    }
    // Timers up to 11 ms later: TACKs, and the IACK delays (10 ms) of all the gaps.
    let mut lost = vec![];
    let mut n = 0;
    while let Some(wake) = r.poll_timeout().filter(|w| *w <= t(11_000)) {
        r.handle_timeout(wake);
        while let Some(a) = r.poll_transmit(wake) {
            if a.kind != AckKind::IackLoss {
                continue;
            }
            n += 1;
            assert!(a.n_gaps as usize <= tcplab_transport::tack::MAX_GAPS);
            for g in a.gaps() {
                lost.extend((0..g.len as u64).map(|k| a.base + g.start as u64 + k));
            }
        }
    }
    assert_eq!(lost, (1..20).map(|k| 3 * k).collect::<Vec<_>>());
    assert!(n <= 19, "{n} IACKs");
}

/// A gap followed by a received block longer than a Gap's 16-bit offsets: the IACK names
/// exactly the missing PN and nothing of the block after it.
#[test]
fn iack_with_a_long_block_after_the_gap_reports_only_the_gap() {
    let mut r = TackReceiver::new(
        0,
        TackConfig {
            mss: MSS,
            ..TackConfig::default()
        },
    );
    let rtt = Dur::from_millis(40); // IACK delay 10 ms
    let t = |ns| Time::ZERO + Dur(ns);
    let mut pns = vec![0u64];
    pns.extend(2..70_002);
    for (i, pn) in pns.into_iter().enumerate() {
        let at = t(i as u64 * 100); // 7 ms in all
        r.handle_data(at, &data(pn, pn * MSS as u64, t(0), rtt))
            .unwrap();
        while r.poll_transmit(at).is_some() {}
    }
    let mut iacks = vec![];
    while let Some(w) = r.poll_timeout().filter(|w| *w <= t(20_000_000)) {
        r.handle_timeout(w);
        while let Some(a) = r.poll_transmit(w) {
            if a.kind == AckKind::IackLoss {
                iacks.push(a);
            }
        }
    }
    assert_eq!(iacks.len(), 1);
    let a = iacks[0];
    assert_eq!((a.base, a.gaps()), (0, &[Gap { start: 1, len: 1 }][..]));
    assert_eq!(a.covered, 70_002, "0, the gap, and the block 2..70002");
}
