//! A forged HELLO cannot make `tcplab recv` allocate by a coded flow's declared size:
//! a TCP-Forward flow declaring 900 GB (622 million segments) opens a sink whose heap
//! is the same as one declaring 1 MB (the LT decoder grows with the symbols it sees).

use std::alloc::{GlobalAlloc, Layout, System};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use tcplab_core::{Dur, Time};
use tcplab_net::udp::ReceiverSession;
use tcplab_net::wire::{self, Message, TransportCode};
use tcplab_transport::ReceiverConfig;

struct Peak;
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(n: usize) {
    let now = LIVE.fetch_add(n, Ordering::Relaxed) + n;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

unsafe impl GlobalAlloc for Peak {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        grew(l.size());
        // SAFETY: forwards to the system allocator with the caller's layout.
        unsafe { System.alloc(l) }
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        grew(l.size());
        // SAFETY: as `alloc`.
        unsafe { System.alloc_zeroed(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size(), Ordering::Relaxed);
        // SAFETY: `p` was allocated by `System` with layout `l`.
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        if n >= l.size() {
            grew(n - l.size());
        } else {
            LIVE.fetch_sub(l.size() - n, Ordering::Relaxed);
        }
        // SAFETY: forwards to the system allocator; `p` came from it with layout `l`.
        unsafe { System.realloc(p, l, n) }
    }
}

#[global_allocator]
static GLOBAL: Peak = Peak;

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
            transport: TransportCode::TcpForward,
            flow: table.as_bytes(),
        },
        &mut buf,
    )
    .unwrap();
    let from: SocketAddr = "127.0.0.1:9".parse().unwrap();
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let mut r = ReceiverSession::new(ReceiverConfig::default(), None, Dur::from_secs(5));
    r.handle_datagram(Time::ZERO, from, &buf[..n]);
    assert!(r.sink().is_some(), "the HELLO opened a session");
    let grown = PEAK.load(Ordering::Relaxed) - base;
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
