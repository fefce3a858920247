//! What the emulator's queue disciplines read and write in a real IP packet: the ECN
//! field (RFC 3168 section 5), the IPv4 header checksum (RFC 791, RFC 1071) and the
//! 5-tuple FQ-CoDel hashes (RFC 8290 section 4.1.1, as Linux's `skb_get_hash`).

/// The ECN codepoints (RFC 3168 section 5): Not-ECT, ECT(1), ECT(0), CE.
pub const NOT_ECT: u8 = 0b00;
pub const ECT1: u8 = 0b01;
pub const ECT0: u8 = 0b10;
pub const CE: u8 = 0b11;

/// The packet's ECN field, `None` if it is not a whole IPv4 or IPv6 header.
pub fn ecn(p: &[u8]) -> Option<u8> {
    match p.first()? >> 4 {
        4 if p.len() >= 20 => Some(p[1] & 0b11),
        // Traffic class: the low 4 bits of byte 0 and the high 4 of byte 1; ECN is its
        // low two bits (RFC 8200 section 7).
        6 if p.len() >= 40 => Some((p[1] >> 4) & 0b11),
        _ => None,
    }
}

/// Sets the ECN field to CE if it is ECT(0) or ECT(1) and returns true; an IPv4
/// header's checksum is recomputed (IPv6 has none). Leaves anything else untouched.
pub fn set_ce(p: &mut [u8]) -> bool {
    if !matches!(ecn(p), Some(ECT0 | ECT1)) {
        return false;
    }
    if p[0] >> 4 == 4 {
        p[1] |= CE;
        let ihl = ((p[0] & 0x0f) as usize * 4).clamp(20, p.len());
        p[10] = 0;
        p[11] = 0;
        let sum = ipv4_checksum(&p[..ihl]);
        p[10..12].copy_from_slice(&sum.to_be_bytes());
    } else {
        p[1] |= CE << 4;
    }
    true
}

/// The Internet checksum of an IPv4 header whose checksum field is zero (RFC 1071): the
/// one's complement of the one's-complement sum of its 16-bit words.
pub fn ipv4_checksum(header: &[u8]) -> u16 {
    let mut sum: u32 = header
        .chunks(2)
        .map(|w| u32::from(u16::from_be_bytes([w[0], *w.get(1).unwrap_or(&0)])))
        .sum();
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// True if a whole IPv4 header's checksum verifies (sums to 0xffff with its field).
pub fn ipv4_checksum_ok(p: &[u8]) -> bool {
    let ihl = (p[0] & 0x0f) as usize * 4;
    p.len() >= ihl && ihl >= 20 && ipv4_checksum(&p[..ihl]) == 0
}

/// A 64-bit key of the packet's flow: source and destination address, protocol, and
/// for TCP and UDP (first fragments) the two ports. Packets of one 5-tuple share a key;
/// FQ-CoDel hashes it with its perturbation.
pub fn flow_key(p: &[u8]) -> u64 {
    let (proto, ports_at, addrs) = match p.first().map(|b| b >> 4) {
        Some(4) if p.len() >= 20 => {
            let ihl = (p[0] & 0x0f) as usize * 4;
            let first_fragment = u16::from_be_bytes([p[6], p[7]]) & 0x1fff == 0;
            (p[9], first_fragment.then_some(ihl), &p[12..20])
        }
        Some(6) if p.len() >= 40 => (p[6], Some(40), &p[8..40]),
        _ => return 0,
    };
    let mut h = u64::from(proto);
    for w in addrs.chunks(8) {
        let mut b = [0u8; 8];
        b[..w.len()].copy_from_slice(w);
        h = mix(h ^ u64::from_be_bytes(b));
    }
    if matches!(proto, 6 | 17) {
        if let Some(at) = ports_at.filter(|&at| p.len() >= at + 4) {
            h = mix(h ^ u64::from(u32::from_be_bytes([p[at], p[at + 1], p[at + 2], p[at + 3]])));
        }
    }
    h
}

/// SplitMix64's finaliser (Steele, Lea and Flood, OOPSLA 2014): every input bit moves
/// every output bit.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 20-byte IPv4 header (checksum filled in) of a TCP segment, with ports.
    fn v4(tos: u8, sport: u16, dport: u16) -> Vec<u8> {
        let mut p = vec![
            0x45, tos, 0, 40, 0x12, 0x34, 0x40, 0, 64, 6, 0, 0, 100, 64, 0, 2, 100, 64, 0, 1,
        ];
        let c = ipv4_checksum(&p);
        p[10..12].copy_from_slice(&c.to_be_bytes());
        p.extend_from_slice(&sport.to_be_bytes());
        p.extend_from_slice(&dport.to_be_bytes());
        p.resize(40, 0);
        p
    }

    #[test]
    fn a_known_header_checksum() {
        // RFC 1071's worked example is of words; this header is the classic one from
        // Wikipedia's "IPv4 header checksum" (checksum 0xb861).
        let mut h = [
            0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00, 0xc0, 0xa8,
            0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
        ];
        assert_eq!(ipv4_checksum(&h), 0xb861);
        h[10] = 0xb8;
        h[11] = 0x61;
        assert!(ipv4_checksum_ok(&h));
    }

    #[test]
    fn ce_is_set_on_ect_only_and_the_checksum_stays_valid() {
        for (tos, marked) in [(0x02, true), (0x01, true), (0x00, false), (0x03, false)] {
            let mut p = v4(0xb8 | tos, 1, 2);
            let before = p.clone();
            assert_eq!(set_ce(&mut p), marked, "tos {tos:#x}");
            assert!(ipv4_checksum_ok(&p));
            if marked {
                assert_eq!(ecn(&p), Some(CE));
                assert_eq!(p[1] >> 2, 0xb8 >> 2, "DSCP kept");
                assert_ne!(p[10..12], before[10..12]);
            } else {
                assert_eq!(p, before);
            }
        }
    }

    #[test]
    fn ipv6_traffic_class_ecn() {
        let mut p = vec![0u8; 40];
        p[0] = 0x60 | 0x0b; // traffic class 0xb?: DSCP high bits
        p[1] = 0x20; // ECN ECT(0) in the traffic class's low bits
        p[6] = 6;
        assert_eq!(ecn(&p), Some(ECT0));
        assert!(set_ce(&mut p));
        assert_eq!(ecn(&p), Some(CE));
        assert_eq!(p[0], 0x6b);
        assert_eq!(p[1], 0x30);
    }

    #[test]
    fn the_flow_key_is_the_five_tuple() {
        let a = flow_key(&v4(0, 40000, 5201));
        assert_eq!(
            a,
            flow_key(&v4(0x02, 40000, 5201)),
            "ECN does not change the flow"
        );
        assert_ne!(a, flow_key(&v4(0, 40001, 5201)));
        assert_ne!(a, flow_key(&v4(0, 40000, 5202)));
        let mut other_host = v4(0, 40000, 5201);
        other_host[15] = 3;
        assert_ne!(a, flow_key(&other_host));
        assert_eq!(flow_key(&[0x45]), 0, "a runt is one flow");
    }
}
