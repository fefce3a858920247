//! Hand-computed rounds pin the v0.2 rules: ATD, the RTT averages, both modes.

use super::*;

const MSS: u64 = 1000;

fn ms(x: f64) -> Dur {
    Dur::from_secs_f64(x / 1e3)
}

fn at(x: f64) -> Time {
    Time::ZERO + ms(x)
}

struct Rig {
    wave: Wave,
    w: Window,
    delivered: u64,
}

impl Rig {
    fn new(wave: Wave) -> Rig {
        let mut w = Window {
            cwnd: 0,
            ssthresh: u64::MAX,
            mss: MSS as u32,
        };
        let mut wave = wave;
        wave.init(&mut w, Time::ZERO);
        Rig {
            wave,
            w,
            delivered: 0,
        }
    }

    /// The timer fires at `t0`: the whole burst leaves at once.
    fn burst(&mut self, t0: f64) -> u32 {
        let n = self.wave.on_send_timer(&mut self.w, at(t0));
        for _ in 0..n {
            self.wave.on_sent(at(t0), MSS as u32, 0);
        }
        self.wave.on_segments_sent(&mut self.w, at(t0), n);
        n
    }

    /// One delayed ACK per two segments of a burst sent at `t0`; ACK k has RTT `rtts[k]`.
    fn train(&mut self, t0: f64, rtts: &[f64]) {
        for &r in rtts {
            self.delivered += 2 * MSS;
            let info = AckInfo {
                now: at(t0 + r),
                bytes_acked: 2 * MSS,
                rtt: Some(ms(r)),
                srtt: None,
                min_rtt: None,
                in_flight: 0,
                in_recovery: false,
                rate: None,
                delivered: self.delivered,
                ece: false,
            };
            self.wave.on_ack(&mut self.w, &info);
        }
    }
}

fn close(a: Dur, b: Dur) -> bool {
    a.0.abs_diff(b.0) <= 1_000 // 1 µs: the EWMA is computed in f64
}

#[test]
fn startup_burst_and_timer() {
    let mut r = Rig::new(Wave::new(10, 3, ms(500.0), ms(150.0)));
    assert_eq!(r.w.ssthresh, 0);
    assert_eq!(r.wave.send_timer(), Some(Time::ZERO));
    assert_eq!(r.burst(0.0), 10);
    assert_eq!(r.wave.send_timer(), Some(at(500.0)));
    assert_eq!(r.wave.mode(), Mode::Startup);
}

/// Five aligned ACKs 2 ms apart: ATD = 8 ms · 5/4 = 10 ms; first round avg = min, ΔRTT 0,
/// so TxTime = 10 ms. Second round, first RTT 150 ms over min 100 ms:
/// a = 50/150, avg = a·100 + (1 − a)·150 = 133.33 ms, ΔRTT = 33.33 ms,
/// TxTime = 10 + 33.33/2 = 26.67 ms.
#[test]
fn hand_computed_train_gives_atd_and_txtime() {
    let mut r = Rig::new(Wave::new(10, 3, ms(500.0), ms(150.0)));
    r.burst(0.0);
    r.train(0.0, &[100.0, 102.0, 104.0, 106.0, 108.0]);
    assert_eq!(r.wave.atd(), Some(ms(10.0)));
    assert_eq!(r.wave.delta_rtt(), Dur::ZERO);
    assert_eq!(r.wave.tx_time(), ms(10.0));
    assert_eq!(r.wave.mode(), Mode::Tracking);

    r.burst(500.0);
    r.train(500.0, &[150.0, 152.0, 154.0, 156.0, 158.0]);
    assert_eq!(r.wave.atd(), Some(ms(10.0)));
    assert!(
        close(r.wave.delta_rtt(), ms(100.0 / 3.0)),
        "{:?}",
        r.wave.delta_rtt()
    );
    assert!(
        close(r.wave.tx_time(), ms(10.0 + 50.0 / 3.0)),
        "{:?}",
        r.wave.tx_time()
    );
    // The timer set at 500 ms used the TxTime of the first round.
    assert_eq!(r.wave.send_timer(), Some(at(510.0)));
}

/// A smaller RTT in mid-train means the earlier ACKs were stragglers: the round restarts.
#[test]
fn smaller_rtt_restarts_the_train() {
    let mut r = Rig::new(Wave::new(10, 3, ms(500.0), ms(150.0)));
    r.burst(0.0);
    // ACK 0 (RTT 120) is a straggler; the train proper starts at RTT 100, 4 ms later.
    // Restarting discards its bytes, so the round needs five more ACKs.
    r.train(0.0, &[120.0]);
    r.train(4.0, &[100.0, 102.0, 104.0, 106.0]);
    assert_eq!(r.wave.mode(), Mode::Startup, "round must not end yet");
    r.train(4.0, &[108.0]);
    assert_eq!(r.wave.atd(), Some(ms(10.0)));
    assert_eq!(r.wave.tx_time(), ms(10.0));
}

/// ΔRTT above beta: adjustment (TxTime = init_timer, counter = avg/TxTime rounds skipped),
/// then back to tracking once the counter has run out and ΔRTT is small.
#[test]
fn delta_rtt_above_beta_adjusts_then_tracks_again() {
    let mut r = Rig::new(Wave::new(10, 3, ms(500.0), ms(20.0)));
    r.burst(0.0);
    r.train(0.0, &[100.0, 102.0, 104.0, 106.0, 108.0]);
    assert_eq!(r.wave.tx_time(), ms(10.0));
    let mut t = 10.0;
    r.burst(t);
    r.train(t, &[150.0, 152.0, 154.0, 156.0, 158.0]);
    // ΔRTT 33.3 ms > 20 ms. Counter = 133.33 / 10 = 13 rounds.
    assert_eq!(r.wave.mode(), Mode::Adjustment);
    assert_eq!(r.wave.tx_time(), ms(500.0));
    assert_eq!(r.wave.ctl.stab, 13);
    assert_eq!(r.wave.rtt.min, None);
    assert_eq!(r.wave.rtt.avg, Some(ms(150.0)));
    for _ in 0..13 {
        t += 500.0;
        r.burst(t);
        r.train(t, &[100.0, 102.0, 104.0, 106.0, 108.0]);
        assert_eq!(r.wave.mode(), Mode::Adjustment);
        assert_eq!(r.wave.tx_time(), ms(500.0));
    }
    t += 500.0;
    r.burst(t);
    r.train(t, &[100.0, 102.0, 104.0, 106.0, 108.0]);
    assert_eq!(r.wave.mode(), Mode::Tracking);
    assert_eq!(r.wave.delta_rtt(), Dur::ZERO);
    assert_eq!(r.wave.tx_time(), ms(10.0));
}

/// A short burst's train is scaled to the full burst only if no ATD exists yet.
#[test]
fn short_burst_scales_dispersion() {
    let round = Round {
        burst: Burst {
            segments: 5,
            bytes: 5 * MSS,
        },
        first_ack: Some(at(100.0)),
        last_ack: at(104.0),
        aligned: 3,
    };
    // 4 ms for 5 segments, scaled to 10: 8 ms (no n/(n−1) on this branch, as in v0.2).
    assert_eq!(dispersion(&round, 10), Some(ms(8.0)));
    let single = Round {
        aligned: 1,
        ..round
    };
    assert_eq!(dispersion(&single, 10), None);
}

#[test]
fn tracking_floor_and_cap() {
    // Zero dispersion and no ΔRTT would give TxTime 0: forced to 1 ms.
    let mut c = Control::new(10, 3, ms(500.0), ms(150.0));
    let mut rtt = RttStats::default();
    rtt.sample(ms(50.0));
    c.prev_atd = Some(Dur(0));
    let round = Round {
        burst: Burst {
            segments: 10,
            bytes: 10 * MSS,
        },
        first_ack: None,
        last_ack: at(0.0),
        aligned: 0,
    };
    c.round_terminated(&round, &mut rtt);
    assert_eq!(c.tx_time, ms(1.0));
    // A TxTime above init_timer is capped when arming the timer.
    c.tx_time = ms(900.0);
    assert_eq!(c.interval(), ms(500.0));
}

#[test]
fn window_emulation_and_app_limited() {
    let mut r = Rig::new(Wave::new(10, 3, ms(500.0), ms(150.0)));
    let n = r.wave.on_send_timer(&mut r.w, Time::ZERO);
    assert_eq!(r.w.cwnd, 10 * MSS);
    // Only 4 segments were available: the unused 6 are taken back.
    for _ in 0..4 {
        r.wave.on_sent(Time::ZERO, MSS as u32, 0);
    }
    r.wave.on_segments_sent(&mut r.w, Time::ZERO, 4);
    assert_eq!(n, 10);
    assert_eq!(r.w.cwnd, 4 * MSS);
    // Any ACK closes the window to what is in flight.
    r.delivered += 2 * MSS;
    let info = AckInfo {
        now: at(100.0),
        bytes_acked: 2 * MSS,
        rtt: Some(ms(100.0)),
        srtt: None,
        min_rtt: None,
        in_flight: 2 * MSS,
        in_recovery: false,
        rate: None,
        delivered: r.delivered,
        ece: false,
    };
    r.wave.on_ack(&mut r.w, &info);
    assert_eq!(r.w.cwnd, 2 * MSS);
    // Two segments sent outside the timer (fast retransmits) shrink the next burst,
    // never below min_burst.
    r.wave.on_sent(at(101.0), MSS as u32, 0);
    r.wave.on_sent(at(101.0), MSS as u32, 0);
    assert_eq!(r.wave.on_send_timer(&mut r.w, at(500.0)), 8);
    r.wave.on_segments_sent(&mut r.w, at(500.0), 8);
    for _ in 0..20 {
        r.wave.on_sent(at(501.0), MSS as u32, 0);
    }
    assert_eq!(r.wave.on_send_timer(&mut r.w, at(1000.0)), 3);
}
