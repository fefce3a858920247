//! Timer accuracy of the drivers' wake-up path (timerfd + epoll through mio, 1 ns timer
//! slack): arm a deadline `gap` ahead, sleep in epoll, measure how late the wake-up is.
//!
//! cargo run --release -p tcplab-net --example timer_accuracy -- [iterations] [--rt]

use mio::unix::SourceFd;
use mio::{Events, Interest, Poll, Token};
use std::os::fd::AsRawFd;
use tcplab_core::Dur;
use tcplab_net::emu::LatenessHistogram;
use tcplab_net::sys::clock::Clock;
use tcplab_net::sys::sched;
use tcplab_net::sys::timer::TimerFd;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let n: u64 = args.first().and_then(|s| s.parse().ok()).unwrap_or(2000);
    let rt = args.iter().any(|a| a == "--rt");
    sched::tighten_timer_slack();
    let rt_on = rt && sched::try_realtime(20);
    let mut poll = Poll::new().unwrap();
    let mut timer = TimerFd::new().unwrap();
    poll.registry()
        .register(
            &mut SourceFd(&timer.as_raw_fd()),
            Token(0),
            Interest::READABLE,
        )
        .unwrap();
    let clock = Clock::start();
    let mut events = Events::with_capacity(4);
    println!("| gap | wake-ups | late p50 | p99 | p99.9 | max | realtime |");
    println!("|---|---|---|---|---|---|---|");
    for gap_us in [20u64, 100, 1000, 10_000] {
        let mut h = LatenessHistogram::default();
        let iters = if gap_us >= 10_000 { n / 10 } else { n };
        for _ in 0..iters {
            let deadline = clock.now() + Dur::from_micros(gap_us);
            timer.set(Some(clock.to_monotonic_ns(deadline))).unwrap();
            loop {
                poll.poll(&mut events, None).unwrap();
                if events.iter().any(|e| e.token() == Token(0)) {
                    break;
                }
            }
            let late = clock.now().saturating_since(deadline);
            timer.clear();
            h.add(late.as_nanos());
        }
        let q = |x| h.quantile(x).unwrap().as_nanos() as f64 / 1e3;
        println!(
            "| {gap_us} us | {} | {:.0} us | {:.0} us | {:.0} us | {:.0} us | {rt_on} |",
            h.count(),
            q(0.5),
            q(0.99),
            q(0.999),
            h.max().as_nanos() as f64 / 1e3
        );
    }
}
