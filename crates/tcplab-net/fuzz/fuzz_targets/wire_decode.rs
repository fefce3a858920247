//! `cargo +nightly fuzz run wire_decode` — wire format v1 decoding and re-encoding.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    tcplab_net::fuzzing::wire_input(data);
});
