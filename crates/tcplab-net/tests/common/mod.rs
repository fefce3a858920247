//! What the emulator tests share: whether this machine can run them, and a link from its
//! scenario text.

use tcplab_net::emu::{check_privileges, emulation_scenario, EmuConfig};

/// Whether the emulator can run here (root, `/dev/net/tun`); says why not when it cannot.
pub fn can_run() -> bool {
    match check_privileges("the emulator tests") {
        Ok(()) => true,
        Err(e) => {
            eprintln!("skipped: {e}");
            false
        }
    }
}

/// The emulator's configuration for a scenario's `[link]` table, given as TOML text.
pub fn config(toml_text: &str) -> EmuConfig {
    let table: toml::Table = toml_text.parse().unwrap();
    let sc = emulation_scenario(&table, "test.toml").unwrap();
    EmuConfig::new(sc, 1).unwrap()
}
