//! How long coding takes: a cost model calibrated on `tcplab-coding`, and a host CPU
//! that serves coding work in arrival order.
//!
//! The decoders count their work exactly (whole-symbol XORs for LT, row
//! multiply-accumulates for RLNC; `tcplab-coding`'s `ops`/`row_ops` counters and the
//! description-mode trackers agree on them), so a symbol's processing time is
//! `scale · (symbol_ns + ops · bytes · ns_per_byte)`. The constants are fitted to
//! `tcplab-coding`'s measured decode times on the reference machine
//! (`cargo run --release -p tcplab-coding --example cost_calibration`; numbers in
//! docs/coded-transports.md, "Coding takes time"); `scale` models another CPU (the seed's
//! Raspberry Pi) and `scale = 0` makes coding free.

use tcplab_core::{Dur, Time};

/// Per-operation costs of the coding library, and a CPU scale factor.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CostModel {
    /// Fixed work per symbol encoded or decoded (header, coefficient or neighbour
    /// regeneration, bookkeeping), in ns.
    pub symbol_ns: f64,
    /// One byte XORed into another (LT), in ns.
    pub xor_ns_per_byte: f64,
    /// One byte multiply-accumulated over GF(2^8) (RLNC), in ns.
    pub mulacc_ns_per_byte: f64,
    /// Multiplies every cost: 1 is the reference machine, 0 makes coding free.
    pub scale: f64,
}

impl CostModel {
    /// The reference machine: least-squares fit (relative error) of one generation's
    /// decode time against the decoders' own work counters, LT k = 4..128 and RLNC
    /// k = 4..128 with 1460-byte symbols; the medians of three calibration runs, rounded
    /// (fits: 51.0/27.2/20.9 ns, 0.0335/0.0407/0.0416 and 0.0420/0.0433/0.0428 ns per
    /// byte). Within ±16 % for k ≤ 64; at k = 128 real decoding is up to 1.3× slower
    /// (the working set leaves L1/L2), which the linear model does not follow.
    pub const REFERENCE: CostModel = CostModel {
        symbol_ns: 30.0,
        xor_ns_per_byte: 0.040,
        mulacc_ns_per_byte: 0.043,
        scale: 1.0,
    };

    pub fn with_scale(self, scale: f64) -> CostModel {
        CostModel { scale, ..self }
    }

    /// Time for one LT symbol whose handling took `ops` whole-symbol XORs or copies.
    pub fn lt(&self, ops: u64, bytes: u32) -> Dur {
        self.time(ops, bytes, self.xor_ns_per_byte)
    }

    /// Time for one RLNC symbol whose handling took `ops` row operations.
    pub fn rlnc(&self, ops: u64, bytes: u32) -> Dur {
        self.time(ops, bytes, self.mulacc_ns_per_byte)
    }

    fn time(&self, ops: u64, bytes: u32, per_byte: f64) -> Dur {
        if self.scale == 0.0 {
            return Dur::ZERO;
        }
        let ns = self.scale * (self.symbol_ns + ops as f64 * f64::from(bytes) * per_byte);
        Dur(round(ns))
    }
}

/// `ns.round() as u64` for the non-negative `ns` of the model, without the libm call
/// that `f64::round` compiles to on baseline x86-64 (one per coded symbol): below 2^52
/// the fraction `ns - trunc(ns)` is exact, and halves round up as `round` does.
#[inline]
fn round(ns: f64) -> u64 {
    if !(0.0..4_503_599_627_370_496.0).contains(&ns) {
        return ns.round() as u64;
    }
    // Through i64: one truncating conversion instruction (u64's needs a range fix-up).
    let whole = ns as i64;
    (whole + i64::from(ns - whole as f64 >= 0.5)) as u64
}

/// `x.ceil()` without the libm call it compiles to on baseline x86-64 (TCP-Forward's
/// source takes one per symbol for its window quota): below 2^52 truncation is exact,
/// so one more than a truncated value below `x` is its ceiling.
#[inline]
pub(crate) fn ceil(x: f64) -> f64 {
    if !(0.0..4_503_599_627_370_496.0).contains(&x) {
        return x.ceil();
    }
    let whole = x as i64 as f64;
    if whole < x {
        whole + 1.0
    } else {
        whole
    }
}

/// A host's CPU: each piece of coding work starts when the previous one is done.
#[derive(Clone, Debug)]
pub struct Cpu {
    pub model: CostModel,
    busy_until: Time,
    busy: Dur,
}

impl Cpu {
    pub fn new(model: CostModel) -> Cpu {
        Cpu {
            model,
            busy_until: Time::ZERO,
            busy: Dur::ZERO,
        }
    }

    /// Queues `work` arriving at `now`; returns when it is done.
    pub fn run(&mut self, now: Time, work: Dur) -> Time {
        self.busy_until = self.busy_until.max(now) + work;
        self.busy += work;
        self.busy_until
    }

    /// When the work queued so far is done.
    pub fn free_at(&self) -> Time {
        self.busy_until
    }

    /// Total time spent coding.
    pub fn busy(&self) -> Dur {
        self.busy
    }
}

#[cfg(test)]
mod tests {
    use super::ceil as fast_ceil;

    #[test]
    fn ceil_matches_f64_ceil() {
        let mut xs = vec![
            0.0,
            0.5,
            1.0,
            1.0000001,
            16.0,
            19.2,
            1e15 + 0.5,
            4.6e15,
            1e300,
        ];
        xs.extend((0..5000).map(|i| f64::from(i) * 0.037));
        xs.extend((1..64).map(|n| f64::from(16u32) * (1.0 + f64::from(n) / 64.0)));
        for x in xs {
            assert_eq!(fast_ceil(x).to_bits(), x.ceil().to_bits(), "{x}");
        }
        assert!(fast_ceil(f64::NAN).is_nan());
        assert_eq!(fast_ceil(f64::INFINITY), f64::INFINITY);
    }

    use super::*;

    #[test]
    fn work_queues_in_arrival_order_and_scales() {
        let m = CostModel {
            symbol_ns: 100.0,
            xor_ns_per_byte: 0.5,
            mulacc_ns_per_byte: 1.0,
            scale: 2.0,
        };
        assert_eq!(m.lt(3, 10), Dur(2 * (100 + 15)));
        assert_eq!(m.rlnc(3, 10), Dur(2 * (100 + 30)));
        assert_eq!(m.with_scale(0.0).rlnc(1000, 1000), Dur::ZERO);
        let mut cpu = Cpu::new(m);
        assert_eq!(cpu.run(Time(1000), Dur(50)), Time(1050));
        assert_eq!(
            cpu.run(Time(1010), Dur(50)),
            Time(1100),
            "waits for the first"
        );
        assert_eq!(
            cpu.run(Time(5000), Dur(10)),
            Time(5010),
            "idle CPU starts at once"
        );
        assert_eq!(cpu.busy(), Dur(110));
    }

    #[test]
    fn rounding_matches_f64_round() {
        let mut x: u64 = 1;
        for v in [
            0.0,
            0.49999999999999994,
            0.5,
            1.5,
            2.5,
            1e15 + 0.5,
            4.6e15,
            1e30,
        ] {
            assert_eq!(round(v), v.round() as u64, "{v}");
        }
        for _ in 0..100_000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let v = (x >> 11) as f64 / (1u64 << 53) as f64 * 1e6;
            assert_eq!(round(v), v.round() as u64, "{v}");
            let h = (x >> 40) as f64 + 0.5;
            assert_eq!(round(h), h.round() as u64, "{h}");
        }
    }
}
