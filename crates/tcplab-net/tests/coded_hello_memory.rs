//! A forged HELLO cannot make `tcplab recv` allocate by a coded flow's declared size:
//! a TCP-Forward flow declaring 900 GB (622 million segments) opens a sink whose heap
//! is the same as one declaring 1 MB (the LT decoder grows with the symbols it sees).

use std::net::SocketAddr;
use tcplab_core::peak_heap::PeakHeap;
use tcplab_core::{Dur, Time};
use tcplab_net::udp::ReceiverSession;
use tcplab_net::wire::{self, Message, TransportCode};
use tcplab_transport::ReceiverConfig;

#[global_allocator]
static GLOBAL: PeakHeap = PeakHeap;

/// Peak heap growth while a receiver opens a session for a HELLO declaring `bytes`.
fn opened(bytes: u64, payload: bool) -> usize {
    let table = format!(
        "transport = \"tcp-forward\"\nbytes = {bytes}\ncoding = {{ payload = {payload} }}\n"
    );
    let spec = tcplab_net::udp::flow_spec(&table.parse().unwrap(), "hello").unwrap();
    let mss = match &spec.transport {
        tcplab_transport::TransportSpec::Forward(f) => f.mss,
        _ => unreachable!("a tcp-forward table"),
    };
    let mut buf = vec![0u8; 4096];
    let n = wire::encode(
        &Message::Hello {
            conn: 7,
            mss,
            total: Some(bytes),
            transport: TransportCode::from_name("tcp-forward").unwrap(),
            flow: table.as_bytes(),
        },
        &mut buf,
    )
    .unwrap();
    let from: SocketAddr = "127.0.0.1:9".parse().unwrap();
    let base = PeakHeap::reset_peak();
    let mut r = ReceiverSession::new(ReceiverConfig::default(), None, Dur::from_secs(5));
    r.handle_datagram(Time::ZERO, from, &buf[..n]);
    assert!(r.sink().is_some(), "the HELLO opened a session");
    let grown = PeakHeap::peak() - base;
    drop(r);
    grown
}

#[test]
fn a_forged_hello_declaring_900_gb_allocates_nothing_by_its_size() {
    for payload in [false, true] {
        let small = opened(1_000_000, payload);
        let huge = opened(900_000_000_000, payload);
        eprintln!("payload {payload}: opening took {small} B (1 MB), {huge} B (900 GB)");
        assert!(huge <= small + 4096, "{huge} B against {small} B");
    }
}
