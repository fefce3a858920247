//! Fuzz entry points, shared by the cargo-fuzz targets in `fuzz/` and by an
//! ordinary test that feeds them random and garbage bytes on stable Rust.
//!
//! Each entry builds a small decoder from the first input bytes, feeds the
//! rest as length-prefixed chunks of untrusted symbols, then a valid symbol
//! stream. Invariants checked (a violation panics, which the fuzzer reports):
//! nothing panics on any input; reported indices are in range and really
//! recovered; a rejected symbol leaves no trace — if every untrusted chunk
//! was rejected, the valid stream still decodes to the exact source bytes.

use crate::lt::{DegreeSpec, LtDecoder, LtEncoder, LtParams};
use crate::rlnc::{RlncDecoder, RlncEncoder};
use crate::rng::SplitMix64;

/// How many untrusted chunks a run accepted and rejected, so tests can
/// check that both paths were exercised.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Exercised {
    pub accepted: usize,
    pub rejected: usize,
}

impl std::ops::AddAssign for Exercised {
    fn add_assign(&mut self, o: Self) {
        self.accepted += o.accepted;
        self.rejected += o.rejected;
    }
}

/// Split `data` into chunks, each prefixed by a length byte.
fn chunks(mut data: &[u8]) -> impl Iterator<Item = &[u8]> {
    std::iter::from_fn(move || {
        let (&len, rest) = data.split_first()?;
        let n = usize::from(len % 48).min(rest.len());
        let (chunk, rest) = rest.split_at(n);
        data = rest;
        Some(chunk)
    })
}

fn source(len: usize, seed: u64) -> Vec<u8> {
    let mut v = vec![0; len];
    SplitMix64::new(seed).fill_bytes(&mut v);
    v
}

/// LT: parse and decode untrusted bytes.
pub fn lt_decoder_input(data: &[u8]) -> Exercised {
    let mut ex = Exercised::default();
    let Some((cfg, rest)) = data.split_first_chunk::<3>() else {
        let _ = crate::lt::LtSymbolRef::from_bytes(data);
        return ex;
    };
    let symbol_size = 1 + usize::from(cfg[0] % 8);
    let window = 1 + u32::from(cfg[1] % 6);
    let len = 1 + usize::from(cfg[2] % 40);
    let degrees = if cfg[1] & 0x80 == 0 {
        DegreeSpec::RobustSoliton { c: 0.2, delta: 0.5 }
    } else {
        DegreeSpec::IdealSoliton
    };
    let params = LtParams::tcp_forward(symbol_size, window, degrees).expect("valid params");
    let src = source(
        len,
        u64::from_le_bytes([cfg[0], cfg[1], cfg[2], 0, 0, 0, 0, 0]),
    );
    let mut dec = LtDecoder::new(params.clone(), len as u64).expect("valid decoder");
    let k = dec.num_source_symbols();
    let mut accepted_untrusted = false;
    for chunk in chunks(rest) {
        match dec.receive(chunk) {
            Ok(rec) => {
                accepted_untrusted = true;
                ex.accepted += 1;
                for &i in rec {
                    assert!(i < k, "reported index out of range");
                }
            }
            Err(_) => ex.rejected += 1,
        }
    }
    for i in 0..k {
        if let Some(s) = dec.source(i) {
            assert_eq!(s.len(), dec.layout().symbol_len(i));
        }
    }
    // Then a valid stream, round-robin over generations.
    let mut enc = LtEncoder::new(params, &src).expect("valid encoder");
    let gens = enc.num_generations();
    let mut buf = Vec::new();
    for seed in 0..(200 * k) {
        if dec.is_complete() {
            break;
        }
        enc.encode_into(seed % gens, seed, &mut buf)
            .expect("in range");
        let rec = dec.receive(&buf).expect("valid symbol accepted").to_vec();
        for i in rec {
            assert!(dec.is_recovered(i));
        }
    }
    if !accepted_untrusted {
        assert!(dec.is_complete(), "valid stream must decode");
        assert_eq!(dec.data(), Some(&src[..]), "rejected input corrupted state");
    }
    ex
}

/// RLNC: parse and decode untrusted bytes.
pub fn rlnc_decoder_input(data: &[u8]) -> Exercised {
    let mut ex = Exercised::default();
    let Some((cfg, rest)) = data.split_first_chunk::<3>() else {
        let _ = crate::rlnc::RlncSymbolRef::from_bytes(data);
        return ex;
    };
    let packet_size = 1 + usize::from(cfg[0] % 8);
    let capacity = 1 + usize::from(cfg[1] % 6);
    let packets = 1 + usize::from(cfg[2] % 6).min(capacity - 1);
    let mut dec = RlncDecoder::new(packet_size, capacity).expect("valid decoder");
    let mut accepted_untrusted = false;
    for chunk in chunks(rest) {
        match dec.receive(chunk) {
            Ok(receipt) => {
                accepted_untrusted = true;
                ex.accepted += 1;
                assert!(receipt.rank <= capacity);
                let newly = Vec::from(receipt.newly_decoded);
                for i in newly {
                    assert!(dec.is_decoded(i) && dec.is_seen(i));
                }
            }
            Err(_) => ex.rejected += 1,
        }
    }
    if accepted_untrusted {
        // Garbage that parsed may have been combined in: only robustness
        // is checked from here on.
        let _ = dec.first_unseen();
        let _ = dec.drop_decoded_prefix();
        return ex;
    }
    let src = source(packets * packet_size, u64::from(cfg[2]));
    let mut enc = RlncEncoder::new(packet_size, capacity).expect("valid encoder");
    for p in src.chunks(packet_size) {
        enc.push(p).expect("window has room");
    }
    let mut buf = Vec::new();
    for seed in 0..200 {
        if dec.first_undecoded() == packets as u32 && dec.horizon() == packets as u32 {
            break;
        }
        enc.encode_into(seed, &mut buf).expect("non-empty window");
        dec.receive(&buf).expect("valid symbol accepted");
    }
    for (i, p) in src.chunks(packet_size).enumerate() {
        assert_eq!(
            dec.packet(i as u32),
            Some(p),
            "rejected input corrupted state"
        );
    }
    ex
}
