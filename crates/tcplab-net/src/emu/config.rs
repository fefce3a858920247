//! What an emulation runs: a scenario's point-to-point link, a seed and driver options.

use crate::error::NetError;
use tcplab_scenario::{parse_network_table, parse_toml, ConfigError, Sampling, Scenario};
use toml::Table;

/// Emulator settings.
#[derive(Clone, Debug)]
pub struct EmuConfig {
    /// The path's link is `scenario.links[0]`; its forward direction carries packets
    /// from the namespace to the host, the reverse direction the other way.
    pub scenario: Scenario,
    /// Seeds the link's loss and jitter streams exactly as a simulation with this seed.
    pub seed: u64,
    /// Run the packet loop at `SCHED_FIFO` priority when permitted.
    pub realtime: bool,
    /// Keep the per-packet log (arrival, departure, drop and reason).
    pub packet_log: bool,
    /// MTU of both TUN devices.
    pub mtu: u32,
    /// `net.ipv4.tcp_ecn` inside the namespace (Linux: 0 off, 1 request and accept ECN,
    /// 2 accept only, the kernel's default); `None` leaves the kernel's default.
    pub tcp_ecn: Option<u8>,
    /// Write every packet as it leaves the link to this pcapng file (the first
    /// [`EmuConfig::snaplen`] bytes: headers, ECN field included).
    pub pcap: Option<std::path::PathBuf>,
    pub snaplen: u32,
}

impl EmuConfig {
    /// Checks that `scenario` describes one point-to-point link the emulator can run.
    pub fn new(scenario: Scenario, seed: u64) -> Result<EmuConfig, NetError> {
        let err = |key: &str, value: String, why: &str| {
            NetError::Config(ConfigError {
                file: scenario.source.clone(),
                key: key.into(),
                value,
                why: why.into(),
            })
        };
        if scenario.links.len() != 1 {
            return Err(err(
                "topology",
                format!("{} links", scenario.links.len()),
                "the emulator runs one point-to-point [link] (the path between the \
                 namespace and the host); dumbbells are for the simulator",
            ));
        }
        if scenario.sampling == Sampling::PerAck {
            return Err(err(
                "sample",
                "ack".into(),
                "the emulator sees packets, not ACKs: give a sampling interval like \"10ms\" \
                 (or \"off\")",
            ));
        }
        Ok(EmuConfig {
            scenario,
            seed,
            realtime: true,
            packet_log: true,
            mtu: 1500,
            tcp_ecn: None,
            pcap: None,
            snaplen: super::capture::SNAPLEN,
        })
    }
}

/// Parses a scenario table for emulation. The command under emulation is the traffic, so
/// `[[flow]]` tables are optional here (the simulator requires one).
pub fn emulation_scenario(table: &Table, source: &str) -> Result<Scenario, ConfigError> {
    parse_network_table(table, source)
}

/// Reads and parses a scenario file for emulation.
pub fn emulation_scenario_file(path: &str) -> Result<Scenario, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|e| ConfigError {
        file: path.into(),
        key: String::new(),
        value: String::new(),
        why: format!("cannot read the file: {e}"),
    })?;
    emulation_scenario(&parse_toml(&text, path)?, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_queue_discipline_is_accepted() {
        let table: Table = toml::from_str("[link]\nrate = \"10Mbps\"\ndiscipline = \"codel\"\n")
            .expect("valid TOML");
        let sc = emulation_scenario(&table, "emu.toml").expect("parses");
        assert!(sc.flows.is_empty(), "no placeholder flow");
        let cfg = EmuConfig::new(sc, 1).expect("a discipline runs in the emulator");
        assert_eq!(cfg.scenario.links[0].fwd.discipline.name(), "codel");
    }
}
