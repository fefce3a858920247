//! `cargo +nightly fuzz run udp_session` — hostile datagrams during a UDP transfer.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    tcplab_net::fuzzing::session_input(data);
});
