//! `cargo +nightly fuzz run udp_receiver -- -rss_limit_mb=512` — sequences of datagrams
//! (HELLOs with hostile tables, data of every transport, CLOSEs, time passing) fed to
//! one receiver session, keyed when the first byte is odd.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    tcplab_net::receiver_fuzzing::receiver_input(data);
});
