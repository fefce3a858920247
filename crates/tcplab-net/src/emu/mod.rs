//! The TUN link emulator: a command's traffic through tcplab's link model, for real.
//!
//! [`Emulation::start`] creates a network namespace whose only route leads through a TUN
//! device, and a second TUN device on the host side; a packet loop reads each packet the
//! kernel routes into either device, offers it to that direction's
//! [`tcplab_link::Link`] at its wall-clock arrival, and writes it into the other device
//! when the model says it reaches the far end. Rate, delay, queue, loss models, jitter,
//! schedules, outages, handovers and Mahimahi traces are the simulator's own code; the
//! forward direction is namespace → host.

mod buffer;
mod capture;
mod config;
pub mod ip;
mod log;
mod net;
mod results;
mod runner;

pub use config::{emulation_scenario, emulation_scenario_file, EmuConfig};
pub use log::{ecn_name, LatenessHistogram, PacketEvent, PacketFacts, PacketLog, ECN_UNKNOWN};
pub use net::{check_privileges, NS_IF};
pub use results::{EmuInfo, EmuResults};
pub use runner::Emulation;

use crate::error::NetError;
use rustix::process::{Pid, Signal};
use std::os::unix::process::CommandExt;
use std::process::{Command, ExitStatus};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// After the command exits, the emulator runs on until the path is quiet this long...
pub const LINGER_IDLE: Duration = Duration::from_millis(300);
/// ...or this much later at most.
pub const LINGER_MAX: Duration = Duration::from_secs(10);

/// How long a command gets to exit on its own after Ctrl-C (it is sent SIGINT) before
/// its process group is killed: Ctrl-C stops `tcplab emulate` within a second even when
/// the command ignores SIGINT.
pub const INTERRUPT_GRACE: Duration = Duration::from_millis(200);

/// How a [`run_command`] ended.
#[derive(Debug)]
pub struct CommandOutcome {
    pub results: EmuResults,
    pub status: ExitStatus,
    /// Ctrl-C (the stop flag) ended the command (and its process group) early; the link
    /// stopped at once, and `results` hold what it did until then.
    pub interrupted: bool,
}

/// Runs `argv` inside the emulated namespace until it exits (or `timeout` passes, then
/// it is sent SIGTERM, and SIGKILL a second later), and returns what the link recorded.
/// Once the command has exited the link keeps running until it has been quiet for
/// [`LINGER_IDLE`] (at most [`LINGER_MAX`]), so data the kernel still holds in the
/// command's sockets is delivered.
///
/// When `stop` is set (Ctrl-C) the command's process group is sent SIGINT, killed after
/// [`INTERRUPT_GRACE`] if it is still there, and the link stops without lingering. The
/// command runs in a process group of its own (so its children are stopped with it)
/// unless standard input is a terminal: an interactive command must stay in the
/// terminal's foreground group, where Ctrl-C reaches it directly.
///
/// The command sees `TCPLAB_EMU_HOST` (the host's address through the link),
/// `TCPLAB_EMU_ADDR` (its own) and `MAHIMAHI_BASE` (the same host address, for scripts
/// written for Mahimahi shells).
pub fn run_command(
    cfg: EmuConfig,
    argv: &[String],
    timeout: Option<Duration>,
    stop: Option<&AtomicBool>,
) -> Result<CommandOutcome, NetError> {
    let Some((prog, args)) = argv.split_first() else {
        return Err(NetError::Protocol(
            "no command given (tcplab emulate SCENARIO -- COMMAND [ARGS...])".into(),
        ));
    };
    let emu = Emulation::start(cfg)?;
    let mut cmd = Command::new(prog);
    cmd.args(args)
        .env("TCPLAB_EMU_HOST", emu.host_addr().to_string())
        .env("TCPLAB_EMU_ADDR", emu.ns_addr().to_string())
        .env("MAHIMAHI_BASE", emu.host_addr().to_string());
    let own_group = !rustix::termios::isatty(std::io::stdin());
    if own_group {
        cmd.process_group(0);
    }
    emu.ns().prepare(&mut cmd);
    let mut child = cmd.spawn().map_err(|e| NetError::Command {
        command: argv.join(" "),
        source: e,
    })?;
    let (status, interrupted) = wait(&mut child, timeout, stop, own_group)
        .map_err(|e| NetError::io("waiting for the command", e))?;
    let results = if interrupted {
        emu.stop()?
    } else {
        // The kernel may still be sending what the command wrote before it exited.
        emu.stop_when_idle(LINGER_IDLE, LINGER_MAX)?
    };
    Ok(CommandOutcome {
        results,
        status,
        interrupted,
    })
}

/// Signals the child (its whole process group if it has its own).
fn signal(child: &std::process::Child, own_group: bool, sig: Signal) {
    let Some(pid) = Pid::from_raw(child.id() as i32) else {
        return;
    };
    // Best effort, as before: the child may have exited already.
    let _ = if own_group {
        rustix::process::kill_process_group(pid, sig)
    } else {
        rustix::process::kill_process(pid, sig)
    };
}

/// Waits for the child; returns its status and whether `stop` ended it.
fn wait(
    child: &mut std::process::Child,
    timeout: Option<Duration>,
    stop: Option<&AtomicBool>,
    own_group: bool,
) -> std::io::Result<(ExitStatus, bool)> {
    if timeout.is_none() && stop.is_none() {
        return Ok((child.wait()?, false));
    }
    let t0 = Instant::now();
    let mut termed: Option<Instant> = None;
    let mut interrupted: Option<Instant> = None;
    loop {
        if let Some(s) = child.try_wait()? {
            if own_group && interrupted.is_some() {
                // What the command left running in its group goes with it.
                signal(child, true, Signal::KILL);
            }
            return Ok((s, interrupted.is_some()));
        }
        if interrupted.is_none() && stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
            // A terminal already sent SIGINT to a child in our group.
            if own_group {
                signal(child, true, Signal::INT);
            }
            interrupted = Some(Instant::now());
        }
        if interrupted.is_some_and(|t| t.elapsed() >= INTERRUPT_GRACE) {
            signal(child, own_group, Signal::KILL);
            return Ok((child.wait()?, true));
        }
        match (timeout, termed) {
            (Some(limit), None) if t0.elapsed() >= limit => {
                signal(child, false, Signal::TERM);
                termed = Some(Instant::now());
            }
            (_, Some(t)) if t.elapsed() >= Duration::from_secs(1) => {
                child.kill()?;
                return Ok((child.wait()?, interrupted.is_some()));
            }
            _ => {}
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}
