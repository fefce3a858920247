//! A registered transport's packets in the UDP driver's wire format (docs/wire-format.md):
//! OPAQUE, the [`Opaque`] header's kind, its length on the wire and its six words after
//! the driver's common header, then zero padding so that the datagram is as long as the
//! simulated packet, up to an Ethernet MTU.
//!
//! The driver cannot know what the words mean: it checks the form (the fixed part, a
//! length on the wire, exactly the padding that length gives, all zeros) and each end
//! checks the rest. The HELLO of a registered transport carries [`REGISTERED_CODE`] and
//! the flow's table, whose `transport` key names it.

use crate::codec::{CodecError, Reader, Writer};
use crate::opaque::Opaque;
use crate::wire_flow::{any_packet, WireFlow};
use crate::wire_packet::{WireClaim, WirePacket, COMMON_HEADER, IP_UDP};

/// Message type code (the common header's type byte), both directions.
pub const OPAQUE_TYPE: u8 = 22;
/// Fixed part: kind (2), reserved (2), length on the wire (4), six words (48).
pub const OPAQUE_FIXED: usize = 56;
/// The HELLO's transport byte for a transport registered at run time (its flow table
/// names it); no built-in uses it (a test checks).
pub const REGISTERED_CODE: u8 = 255;
/// The longest IP packet an OPAQUE datagram is padded to: Ethernet's 1500-byte MTU
/// (RFC 894). A longer simulated packet travels as a 1500-byte one (plus the MAC's bytes
/// with a pre-shared key).
pub const MAX_IP_LEN: u32 = 1500;
/// IPv4, UDP, the common header and the fixed part: the shortest OPAQUE datagram's IP
/// length (100 bytes).
pub const MIN_IP_LEN: u32 = (IP_UDP + COMMON_HEADER + OPAQUE_FIXED) as u32;

/// Zero bytes after the fixed part of a packet `wire_len` bytes long on the wire: what
/// makes the IP packet that long, within [`MIN_IP_LEN`] ..= [`MAX_IP_LEN`].
pub fn padding(wire_len: u32) -> u32 {
    wire_len.min(MAX_IP_LEN).saturating_sub(MIN_IP_LEN)
}

/// How the driver carries a registered transport's flow: OPAQUE both ways, no payload
/// bytes of its own (the padding is zeros) and no windows the driver can check.
/// `reliable` is the built ends' ([`UserEndpoints`](crate::transport::UserEndpoints)).
pub fn registered_flow() -> WireFlow {
    WireFlow {
        // The HELLO's `mss`: the longest datagram's padding (the driver checks no
        // payload against it).
        mss: padding(MAX_IP_LEN),
        rcv_buf: u64::MAX,
        reliable: true,
        source_types: &[OPAQUE_TYPE],
        sink_types: &[OPAQUE_TYPE],
        accepts: any_packet,
        symbol_bytes: false,
        resize: None,
        refuse: None,
    }
}

impl WirePacket for Opaque {
    const TYPES: &'static [u8] = &[OPAQUE_TYPE];

    fn wire_type(&self) -> Option<u8> {
        Some(OPAQUE_TYPE)
    }
    fn fixed_len(&self) -> usize {
        OPAQUE_FIXED
    }
    fn put_fixed(&self, w: &mut Writer<'_>) -> Result<(), CodecError> {
        if self.wire_len == 0 {
            return Err(CodecError::Invalid("length on the wire (0)"));
        }
        w.u16(self.kind);
        w.u16(0);
        w.u32(self.wire_len);
        for &x in &self.words {
            w.u64(x);
        }
        Ok(())
    }
    fn get_fixed(_ty: u8, _flags: u8, r: &mut Reader<'_>) -> Result<Self, CodecError> {
        let kind = r.u16("kind")?;
        let _reserved = r.u16("reserved")?;
        let wire_len = r.u32("length on the wire")?;
        if wire_len == 0 {
            return Err(CodecError::Invalid("length on the wire (0)"));
        }
        let mut words = [0; 6];
        for x in &mut words {
            *x = r.u64("word")?;
        }
        Ok(Opaque {
            kind,
            words,
            wire_len,
        })
    }
    fn set_payload(&mut self, len: usize) -> Result<(), CodecError> {
        if len != padding(self.wire_len) as usize {
            return Err(CodecError::Invalid(
                "padding (not what the length on the wire gives)",
            ));
        }
        Ok(())
    }
    fn claim(&self) -> WireClaim {
        WireClaim::Opaque {
            padding: padding(self.wire_len),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(o: Opaque) -> Result<Opaque, CodecError> {
        let mut buf = [0u8; OPAQUE_FIXED];
        o.put_fixed(&mut Writer::new(&mut buf))?;
        let mut p = Opaque::get_fixed(OPAQUE_TYPE, 0, &mut Reader::new(&buf))?;
        p.set_payload(padding(o.wire_len) as usize)?;
        Ok(p)
    }

    #[test]
    fn every_field_travels() {
        let o = Opaque {
            kind: 0xBEEF,
            words: [1, u64::MAX, 3, 1 << 40, 5, 6],
            wire_len: 1232,
        };
        assert_eq!(round_trip(o), Ok(o));
        assert_eq!(o.claim(), WireClaim::Opaque { padding: 1132 });
        // Longer than an MTU: padded to one; shorter than the headers: none.
        assert_eq!(padding(9000), 1400);
        assert_eq!(padding(32), 0);
        assert!(round_trip(Opaque { wire_len: 0, ..o }).is_err());
    }

    #[test]
    fn a_wrong_padding_or_a_short_fixed_part_is_refused() {
        let o = Opaque {
            kind: 1,
            words: [7; 6],
            wire_len: 600,
        };
        let mut buf = [0u8; OPAQUE_FIXED];
        o.put_fixed(&mut Writer::new(&mut buf)).unwrap();
        let mut p = Opaque::get_fixed(OPAQUE_TYPE, 0, &mut Reader::new(&buf)).unwrap();
        assert!(p.set_payload(499).is_err() && p.set_payload(501).is_err());
        assert!(p.set_payload(500).is_ok());
        for n in 0..OPAQUE_FIXED {
            assert!(Opaque::get_fixed(OPAQUE_TYPE, 0, &mut Reader::new(&buf[..n])).is_err());
        }
    }
}
