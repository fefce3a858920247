//! `cargo +nightly fuzz run udp_transports` — hostile datagrams during a transfer of any
//! transport (the first byte picks TCP, TACK, TCP/NC, TCP-Forward, datagrams,
//! stop-and-wait or registered stop-and-wait).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let [t, rest @ ..] = data {
        tcplab_net::fuzzing::session_input_for(*t, rest);
    }
});
