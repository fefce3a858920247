//! Strict TOML scenario parsing: units, ranges, unknown keys, all with clear errors.

use crate::error::ConfigError;
use crate::scenario::{FlowSpec, LinkSpec, Sampling, Scenario};
use std::cell::RefCell;
use tcplab_core::units;
use tcplab_core::Dur;
use tcplab_link::{LinkParams, LossModel, QueueLimit};
use tcplab_transport::cc::{self, CcParams};
use tcplab_transport::{
    AckPolicy, LossDetection, PartialAckTimer, ReceiverConfig, RecoveryMode, SenderConfig,
    DATA_HEADER_BYTES,
};
use toml::{Table, Value};

type R<T> = Result<T, ConfigError>;

mod jitter;
mod timevar;

/// Largest MTU accepted (jumbo frames).
const MAX_MTU: u32 = 9000;

/// A table being read: remembers which keys were used so leftovers are reported.
struct Section<'a> {
    file: &'a str,
    path: String,
    table: &'a Table,
    used: RefCell<Vec<String>>,
}

fn show(v: &Value) -> String {
    match v {
        Value::String(s) => format!("\"{s}\""),
        other => other.to_string(),
    }
}

impl<'a> Section<'a> {
    fn new(file: &'a str, path: String, table: &'a Table) -> Self {
        Section {
            file,
            path,
            table,
            used: RefCell::new(Vec::new()),
        }
    }

    fn key(&self, k: &str) -> String {
        if self.path.is_empty() {
            k.to_string()
        } else {
            format!("{}.{k}", self.path)
        }
    }

    fn err(&self, k: &str, v: Option<&Value>, why: impl Into<String>) -> ConfigError {
        ConfigError {
            file: self.file.to_string(),
            key: self.key(k),
            value: v.map(show).unwrap_or_default(),
            why: why.into(),
        }
    }

    fn get(&self, k: &str) -> Option<&'a Value> {
        self.used.borrow_mut().push(k.to_string());
        self.table.get(k)
    }

    /// A string-with-units value converted by `f`.
    fn unit<T>(&self, k: &str, f: impl Fn(&str) -> Result<T, String>) -> R<Option<T>> {
        match self.get(k) {
            None => Ok(None),
            Some(v @ Value::String(s)) => f(s).map(Some).map_err(|why| self.err(k, Some(v), why)),
            Some(v @ (Value::Integer(_) | Value::Float(_))) => f(&v.to_string())
                .map(Some)
                .map_err(|why| self.err(k, Some(v), why)),
            Some(v) => Err(self.err(k, Some(v), "expected a string with a unit, e.g. \"10ms\"")),
        }
    }

    fn duration(&self, k: &str) -> R<Option<Dur>> {
        self.unit(k, units::parse_duration)
    }

    fn rate(&self, k: &str) -> R<Option<u64>> {
        self.unit(k, units::parse_rate)
    }

    fn bytes(&self, k: &str) -> R<Option<u64>> {
        self.unit(k, units::parse_bytes)
    }

    fn probability(&self, k: &str) -> R<Option<f64>> {
        match self.get(k) {
            None => Ok(None),
            Some(v @ Value::String(s)) => units::parse_probability(s)
                .map(Some)
                .map_err(|why| self.err(k, Some(v), why)),
            Some(v @ Value::Float(f)) => units::check_probability(*f)
                .map(Some)
                .map_err(|why| self.err(k, Some(v), why)),
            Some(v @ Value::Integer(i)) => units::check_probability(*i as f64)
                .map(Some)
                .map_err(|why| self.err(k, Some(v), why)),
            Some(v) => Err(self.err(
                k,
                Some(v),
                "expected a probability such as \"0.5%\" or 0.005",
            )),
        }
    }

    fn string(&self, k: &str) -> R<Option<&'a str>> {
        match self.get(k) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(v) => Err(self.err(k, Some(v), "expected a string")),
        }
    }

    fn boolean(&self, k: &str) -> R<Option<bool>> {
        match self.get(k) {
            None => Ok(None),
            Some(Value::Boolean(b)) => Ok(Some(*b)),
            Some(v) => Err(self.err(k, Some(v), "expected true or false")),
        }
    }

    fn uint(&self, k: &str, min: u64, max: u64) -> R<Option<u64>> {
        match self.get(k) {
            None => Ok(None),
            Some(v @ Value::Integer(i)) => {
                if *i < min as i64 || (*i as u64) > max {
                    Err(self.err(k, Some(v), format!("must be between {min} and {max}")))
                } else {
                    Ok(Some(*i as u64))
                }
            }
            Some(v) => Err(self.err(k, Some(v), "expected a whole number")),
        }
    }

    fn table(&self, k: &str) -> R<Option<Section<'a>>> {
        match self.get(k) {
            None => Ok(None),
            Some(Value::Table(t)) => Ok(Some(Section::new(self.file, self.key(k), t))),
            Some(v) => Err(self.err(k, Some(v), "expected a table")),
        }
    }

    fn tables(&self, k: &str) -> R<Vec<Section<'a>>> {
        match self.get(k) {
            None => Ok(vec![]),
            Some(Value::Array(a)) => a
                .iter()
                .enumerate()
                .map(|(i, v)| match v {
                    Value::Table(t) => {
                        Ok(Section::new(self.file, format!("{}[{i}]", self.key(k)), t))
                    }
                    v => Err(self.err(k, Some(v), "expected an array of tables ([[...]])")),
                })
                .collect(),
            Some(Value::Table(t)) => Ok(vec![Section::new(self.file, self.key(k), t)]),
            Some(v) => Err(self.err(k, Some(v), "expected an array of tables ([[...]])")),
        }
    }

    /// Rejects keys nobody asked for, listing the ones that are understood here.
    fn finish(&self) -> R<()> {
        let used = self.used.borrow();
        for (k, v) in self.table {
            if !used.iter().any(|u| u == k) {
                let mut known: Vec<&str> = used.iter().map(|s| s.as_str()).collect();
                known.sort_unstable();
                known.dedup();
                return Err(self.err(
                    k,
                    Some(v),
                    format!("unknown key (known here: {})", known.join(", ")),
                ));
            }
        }
        Ok(())
    }
}

/// Parses a scenario file.
pub fn parse_scenario_file(path: &str) -> R<Scenario> {
    let text = std::fs::read_to_string(path).map_err(|e| ConfigError {
        file: path.to_string(),
        key: String::new(),
        value: String::new(),
        why: format!("cannot read the file: {e}"),
    })?;
    parse_scenario_str(&text, path)
}

/// Parses scenario TOML text; `source` names it in error messages.
pub fn parse_scenario_str(text: &str, source: &str) -> R<Scenario> {
    let table: Table = text.parse().map_err(|e: toml::de::Error| ConfigError {
        file: source.to_string(),
        key: String::new(),
        value: String::new(),
        why: format!("TOML syntax error: {}", e.to_string().trim()),
    })?;
    parse_scenario_table(&table, source)
}

/// Parses an already-decoded TOML table (e.g. built from a Python dict).
pub fn parse_scenario_table(t: &Table, source: &str) -> R<Scenario> {
    let root = Section::new(source, String::new(), t);
    let name = root.string("name")?.map(str::to_string).unwrap_or_else(|| {
        std::path::Path::new(source)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "scenario".into())
    });
    let duration = root.duration("duration")?;
    if duration == Some(Dur::ZERO) {
        return Err(root.err("duration", root.table.get("duration"), "must be > 0"));
    }
    let max_time = root.duration("max_time")?.unwrap_or(Dur::from_secs(3600));
    let sampling = match root.get("sample") {
        None => Sampling::Interval(Dur::from_millis(10)),
        Some(Value::String(s)) if s == "ack" => Sampling::PerAck,
        Some(Value::String(s)) if s == "off" => Sampling::Off,
        Some(v @ Value::String(s)) => {
            let d = units::parse_duration(s).map_err(|why| {
                root.err(
                    "sample",
                    Some(v),
                    format!("{why}; or use \"ack\" or \"off\""),
                )
            })?;
            if d == Dur::ZERO {
                return Err(root.err("sample", Some(v), "the sampling interval must be > 0"));
            }
            Sampling::Interval(d)
        }
        Some(v) => {
            return Err(root.err(
                "sample",
                Some(v),
                "expected an interval like \"10ms\", \"ack\" or \"off\"",
            ))
        }
    };

    let topo = root.table("topology")?;
    let kind = match &topo {
        Some(s) => {
            let k = s.string("kind")?.unwrap_or("point-to-point");
            s.finish()?;
            k
        }
        None => "point-to-point",
    };
    let flow_secs = root.tables("flow")?;
    if flow_secs.is_empty() {
        return Err(root.err("flow", None, "at least one [[flow]] is required"));
    }
    let mut links = Vec::new();
    let mut flows = Vec::new();
    match kind {
        "point-to-point" => {
            let Some(l) = root.table("link")? else {
                return Err(root.err(
                    "link",
                    None,
                    "a point-to-point topology needs a [link] table",
                ));
            };
            links.push(parse_link(&l, "link")?);
            for f in &flow_secs {
                for spec in parse_flow(f, flows.len(), &[])? {
                    let mut spec = spec;
                    spec.path = vec![0];
                    flows.push(spec);
                }
            }
        }
        "dumbbell" => {
            let Some(b) = root.table("bottleneck")? else {
                return Err(root.err(
                    "bottleneck",
                    None,
                    "a dumbbell topology needs a [bottleneck] table",
                ));
            };
            links.push(parse_link(&b, "bottleneck")?);
            let access = root.table("access")?;
            for f in &flow_secs {
                let overrides = parse_access_overrides(f)?;
                for mut spec in parse_flow(f, flows.len(), &["access_delay", "access_rate"])? {
                    let i = flows.len();
                    let mut src = match &access {
                        Some(a) => parse_link(a, &format!("access{i}.src"))?,
                        None => default_access(format!("access{i}.src")),
                    };
                    let mut dst = match &access {
                        Some(a) => parse_link(a, &format!("access{i}.dst"))?,
                        None => default_access(format!("access{i}.dst")),
                    };
                    if let Some(d) = overrides.0 {
                        src.fwd.delay = d;
                        src.rev.delay = d;
                    }
                    if let Some(r) = overrides.1 {
                        for l in [&mut src, &mut dst] {
                            l.fwd.rate_bps = r;
                            l.rev.rate_bps = r;
                        }
                    }
                    links.push(src);
                    links.push(dst);
                    spec.path = vec![links.len() - 2, 0, links.len() - 1];
                    flows.push(spec);
                }
            }
            if let Some(a) = access {
                a.finish()?;
            }
        }
        other => {
            let t = topo.as_ref().expect("kind came from [topology]");
            return Err(t.err(
                "kind",
                Some(&Value::String(other.to_string())),
                "unknown topology (use \"point-to-point\" or \"dumbbell\")",
            ));
        }
    }
    for f in &flow_secs {
        f.finish()?;
    }
    root.finish()?;
    let has_unlimited = flows
        .iter()
        .any(|f| f.sender.total_bytes.is_none() && f.stop.is_none());
    if has_unlimited && duration.is_none() {
        return Err(root.err(
            "duration",
            None,
            "required when a flow has no byte count and no stop time (bytes = \"unlimited\")",
        ));
    }
    Ok(Scenario {
        name,
        source: source.to_string(),
        duration,
        max_time,
        sampling,
        links,
        flows,
    })
}

fn default_access(name: String) -> LinkSpec {
    let p = LinkParams::new(10_000_000_000, Dur::ZERO);
    LinkSpec {
        name,
        fwd: p.clone(),
        rev: p,
        schedule: vec![],
    }
}

fn parse_access_overrides(f: &Section<'_>) -> R<(Option<Dur>, Option<u64>)> {
    let d = f.duration("access_delay")?;
    let r = f.rate("access_rate")?;
    if r == Some(0) {
        return Err(f.err(
            "access_rate",
            f.table.get("access_rate"),
            "a link rate must be > 0",
        ));
    }
    Ok((d, r))
}

fn parse_queue(s: &Section<'_>, k: &str) -> R<Option<QueueLimit>> {
    let Some(v) = s.get(k) else { return Ok(None) };
    match v {
        Value::String(t) if t == "unlimited" => Ok(Some(QueueLimit::Unlimited)),
        Value::String(t) => {
            let t2 = t.trim();
            if let Some(n) = t2
                .strip_suffix("pkt")
                .or_else(|| t2.strip_suffix("packets"))
            {
                let n: u32 = n.trim().parse().map_err(|_| {
                    s.err(
                        k,
                        Some(v),
                        "expected a whole number of packets, e.g. \"100pkt\"",
                    )
                })?;
                Ok(Some(QueueLimit::Packets(n)))
            } else {
                let b = units::parse_bytes(t2).map_err(|why| {
                    s.err(
                        k,
                        Some(v),
                        format!("{why}; or give packets, e.g. \"100pkt\""),
                    )
                })?;
                Ok(Some(QueueLimit::Bytes(b)))
            }
        }
        Value::Integer(n) if *n >= 0 && *n <= u32::MAX as i64 => {
            Ok(Some(QueueLimit::Packets(*n as u32)))
        }
        v => Err(s.err(
            k,
            Some(v),
            "expected \"100pkt\", a size like \"150KB\", or \"unlimited\"",
        )),
    }
}

fn parse_loss(s: &Section<'_>, k: &str) -> R<Option<LossModel>> {
    let Some(v) = s.table.get(k) else {
        s.get(k);
        return Ok(None);
    };
    match v {
        Value::String(_) | Value::Float(_) | Value::Integer(_) => {
            let p = s.probability(k)?.expect("present");
            Ok(Some(if p == 0.0 {
                LossModel::None
            } else {
                LossModel::Bernoulli { p }
            }))
        }
        Value::Table(_) => {
            let t = s.table(k)?.expect("present");
            let model = t.string("model")?.unwrap_or("bernoulli");
            let m = match model {
                "none" => LossModel::None,
                "bernoulli" => LossModel::Bernoulli {
                    p: t.probability("rate")?
                        .ok_or_else(|| t.err("rate", None, "the Bernoulli model needs a rate"))?,
                },
                "gilbert-elliott" => {
                    let p_gb = t.probability("p_good_bad")?.ok_or_else(|| {
                        t.err(
                            "p_good_bad",
                            None,
                            "required: probability per packet of moving to the bad state",
                        )
                    })?;
                    let p_bg = t.probability("p_bad_good")?.ok_or_else(|| {
                        t.err(
                            "p_bad_good",
                            None,
                            "required: probability per packet of returning to the good state",
                        )
                    })?;
                    LossModel::GilbertElliott {
                        p_gb,
                        p_bg,
                        loss_good: t.probability("loss_good")?.unwrap_or(0.0),
                        loss_bad: t.probability("loss_bad")?.unwrap_or(1.0),
                    }
                }
                "list" => {
                    let Some(arr) = t.get("drop") else {
                        return Err(t.err(
                            "drop",
                            None,
                            "the list model needs drop = [n, ...] (packet numbers from 1)",
                        ));
                    };
                    let Value::Array(a) = arr else {
                        return Err(t.err(
                            "drop",
                            Some(arr),
                            "expected an array of packet numbers",
                        ));
                    };
                    let mut drop = Vec::with_capacity(a.len());
                    for x in a {
                        match x {
                            Value::Integer(n) if *n >= 1 => drop.push(*n as u64),
                            _ => {
                                return Err(t.err(
                                    "drop",
                                    Some(x),
                                    "packet numbers are whole numbers >= 1",
                                ))
                            }
                        }
                    }
                    LossModel::List { drop }
                }
                other => {
                    return Err(t.err(
                        "model",
                        Some(&Value::String(other.into())),
                        "unknown loss model (use none, bernoulli, gilbert-elliott, list)",
                    ))
                }
            };
            t.finish()?;
            Ok(Some(m))
        }
        v => Err(s.err(
            k,
            Some(v),
            "expected a probability like \"0.5%\" or a table with model = ...",
        )),
    }
}

/// Reads the keys of one link table into forward/reverse parameters, starting from `base`.
fn link_params(
    s: &Section<'_>,
    base: Option<(&LinkParams, &LinkParams)>,
) -> R<(LinkParams, LinkParams)> {
    let (mut fwd, mut rev) = match base {
        Some((f, r)) => (f.clone(), r.clone()),
        None => {
            // With a trace the rate is unused (1 bit/s keeps LinkParams valid).
            let rate = match s.rate("rate")? {
                Some(r) => r,
                None if s.table.contains_key("trace") => 1,
                None => {
                    return Err(s.err(
                        "rate",
                        None,
                        "required, e.g. rate = \"100Mbps\" (or trace = \"file.mahi\")",
                    ))
                }
            };
            let p = LinkParams::new(rate, Dur::ZERO).with_queue(QueueLimit::Packets(100));
            (p.clone(), p)
        }
    };
    if base.is_some() {
        if let Some(r) = s.rate("rate")? {
            fwd.rate_bps = r;
            rev.rate_bps = r;
            fwd.trace = None;
            rev.trace = None;
        }
    }
    timevar::capacity_keys(s, &mut fwd, &mut rev)?;
    jitter::jitter_keys(s, &mut fwd, &mut rev)?;
    if fwd.rate_bps == 0 {
        return Err(s.err("rate", s.table.get("rate"), "a link rate must be > 0"));
    }
    if let Some(r) = s.rate("reverse_rate")? {
        if r == 0 {
            return Err(s.err(
                "reverse_rate",
                s.table.get("reverse_rate"),
                "a link rate must be > 0",
            ));
        }
        rev.rate_bps = r;
    }
    if let Some(d) = s.duration("delay")? {
        fwd.delay = d;
        rev.delay = d;
    }
    if let Some(q) = parse_queue(s, "queue")? {
        fwd.queue = q;
        rev.queue = q;
    }
    if let Some(l) = parse_loss(s, "loss")? {
        fwd.loss = l;
    }
    if let Some(l) = parse_loss(s, "ack_loss")? {
        rev.loss = l;
    }
    if let Some(up) = s.boolean("up")? {
        fwd.up = up;
        rev.up = up;
    }
    Ok((fwd, rev))
}

fn parse_link(s: &Section<'_>, name: &str) -> R<LinkSpec> {
    let (fwd, rev) = link_params(s, None)?;
    let schedule = timevar::changes(s, &fwd, &rev)?;
    s.finish()?;
    Ok(LinkSpec {
        name: name.to_string(),
        fwd,
        rev,
        schedule,
    })
}

/// Parses one [[flow]] table into `count` flows (ids from `first`).
fn parse_flow(f: &Section<'_>, first: usize, extra_keys: &[&str]) -> R<Vec<FlowSpec>> {
    for k in extra_keys {
        // Keys handled by the topology; mark them used here too.
        f.used.borrow_mut().push(k.to_string());
    }
    let cc_name = f.string("cc")?.unwrap_or("newreno").to_string();
    let mut cc_params = CcParams::new();
    if let Some(p) = f.table("cc_params")? {
        for (k, v) in p.table {
            let x = match v {
                Value::Integer(i) => *i as f64,
                Value::Float(x) => *x,
                Value::Boolean(b) => f64::from(u8::from(*b)),
                v => return Err(p.err(k, Some(v), "controller parameters are numbers")),
            };
            cc_params.set(k, x);
        }
    }
    // Validate the controller and its parameters now, so the error names this file.
    cc::build(&cc_name, &cc_params).map_err(|why| {
        let key = if why.contains("parameter") {
            "cc_params"
        } else {
            "cc"
        };
        f.err(key, if key == "cc" { f.table.get("cc") } else { None }, why)
    })?;

    let mut s = SenderConfig::default();
    // `cc = "reno"` means RFC 5681 recovery and `"newreno"` RFC 6582, unless `recovery`
    // says otherwise (see docs/scenarios.md).
    if let Some(m) = cc::default_recovery(&cc_name) {
        s.recovery = m;
    }
    let mut r = ReceiverConfig::default();
    let mtu = f.uint("mtu", 68, MAX_MTU as u64)?.unwrap_or(1500) as u32;
    if let Some(m) = f.uint("mss", 1, u32::MAX as u64)? {
        s.mss = m as u32;
    } else {
        s.mss = mtu - DATA_HEADER_BYTES;
    }
    if s.mss + DATA_HEADER_BYTES > mtu {
        return Err(f.err(
            "mss",
            f.table.get("mss"),
            format!("MSS plus {DATA_HEADER_BYTES} bytes of headers exceeds the MTU of {mtu} bytes"),
        ));
    }
    r.mss = s.mss;
    match f.get("bytes") {
        None => {
            return Err(f.err(
                "bytes",
                None,
                "required: a size like \"10MiB\" or \"unlimited\"",
            ));
        }
        Some(Value::String(v)) if v == "unlimited" => s.total_bytes = None,
        Some(_) => {
            let b = f.bytes("bytes")?.expect("present");
            if b == 0 {
                return Err(f.err("bytes", f.table.get("bytes"), "must be > 0"));
            }
            s.total_bytes = Some(b);
        }
    }
    r.total_bytes = s.total_bytes;
    if let Some(v) = f.uint("initial_cwnd", 1, 1 << 20)? {
        s.initial_cwnd = v as u32;
    }
    if let Some(v) = f.uint("dupthresh", 1, 1000)? {
        s.dupthresh = v as u32;
    }
    if let Some(m) = f.string("recovery")? {
        s.recovery = RecoveryMode::parse(m).ok_or_else(|| {
            f.err(
                "recovery",
                f.table.get("recovery"),
                "use \"reno\", \"newreno\" or \"sack\"",
            )
        })?;
    }
    if let Some(d) = f.duration("min_rto")? {
        s.min_rto = d;
    }
    if let Some(d) = f.duration("initial_rto")? {
        if d == Dur::ZERO {
            return Err(f.err("initial_rto", f.table.get("initial_rto"), "must be > 0"));
        }
        s.initial_rto = d;
    }
    if let Some(d) = f.duration("max_rto")? {
        s.max_rto = d;
    }
    if s.max_rto < s.min_rto {
        return Err(f.err("max_rto", f.table.get("max_rto"), "must be >= min_rto"));
    }
    let ack = f.string("ack")?.unwrap_or("delayed");
    let every = f.uint("ack_every", 1, 1 << 16)?;
    let delay = f.duration("ack_delay")?;
    r.ack_policy = match ack {
        "delayed" => AckPolicy::Delayed {
            every: every.unwrap_or(2) as u32,
            max_delay: delay.unwrap_or(Dur::from_millis(200)),
        },
        "per-packet" => AckPolicy::PerPacket,
        other => {
            return Err(f.err(
                "ack",
                Some(&Value::String(other.into())),
                "use \"delayed\" (with ack_every, ack_delay) or \"per-packet\"",
            ))
        }
    };
    if let Some(b) = f.boolean("sack")? {
        r.sack = b;
    }
    if let Some(t) = f.string("partial_ack_timer")? {
        s.partial_ack_timer = PartialAckTimer::parse(t).ok_or_else(|| {
            f.err(
                "partial_ack_timer",
                f.table.get("partial_ack_timer"),
                "use \"impatient\" or \"slow-but-steady\" (RFC 6582 section 4)",
            )
        })?;
    }
    if let Some(d) = f.string("loss_detection")? {
        s.loss_detection = LossDetection::parse(d).ok_or_else(|| {
            f.err(
                "loss_detection",
                f.table.get("loss_detection"),
                "use \"dupack\" (RFC 6675 IsLost) or \"rack\" (RFC 8985 RACK-TLP)",
            )
        })?;
    }
    if s.loss_detection == LossDetection::Rack && (s.recovery != RecoveryMode::Sack || !r.sack) {
        return Err(f.err(
            "loss_detection",
            f.table.get("loss_detection"),
            "\"rack\" needs SACK recovery: recovery = \"sack\" and sack = true",
        ));
    }
    if s.recovery == RecoveryMode::Sack && !r.sack && !f.table.contains_key("recovery") {
        // The controller's default (BBR: SACK) needs SACK blocks; without them it falls
        // back to RFC 6582 rather than rejecting a key the user never wrote.
        s.recovery = RecoveryMode::NewReno;
    }
    if s.recovery == RecoveryMode::Sack && !r.sack {
        return Err(f.err(
            "recovery",
            f.table.get("recovery"),
            "\"sack\" recovery needs sack = true at the receiver",
        ));
    }
    if let Some(b) = f.bytes("rcv_buf")? {
        if b < s.mss as u64 {
            return Err(f.err(
                "rcv_buf",
                f.table.get("rcv_buf"),
                "must hold at least one MSS",
            ));
        }
        r.rcv_buf = b;
    }
    let start = f.duration("start")?.unwrap_or(Dur::ZERO);
    let stop = f.duration("stop")?;
    if stop.is_some_and(|st| st <= start) {
        return Err(f.err("stop", f.table.get("stop"), "must be after start"));
    }
    let count = f.uint("count", 1, 100_000)?.unwrap_or(1) as usize;
    let base_name = f.string("name")?;
    Ok((0..count)
        .map(|i| FlowSpec {
            name: match (base_name, count) {
                (Some(n), 1) => n.to_string(),
                (Some(n), _) => format!("{n}{i}"),
                (None, _) => format!("flow{}", first + i),
            },
            cc: cc_name.clone(),
            cc_params: cc_params.clone(),
            sender: s.clone(),
            receiver: r.clone(),
            start,
            stop,
            path: vec![],
        })
        .collect())
}
