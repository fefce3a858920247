//! TCP's flow keys (`transport = "tcp"`, the default): congestion control, segment
//! sizes, recovery, ACKs, timers, buffers; under a stack profile (`stack.rs`).

use super::stack;
use super::{
    AckPolicy, AckedBasis, EcnEcho, LossDetection, PartialAckTimer, ReceiverConfig, RecoveryCwnd,
    RecoveryMode, SenderConfig, SsthreshBasis, TcpSpec, WindowBasis, DATA_HEADER_BYTES,
    TS_OPTION_BYTES,
};
use crate::cc;
use crate::flow_keys::{check_controller, number_params, MAX_MTU};
use crate::{Bursts, RtoRule};
use tcplab_core::{Dur, KeyError, Keys};
use toml::Value;

type R<T> = Result<T, KeyError>;

/// Keys of a flow with `transport = "tcp"` (the default); `bytes` comes from the caller.
/// A `stack` profile's keys are merged under the flow's own (`stack.rs`) and read through
/// the same path; checks that depend on what the user wrote look at the flow's own table.
/// `default` is the profile of a flow that names none (the scenario's `stack`, else `stack::DEFAULT`, for TCP flows;
/// `None` for the coded transports, which keep tcplab's defaults).
pub(crate) fn tcp_spec(f: &Keys<'_>, bytes: Option<u64>, default: Option<&str>) -> R<TcpSpec> {
    let Some(name) = f.string("stack")?.or(default) else {
        return tcp_keys(f, f, bytes, None);
    };
    let merged = stack::apply(f, name)?;
    let g = Keys::new(f.file, f.path.clone(), &merged);
    let mut spec = tcp_keys(&g, f, bytes, Some(name))?;
    f.used.borrow_mut().extend(g.used.take());
    spec.stack = Some(name.to_string());
    Ok(spec)
}

/// Reads the keys from `f`; `own` is the flow as written (for what the user chose);
/// `profile` the stack profile merged into `f`.
fn tcp_keys(f: &Keys<'_>, own: &Keys<'_>, bytes: Option<u64>, profile: Option<&str>) -> R<TcpSpec> {
    let cc_name = f.string("cc")?.unwrap_or("newreno").to_string();
    let mut cc_params = number_params(f, "cc_params")?;
    if let Some(profile) = profile {
        stack::cc_params(profile, &cc_name, &mut cc_params);
    }
    // Validate the controller and its parameters now, so the error names this file.
    check_controller(f, &cc_name, &cc_params)?;

    let mut s = SenderConfig::default();
    // `cc = "reno"` means RFC 5681 recovery and `"newreno"` RFC 6582, unless `recovery`
    // says otherwise (see docs/scenarios.md).
    if let Some(m) = cc::default_recovery(&cc_name) {
        s.recovery = m;
    }
    let mut r = ReceiverConfig::default();
    let mtu = f.uint("mtu", 68, MAX_MTU as u64)?.unwrap_or(1500) as u32;
    // RFC 7323: both ends stamp every segment, and the 12-byte option comes out of the MSS.
    let timestamps = f.boolean("timestamps")?.unwrap_or(false);
    s.timestamps = timestamps;
    r.timestamps = timestamps;
    let headers = DATA_HEADER_BYTES + if timestamps { TS_OPTION_BYTES } else { 0 };
    if let Some(m) = f.uint("mss", 1, u32::MAX as u64)? {
        s.mss = m as u32;
    } else {
        s.mss = mtu - headers;
    }
    if s.mss as u64 + headers as u64 > mtu as u64 {
        let what = if timestamps {
            " (40 + the 12-byte timestamp option)"
        } else {
            ""
        };
        return Err(f.err(
            "mss",
            f.table.get("mss"),
            format!("MSS plus {headers} bytes of headers{what} exceeds the MTU of {mtu} bytes"),
        ));
    }
    r.mss = s.mss;
    s.total_bytes = bytes;
    r.total_bytes = bytes;
    if let Some(v) = f.uint("initial_cwnd", 1, 1 << 20)? {
        s.initial_cwnd = v as u32;
    }
    if let Some(v) = f.uint("dupthresh", 1, 1000)? {
        s.dupthresh = v as u32;
    }
    if let Some(v) = f.choice(
        "recovery",
        RecoveryMode::parse,
        "use \"reno\", \"newreno\" or \"sack\"",
    )? {
        s.recovery = v;
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
        if d == Dur::ZERO {
            // A zero RTO would fire at the same instant forever. (A zero min_rto is fine:
            // the clock granularity keeps the RTO positive.)
            return Err(f.err("max_rto", f.table.get("max_rto"), "must be > 0"));
        }
        s.max_rto = d;
    }
    if let Some(v) = f.choice(
        "rto_rule",
        RtoRule::parse,
        "use \"rfc6298\" (RTO = max(SRTT + 4·RTTVAR, min_rto)) or \"linux\" \
                 (RTO = SRTT + max(mdev, min_rto), tcp_rtt_estimator)",
    )? {
        s.rto_rule = v;
    }
    if let Some(hz) = f.uint("timer_hz", 0, 100_000)? {
        s.timer_hz = hz as u32;
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
    // Linux's TSO/GSO bursts (`pacing.rs`): true sends each send quantum at once, false
    // one segment per pacing slot; absent, the quantum's slack before its slot.
    if let Some(b) = f.boolean("tso")? {
        s.bursts = if b { Bursts::Tso } else { Bursts::Off };
    }
    if let Some(b) = f.boolean("sack")? {
        r.sack = b;
    }
    if let Some(v) = f.choice(
        "partial_ack_timer",
        PartialAckTimer::parse,
        "use \"impatient\" or \"slow-but-steady\" (RFC 6582 section 4)",
    )? {
        s.partial_ack_timer = v;
    }
    if let Some(v) = f.choice(
        "loss_detection",
        LossDetection::parse,
        "use \"dupack\" (RFC 6675 IsLost) or \"rack\" (RFC 8985 RACK-TLP)",
    )? {
        s.loss_detection = v;
    }
    if let Some(v) = f.choice(
        "recovery_cwnd",
        RecoveryCwnd::parse,
        "use \"ssthresh\" (RFC 6675), \"prr\" (RFC 6937) or \"prr-ns3\" (ns-3's TcpPrrRecovery)",
    )? {
        s.recovery_cwnd = v;
    }
    if s.loss_detection == LossDetection::Rack && (s.recovery != RecoveryMode::Sack || !r.sack) {
        return Err(f.err(
            "loss_detection",
            f.table.get("loss_detection"),
            "\"rack\" needs SACK recovery: recovery = \"sack\" and sack = true",
        ));
    }
    if s.recovery == RecoveryMode::Sack && !r.sack && !own.table.contains_key("recovery") {
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
    if s.recovery_cwnd != RecoveryCwnd::Ssthresh && s.recovery != RecoveryMode::Sack {
        return Err(f.err(
            "recovery_cwnd",
            f.table.get("recovery_cwnd"),
            "PRR applies to SACK recovery: set recovery = \"sack\" (and sack = true)",
        ));
    }
    if let Some(b) = f.boolean("dsack")? {
        if b && !r.sack {
            return Err(f.err(
                "dsack",
                f.table.get("dsack"),
                "D-SACK blocks (RFC 2883) need sack = true",
            ));
        }
        r.dsack = b;
    }
    if let Some(b) = f.boolean("undo")? {
        if b && !timestamps && !r.dsack {
            return Err(f.err(
                "undo",
                f.table.get("undo"),
                "undo needs a detector: timestamps = true (Eifel, RFC 3522) or dsack = true \
                 (RFC 3708)",
            ));
        }
        s.undo = b;
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
    if let Some(b) = f.bytes("snd_buf")? {
        if b < s.mss as u64 {
            return Err(f.err(
                "snd_buf",
                f.table.get("snd_buf"),
                "must hold at least one MSS",
            ));
        }
        s.snd_buf = b;
    }
    if let Some(v) = f.choice("ssthresh_basis", SsthreshBasis::parse, "use \"in-flight\" (FlightSize less data the receiver holds), \"pipe\" (less the bytes marked lost too, ns-3) or \"flight-size\" (RFC 5681)")? {
        s.ssthresh_basis = v;
    }
    if let Some(v) = f.choice(
        "window_basis",
        WindowBasis::parse,
        "use \"in-flight\" (FlightSize less SACKed data, as ns-3) or \"flight-size\" (RFC 5681)",
    )? {
        s.window_basis = v;
    }
    if let Some(v) = f.choice("acked_basis", AckedBasis::parse, "use \"cumulative\" (all bytes the ACK covers, RFC 5681) or \"delivered\" (only bytes not SACKed before, as ns-3)")? {
        s.acked_basis = v;
    }
    s.handshake = f.boolean("handshake")?.unwrap_or(true);
    if let Some(d) = f.duration("syn_rto")? {
        if d == Dur::ZERO {
            return Err(f.err("syn_rto", f.table.get("syn_rto"), "must be > 0"));
        }
        s.syn_rto = Some(d);
    }
    if let Some(n) = f.uint("quick_ack", 0, 1 << 16)? {
        r.quick_ack = n as u32;
    }
    ecn_keys(f, own, &cc_name, &mut s, &mut r)?;
    Ok(TcpSpec {
        cc: cc_name,
        cc_params,
        sender: s,
        receiver: r,
        stack: None,
    })
}

/// `ecn = true | false` (or `"on"` / `"off"`): RFC 3168 ECN for the flow, both ends.
/// Off by default (Linux's `net.ipv4.tcp_ecn = 2` asks for it on no connection it opens;
/// ns-3's `TcpSocketBase::UseEcn` is `Off`); on for `cc = "dctcp"`, which needs it
/// (RFC 8257; Linux's DCTCP asks for ECN whatever `tcp_ecn` says), whose receiver then
/// echoes marks the DCTCP way.
fn ecn_keys(
    f: &Keys<'_>,
    own: &Keys<'_>,
    cc_name: &str,
    s: &mut SenderConfig,
    r: &mut ReceiverConfig,
) -> R<()> {
    let dctcp = cc_name == "dctcp";
    let written = match f.get("ecn") {
        None => None,
        Some(Value::Boolean(b)) => Some(*b),
        Some(Value::String(v)) if v == "on" => Some(true),
        Some(Value::String(v)) if v == "off" => Some(false),
        Some(v) => {
            return Err(f.err(
                "ecn",
                Some(v),
                "use true or false (\"on\" or \"off\"): RFC 3168 ECN for this flow",
            ))
        }
    };
    // A profile's `ecn = false` gives way to DCTCP; the flow's own does not.
    if dctcp && written == Some(false) && own.table.contains_key("ecn") {
        return Err(f.err(
            "ecn",
            f.table.get("ecn"),
            "cc = \"dctcp\" needs ECN (RFC 8257): leave ecn out or set it true",
        ));
    }
    let on = dctcp || written.unwrap_or(false);
    s.ecn = on;
    r.ecn = match (on, dctcp) {
        (false, _) => EcnEcho::Off,
        (true, false) => EcnEcho::Rfc3168,
        (true, true) => EcnEcho::Dctcp,
    };
    Ok(())
}
