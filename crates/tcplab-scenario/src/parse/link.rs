//! Link tables: rate, delay, queue, loss models, and the forward/reverse parameters.

use super::jitter;
use super::qdisc;
use super::section::DEFAULT_PACKET;
use super::trace;
use super::{Section, R};
use tcplab_core::units;
use tcplab_core::Dur;
use tcplab_link::{LinkParams, LossModel, QueueLimit};
use tcplab_transport::{transport, TransportSpec};
use toml::{Table, Value};

/// The largest packet a flow of the scenario sends, from the flow tables as written: each
/// transport says from which keys (`Transport::largest_packet`: a TCP-family flow's `mtu`,
/// default 1500; a datagram flow's `packet_size` plus its IP/UDP headers). Values the flow
/// parser will refuse count as the default here.
pub(super) fn largest_packet(root: &Table) -> u64 {
    let Some(Value::Array(flows)) = root.get("flow") else {
        return DEFAULT_PACKET;
    };
    flows
        .iter()
        .filter_map(Value::as_table)
        .map(|t| {
            let name = t.get("transport").and_then(Value::as_str);
            TransportSpec::largest_packet(name.unwrap_or(transport::DEFAULT), t)
        })
        .max()
        .unwrap_or(DEFAULT_PACKET)
}

/// `queue`: `"100pkt"` (or a bare whole number: packets), a size such as `"150KB"` that
/// holds at least the scenario's largest packet, or `"unlimited"`. A string without a
/// unit is refused: `queue = "100"` once meant 100 bytes while `queue = 100` is packets.
pub(super) fn parse_queue(s: &Section<'_>, k: &str) -> R<Option<QueueLimit>> {
    let Some(v) = s.get(k) else { return Ok(None) };
    match v {
        Value::String(t) if t == "unlimited" => Ok(Some(QueueLimit::Unlimited)),
        Value::String(t) => {
            let t2 = t.trim();
            if t2.replace('_', "").parse::<f64>().is_ok() {
                return Err(s.err(
                    k,
                    Some(v),
                    format!(
                        "a queue needs a unit: \"{t2}pkt\" for packets or \"{t2}B\" for \
                         bytes (an unquoted {t2} is packets)"
                    ),
                ));
            }
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
                if b < s.packet {
                    return Err(s.err(
                        k,
                        Some(v),
                        format!(
                            "a queue of {b} bytes holds no packet: the scenario's flows send \
                             packets of up to {} bytes (their MTU); give at least that, or \
                             packets, e.g. \"100pkt\"",
                            s.packet
                        ),
                    ));
                }
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
pub(super) fn link_params(
    s: &Section<'_>,
    base: Option<(&LinkParams, &LinkParams)>,
) -> R<(LinkParams, LinkParams)> {
    for (a, b) in [("rate", "trace"), ("reverse_rate", "reverse_trace")] {
        if s.table.contains_key(a) && s.table.contains_key(b) {
            return Err(s.err(
                a,
                s.table.get(a),
                format!(
                    "give {a} or {b}, not both (a trace sets the capacity; {a} would be ignored)"
                ),
            ));
        }
    }
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
    trace::capacity_keys(s, &mut fwd, &mut rev)?;
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
        rev.trace = None; // a constant reverse rate under a forward `trace`
    }
    if let Some(d) = s.duration("delay")? {
        fwd.delay = d;
        rev.delay = d;
    }
    if let Some(q) = parse_queue(s, "queue")? {
        fwd.queue = q;
        rev.queue = q;
    }
    if let Some(d) = qdisc::discipline(s, "discipline")? {
        fwd.discipline = d.clone();
        rev.discipline = d;
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
    if let Some(r) = s.table("reverse")? {
        // The same keys again, for the reverse direction only.
        for k in ["reverse", "reverse_rate", "reverse_trace", "ack_loss"] {
            if r.table.contains_key(k) {
                return Err(r.err(
                    k,
                    r.table.get(k),
                    "not allowed inside `reverse` (its keys already apply to the reverse direction)",
                ));
            }
        }
        rev = link_params(&r, Some((&rev, &rev)))?.0;
        r.finish()?;
    }
    Ok((fwd, rev))
}
