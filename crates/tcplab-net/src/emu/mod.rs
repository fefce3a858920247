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
mod config;
mod log;
mod net;
mod results;
mod runner;

pub use config::{emulation_scenario, emulation_scenario_file, EmuConfig};
pub use log::{LatenessHistogram, PacketEvent, PacketLog};
pub use net::{check_privileges, NS_IF};
pub use results::{EmuInfo, EmuResults};
pub use runner::Emulation;

use crate::error::NetError;
use std::process::{Command, ExitStatus};
use std::time::{Duration, Instant};

/// After the command exits, the emulator runs on until the path is quiet this long...
pub const LINGER_IDLE: Duration = Duration::from_millis(300);
/// ...or this much later at most.
pub const LINGER_MAX: Duration = Duration::from_secs(10);

/// Runs `argv` inside the emulated namespace until it exits (or `timeout` passes, then
/// it is sent SIGTERM, and SIGKILL a second later), and returns what the link recorded.
/// Once the command has exited the link keeps running until it has been quiet for
/// [`LINGER_IDLE`] (at most [`LINGER_MAX`]), so data the kernel still holds in the
/// command's sockets is delivered.
///
/// The command sees `TCPLAB_EMU_HOST` (the host's address through the link),
/// `TCPLAB_EMU_ADDR` (its own) and `MAHIMAHI_BASE` (the same host address, for scripts
/// written for Mahimahi shells).
pub fn run_command(
    cfg: EmuConfig,
    argv: &[String],
    timeout: Option<Duration>,
) -> Result<(EmuResults, ExitStatus), NetError> {
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
    emu.ns().prepare(&mut cmd);
    let mut child = cmd.spawn().map_err(|e| NetError::Command {
        command: argv.join(" "),
        source: e,
    })?;
    let status =
        wait(&mut child, timeout).map_err(|e| NetError::io("waiting for the command", e))?;
    // The kernel may still be sending what the command wrote before it exited.
    let res = emu.stop_when_idle(LINGER_IDLE, LINGER_MAX)?;
    Ok((res, status))
}

fn wait(child: &mut std::process::Child, timeout: Option<Duration>) -> std::io::Result<ExitStatus> {
    let Some(limit) = timeout else {
        return child.wait();
    };
    let t0 = Instant::now();
    let mut termed: Option<Instant> = None;
    loop {
        if let Some(s) = child.try_wait()? {
            return Ok(s);
        }
        match termed {
            None if t0.elapsed() >= limit => {
                // SAFETY: signals our own child by pid.
                unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
                termed = Some(Instant::now());
            }
            Some(t) if t.elapsed() >= Duration::from_secs(1) => {
                child.kill()?;
                return child.wait();
            }
            _ => {}
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}
