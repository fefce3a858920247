//! A bulk sender and receiver on the kernel's own TCP, for running Linux's congestion
//! controllers (`TCP_CONGESTION` = cubic, bbr, reno, ...) through the emulator beside
//! tcplab's, with the simulator's flow tables read off `TCP_INFO`.
//!
//! The sender opens with a 24-byte preamble (magic, version, payload key, byte count or
//! "until closed"), then writes [`crate::payload`] bytes. The receiver checks every byte,
//! and on end of stream answers with what it got (count, the `CLOCK_MONOTONIC` time of the
//! last byte, ACK segments it sent, a status), so the sender's report says whether the
//! receiver delivered exactly the bytes sent.

mod info;
mod receiver;
mod sender;

pub use info::{set_congestion, NsCounters, TcpInfo};
pub use receiver::{receive, receive_until, RecvReport};
pub use sender::{send, SendConfig, SendReport};

pub(crate) const MAGIC: u32 = 0x544c_4b54; // "TLKT"
pub(crate) const VERSION: u8 = 1;
pub(crate) const PREAMBLE: usize = 24;
pub(crate) const REPLY: usize = 28;
/// Byte count of a transfer that lasts until the sender closes.
pub(crate) const UNTIL_CLOSED: u64 = u64::MAX;

/// Receiver's verdict on the stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecvStatus {
    Ok = 0,
    /// A byte differed from the payload pattern.
    Corrupt = 1,
    /// The stream ended before the announced byte count.
    Short = 2,
}

pub(crate) fn encode_reply(
    bytes: u64,
    done_mono_ns: u64,
    acks: u32,
    status: RecvStatus,
) -> [u8; REPLY] {
    let mut r = [0u8; REPLY];
    r[0..4].copy_from_slice(&MAGIC.to_be_bytes());
    r[4..12].copy_from_slice(&bytes.to_be_bytes());
    r[12..20].copy_from_slice(&done_mono_ns.to_be_bytes());
    r[20..24].copy_from_slice(&acks.to_be_bytes());
    r[24] = status as u8;
    r
}
