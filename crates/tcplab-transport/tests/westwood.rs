//! Westwood's per-ACK bandwidth filter (seed 001 Alg. 2) against a hand-computed
//! sequence, and the window it sets after a loss.

use tcplab_core::{Dur, Time};
use tcplab_transport::cc::{AckInfo, CongestionControl, CongestionEvent, Westwood, Window};

const MSS: u64 = 1000;

fn ack(t_ms: u64, bytes: u64) -> AckInfo {
    AckInfo {
        now: Time(t_ms * 1_000_000),
        bytes_acked: bytes,
        rtt: None,
        srtt: None,
        min_rtt: Some(Dur::from_millis(100)),
        in_flight: 0,
        in_recovery: false,
        rate: None,
        delivered: 0,
        ece: false,
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-6 * b.abs().max(1.0)
}

/// bwe = (19/21)·bwe + (1/21)·(sample + previous sample), sample = counted bytes / time
/// since the previous ACK, starting from zero at t = 0:
/// - 10 ms, ACK of 2 segments: s = 2000/0.010 = 200 000 B/s, bwe = 200 000/21;
/// - 20 ms, ACK of 4 segments: counts at most 2, s = 200 000,
///   bwe = 19/21·bwe + 400 000/21;
/// - 25 ms, duplicate ACK: counts 1 segment, s = 1000/0.005 = 200 000, same update;
/// - 30 ms, ACK of 3 segments: the duplicate already reported one, so it counts 2,
///   s = 2000/0.005 = 400 000, bwe = 19/21·bwe + 600 000/21;
/// - 30 ms again: no time has passed, no sample.
///
/// A fast retransmit then sets ssthresh = cwnd = bwe·RTTmin (100 ms); a timeout sets
/// the same ssthresh and cwnd = 1 segment.
#[test]
fn filter_matches_hand_computed_sequence() {
    let mut cc = Westwood::default();
    let mut w = Window {
        cwnd: 10 * MSS,
        ssthresh: u64::MAX,
        mss: MSS as u32,
    };
    cc.init(&mut w, Time::ZERO);
    let a = 19.0 / 21.0;
    let mut want = 200_000.0 / 21.0;
    cc.on_ack(&mut w, &ack(10, 2 * MSS));
    assert!(close(cc.bandwidth(), want), "{} vs {want}", cc.bandwidth());
    cc.on_ack(&mut w, &ack(20, 4 * MSS));
    want = a * want + 400_000.0 / 21.0;
    assert!(close(cc.bandwidth(), want), "{} vs {want}", cc.bandwidth());
    cc.on_dup_ack(&mut w, Time(25_000_000), 0);
    want = a * want + 400_000.0 / 21.0;
    assert!(close(cc.bandwidth(), want), "{} vs {want}", cc.bandwidth());
    cc.on_ack(&mut w, &ack(30, 3 * MSS));
    want = a * want + 600_000.0 / 21.0;
    assert!(close(cc.bandwidth(), want), "{} vs {want}", cc.bandwidth());
    cc.on_ack(&mut w, &ack(30, MSS));
    assert!(
        close(cc.bandwidth(), want),
        "no sample without elapsed time"
    );
    // By hand: 9 523.81, 27 664.40, 44 077.31, 68 450.90 B/s.
    assert!((cc.bandwidth() - 68_450.90).abs() < 0.01);

    let mut fr = w;
    cc.on_congestion_event(
        &mut fr,
        CongestionEvent::FastRetransmit,
        Time(30_000_000),
        0,
    );
    let ssthresh = (want * 0.1) as u64;
    assert_eq!(ssthresh, 6845);
    assert_eq!((fr.ssthresh, fr.cwnd), (ssthresh, ssthresh));
    let mut to = w;
    cc.on_congestion_event(
        &mut to,
        CongestionEvent::Rto { repeated: false },
        Time(30_000_000),
        0,
    );
    assert_eq!((to.ssthresh, to.cwnd), (ssthresh, MSS));
}
