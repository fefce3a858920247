//! Stack profiles: `stack = "linux" | "ns3" | "rfc" | "tcplab"` (per flow, or at the top
//! level for every TCP flow) sets the defaults of one real stack in one word. They are
//! TCP's defaults (TCP/NC reads them too, through TCP's keys), so they live with TCP. A TCP flow
//! that names none runs under [`DEFAULT`]; `"tcplab"` names no values at all, so it
//! keeps tcplab's own defaults (those of `SenderConfig`/`ReceiverConfig`). A profile is a table
//! of key → value merged under the flow's own keys before the flow is parsed, so it goes
//! through exactly the parse path (and checks) a hand-written key does, and any key
//! written in the flow overrides it. docs/scenarios.md ("Stack profiles") cites where
//! each value comes from.

use crate::cc::{CcParams, ParamValue};
use tcplab_core::{KeyError, Keys};
use toml::{Table, Value};

/// The profile of a `transport = "tcp"` flow that names none (the kernel side by side in
/// docs/validation.md validates it).
pub const DEFAULT: &str = "linux";

/// The profiles: (name, [(key, value as TOML)]).
pub const PROFILES: &[(&str, &[(&str, &str)])] = &[
    (
        "linux",
        &[
            ("recovery", "\"sack\""),
            ("sack", "true"),
            ("loss_detection", "\"rack\""),
            ("recovery_cwnd", "\"prr\""),
            ("initial_cwnd", "10"),
            ("min_rto", "\"200ms\""),
            ("initial_rto", "\"1s\""),
            ("max_rto", "\"120s\""),
            ("rto_rule", "\"linux\""), // tcp_rtt_estimator: min_rto bounds the variance term
            // CONFIG_HZ: the kernel's default (kernel/Kconfig.hz, HZ_250) and that of the
            // 6.18 kernel the side by side in docs/validation.md ran against.
            ("timer_hz", "250"),
            ("ack", "\"delayed\""),
            ("ack_every", "2"),
            ("ack_delay", "\"40ms\""),
            ("quick_ack", "16"),
            ("ssthresh_basis", "\"flight-size\""), // tcp_reno_ssthresh & co.: snd_cwnd
            ("handshake", "true"),
            ("rcv_buf", "\"6MiB\""),
            ("snd_buf", "\"4MiB\""),
            ("timestamps", "true"), // net.ipv4.tcp_timestamps = 1
            ("dsack", "true"),      // net.ipv4.tcp_dsack = 1
            ("undo", "true"),       // tcp_try_undo_* (Eifel with timestamps, D-SACK)
            ("ecn", "false"),       // net.ipv4.tcp_ecn = 2: ECN only when the peer asks for it
        ],
    ),
    (
        "ns3",
        &[
            ("recovery", "\"sack\""),
            ("sack", "true"),
            ("loss_detection", "\"dupack\""),
            // TcpPrrRecovery (tcp-prr-recovery.cc), as TcpSocketBase drives it.
            ("recovery_cwnd", "\"prr-ns3\""),
            ("initial_cwnd", "10"),
            ("mss", "536"),
            ("dupthresh", "3"),
            ("min_rto", "\"1s\""),
            ("initial_rto", "\"1s\""),
            ("rto_rule", "\"rfc6298\""), // RttEstimator: SRTT + 4·RTTVAR, at least MinRto
            ("syn_rto", "\"3s\""),
            ("ack", "\"delayed\""),
            ("ack_every", "2"),
            ("ack_delay", "\"200ms\""),
            ("quick_ack", "0"),
            ("partial_ack_timer", "\"impatient\""),
            // EnterRecovery: GetSsThresh(BytesInFlight()) after MarkHeadAsLost().
            ("ssthresh_basis", "\"pipe\""),
            ("window_basis", "\"in-flight\""), // AvailableWindow: cwnd - BytesInFlight()
            // ProcessAck: segsAcked = currentDelivered / MSS, each segment counted once
            // (TcpRateLinux::SkbDelivered), when first SACKed or acknowledged.
            ("acked_basis", "\"delivered\""),
            ("handshake", "true"),
            ("rcv_buf", "\"128KiB\""),
            ("snd_buf", "\"128KiB\""),
            ("timestamps", "true"), // TcpSocketBase::Timestamp
            ("dsack", "false"),     // ns-3 sends no D-SACK
            ("undo", "false"),      // nor undoes a reduction
            ("ecn", "false"),       // TcpSocketBase::UseEcn = Off
        ],
    ),
    (
        "rfc",
        &[
            ("recovery", "\"sack\""),
            ("sack", "true"),
            ("loss_detection", "\"dupack\""),
            ("recovery_cwnd", "\"ssthresh\""),
            ("initial_cwnd", "3"),
            ("dupthresh", "3"),
            ("min_rto", "\"1s\""),
            ("initial_rto", "\"1s\""),
            ("max_rto", "\"60s\""),
            ("rto_rule", "\"rfc6298\""),
            ("ack", "\"delayed\""),
            ("ack_every", "2"),
            ("ack_delay", "\"200ms\""),
            ("quick_ack", "0"),
            ("partial_ack_timer", "\"impatient\""),
            ("ssthresh_basis", "\"flight-size\""),
            ("handshake", "true"),
            ("timestamps", "false"), // RFC 7323 is optional
            ("dsack", "false"),
            ("undo", "false"),
            ("ecn", "false"), // RFC 3168 is optional
        ],
    ),
    // tcplab's own defaults, the default profile before Linux's: nothing merged.
    ("tcplab", &[]),
];

/// Controller parameters of each profile, by controller family: (profile, controllers,
/// [(parameter, value)]). They are soft defaults (`CcParams::set_soft`): a controller
/// that does not take a parameter ignores it, and `cc_params` written in the flow win.
/// docs/scenarios.md ("Stack profiles") says where each comes from.
const CC_PARAMS: &[CcRow] = &[
    // Linux: tcp_slow_start adds every ACKed packet (no L); tcp_cong_avoid_ai counts
    // ACKed packets (byte counting in packets); Cubic's HyStart (ACK train + delay).
    (
        "linux",
        RENO_FAMILY,
        &[
            ("ca_growth", ParamText::Name("abc")),
            ("abc_limit", ParamText::Number(1e6)),
        ],
    ),
    (
        "linux",
        &["cubic"],
        &[
            ("hystart", ParamText::Name("classic")),
            ("abc_limit", ParamText::Number(1e6)),
            // bictcp_update's tcp_friendliness: a constant beta_scale, no α = 1 switch.
            ("alpha_switch", ParamText::Number(0.0)),
        ],
    ),
    // tcp_bbr.c's `bbr_extra_acked_gain = BBR_UNIT` (since 4.20): the ACK-aggregation
    // allowance on top of the cwnd target.
    (
        "linux",
        &["bbr"],
        &[("extra_acked_gain", ParamText::Number(1.0))],
    ),
    // ns-3: TcpNewReno grows MSS*MSS/cwnd per ACK and adds one segment per ACK in slow
    // start; TcpCubic has its HyStart on, adds every segment ACKed in slow start and
    // cuts from cwnd (GetSsThresh ignores bytesInFlight).
    (
        "ns3",
        RENO_FAMILY,
        &[
            ("ca_growth", ParamText::Name("per-ack")),
            ("abc_limit", ParamText::Number(1.0)),
        ],
    ),
    (
        "ns3",
        &["cubic"],
        &[
            ("hystart", ParamText::Name("classic-ns3")),
            ("abc_limit", ParamText::Number(1e6)),
            ("ssthresh_from", ParamText::Name("cwnd")),
        ],
    ),
    // ns-3's TcpWestwoodPlus: what TcpSocketBase hands PktsAcked (m_srtt as the RTT,
    // one segment per duplicate ACK besides the cumulative count), a filter that
    // starts at zero (m_lastBW = m_lastSampleBW = 0), and its sampling interval (the
    // opening ACK counted, EstimateBW a timer of one RTT dividing by that RTT).
    (
        "ns3",
        &["westwoodplus", "westwood_plus", "westwood+"],
        &[
            ("rtt_sample", ParamText::Name("smoothed")),
            ("ack_counting", ParamText::Name("ns3")),
            ("seed_first", ParamText::Number(0.0)),
            ("interval", ParamText::Name("timer")),
        ],
    ),
    // ns-3's TcpBbr: a send quantum of one segment (SetSendQuantum), so InFlight's
    // three quanta are three segments; in recovery cwnd is cut by every change of the
    // lost count (TcpSocketBase::ReceivedAck, TcpBbr::ModulateCwndForRecovery); the
    // window saved at a timeout is never restored (ProcessAck leaves CA_LOSS without
    // CA_EVENT_COMPLETE_CWR, so TcpBbr::RestoreCwnd does not run).
    (
        "ns3",
        &["bbr"],
        &[
            ("send_quantum", ParamText::Name("mss")),
            ("loss_deduction", ParamText::Number(2.0)),
            ("rto_restore", ParamText::Number(0.0)),
        ],
    ),
    // ns-3's TcpVegas (tcp-vegas.cc): its own rules (smoothed RTT, loss cuts one
    // segment), no fine-grained retransmission, and a timeout leaves one segment
    // (TcpSocketBase::ReTxTimeout: m_cWnd = m_segmentSize).
    (
        "ns3",
        &["vegas"],
        &[
            ("vegas_variant", ParamText::Name("ns3")),
            ("fine_retransmit", ParamText::Number(0.0)),
            ("rto_cwnd", ParamText::Number(1.0)),
        ],
    ),
    // RFC 5681: cwnd += min(N, SMSS) per ACK in slow start (L = 1), byte counting in
    // congestion avoidance; RFC 9438 leaves HyStart++ optional: off.
    (
        "rfc",
        RENO_FAMILY,
        &[
            ("ca_growth", ParamText::Name("abc")),
            ("abc_limit", ParamText::Number(1.0)),
        ],
    ),
    (
        "rfc",
        &["cubic"],
        &[
            ("hystart", ParamText::Name("off")),
            ("abc_limit", ParamText::Number(1.0)),
        ],
    ),
];

/// Window controllers with NewReno-style slow start (Vegas takes `abc_limit` alone).
const RENO_FAMILY: &[&str] = &[
    "dctcp",
    "newreno",
    "reno",
    "tahoe",
    "vegas",
    "westwood",
    "westwoodplus",
    "westwood_plus",
    "westwood+",
];

/// (profile, controllers, [(parameter, value)]).
type CcRow = (
    &'static str,
    &'static [&'static str],
    &'static [(&'static str, ParamText)],
);

/// A profile's parameter value, as a constant.
#[derive(Clone, Copy)]
enum ParamText {
    Number(f64),
    Name(&'static str),
}

/// Adds profile `name`'s controller parameters for controller `cc` to `params` as soft
/// defaults.
pub(super) fn cc_params(name: &str, cc: &str, params: &mut CcParams) {
    for (_, _, list) in CC_PARAMS
        .iter()
        .filter(|(p, ccs, _)| *p == name && ccs.contains(&cc))
    {
        for (k, v) in list.iter() {
            let v = match *v {
                ParamText::Number(x) => ParamValue::Number(x),
                ParamText::Name(n) => ParamValue::Name(n.to_string()),
            };
            params.set_soft(k, v);
        }
    }
}

/// Keys that only make sense with SACK recovery: a profile's value yields when the flow
/// itself turns SACK off or picks another recovery.
const SACK_ONLY: &[&str] = &["loss_detection", "recovery_cwnd", "dsack"];

pub fn names() -> impl Iterator<Item = &'static str> {
    PROFILES.iter().map(|(n, _)| *n)
}

fn profile(name: &str) -> Option<&'static [(&'static str, &'static str)]> {
    PROFILES.iter().find(|(n, _)| *n == name).map(|(_, p)| *p)
}

fn value(text: &str) -> Value {
    let t: Table = format!("v = {text}")
        .parse()
        .expect("profile values are TOML");
    t["v"].clone()
}

/// Checks a `stack` value at `sec.key(key)`.
pub fn check(sec: &Keys<'_>, key: &str, name: &str) -> Result<(), KeyError> {
    if profile(name).is_none() {
        let list = names().map(|n| format!("\"{n}\"")).collect::<Vec<_>>();
        return Err(sec.err(
            key,
            sec.table.get(key),
            format!("unknown stack profile; use {}", list.join(", ")),
        ));
    }
    Ok(())
}

/// The flow's table with profile `name`'s values under its own keys.
pub(super) fn apply(f: &Keys<'_>, name: &str) -> Result<Table, KeyError> {
    check(f, "stack", name)?;
    let own = f.table;
    let mut out = own.clone();
    for (k, v) in profile(name).expect("checked") {
        if !own.contains_key(*k) {
            out.insert(k.to_string(), value(v));
        }
    }
    // An explicit choice against SACK recovery wins over the profile's SACK-only keys.
    let sack_off = matches!(own.get("sack"), Some(Value::Boolean(false)));
    let other_recovery = own
        .get("recovery")
        .is_some_and(|v| v.as_str() != Some("sack"));
    if sack_off && !own.contains_key("recovery") {
        out.remove("recovery");
    }
    if sack_off || other_recovery {
        for k in SACK_ONLY {
            if !own.contains_key(*k) {
                out.remove(*k);
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every profile value parses as TOML, and no key is listed twice.
    #[test]
    fn profiles_are_well_formed() {
        for (name, p) in PROFILES {
            let mut seen = std::collections::HashSet::new();
            for (k, v) in *p {
                let _ = value(v);
                assert!(seen.insert(*k), "{name}: {k} twice");
            }
        }
    }
}
