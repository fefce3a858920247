//! `tcplab._tcplab` bindings for `tcplab-net`: the TUN link emulator (and, as they land,
//! the UDP driver and the kernel-TCP tool). Results leave as the simulator's tables plus
//! the emulator's per-packet log.

use crate::packet_columns::{BYTES, DELAY_NS, DIRECTION, ECN, EVENT, LATE_NS, T_S};
use crate::{convert, guard, to_py_err, ScenarioError};
use arrow_array::{ArrayRef, RecordBatch, StringArray, UInt32Array, UInt64Array};
use arrow_pyarrow::ToPyArrow;
use pyo3::create_exception;
use pyo3::exceptions::PyKeyboardInterrupt;
use pyo3::exceptions::{PyOSError, PyRuntimeError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::net::{SocketAddr, TcpListener, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tcplab_core::{units, Dur};
use tcplab_net::emu::{self, EmuConfig, EmuResults};
use tcplab_net::udp::{self, InputCounters, LoopStats, RecvOptions, SendOptions};
use tcplab_net::{ktcp, NetError};
use tcplab_sim::{Scenario, SimError};

create_exception!(
    _tcplab,
    NetworkError,
    PyOSError,
    "A real-network driver failed (privileges, devices, sockets, or a peer)."
);

pub(crate) fn net_err(e: NetError) -> PyErr {
    match e {
        NetError::Config(c) => to_py_err(SimError::Config(c)),
        other => NetworkError::new_err(other.to_string()),
    }
}

fn emulation_scenario(
    source: &str,
    text: Option<&str>,
    dict: Option<&Bound<'_, PyDict>>,
) -> PyResult<Scenario> {
    let table = match (text, dict) {
        (Some(t), None) => t.parse::<toml::Table>().map_err(|e| {
            ScenarioError::new_err(format!(
                "{source}: TOML syntax error: {}",
                e.to_string().trim()
            ))
        })?,
        (None, Some(d)) => convert::dict_to_table(d, source)?,
        _ => return Err(PyRuntimeError::new_err("give exactly one of text or dict")),
    };
    emu::emulation_scenario(&table, source).map_err(|e| to_py_err(SimError::Config(e)))
}

fn packets_batch(r: &EmuResults) -> PyResult<RecordBatch> {
    let p = &r.packets;
    let dirs = ["fwd", "rev"];
    let cols: Vec<(&str, ArrayRef)> = vec![
        (
            T_S.name,
            Arc::new(arrow_array::Float64Array::from_iter_values(
                p.t_ns.iter().map(|&t| t as f64 / 1e9),
            )),
        ),
        (
            DIRECTION.name,
            Arc::new(StringArray::from_iter_values(
                p.direction.iter().map(|&d| dirs[d as usize]),
            )),
        ),
        (
            EVENT.name,
            Arc::new(StringArray::from_iter_values(
                p.event.iter().map(|e| e.name()),
            )),
        ),
        (BYTES.name, Arc::new(UInt32Array::from(p.bytes.clone()))),
        (
            DELAY_NS.name,
            Arc::new(UInt64Array::from(p.delay_ns.clone())),
        ),
        (LATE_NS.name, Arc::new(UInt64Array::from(p.late_ns.clone()))),
        (
            ECN.name,
            Arc::new(StringArray::from_iter(
                p.ecn.iter().map(|&e| emu::ecn_name(e)),
            )),
        ),
    ];
    RecordBatch::try_from_iter(cols)
        .map_err(|e| PyRuntimeError::new_err(format!("building the packet log: {e}")))
}

/// Runs `argv` in an emulated namespace; returns (info, tables, exit code). Ctrl-C
/// stops the command (SIGINT to its process group, SIGKILL 300 ms later) and the link;
/// the tables so far come back with `info["interrupted"]` set.
#[pyfunction]
#[pyo3(signature = (source, argv, seed=1, text=None, dict=None, timeout_s=None, realtime=true, packet_log=true, tcp_ecn=None, pcap=None))]
#[allow(clippy::too_many_arguments)]
fn emulate<'py>(
    py: Python<'py>,
    source: &str,
    argv: Vec<String>,
    seed: u64,
    text: Option<&str>,
    dict: Option<&Bound<'py, PyDict>>,
    timeout_s: Option<f64>,
    realtime: bool,
    packet_log: bool,
    tcp_ecn: Option<u8>,
    pcap: Option<std::path::PathBuf>,
) -> PyResult<(Bound<'py, PyDict>, Bound<'py, PyDict>, i32)> {
    let sc = emulation_scenario(source, text, dict)?;
    let mut cfg = EmuConfig::new(sc, seed).map_err(net_err)?;
    cfg.realtime = realtime;
    cfg.packet_log = packet_log;
    cfg.tcp_ecn = check_tcp_ecn(tcp_ecn)?;
    cfg.pcap = pcap;
    let timeout = timeout_s.map(Duration::from_secs_f64);
    let stop = Arc::new(AtomicBool::new(false));
    let (out, _pending) = watching_signals(py, &stop, || {
        guard("emulate", || {
            emu::run_command(cfg, &argv, timeout, Some(&stop))
        })
    });
    let out = out?.map_err(net_err)?;
    let (res, status) = (out.results, out.status);
    let code = status.code().unwrap_or_else(|| {
        128 + std::os::unix::process::ExitStatusExt::signal(&status).unwrap_or(0)
    });
    let i = &res.info;
    let info = PyDict::new(py);
    info.set_item("scenario", &i.scenario)?;
    info.set_item("seed", i.seed)?;
    info.set_item("replication", 0)?;
    info.set_item("events", res.packets.len())?;
    info.set_item("end_time_s", i.duration_s)?;
    info.set_item("realtime", i.realtime)?;
    info.set_item("host_if", &i.host_if)?;
    info.set_item("ns_if", &i.ns_if)?;
    info.set_item("host_addr", &i.host_addr)?;
    info.set_item("ns_addr", &i.ns_addr)?;
    info.set_item("in_flight_at_end", i.in_flight_at_end.to_vec())?;
    info.set_item("departures", i.departures)?;
    info.set_item("late_p50_s", i.late_p50_ns as f64 / 1e9)?;
    info.set_item("late_p99_s", i.late_p99_ns as f64 / 1e9)?;
    info.set_item("late_p999_s", i.late_p999_ns as f64 / 1e9)?;
    info.set_item("late_max_s", i.late_max_ns as f64 / 1e9)?;
    info.set_item("interrupted", out.interrupted)?;
    let packets = packets_batch(&res)?;
    let tables = crate::tables::to_pyarrow(py, res.to_results())?;
    tables.set_item("packets", packets.to_pyarrow(py)?)?;
    Ok((info, tables, code))
}

/// `tcp_ecn` as Linux takes it (0, 1 or 2), else a clear error.
fn check_tcp_ecn(v: Option<u8>) -> PyResult<Option<u8>> {
    match v {
        Some(x) if x > 2 => Err(ScenarioError::new_err(format!(
            "tcp_ecn = {x}: Linux's net.ipv4.tcp_ecn is 0 (off), 1 (request and accept ECN) \
             or 2 (accept only)"
        ))),
        v => Ok(v),
    }
}

/// True when this process may create namespaces and TUN devices; else the reason why not.
#[pyfunction]
fn emulator_available() -> (bool, Option<String>) {
    match emu::check_privileges("the link emulator") {
        Ok(()) => (true, None),
        Err(e) => (false, Some(e.to_string())),
    }
}

fn addr(s: &str) -> PyResult<SocketAddr> {
    s.to_socket_addrs()
        .ok()
        .and_then(|mut a| a.find(SocketAddr::is_ipv4))
        .ok_or_else(|| NetworkError::new_err(format!("{s:?} is not an IPv4 HOST:PORT")))
}

fn duration(what: &str, s: Option<&str>) -> PyResult<Option<Dur>> {
    s.map(|v| {
        units::parse_duration(v)
            .map_err(|why| ScenarioError::new_err(format!("{what} = {v:?}: {why}")))
    })
    .transpose()
}

/// The pre-shared key in `path` (`--key FILE`).
fn key(path: Option<&str>) -> PyResult<Option<tcplab_net::wire::Key>> {
    path.map(|p| {
        tcplab_net::wire::Key::from_file(std::path::Path::new(p))
            .map_err(|why| NetworkError::new_err(format!("key file {p}: {why}")))
    })
    .transpose()
}

/// Runs `f` with the GIL released on a helper thread while this thread looks for Ctrl-C
/// every 20 ms (Python runs signal handlers on the main thread only). A pending
/// KeyboardInterrupt sets `stop`, so `f` winds down; it is returned beside `f`'s result.
fn watching_signals<T: Send>(
    py: Python<'_>,
    stop: &Arc<AtomicBool>,
    f: impl FnOnce() -> PyResult<T> + Send,
) -> (PyResult<T>, Option<PyErr>) {
    let mut pending: Option<PyErr> = None;
    let out = py.detach(|| {
        std::thread::scope(|s| {
            let h = s.spawn(f);
            while !h.is_finished() {
                std::thread::sleep(Duration::from_millis(20));
                if pending.is_none() {
                    if let Err(e) = Python::attach(|py| py.check_signals()) {
                        pending = Some(e);
                        stop.store(true, Ordering::Relaxed);
                    }
                }
            }
            h.join().unwrap_or_else(|p| std::panic::resume_unwind(p))
        })
    });
    (out, pending)
}

fn interrupted(pending: Option<PyErr>) -> PyErr {
    pending.unwrap_or_else(|| PyKeyboardInterrupt::new_err("interrupted"))
}

fn counters_dict<'py>(py: Python<'py>, c: &InputCounters) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (k, v) in c.pairs() {
        d.set_item(k, v)?;
    }
    Ok(d)
}

fn loop_dict<'py>(py: Python<'py>, st: &LoopStats) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("wakeups", st.wakeups)?;
    d.set_item("recv_calls", st.recv_calls)?;
    d.set_item("datagrams_in", st.datagrams_in)?;
    d.set_item("send_calls", st.send_calls)?;
    d.set_item("datagrams_out", st.datagrams_out)?;
    d.set_item("timer_fires", st.timer_fires)?;
    d.set_item(
        "timer_late_mean_s",
        st.timer_late_sum_ns as f64 / st.timer_fires.max(1) as f64 / 1e9,
    )?;
    d.set_item("timer_late_max_s", st.timer_late_max_ns as f64 / 1e9)?;
    Ok(d)
}

/// Sends one flow (a `[[flow]]` dict) over UDP to a `udp_recv`; returns (info, tables).
/// With `key` (a file), every datagram is authenticated. Ctrl-C stops the transfer: the
/// receiver is told, and the tables so far come back with `info["interrupted"]` set
/// (before the receiver answered: KeyboardInterrupt).
#[pyfunction]
#[pyo3(signature = (to, flow, source="<send>", sample=None, connect_timeout_s=5.0, realtime=false, key=None))]
#[allow(clippy::too_many_arguments)]
fn udp_send<'py>(
    py: Python<'py>,
    to: &str,
    flow: &Bound<'py, PyDict>,
    source: &str,
    sample: Option<&str>,
    connect_timeout_s: f64,
    realtime: bool,
    key: Option<&str>,
) -> PyResult<(Bound<'py, PyDict>, Bound<'py, PyDict>)> {
    let table = convert::dict_to_table(flow, source)?;
    let mut o = SendOptions::from_table(addr(to)?, &table, source)
        .map_err(|e| to_py_err(SimError::Config(e)))?;
    o.sample = duration("sample", sample)?;
    o.connect_timeout = Dur::from_secs_f64(connect_timeout_s);
    o.realtime = realtime;
    o.key = self::key(key)?;
    let stop = Arc::new(AtomicBool::new(false));
    o.stop = Some(stop.clone());
    let (out, pending) = watching_signals(py, &stop, || guard("send", || udp::send(&o)));
    let out = match out? {
        Ok(out) => out,
        Err(NetError::Interrupted) => return Err(interrupted(pending)),
        Err(_) if pending.is_some() => return Err(interrupted(pending)),
        Err(e) => return Err(net_err(e)),
    };
    let info = PyDict::new(py);
    info.set_item("scenario", &out.results.info.scenario)?;
    info.set_item("seed", 0)?;
    info.set_item("replication", 0)?;
    info.set_item("events", out.loop_stats.wakeups)?;
    info.set_item("end_time_s", out.results.info.end_time_s)?;
    info.set_item("wall_s", out.wall_s)?;
    info.set_item("transport", o.flow.transport.name())?;
    info.set_item(
        "mss",
        udp::flow_endpoints::shape(&o.flow).ok().map(|s| s.mss),
    )?;
    info.set_item("datagrams_sent", out.datagrams_sent)?;
    info.set_item("interrupted", out.interrupted)?;
    info.set_item("authenticated", o.key.is_some())?;
    info.set_item("input", counters_dict(py, &out.counters)?)?;
    info.set_item("loop", loop_dict(py, &out.loop_stats)?)?;
    let q = |x| out.timer.quantile(x).map(|d| d.as_secs_f64());
    info.set_item("timer_late_p50_s", q(0.5))?;
    info.set_item("timer_late_p99_s", q(0.99))?;
    info.set_item("peer_segments_received", out.peer.segments_received)?;
    info.set_item("peer_duplicate_segments", out.peer.duplicate_segments)?;
    let tables = crate::tables::to_pyarrow(py, out.results)?;
    Ok((info, tables))
}

/// Receives one UDP transfer; `flow` holds receiver keys (ack, ack_every, ack_delay,
/// sack). Returns a summary dict. With `key` (a file), only authenticated datagrams are
/// read. Ctrl-C stops it at once (KeyboardInterrupt); a sender is told.
#[pyfunction]
#[pyo3(signature = (listen, flow=None, source="<recv>", listen_timeout_s=None, realtime=false, key=None))]
fn udp_recv<'py>(
    py: Python<'py>,
    listen: &str,
    flow: Option<&Bound<'py, PyDict>>,
    source: &str,
    listen_timeout_s: Option<f64>,
    realtime: bool,
    key: Option<&str>,
) -> PyResult<Bound<'py, PyDict>> {
    let mut o = RecvOptions::default();
    if let Some(f) = flow {
        let table = convert::dict_to_table(f, source)?;
        o.receiver =
            udp::receiver_config(&table, source).map_err(|e| to_py_err(SimError::Config(e)))?;
    }
    o.listen_timeout = listen_timeout_s.map(Dur::from_secs_f64);
    o.realtime = realtime;
    o.key = self::key(key)?;
    let stop = Arc::new(AtomicBool::new(false));
    o.stop = Some(stop.clone());
    let at = addr(listen)?;
    let (out, pending) = watching_signals(py, &stop, || guard("recv", || udp::receive(at, &o)));
    let out = match out? {
        Ok(out) => out,
        Err(_) if pending.is_some() => return Err(interrupted(pending)),
        Err(NetError::Interrupted) => return Err(interrupted(pending)),
        Err(e) => return Err(net_err(e)),
    };
    let d = PyDict::new(py);
    d.set_item("peer", out.peer.to_string())?;
    d.set_item("transport", out.transport)?;
    d.set_item("mss", out.conn_mss)?;
    d.set_item("bytes_delivered", out.delivered)?;
    d.set_item("duration_s", out.duration_s)?;
    d.set_item("goodput_bps", out.goodput_bps)?;
    d.set_item("segments_received", out.data_received)?;
    d.set_item("duplicate_segments", out.stats.duplicate_segments)?;
    d.set_item("out_of_order_segments", out.stats.out_of_order_segments)?;
    d.set_item("acks_sent", out.acks_sent)?;
    d.set_item("ce_received", out.ce_received)?;
    d.set_item("input", counters_dict(py, &out.counters)?)?;
    d.set_item("loop", loop_dict(py, &out.loop_stats)?)?;
    d.set_item("sender_interrupted", out.sender_interrupted)?;
    d.set_item("released_claims", out.released)?;
    d.set_item("last_refusal", out.last_refusal)?;
    d.set_item("authenticated", o.key.is_some())?;
    Ok(d)
}

/// Kernel TCP bulk sender (`TCP_CONGESTION` = cc); returns (info, tables).
#[pyfunction]
#[pyo3(signature = (to, cc="cubic", bytes=None, duration=None, sample=Some("10ms"), name="kernel", ns_exclusive=false))]
#[allow(clippy::too_many_arguments)]
fn tcp_send<'py>(
    py: Python<'py>,
    to: &str,
    cc: &str,
    bytes: Option<&str>,
    duration: Option<&str>,
    sample: Option<&str>,
    name: &str,
    ns_exclusive: bool,
) -> PyResult<(Bound<'py, PyDict>, Bound<'py, PyDict>)> {
    let bytes = bytes
        .map(|b| {
            units::parse_bytes(b)
                .map_err(|why| ScenarioError::new_err(format!("bytes = {b:?}: {why}")))
        })
        .transpose()?;
    let cfg = ktcp::SendConfig {
        to: addr(to)?,
        cc: cc.into(),
        bytes,
        duration: self::duration("time", duration)?,
        sample: self::duration("sample", sample)?,
        name: name.into(),
        key: 0x6b74_6370,
        ns_exclusive,
        stop: None,
    };
    let r = py
        .detach(|| guard("tcp-send", || ktcp::send(&cfg)))?
        .map_err(net_err)?;
    let info = PyDict::new(py);
    info.set_item("scenario", name)?;
    info.set_item("seed", 0)?;
    info.set_item("replication", 0)?;
    info.set_item("events", r.flow_series.rows())?;
    info.set_item(
        "end_time_s",
        r.flows
            .opt_floats("completion_s")
            .and_then(|c| c.first().copied().flatten())
            .unwrap_or(0.0),
    )?;
    info.set_item("bytes_written", r.bytes_written)?;
    info.set_item("snd_mss", r.last_info.snd_mss)?;
    let res = tcplab_sim::Results {
        info: tcplab_sim::RunInfo {
            scenario: name.into(),
            ..Default::default()
        },
        flows: r.flows,
        flow_series: r.flow_series,
        ..Default::default()
    };
    let tables = crate::tables::to_pyarrow(py, res)?;
    Ok((info, tables))
}

/// Kernel TCP receiver for one `tcp_send`; returns a summary dict.
#[pyfunction]
#[pyo3(signature = (listen, timeout_s=60.0))]
fn tcp_recv<'py>(py: Python<'py>, listen: &str, timeout_s: f64) -> PyResult<Bound<'py, PyDict>> {
    let at = addr(listen)?;
    let l =
        TcpListener::bind(at).map_err(|e| NetworkError::new_err(format!("binding {at}: {e}")))?;
    let idle = Duration::from_secs_f64(timeout_s);
    let r = py
        .detach(|| guard("tcp-recv", || ktcp::receive(&l, idle)))?
        .map_err(net_err)?;
    let d = PyDict::new(py);
    d.set_item("peer", r.peer.to_string())?;
    d.set_item("bytes", r.bytes)?;
    d.set_item("expected", r.expected)?;
    d.set_item("status", format!("{:?}", r.status).to_lowercase())?;
    let secs = (r.last_byte_mono_ns.saturating_sub(r.first_byte_mono_ns)) as f64 / 1e9;
    d.set_item("duration_s", secs)?;
    d.set_item("acks_sent", r.acks_sent)?;
    Ok(d)
}

/// The flows of a scenario through the emulated link (flow `flow`, or all of them with
/// their start and stop times), carried by the kernel's TCP (`mode="kernel"`,
/// `TCP_CONGESTION = kernel_cc` or each flow's own name) or by tcplab's endpoints over
/// UDP (`mode="udp"`). Returns (info, tables): the senders' flow tables and the link's.
///
/// `tcp_ecn` sets `net.ipv4.tcp_ecn` in the emulated namespace (1: the kernel's senders
/// ask for ECN; the host's receivers accept it by Linux's default 2). `pcap` writes each
/// packet as it leaves the link to that pcapng file, as `emulate`'s does. Ctrl-C cuts the
/// transfers short and returns what they did, with `info["interrupted"]` set.
#[pyfunction]
#[pyo3(signature = (source, mode, flow=None, seed=1, kernel_cc=None, text=None, dict=None, tcp_ecn=None, pcap=None))]
#[allow(clippy::too_many_arguments)]
fn emulate_flow<'py>(
    py: Python<'py>,
    source: &str,
    mode: &str,
    flow: Option<usize>,
    seed: u64,
    kernel_cc: Option<&str>,
    text: Option<&str>,
    dict: Option<&Bound<'py, PyDict>>,
    tcp_ecn: Option<u8>,
    pcap: Option<std::path::PathBuf>,
) -> PyResult<(Bound<'py, PyDict>, Bound<'py, PyDict>)> {
    use tcplab_net::transfer::{flows_through_emulator, FlowPlan, Transport};
    let mut sc = emulation_scenario(source, text, dict)?;
    let chosen: Vec<tcplab_sim::FlowSpec> = match flow {
        Some(i) => match sc.flows.get(i) {
            Some(f) => vec![f.clone()],
            None => {
                return Err(ScenarioError::new_err(format!(
                    "{source}: no [[flow]] number {i} ({} flows)",
                    sc.flows.len()
                )))
            }
        },
        None => sc.flows.clone(),
    };
    let sample = match sc.sampling {
        tcplab_sim::Sampling::Interval(d) => d,
        _ => Dur::from_millis(10),
    };
    sc.sampling = tcplab_sim::Sampling::Interval(sample);
    let mut plans = Vec::new();
    for f in chosen {
        let start = if flow.is_some() { Dur::ZERO } else { f.start };
        let duration = match (f.stop, sc.duration) {
            (Some(stop), _) => Some(stop.saturating_sub(f.start)),
            (None, Some(d)) => Some(d.saturating_sub(start)),
            (None, None) => None,
        };
        let bytes = f.bytes;
        if mode == "kernel" {
            // The kernel's hosts are real, as the UDP driver's are (`for_udp` checks there).
            tcplab_net::real_hosts::refuse_simulated_host_keys(&f, source)
                .map_err(|e| to_py_err(SimError::Config(e)))?;
        }
        let transport = match mode {
            "kernel" => Transport::Kernel {
                cc: kernel_cc
                    .or(f.transport.cc())
                    .ok_or_else(|| {
                        PyRuntimeError::new_err(format!(
                            "flow {:?} is not TCP: name the kernel's controller (kernel_cc)",
                            f.name
                        ))
                    })?
                    .to_string(),
            },
            "udp" => Transport::Udp {
                flow: Box::new(
                    udp::for_udp(f, source).map_err(|e| to_py_err(SimError::Config(e)))?,
                ),
            },
            other => {
                return Err(PyRuntimeError::new_err(format!(
                    "mode must be \"kernel\" or \"udp\", not {other:?}"
                )))
            }
        };
        plans.push(FlowPlan {
            transport,
            start,
            bytes,
            duration,
        });
    }
    let mut cfg = EmuConfig::new(sc, seed).map_err(net_err)?;
    cfg.tcp_ecn = check_tcp_ecn(tcp_ecn)?;
    cfg.pcap = pcap;
    let stop = Arc::new(AtomicBool::new(false));
    let (out, _pending) = watching_signals(py, &stop, || {
        guard("emulate_flow", || {
            flows_through_emulator(cfg, &plans, sample, Some(stop.clone()))
        })
    });
    let out = out?.map_err(net_err)?;
    let i = &out.emu.info;
    let info = PyDict::new(py);
    info.set_item("scenario", &i.scenario)?;
    info.set_item("seed", i.seed)?;
    info.set_item("replication", 0)?;
    info.set_item("events", out.emu.packets.len())?;
    info.set_item("end_time_s", i.duration_s)?;
    info.set_item("mode", mode)?;
    info.set_item("realtime", i.realtime)?;
    info.set_item("late_p99_s", i.late_p99_ns as f64 / 1e9)?;
    info.set_item("receiver_bytes", out.receiver_bytes)?;
    info.set_item("receiver_rejected", out.receiver_rejected)?;
    info.set_item("interrupted", out.interrupted)?;
    info.set_item("tcp_ecn", tcp_ecn)?;
    let packets = packets_batch(&out.emu)?;
    let mut res = out.emu.to_results();
    res.flows = out.flows;
    res.flow_series = out.flow_series;
    res.cc_trace = out.cc_trace;
    let tables = crate::tables::to_pyarrow(py, res)?;
    tables.set_item("packets", packets.to_pyarrow(py)?)?;
    Ok((info, tables))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(emulate_flow, m)?)?;
    m.add("NetworkError", m.py().get_type::<NetworkError>())?;
    m.add_function(wrap_pyfunction!(emulate, m)?)?;
    m.add_function(wrap_pyfunction!(emulator_available, m)?)?;
    m.add_function(wrap_pyfunction!(udp_send, m)?)?;
    m.add_function(wrap_pyfunction!(udp_recv, m)?)?;
    m.add_function(wrap_pyfunction!(tcp_send, m)?)?;
    m.add_function(wrap_pyfunction!(tcp_recv, m)?)?;
    Ok(())
}
