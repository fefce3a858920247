//! What a flow may not ask of real hosts: keys that model a host inside the simulator.
//! The UDP driver and the kernel's TCP through the emulator run on real hosts, which
//! behave as their own stacks and drivers do, so such a key is refused by name rather
//! than run silently without its meaning.

use tcplab_core::Dur;
use tcplab_scenario::{ConfigError, FlowSpec};

/// `Ok` when `f` sets no simulator-only host key; otherwise the error naming the first.
pub fn refuse_simulated_host_keys(f: &FlowSpec, source: &str) -> Result<(), ConfigError> {
    let keys = ["flow.source_rx_coalesce", "flow.sink_rx_coalesce"];
    match f.rx_coalesce.iter().position(|&d| d != Dur::ZERO) {
        None => Ok(()),
        Some(k) => Err(ConfigError {
            file: source.into(),
            key: keys[k].into(),
            value: format!("\"{}\"", f.rx_coalesce[k]),
            why: "receive interrupt coalescing models a host's NIC in the simulator; real \
                  hosts coalesce as their own drivers do (drop the key, or run the flow \
                  simulated)"
                .into(),
        }),
    }
}
