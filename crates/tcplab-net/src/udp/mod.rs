//! The UDP driver: tcplab's sans-IO endpoints, of every built-in transport, on real
//! sockets.
//!
//! A [`SenderSession`] and a [`ReceiverSession`] wrap a flow's source and sink
//! (`tcplab_transport::AnyEndpoint`: TCP, datagram, TACK, TCP/NC, TCP-Forward) with a
//! handshake, the [`crate::wire`] format and the checks that keep
//! hostile datagrams from the endpoints; they are sans-IO themselves, so tests and the
//! fuzz target drive them without sockets. [`driver::run`] is the event loop that moves
//! their datagrams through one non-blocking socket with batched system calls.
//! [`send`] and [`receive`] are the iperf-like pair behind `tcplab send` / `tcplab recv`.

mod batch;
mod counters;
pub mod driver;
pub mod flow_endpoints;
mod flow_spec;
mod receiver_session;
mod report;
mod sender_session;
#[doc(hidden)]
pub mod testnet;

pub use counters::{InputCounters, Paws, SeenWindow};
pub use driver::{LoopStats, Session};
pub use flow_endpoints::FlowShape;
pub use flow_spec::{
    flow_spec, for_udp, receiver_config, with_mac, MAX_FLOW_DESC, RECEIVER_KEYS, UDP_OVERHEAD,
};
pub use receiver_session::{
    ReceiverSession, CLAIM_TIMEOUT, MAX_REACH, RESET_INTERRUPTED, RESET_REFUSED,
};
pub use report::{
    receive, receive_on, send, send_from, RecvOptions, RecvOutcome, SendOptions, SendOutcome,
};
pub use sender_session::{PeerReport, SenderSession, IDLE_TIMEOUT};
pub use testnet::FUZZ_TABLES;

/// Where a connection is in its life.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SessionState {
    /// Sender: HELLO sent, no answer yet. Receiver: listening.
    Handshake,
    Open,
    /// Sender: everything acknowledged, CLOSE sent.
    Closing,
    Done,
    Failed(String),
}

impl Session for SenderSession {
    fn handle_datagram(
        &mut self,
        now: tcplab_core::Time,
        from: std::net::SocketAddr,
        b: &[u8],
        _ecn: u8,
    ) {
        // ACKs are Not-ECT (RFC 3168 section 6.1.4): the sender reads none.
        SenderSession::handle_datagram(self, now, from, b)
    }
    fn handle_timeout(&mut self, now: tcplab_core::Time) {
        SenderSession::handle_timeout(self, now)
    }
    fn poll_datagram(&mut self, now: tcplab_core::Time, buf: &mut [u8]) -> Option<(usize, u8)> {
        let n = SenderSession::poll_datagram(self, now, buf)?;
        Some((n, self.last_ecn()))
    }
    fn poll_timeout(&self) -> Option<tcplab_core::Time> {
        SenderSession::poll_timeout(self)
    }
    fn peer(&self) -> Option<std::net::SocketAddr> {
        Some(self.peer_addr())
    }
    fn interrupt(&mut self, now: tcplab_core::Time) {
        SenderSession::interrupt(self, now)
    }
    fn finished(&self, _now: tcplab_core::Time) -> bool {
        self.is_finished()
    }
}

impl Session for ReceiverSession {
    fn handle_datagram(
        &mut self,
        now: tcplab_core::Time,
        from: std::net::SocketAddr,
        b: &[u8],
        ecn: u8,
    ) {
        ReceiverSession::handle_datagram_ecn(self, now, from, b, ecn)
    }
    fn handle_timeout(&mut self, now: tcplab_core::Time) {
        ReceiverSession::handle_timeout(self, now)
    }
    fn poll_datagram(&mut self, now: tcplab_core::Time, buf: &mut [u8]) -> Option<(usize, u8)> {
        let n = ReceiverSession::poll_datagram(self, now, buf)?;
        Some((n, self.last_ecn()))
    }
    fn poll_timeout(&self) -> Option<tcplab_core::Time> {
        ReceiverSession::poll_timeout(self)
    }
    fn peer(&self) -> Option<std::net::SocketAddr> {
        self.dest()
    }
    fn interrupt(&mut self, now: tcplab_core::Time) {
        ReceiverSession::interrupt(self, now)
    }
    fn finished(&self, now: tcplab_core::Time) -> bool {
        self.is_finished(now)
    }
}

#[cfg(test)]
mod ecn_tests;
#[cfg(test)]
mod hello_tests;
#[cfg(test)]
mod tests;
