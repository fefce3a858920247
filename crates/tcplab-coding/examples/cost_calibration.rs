//! Calibrates the coded transports' CPU cost model (`tcplab-transport`'s `coded/cost.rs`)
//! on this library's decoders.
//!
//! The model charges a symbol `symbol_ns + ops · bytes · ns_per_byte`, where `ops` is the
//! decoder's own work counter (LT: whole-symbol XORs or copies, `LtDecoderStats::ops`;
//! RLNC: row multiply-accumulates, `RlncDecoderStats::row_ops`). This program decodes one
//! generation of k symbols of 1460 bytes for several k (the set-up of `benches/coding.rs`:
//! LT with Robust Soliton c = 0.1, δ = 0.5, fed until complete; RLNC fed k innovative
//! seeded symbols), times each decode (best of many batches, wall clock, one core), and
//! fits the two constants of each code by least squares on the *relative* error, so small
//! and large generations weigh alike. It prints the measurements, the fit and each
//! point's error.
//!
//! Run: `cargo run --release -p tcplab-coding --example cost_calibration`

use std::hint::black_box;
use std::time::{Duration, Instant};
use tcplab_coding::lt::{DegreeSpec, LtDecoder, LtEncoder, LtParams};
use tcplab_coding::rlnc::{RlncDecoder, RlncEncoder};
use tcplab_coding::rng::SplitMix64;

const T: usize = 1460;

/// One measured decode of a generation.
struct Point {
    k: usize,
    symbols: f64,
    ops: f64,
    /// Bytes one operation touches (LT: a symbol; RLNC: coefficients and payload).
    op_bytes: f64,
    ns: f64,
}

fn source(k: usize) -> Vec<u8> {
    let mut v = vec![0; k * T];
    SplitMix64::new(k as u64).fill_bytes(&mut v);
    v
}

/// Best time of `f` over short batches (about 0.2 ms, at least 200 of them, 0.5 s in
/// all): on a shared machine the shortest batch is the one nobody interrupted.
fn best_ns(mut f: impl FnMut()) -> f64 {
    let t0 = Instant::now();
    f();
    let once = t0.elapsed().max(Duration::from_nanos(100));
    let per_batch = ((200_000.0 / once.as_nanos() as f64).ceil() as u32).max(1);
    let mut best = f64::INFINITY;
    let start = Instant::now();
    let mut batches = 0;
    while batches < 200 || start.elapsed() < Duration::from_millis(500) {
        let t = Instant::now();
        for _ in 0..per_batch {
            f();
        }
        best = best.min(t.elapsed().as_nanos() as f64 / f64::from(per_batch));
        batches += 1;
    }
    best
}

fn lt_point(k: usize) -> Point {
    let data = source(k);
    let params = LtParams::single_generation(
        T,
        k as u32,
        DegreeSpec::RobustSoliton { c: 0.1, delta: 0.5 },
    )
    .expect("valid LT parameters");
    let mut enc = LtEncoder::new(params.clone(), &data).expect("encoder");
    let mut stream = Vec::new();
    let mut dec = LtDecoder::new(params.clone(), data.len() as u64).expect("decoder");
    let mut seed = 0;
    while !dec.is_complete() {
        let mut buf = Vec::new();
        enc.encode_into(0, seed, &mut buf).expect("encode");
        dec.receive(&buf).expect("decode");
        stream.push(buf);
        seed += 1;
    }
    assert_eq!(dec.data(), Some(&data[..]));
    let ops = dec.stats().ops as f64;
    let ns = best_ns(|| {
        let mut d = LtDecoder::new(params.clone(), data.len() as u64).expect("decoder");
        for s in &stream {
            d.receive(s).expect("decode");
        }
        black_box(d.data());
    });
    Point {
        k,
        symbols: stream.len() as f64,
        ops,
        op_bytes: T as f64,
        ns,
    }
}

fn rlnc_point(k: usize) -> Point {
    let data = source(k);
    let mut enc = RlncEncoder::new(T, k).expect("encoder");
    for p in data.chunks(T) {
        enc.push(p).expect("push");
    }
    let mut stream = Vec::new();
    let mut dec = RlncDecoder::new(T, k).expect("decoder");
    let mut seed = 0;
    while dec.rank() < k {
        let mut buf = Vec::new();
        enc.encode_into(seed, &mut buf).expect("encode");
        if dec.receive(&buf).expect("decode").newly_seen.is_some() {
            stream.push(buf);
        }
        seed += 1;
    }
    // Count the work of exactly the stream that is timed.
    let mut d = RlncDecoder::new(T, k).expect("decoder");
    for s in &stream {
        d.receive(s).expect("decode");
    }
    assert_eq!(d.first_undecoded(), k as u32);
    let ops = d.stats().row_ops as f64;
    let ns = best_ns(|| {
        let mut d = RlncDecoder::new(T, k).expect("decoder");
        for s in &stream {
            d.receive(s).expect("decode");
        }
        black_box(d.packet(0));
    });
    Point {
        k,
        symbols: stream.len() as f64,
        ops,
        // A row is the coefficient ring (k columns) plus the framed payload (T + 2); the
        // simulator charges the framed payload per operation, so the fit absorbs the
        // coefficients' share (k / (T + 2): at most 9 % for k = 128).
        op_bytes: (T + 2) as f64,
        ns,
    }
}

/// Least squares of `ns ≈ a·symbols + b_code·ops·op_bytes` over both codes (one
/// per-symbol constant, one per-byte constant per code, as `CostModel` has), on relative
/// error: returns (a, b_lt, b_rlnc).
fn fit(lt: &[Point], rlnc: &[Point]) -> [f64; 3] {
    let mut m = [[0.0f64; 4]; 3];
    let rows = lt
        .iter()
        .map(|p| [p.symbols / p.ns, p.ops * p.op_bytes / p.ns, 0.0])
        .chain(
            rlnc.iter()
                .map(|p| [p.symbols / p.ns, 0.0, p.ops * p.op_bytes / p.ns]),
        );
    for x in rows {
        for i in 0..3 {
            for j in 0..3 {
                m[i][j] += x[i] * x[j];
            }
            m[i][3] += x[i];
        }
    }
    // Gauss-Jordan on the 3x3 normal equations.
    for c in 0..3 {
        let piv = (c..3)
            .max_by(|&a, &b| m[a][c].abs().total_cmp(&m[b][c].abs()))
            .expect("rows");
        m.swap(c, piv);
        let pivot_row = m[c];
        for (r, row) in m.iter_mut().enumerate() {
            if r != c {
                let f = row[c] / pivot_row[c];
                for (x, p) in row.iter_mut().zip(pivot_row).skip(c) {
                    *x -= f * p;
                }
            }
        }
    }
    [m[0][3] / m[0][0], m[1][3] / m[1][1], m[2][3] / m[2][2]]
}

fn report(name: &str, points: &[Point], a: f64, b: f64, fitted: usize) {
    println!("\n{name}");
    println!("| k | symbols | ops | measured µs | model µs | error |");
    println!("|---|---|---|---|---|---|");
    for (i, p) in points.iter().enumerate() {
        let model = a * p.symbols + b * p.ops * p.op_bytes;
        println!(
            "| {}{} | {} | {} | {:.2} | {:.2} | {:+.0} % |",
            p.k,
            if i < fitted { "" } else { " (not fitted)" },
            p.symbols,
            p.ops,
            p.ns / 1e3,
            model / 1e3,
            100.0 * (model - p.ns) / p.ns
        );
    }
}

fn main() {
    // Windows up to 128 segments, the range of the reproduction; k = 256 is shown beside
    // the fit to say where it stops holding.
    let lt: Vec<Point> = [4, 8, 16, 32, 64, 128, 256].map(lt_point).into();
    let rlnc: Vec<Point> = [4, 8, 16, 32, 64, 128].map(rlnc_point).into();
    let [a, b_lt, b_rlnc] = fit(&lt[..6], &rlnc);
    println!(
        "fit: symbol_ns = {a:.1}, xor_ns_per_byte = {b_lt:.4}, \
         mulacc_ns_per_byte = {b_rlnc:.4}"
    );
    report("LT decode (XOR)", &lt, a, b_lt, 6);
    report(
        "RLNC decode (GF(2^8) multiply-accumulate)",
        &rlnc,
        a,
        b_rlnc,
        6,
    );
}
