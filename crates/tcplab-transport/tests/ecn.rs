//! ECN end to end at the endpoints (RFC 3168, and DCTCP's receiver, RFC 8257 section
//! 3.2), driven with scripted segments.

mod common;

use common::*;
use tcplab_core::{Dur, Time};
use tcplab_transport::cc::{Bbr, Controller, NewReno};
use tcplab_transport::{
    AckPolicy, EcnEcho, IpEcn, Receiver, RecoveryCwnd, RecoveryMode, Segment, Sender, SenderConfig,
};

const NR: RecoveryMode = RecoveryMode::NewReno;

/// A started sender with ECN on (no handshake: ECN from the configuration).
fn ecn_sender(cfg: SenderConfig) -> Sender {
    sender_with(SenderConfig { ecn: true, ..cfg })
}

fn ece(a: u64) -> Segment {
    Segment {
        ece: true,
        ..ack(a)
    }
}

/// New data leaves ECT(0); a retransmission and a sender without ECN send Not-ECT.
#[test]
fn ect_on_new_data_only() {
    let mut s = ecn_sender(sender_cfg(NR, Some(40 * M)));
    let out = drain_sender(&mut s, Time::ZERO);
    assert_eq!(out.len(), 10);
    assert!(out.iter().all(|x| x.ip_ecn == IpEcn::Ect0 && !x.cwr));
    // Three duplicate ACKs: fast retransmit of segment 0, Not-ECT (RFC 3168 6.1.5).
    for _ in 0..3 {
        let r = feed(&mut s, ms(100), &ack(0));
        if let Some(x) = r.iter().find(|x| x.retransmission) {
            assert_eq!(x.ip_ecn, IpEcn::NotEct);
        }
    }
    assert!(s.stats().fast_retransmits == 1);
    let mut plain = sender(NR, Some(40 * M));
    assert!(drain_sender(&mut plain, Time::ZERO)
        .iter()
        .all(|x| x.ip_ecn == IpEcn::NotEct));
}

/// RFC 3168 section 6.1.2: an ECN-Echo halves the window once, the first new segment
/// after it carries CWR; a second ECE within the same round trip (before the data sent
/// at the cut is acknowledged) does not cut again; one after it does.
#[test]
fn a_mark_is_answered_once_per_round_trip() {
    let mut s = ecn_sender(sender_cfg(NR, Some(200 * M)));
    drain_sender(&mut s, Time::ZERO); // segments 0-9
                                      // ACK of segment 0 with ECE: ssthresh = FlightSize / 2 (9 segments after the ACK,
                                      // rounded down to bytes), cwnd = ssthresh; nothing is retransmitted.
    let out = feed(&mut s, ms(100), &ece(M));
    assert_eq!(s.stats().ecn_cuts, 1);
    assert_eq!(s.window().ssthresh, 4500);
    assert_eq!(s.window().cwnd, 4500);
    assert!(out.iter().all(|x| !x.retransmission));
    // Two more marks inside the round trip: no second cut, the window does not grow.
    for a in [2 * M, 3 * M] {
        feed(&mut s, ms(101), &ece(a));
    }
    assert_eq!(
        s.stats().ecn_cuts,
        1,
        "two marks in one round trip, one cut"
    );
    assert_eq!(s.window().cwnd, 4500);
    // The first new segment after the cut carries CWR, the next ones do not.
    let mut sent = vec![];
    for a in 4..11 {
        sent.extend(feed(&mut s, ms(102), &ack(a * M)));
    }
    let new: Vec<_> = sent.iter().filter(|x| x.seq >= 10 * M).collect();
    assert!(new.len() >= 2, "{sent:?}");
    assert!(new[0].cwr && new[0].seq == 10 * M && new[1..].iter().all(|x| !x.cwr));
    // Everything up to the CWR segment acknowledged: CWR ends, the next mark cuts again.
    let cut_at = s.window().cwnd;
    feed(&mut s, ms(200), &ece(11 * M));
    assert_eq!(s.stats().ecn_cuts, 2);
    assert!(s.window().cwnd < cut_at);
}

/// Linux's CWR state with PRR (`tcp_cwnd_reduction`): cwnd comes down to ssthresh in
/// proportion to the data delivered, not at once, and equals ssthresh when CWR ends.
#[test]
fn with_prr_the_window_comes_down_gradually() {
    let mut s = ecn_sender(SenderConfig {
        recovery: RecoveryMode::Sack,
        recovery_cwnd: RecoveryCwnd::Prr,
        ..sender_cfg(RecoveryMode::Sack, Some(200 * M))
    });
    drain_sender(&mut s, Time::ZERO);
    feed(&mut s, ms(100), &ece(M));
    assert_eq!(s.window().ssthresh, 4500);
    // One segment delivered: PRR lets ssthresh/RecoverFS of it out (RecoverFS: the 9
    // segments outstanding after the ACK): pipe 9 + ceil(1000 · 4500 / 9000) bytes.
    assert_eq!(s.window().cwnd, 9 * M + 500);
    let mut cwnds = vec![];
    for a in 2..=10 {
        feed(&mut s, ms(100 + a), &ack(a * M));
        cwnds.push(s.window().cwnd);
    }
    assert!(cwnds.windows(2).all(|w| w[1] <= w[0]), "{cwnds:?}");
    assert!(cwnds[0] > 4500, "not at once: {cwnds:?}");
    // The segment sent after the cut (CWR) acknowledged: CWR ends at ssthresh.
    let nxt = s.snd_max();
    feed(&mut s, ms(300), &ack(nxt));
    assert_eq!(s.window().cwnd, 4500);
    assert_eq!(s.stats().ecn_cuts, 1);
}

/// ns-3's PRR (`recovery_cwnd = "prr-ns3"`) runs the CWR state too, as ns-3's
/// `ProcessAck` does in `CA_CWR` (`DoRecovery(.., isDupAck = false)`): RecoverFS is the
/// pipe, and the first ACK keeps one segment for the sender.
#[test]
fn ns3_prr_runs_the_cwr_state() {
    let mut s = ecn_sender(SenderConfig {
        recovery: RecoveryMode::Sack,
        recovery_cwnd: RecoveryCwnd::PrrNs3,
        ..sender_cfg(RecoveryMode::Sack, Some(200 * M))
    });
    drain_sender(&mut s, Time::ZERO);
    feed(&mut s, ms(100), &ece(M));
    assert_eq!(s.window().ssthresh, 4500);
    // ceil(1000 · 4500 / 9000) = 500 bytes, raised to the one segment ns-3 forces
    // while nothing was sent in the reduction.
    assert_eq!(s.window().cwnd, 10 * M);
    for a in 2..=10 {
        feed(&mut s, ms(100 + a), &ack(a * M));
    }
    let nxt = s.snd_max();
    feed(&mut s, ms(300), &ack(nxt));
    assert_eq!(s.window().cwnd, 4500);
}

/// Linux BBR v1 ignores ECN: an ECN-Echo changes neither cwnd nor ssthresh, but the
/// sender still sends CWR so that the receiver stops echoing.
#[test]
fn bbr_ignores_the_mark_but_sends_cwr() {
    let cfg = SenderConfig {
        ecn: true,
        ..sender_cfg(RecoveryMode::Sack, Some(200 * M))
    };
    let mut s = Sender::new(0, cfg, Controller::Bbr(Box::default()));
    s.start(Time::ZERO);
    drain_sender(&mut s, Time::ZERO);
    let mut plain = {
        let cfg = sender_cfg(RecoveryMode::Sack, Some(200 * M));
        let mut p = Sender::new(0, cfg, Controller::Bbr(Box::<Bbr>::default()));
        p.start(Time::ZERO);
        drain_sender(&mut p, Time::ZERO);
        p
    };
    let out = feed(&mut s, ms(100), &ece(M));
    feed(&mut plain, ms(100), &ack(M));
    assert_eq!(s.window(), plain.window());
    assert!(out.iter().any(|x| x.cwr), "{out:?}");
}

/// The ECN-setup handshake (RFC 3168 section 6.1.1): the SYN carries ECE and CWR, a
/// receiver with ECN answers ECE, and data then leaves ECT(0); a receiver without ECN
/// answers without ECE and the data is Not-ECT.
#[test]
fn the_handshake_negotiates_ecn() {
    for (rcv_ecn, want) in [
        (EcnEcho::Rfc3168, IpEcn::Ect0),
        (EcnEcho::Off, IpEcn::NotEct),
    ] {
        let mut s = ecn_sender(SenderConfig {
            handshake: true,
            ..sender_cfg(NR, Some(20 * M))
        });
        let mut r = Receiver::new(
            0,
            tcplab_transport::ReceiverConfig {
                ecn: rcv_ecn,
                ..receiver_cfg(AckPolicy::PerPacket, true, Some(20 * M))
            },
        );
        let syn = drain_sender(&mut s, Time::ZERO);
        assert!(syn[0].syn && syn[0].ece && syn[0].cwr);
        r.handle_segment(ms(10), &syn[0]).unwrap();
        let syn_ack = drain_receiver(&mut r, ms(10));
        assert_eq!(syn_ack[0].ece, rcv_ecn != EcnEcho::Off);
        assert!(!syn_ack[0].cwr);
        let data = feed(&mut s, ms(20), &syn_ack[0]);
        assert!(!data.is_empty() && data.iter().all(|x| x.ip_ecn == want));
        // A CE mark is echoed only when ECN was agreed.
        let marked = Segment {
            ip_ecn: IpEcn::Ce,
            ..data[0]
        };
        r.handle_segment(ms(30), &marked).unwrap();
        assert_eq!(
            drain_receiver(&mut r, ms(30))[0].ece,
            rcv_ecn != EcnEcho::Off
        );
    }
}

fn ecn_receiver(ecn: EcnEcho, policy: AckPolicy) -> Receiver {
    Receiver::new(
        0,
        tcplab_transport::ReceiverConfig {
            ecn,
            ..receiver_cfg(policy, true, None)
        },
    )
}

fn marked(i: u64, ce: bool, cwr: bool) -> Segment {
    Segment {
        ip_ecn: if ce { IpEcn::Ce } else { IpEcn::Ect0 },
        cwr,
        ..seg(i)
    }
}

/// RFC 3168 section 6.1.3: ECE on every ACK from the first CE mark until a segment with
/// CWR arrives; a CE mark on the CWR segment itself starts the echo again. A receiver
/// without ECN echoes nothing.
#[test]
fn ece_is_repeated_until_cwr() {
    let mut r = ecn_receiver(EcnEcho::Rfc3168, AckPolicy::PerPacket);
    let mut echo = |i: u64, ce: bool, cwr: bool| {
        r.handle_segment(ms(i), &marked(i, ce, cwr)).unwrap();
        let a = drain_receiver(&mut r, ms(i));
        assert_eq!(a.len(), 1);
        a[0].ece
    };
    let got: Vec<bool> = [
        (0, false, false),
        (1, true, false), // marked
        (2, false, false),
        (3, false, false),
        (4, false, true), // CWR
        (5, false, false),
        (6, true, true), // CWR and a new mark at once
        (7, false, false),
    ]
    .iter()
    .map(|&(i, ce, cwr)| echo(i, ce, cwr))
    .collect();
    assert_eq!(
        got,
        [false, true, true, true, false, false, true, true],
        "ECE from the mark until CWR"
    );
    assert_eq!(r.ce_received(), 2);
    let mut off = ecn_receiver(EcnEcho::Off, AckPolicy::PerPacket);
    off.handle_segment(ms(0), &marked(0, true, false)).unwrap();
    assert!(!drain_receiver(&mut off, ms(0))[0].ece);
}

/// With delayed ACKs a first mark is ACKed at once (Linux's quick-ACK on CE), where an
/// unmarked segment would wait for its pair.
#[test]
fn a_first_mark_is_acked_at_once() {
    let mut r = ecn_receiver(EcnEcho::Rfc3168, delayed());
    r.handle_segment(ms(0), &marked(0, false, false)).unwrap();
    r.handle_segment(ms(1), &marked(1, false, false)).unwrap();
    assert_eq!(
        drain_receiver(&mut r, ms(1)).len(),
        1,
        "every second segment"
    );
    r.handle_segment(ms(2), &marked(2, false, false)).unwrap();
    assert!(drain_receiver(&mut r, ms(2)).is_empty(), "delayed");
    r.handle_segment(ms(3), &marked(3, true, false)).unwrap();
    let a = drain_receiver(&mut r, ms(3));
    assert_eq!((a.len(), a[0].ack, a[0].ece), (1, 4 * M, true));
    r.handle_segment(ms(4), &marked(4, false, false)).unwrap();
    assert_eq!(
        drain_receiver(&mut r, ms(4)).len(),
        1,
        "quick-ACK: two segments"
    );
}

/// RFC 8257 section 3.2: DCTCP's receiver sets ECE exactly for marked segments. With
/// delayed ACKs (every 2), a change of mark while an ACK is pending first ACKs the
/// segments before it with the old state at once; the changed segment starts a new
/// delayed-ACK cycle. Without a change it ACKs every second segment as usual.
#[test]
fn dctcp_acks_at_once_when_the_mark_changes() {
    let mut r = ecn_receiver(EcnEcho::Dctcp, delayed());
    let mut acks = vec![];
    let mut step = |i: u64, ce: bool| {
        r.handle_segment(ms(i), &marked(i, ce, false)).unwrap();
        let a: Vec<(u64, bool)> = drain_receiver(&mut r, ms(i))
            .iter()
            .map(|a| (a.ack / M, a.ece))
            .collect();
        acks.push(a);
    };
    step(0, false); // pending
    step(1, false); // pair: ACK 2, no ECE
    step(2, false); // pending
    step(3, true); // change: ACK 3 with ECE 0 at once; 3 pending
    step(4, true); // pair: ACK 5 with ECE 1
    step(5, true); // pending
    step(6, false); // change: ACK 6 with ECE 1 at once; 6 pending
    step(7, false); // pair: ACK 8, no ECE
    assert_eq!(
        acks,
        [
            vec![],
            vec![(2, false)],
            vec![],
            vec![(3, false)],
            vec![(5, true)],
            vec![],
            vec![(6, true)],
            vec![(8, false)],
        ]
    );
    // The pending segment's delayed ACK still comes, with the new state.
    let mut r = ecn_receiver(EcnEcho::Dctcp, delayed());
    r.handle_segment(ms(0), &marked(0, false, false)).unwrap();
    r.handle_segment(ms(1), &marked(1, true, false)).unwrap();
    let a = drain_receiver(&mut r, ms(1));
    assert_eq!(
        a.iter().map(|a| (a.ack, a.ece)).collect::<Vec<_>>(),
        [(M, false)]
    );
    let t = r.poll_timeout().expect("the delayed ACK of segment 1");
    assert_eq!(t, ms(1) + Dur::from_millis(200));
    r.handle_timeout(t);
    let a = drain_receiver(&mut r, t);
    assert_eq!(
        a.iter().map(|a| (a.ack, a.ece)).collect::<Vec<_>>(),
        [(2 * M, true)]
    );
}

/// NewReno with and without ECN sends the same data when nothing is marked (no ECE
/// arrives): ECN on changes only the IP field.
#[test]
fn without_marks_ecn_changes_nothing_else() {
    let run = |ecn: bool| {
        let cfg = SenderConfig {
            ecn,
            ..sender_cfg(NR, Some(200 * M))
        };
        let s = Sender::new(0, cfg, Controller::NewReno(NewReno::default()));
        let mut s = s;
        s.start(Time::ZERO);
        let r = receiver(delayed(), true, Some(200 * M));
        let mut net = Net::new(s, r, Dur::from_millis(10));
        net.run(ms(10_000), 100_000).unwrap();
        net.sent
            .iter()
            .map(|(t, x)| (*t, x.seq, x.len))
            .collect::<Vec<_>>()
    };
    assert_eq!(run(true), run(false));
}
