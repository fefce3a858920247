//! `cargo +nightly fuzz run lt_symbol` — LT symbol parsing and decoding.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    tcplab_coding::fuzzing::lt_decoder_input(data);
});
