//! Golden results: per-column digests of a fixed set of scenarios, pinned in
//! `golden/digests.txt`. A refactor must not change any pinned column; a deliberate
//! change of results is re-pinned with `TCPLAB_GOLDEN=update` and explained in its commit.
//! Columns that are not pinned yet (new ones) are listed but do not fail the test.

use std::collections::BTreeMap;
use tcplab_sim::{parse_scenario_file, simulate};

mod canon {
    /// FNV-1a over a canonical encoding of logical values: integers of any width hash
    /// alike, floats by their bits, strings by their bytes, nulls by a tag.
    pub struct H(pub u64);
    impl H {
        pub fn new() -> H {
            H(0xcbf2_9ce4_8422_2325)
        }
        pub fn bytes(&mut self, b: &[u8]) {
            for &x in b {
                self.0 ^= x as u64;
                self.0 = self.0.wrapping_mul(0x0000_0100_0000_01B3);
            }
        }
        pub fn null(&mut self) {
            self.bytes(&[0]);
        }
        pub fn int(&mut self, v: u64) {
            self.bytes(&[1]);
            self.bytes(&v.to_le_bytes());
        }
        pub fn float(&mut self, v: f64) {
            self.bytes(&[2]);
            self.bytes(&v.to_bits().to_le_bytes());
        }
        pub fn boolean(&mut self, v: bool) {
            self.bytes(&[3, v as u8]);
        }
        pub fn text(&mut self, v: &str) {
            self.bytes(&[4]);
            self.bytes(&(v.len() as u64).to_le_bytes());
            self.bytes(v.as_bytes());
        }
    }
}

/// (table, column) -> digest of one run.
type Digests = BTreeMap<(String, String), u64>;

fn column_digests(r: &tcplab_sim::Results) -> Digests {
    use canon::H;
    let mut out = Digests::new();
    let mut put = |t: &str, c: &str, h: H| {
        out.insert((t.to_string(), c.to_string()), h.0);
    };
    macro_rules! col {
        ($t:literal, $tab:expr, $name:ident, $enc:ident) => {{
            let mut h = H::new();
            for v in &$tab.$name {
                col!(@one h, v, $enc);
            }
            put($t, stringify!($name), h);
        }};
        (@one $h:ident, $v:ident, int) => { $h.int(*$v as u64) };
        (@one $h:ident, $v:ident, float) => { $h.float(*$v) };
        (@one $h:ident, $v:ident, boolean) => { $h.boolean(*$v) };
        (@one $h:ident, $v:ident, text) => { $h.text($v) };
        (@one $h:ident, $v:ident, oint) => { match $v { Some(x) => $h.int(*x as u64), None => $h.null() } };
        (@one $h:ident, $v:ident, ofloat) => { match $v { Some(x) => $h.float(*x), None => $h.null() } };
    }
    let f = &r.flows;
    col!("flows", f, flow, int);
    col!("flows", f, name, text);
    col!("flows", f, cc, text);
    col!("flows", f, recovery, text);
    col!("flows", f, bytes_target, oint);
    col!("flows", f, bytes_delivered, int);
    col!("flows", f, start_s, float);
    col!("flows", f, completion_s, ofloat);
    col!("flows", f, completed, boolean);
    col!("flows", f, goodput_bps, float);
    col!("flows", f, segments_sent, int);
    col!("flows", f, retransmitted_segments, int);
    col!("flows", f, retransmission_ratio, float);
    col!("flows", f, rtos, int);
    col!("flows", f, fast_retransmits, int);
    col!("flows", f, tlp_probes, int);
    col!("flows", f, rack_lost, int);
    col!("flows", f, rtt_min_s, ofloat);
    col!("flows", f, rtt_mean_s, ofloat);
    col!("flows", f, rtt_max_s, ofloat);
    col!("flows", f, acks_sent, int);
    let l = &r.links;
    col!("links", l, link, text);
    col!("links", l, direction, text);
    col!("links", l, offered_pkts, int);
    col!("links", l, sent_pkts, int);
    col!("links", l, sent_bytes, int);
    col!("links", l, delivered_pkts, int);
    col!("links", l, dropped_queue, int);
    col!("links", l, dropped_loss, int);
    col!("links", l, dropped_down, int);
    col!("links", l, max_queue_pkts, int);
    let s = &r.flow_series;
    col!("flow_series", s, t_s, float);
    col!("flow_series", s, flow, int);
    col!("flow_series", s, cwnd, int);
    col!("flow_series", s, ssthresh, oint);
    col!("flow_series", s, srtt_s, ofloat);
    col!("flow_series", s, rtt_s, ofloat);
    col!("flow_series", s, rto_s, float);
    col!("flow_series", s, in_flight, int);
    col!("flow_series", s, delivered, int);
    col!("flow_series", s, pacing_rate_bps, ofloat);
    col!("flow_series", s, state, text);
    let s = &r.link_series;
    col!("link_series", s, t_s, float);
    let mut h = H::new();
    for &i in &s.link {
        h.text(&r.link_names[i as usize]);
    }
    put("link_series", "link", h);
    col!("link_series", s, direction, text);
    col!("link_series", s, queue_pkts, int);
    col!("link_series", s, queue_bytes, int);
    col!("link_series", s, delivered_bytes, int);
    col!("link_series", s, dropped_queue, int);
    col!("link_series", s, dropped_loss, int);
    col!("link_series", s, dropped_down, int);
    let s = &r.cc_trace;
    col!("cc_trace", s, t_s, float);
    col!("cc_trace", s, flow, int);
    col!("cc_trace", s, key, text);
    col!("cc_trace", s, value, float);
    out
}

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

/// Scenario files (relative to the repository root) and the seeds each is run with.
const CASES: &[(&str, &[u64])] = &[
    ("examples/newreno-lossy.toml", &[1, 2]),
    ("examples/dumbbell-bbr-vs-cubic.toml", &[1]),
    ("examples/handover-wave.toml", &[1]),
    ("examples/trace-stepped.toml", &[1]),
    ("python/tcplab/data/b1.toml", &[1]),
    ("python/tcplab/data/b2.toml", &[1]),
    ("crates/tcplab-sim/tests/golden/p2p-variants.toml", &[1, 7]),
    ("crates/tcplab-sim/tests/golden/bbr-rack.toml", &[2]),
    ("crates/tcplab-sim/tests/golden/dumbbell-mixed.toml", &[3]),
    ("crates/tcplab-sim/tests/golden/jitter-reorder.toml", &[4]),
];

fn pinned_path() -> String {
    format!("{ROOT}/crates/tcplab-sim/tests/golden/digests.txt")
}

#[test]
fn golden_results_unchanged() {
    let mut now: BTreeMap<(String, u64, String, String), u64> = BTreeMap::new();
    for (file, seeds) in CASES {
        let sc = parse_scenario_file(&format!("{ROOT}/{file}")).unwrap_or_else(|e| panic!("{e}"));
        for &seed in *seeds {
            let r = simulate(&sc, seed, 0).unwrap_or_else(|e| panic!("{file}: {e}"));
            for ((t, c), d) in column_digests(&r) {
                now.insert((file.to_string(), seed, t, c), d);
            }
        }
    }
    let render = |m: &BTreeMap<(String, u64, String, String), u64>| {
        m.iter()
            .map(|((f, s, t, c), d)| format!("{f} {s} {t} {c} {d:016x}\n"))
            .collect::<String>()
    };
    if std::env::var("TCPLAB_GOLDEN").as_deref() == Ok("update") {
        std::fs::write(pinned_path(), render(&now)).unwrap();
        return;
    }
    let text = std::fs::read_to_string(pinned_path()).expect("golden/digests.txt exists");
    let mut changed = Vec::new();
    let mut missing = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let p: Vec<&str> = line.split_whitespace().collect();
        let key = (
            p[0].to_string(),
            p[1].parse().unwrap(),
            p[2].to_string(),
            p[3].to_string(),
        );
        match now.get(&key) {
            None => missing.push(line.to_string()),
            Some(d) if format!("{d:016x}") != p[4] => changed.push(line.to_string()),
            Some(_) => {}
        }
    }
    let pinned: std::collections::BTreeSet<_> = text
        .lines()
        .map(|l| l.split_whitespace().take(4).collect::<Vec<_>>().join(" "))
        .collect();
    let new: Vec<String> = now
        .keys()
        .map(|(f, s, t, c)| format!("{f} {s} {t} {c}"))
        .filter(|k| !pinned.contains(k))
        .collect();
    if !new.is_empty() {
        eprintln!(
            "columns not pinned yet (run with TCPLAB_GOLDEN=update to pin):\n{}",
            new.join("\n")
        );
    }
    assert!(
        changed.is_empty() && missing.is_empty(),
        "golden results changed:\n{}\nmissing:\n{}",
        changed.join("\n"),
        missing.join("\n")
    );
}
