//! `cargo +nightly fuzz run rlnc_symbol` — RLNC symbol parsing and decoding.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    tcplab_coding::fuzzing::rlnc_decoder_input(data);
});
