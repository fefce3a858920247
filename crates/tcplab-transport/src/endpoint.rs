//! The sans-IO endpoint contract every transport implements.
//!
//! A flow is two endpoints: the *source*, where the application writes, and the *sink*,
//! where it reads. A driver (the simulator, the UDP driver) calls, in the style of
//! quinn-proto:
//!
//! - inputs: [`Endpoint::handle_packet`] for each packet that arrives,
//!   [`Endpoint::handle_timeout`] once the time from `poll_timeout` has come;
//! - outputs: [`Endpoint::poll_transmit`] until it returns `None`, then
//!   [`Endpoint::poll_timeout`] for the next wake-up;
//! - the application: [`Endpoint::start`] and [`Endpoint::stop`] (the source's writer);
//! - results: [`Endpoint::progress`] for completion and the no-data-lost check,
//!   [`Endpoint::sample`] for time series and [`Endpoint::summary`] for the flows table,
//!   both through the one [`Metrics`] route.
//!
//! Endpoints never read a clock or touch a socket: `now` is always passed in.

use crate::error::Violation;
use crate::packet::Packet;
use tcplab_core::{Metrics, Time};

/// How far a flow's application data got, as one endpoint sees it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    /// Source: bytes the application has written into the transport so far.
    /// Sink: bytes delivered to the application (in order, for a reliable transport).
    pub app_bytes: u64,
    /// Source: the highest byte offset sent at least once; no sink may deliver beyond it.
    /// Sink: unused (0).
    pub sent_bytes: u64,
    /// Source: when the transfer finished — every written byte acknowledged (reliable) or
    /// sent (unreliable) after the writer stopped or reached its byte count.
    /// Sink: when the last byte of a finite transfer was delivered.
    pub finished_at: Option<Time>,
}

/// A sans-IO endpoint (see the module docs for the calling protocol).
pub trait Endpoint {
    /// Processes a packet from the peer. An `Err` is a broken invariant: the run is wrong.
    fn handle_packet(&mut self, now: Time, pkt: &Packet) -> Result<(), Violation>;
    /// Runs timers that are due at `now`.
    fn handle_timeout(&mut self, now: Time);
    /// The next packet to send at `now`, if any.
    fn poll_transmit(&mut self, now: Time) -> Option<Packet>;
    /// When the endpoint next needs `handle_timeout` (`None`: only a packet wakes it).
    fn poll_timeout(&self) -> Option<Time>;
    /// The application starts writing (sources; sinks ignore it).
    fn start(&mut self, _now: Time) {}
    /// The application stops writing: data already written is still delivered.
    fn stop(&mut self, _now: Time) {}
    fn progress(&self) -> Progress;
    /// Publishes one time-series sample.
    fn sample(&self, _out: &mut dyn Metrics) {}
    /// Publishes the endpoint's columns of the flows table, once at the end of a run.
    fn summary(&self, _out: &mut dyn Metrics) {}
}

impl<E: Endpoint + ?Sized> Endpoint for Box<E> {
    fn handle_packet(&mut self, now: Time, pkt: &Packet) -> Result<(), Violation> {
        (**self).handle_packet(now, pkt)
    }
    fn handle_timeout(&mut self, now: Time) {
        (**self).handle_timeout(now)
    }
    fn poll_transmit(&mut self, now: Time) -> Option<Packet> {
        (**self).poll_transmit(now)
    }
    fn poll_timeout(&self) -> Option<Time> {
        (**self).poll_timeout()
    }
    fn start(&mut self, now: Time) {
        (**self).start(now)
    }
    fn stop(&mut self, now: Time) {
        (**self).stop(now)
    }
    fn progress(&self) -> Progress {
        (**self).progress()
    }
    fn sample(&self, out: &mut dyn Metrics) {
        (**self).sample(out)
    }
    fn summary(&self, out: &mut dyn Metrics) {
        (**self).summary(out)
    }
}
