//! Malformed input yields a descriptive `CodingError`, never a panic, and
//! leaves decoder state untouched.

use std::error::Error;
use tcplab_coding::lt::{DegreeSpec, LtDecoder, LtEncoder, LtParams, LT_HEADER_LEN};
use tcplab_coding::rlnc::{RlncDecoder, RlncEncoder};
use tcplab_coding::CodingError;

fn lt_setup() -> (LtEncoder, LtDecoder, Vec<u8>) {
    let data: Vec<u8> = (0..100).collect();
    let params =
        LtParams::tcp_forward(8, 6, DegreeSpec::RobustSoliton { c: 0.1, delta: 0.5 }).unwrap();
    let mut enc = LtEncoder::new(params.clone(), &data).unwrap();
    let dec = LtDecoder::new(params, 100).unwrap();
    let mut sym = Vec::new();
    enc.encode_into(1, 5, &mut sym).unwrap();
    (enc, dec, sym)
}

#[test]
fn lt_truncated_symbol() {
    let (_, mut dec, sym) = lt_setup();
    for cut in 0..sym.len() {
        let err = dec.receive(&sym[..cut]).unwrap_err();
        assert!(matches!(err, CodingError::Truncated { .. }), "{err:?}");
    }
    assert_eq!(dec.stats().received, 0, "rejected symbols leave no trace");
}

#[test]
fn lt_wrong_length() {
    let (_, mut dec, mut sym) = lt_setup();
    sym.push(0);
    assert!(matches!(
        dec.receive(&sym),
        Err(CodingError::TrailingBytes { .. })
    ));
    // A well-formed symbol whose payload differs from the configured size.
    let (_, _, good) = lt_setup();
    let mut short = good[..good.len() - 1].to_vec();
    short[10..12].copy_from_slice(&7u16.to_be_bytes());
    assert_eq!(
        dec.receive(&short).unwrap_err(),
        CodingError::PayloadLength {
            expected: 8,
            found: 7
        }
    );
}

#[test]
fn lt_generation_out_of_range() {
    let (enc, mut dec, mut sym) = lt_setup();
    let gens = enc.num_generations();
    sym[2..6].copy_from_slice(&gens.to_be_bytes());
    let err = dec.receive(&sym).unwrap_err();
    assert_eq!(
        err,
        CodingError::GenerationOutOfRange {
            generation: gens,
            generations: gens
        }
    );
    assert!(err.to_string().contains("out of range"));
    sym[2..6].copy_from_slice(&u32::MAX.to_be_bytes());
    assert!(dec.receive(&sym).is_err());
    let mut enc = enc;
    assert!(enc.encode(gens, 0).is_err());
}

#[test]
fn lt_rejects_other_symbol_kinds() {
    let (_, mut dec, _) = lt_setup();
    let mut enc = RlncEncoder::new(8, 4).unwrap();
    enc.push(b"abc").unwrap();
    let mut r = Vec::new();
    enc.encode_into(0, &mut r).unwrap();
    assert!(matches!(
        dec.receive(&r),
        Err(CodingError::WrongKind { .. })
    ));
    assert!(dec.receive(&[]).is_err());
    assert!(dec.receive(b"L").is_err());
    let mut bad_version = vec![b'L', 2];
    bad_version.extend([0; LT_HEADER_LEN]);
    assert_eq!(
        dec.receive(&bad_version).unwrap_err(),
        CodingError::UnsupportedVersion(2)
    );
}

fn rlnc_setup() -> (RlncEncoder, RlncDecoder) {
    let mut enc = RlncEncoder::new(10, 4).unwrap();
    for i in 0..3u8 {
        enc.push(&[i; 10]).unwrap();
    }
    (enc, RlncDecoder::new(10, 4).unwrap())
}

#[test]
fn rlnc_coefficient_vector_of_wrong_size() {
    let (mut enc, mut dec) = rlnc_setup();
    let mut out = Vec::new();
    assert_eq!(
        enc.encode_with_coefficients_into(&[1, 2], &mut out)
            .unwrap_err(),
        CodingError::CoefficientCount {
            expected: 3,
            found: 2
        }
    );
    enc.encode_with_coefficients_into(&[1, 2, 3], &mut out)
        .unwrap();
    // Count field says 4 for a window of 3.
    let mut bad = out.clone();
    bad[12..14].copy_from_slice(&4u16.to_be_bytes());
    assert_eq!(
        dec.receive(&bad).unwrap_err(),
        CodingError::CoefficientCount {
            expected: 3,
            found: 4
        }
    );
    // Window length changed but coefficients not: count mismatch again.
    let mut bad = out.clone();
    bad[8..10].copy_from_slice(&2u16.to_be_bytes());
    assert!(matches!(
        dec.receive(&bad),
        Err(CodingError::CoefficientCount { .. })
    ));
    // One coefficient byte missing: the payload is then one byte short.
    let mut short = out.clone();
    short.remove(14);
    assert!(matches!(
        dec.receive(&short),
        Err(CodingError::Truncated { .. })
    ));
    assert_eq!(dec.rank(), 0);
    assert_eq!(dec.stats().received, 0);
}

#[test]
fn rlnc_truncated_and_wrong_length() {
    let (mut enc, mut dec) = rlnc_setup();
    let mut sym = Vec::new();
    enc.encode_into(9, &mut sym).unwrap();
    for cut in 0..sym.len() {
        assert!(matches!(
            dec.receive(&sym[..cut]),
            Err(CodingError::Truncated { .. })
        ));
    }
    let mut long = sym.clone();
    long.push(1);
    assert!(matches!(
        dec.receive(&long),
        Err(CodingError::TrailingBytes { .. })
    ));
    // Consistent header, payload size differing from the decoder's.
    let mut other = RlncEncoder::new(11, 4).unwrap();
    other.push(b"x").unwrap();
    other.encode_into(1, &mut sym).unwrap();
    assert_eq!(
        dec.receive(&sym).unwrap_err(),
        CodingError::PayloadLength {
            expected: 12,
            found: 13
        }
    );
}

#[test]
fn rlnc_window_out_of_range() {
    let (mut enc, mut dec) = rlnc_setup();
    let mut sym = Vec::new();
    enc.encode_into(9, &mut sym).unwrap();
    // Window start far beyond what the decoder (capacity 4) can hold.
    let mut far = sym.clone();
    far[4..8].copy_from_slice(&100u32.to_be_bytes());
    let err = dec.receive(&far).unwrap_err();
    assert!(
        matches!(err, CodingError::WindowOutOfRange { .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("capacity"));
    // Start + length overflowing u32.
    let mut overflow = sym.clone();
    overflow[4..8].copy_from_slice(&u32::MAX.to_be_bytes());
    assert!(matches!(
        dec.receive(&overflow),
        Err(CodingError::WindowOutOfRange { .. })
    ));
    // Empty window.
    let mut empty = sym;
    empty[8..10].copy_from_slice(&0u16.to_be_bytes());
    assert!(matches!(
        dec.receive(&empty),
        Err(CodingError::WindowOutOfRange { .. })
    ));
}

#[test]
fn encoder_misuse_is_an_error() {
    let mut enc = RlncEncoder::new(4, 2).unwrap();
    let mut out = Vec::new();
    assert!(enc.encode_into(0, &mut out).is_err(), "empty window");
    assert!(matches!(
        enc.push(&[0; 5]),
        Err(CodingError::PacketTooLong { .. })
    ));
    enc.push(&[1]).unwrap();
    enc.push(&[2]).unwrap();
    assert_eq!(
        enc.push(&[3]).unwrap_err(),
        CodingError::WindowFull { capacity: 2 }
    );
    assert!(enc.slide_to(5).is_err());
    enc.slide_to(1).unwrap();
    assert_eq!(enc.window(), 1..2);
    assert!(RlncEncoder::new(0, 1).is_err());
    assert!(RlncDecoder::new(1, 0).is_err());
    assert!(LtParams::new(0, 1, 1, DegreeSpec::IdealSoliton).is_err());
}

#[test]
fn errors_are_std_errors_with_clear_messages() {
    let errs: Vec<Box<dyn Error + Send + Sync>> = vec![
        Box::new(CodingError::Truncated {
            what: "seed",
            needed: 4,
            available: 1,
        }),
        Box::new(CodingError::CoefficientCount {
            expected: 3,
            found: 4,
        }),
        Box::new(CodingError::GenerationOutOfRange {
            generation: 9,
            generations: 2,
        }),
    ];
    let msgs: Vec<String> = errs.iter().map(|e| e.to_string()).collect();
    assert!(msgs[0].contains("truncated") && msgs[0].contains("seed"));
    assert!(msgs[1].contains("4") && msgs[1].contains("3"));
    assert!(msgs[2].contains("generation id 9"));
}
