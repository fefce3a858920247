//! Event-queue throughput: push/pop with a realistic spread of times.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;
use tcplab_core::{Rng, Time};
use tcplab_sim::EventQueue;

fn hold(c: &mut Criterion) {
    // The "hold" model: a queue of n pending events; each step pops the earliest and
    // pushes a successor a random time later, as a simulation in steady state does.
    let mut g = c.benchmark_group("event_queue_hold");
    for &n in &[64usize, 1024, 16384] {
        g.throughput(Throughput::Elements(1));
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, &n| {
            let mut rng = Rng::from_seed(1);
            let mut q = EventQueue::with_capacity(n);
            for i in 0..n {
                q.push(Time(rng.below(1_000_000)), i as u32);
            }
            b.iter(|| {
                let (t, x) = q.pop().expect("non-empty");
                q.push(Time(t.0 + 1 + rng.below(1_000_000)), black_box(x));
            });
        });
    }
    g.finish();
}

criterion_group!(benches, hold);
criterion_main!(benches);
