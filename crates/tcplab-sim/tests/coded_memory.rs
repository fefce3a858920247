//! A coded flow's memory is bounded by its window, not by its declared transfer: the
//! same half second of a 10 Mbit/s transfer (it never gets near the end) takes the same
//! peak heap whether the flow declares 1 GB or 90 GB.

use std::sync::Mutex;
use tcplab_core::peak_heap::PeakHeap;
use tcplab_sim::{parse_scenario_str, simulate};

#[global_allocator]
static GLOBAL: PeakHeap = PeakHeap;

static SERIAL: Mutex<()> = Mutex::new(());

/// Peak heap growth (bytes) while simulating one flow of `transport` declaring `bytes`.
fn peak(transport: &str, cc: &str, bytes: &str, coding: &str) -> usize {
    let _one_at_a_time = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let sc = parse_scenario_str(
        &format!(
            "duration = \"3s\"\nsample = \"off\"\n[link]\nrate = \"10Mbps\"\ndelay = \"10ms\"\n\
             [[flow]]\ntransport = \"{transport}\"\ncc = \"{cc}\"\nbytes = \"{bytes}\"\n\
             coding = {{ {coding} }}\n"
        ),
        "memory.toml",
    )
    .unwrap();
    let base = PeakHeap::reset_peak();
    let r = simulate(&sc, 1, 0).unwrap();
    let grown = PeakHeap::peak() - base;
    let delivered = r.flows.ints("bytes_delivered").unwrap()[0];
    assert!(
        delivered > 100_000,
        "{transport}: {delivered} bytes delivered"
    );
    grown
}

fn check(transport: &str, cc: &str, coding: &str) {
    let small = peak(transport, cc, "1GB", coding);
    let huge = peak(transport, cc, "90GB", coding);
    eprintln!("{transport} {{{coding}}}: peak {small} B declaring 1 GB, {huge} B declaring 90 GB");
    // Nothing is sized by the declared transfer (it was 5 bytes per declared segment
    // for tcp-forward: 3.1 GB at 900 GB). A little slack for results tables whose
    // text differs.
    assert!(
        huge <= small + 64 * 1024,
        "{transport}: {huge} B at 90 GB against {small} B at 1 GB"
    );
    assert!(huge < 64 << 20, "{transport}: {huge} B");
}

#[test]
fn tcp_forward_memory_does_not_grow_with_the_declared_transfer() {
    check("tcp-forward", "vegas", "");
}

#[test]
fn tcp_forward_payload_memory_does_not_grow_with_the_declared_transfer() {
    check("tcp-forward", "vegas", "payload = true");
}

#[test]
fn tcp_nc_memory_does_not_grow_with_the_declared_transfer() {
    check("tcp-nc", "newreno", "");
}

/// The real RLNC decoder has a fixed capacity (2 x buffer + window + 64 packets). Seen
/// ACKs let TCP run ahead of decoding; the sink's window now ends `buffer` packets past
/// the oldest undelivered packet, so the decoder never holds more (before, this run
/// failed with "coding window exceeds the decoder's capacity").
#[test]
fn tcp_nc_payload_memory_stays_within_the_decoders_capacity() {
    check("tcp-nc", "newreno", "payload = true");
    check("tcp-nc", "cubic", "payload = true, generation = 16");
}

/// A transfer long enough for the sink to forget decoded segments (more than the 1,024
/// it keeps below the sender's window) still delivers every byte, checked byte by byte
/// by the real decoder, and four times the transfer takes no more memory.
#[test]
fn a_long_tcp_forward_payload_transfer_forgets_and_stays_exact() {
    let run = |bytes: &str| {
        let _one_at_a_time = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let sc = parse_scenario_str(
            &format!(
                "duration = \"60s\"\nsample = \"off\"\n[link]\nrate = \"100Mbps\"\n\
                 delay = \"5ms\"\nloss = 0.01\n[[flow]]\ntransport = \"tcp-forward\"\n\
                 cc = \"vegas\"\nbytes = \"{bytes}\"\ncoding = {{ payload = true }}\n"
            ),
            "long.toml",
        )
        .unwrap();
        let base = PeakHeap::reset_peak();
        let r = simulate(&sc, 3, 0).unwrap_or_else(|e| panic!("{e}"));
        let grown = PeakHeap::peak() - base;
        assert!(r.flows.bools("completed").unwrap()[0], "{bytes}");
        grown
    };
    let (short, long) = (run("4MB"), run("16MB"));
    eprintln!("payload tcp-forward: peak {short} B for 4 MB, {long} B for 16 MB");
    assert!(long < short + short / 4, "{long} B against {short} B");
}
