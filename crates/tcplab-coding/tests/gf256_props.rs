//! Every SIMD backend must agree byte for byte with the scalar reference,
//! for any length (including SIMD tails) and any slice alignment.

use proptest::prelude::*;
use tcplab_coding::gf256::{self, Backend};

fn data_and_offset() -> impl Strategy<Value = (Vec<u8>, Vec<u8>, usize, u8)> {
    (0usize..400, 0usize..32).prop_flat_map(|(len, off)| {
        (
            proptest::collection::vec(any::<u8>(), len + off),
            proptest::collection::vec(any::<u8>(), len + off),
            Just(off),
            any::<u8>(),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn mul_acc_matches_scalar((dst, src, off, c) in data_and_offset()) {
        let mut want = dst.clone();
        Backend::Scalar.mul_acc(&mut want[off..], &src[off..], c);
        for b in Backend::available() {
            let mut got = dst.clone();
            b.mul_acc(&mut got[off..], &src[off..], c);
            prop_assert_eq!(&got, &want, "backend {:?}", b);
        }
        // And the definition, element by element.
        for i in off..dst.len() {
            prop_assert_eq!(want[i], dst[i] ^ gf256::mul(c, src[i]));
        }
    }

    #[test]
    fn xor_into_matches_scalar((dst, src, off, _c) in data_and_offset()) {
        for b in Backend::available() {
            let mut got = dst.clone();
            b.xor_into(&mut got[off..], &src[off..]);
            for i in off..dst.len() {
                prop_assert_eq!(got[i], dst[i] ^ src[i], "backend {:?}", b);
            }
            prop_assert_eq!(&got[..off], &dst[..off]);
        }
    }

    #[test]
    fn mul_acc_rows_matches_row_by_row(
        len in 0usize..400,
        coeffs in proptest::collection::vec(any::<u8>(), 0..6),
        seed in any::<u64>(),
    ) {
        let mut rng = tcplab_coding::rng::SplitMix64::new(seed);
        let mut rows = vec![0u8; len * coeffs.len()];
        rng.fill_bytes(&mut rows);
        let mut dst = vec![0u8; len];
        rng.fill_bytes(&mut dst);
        let mut want = dst.clone();
        for (row, &c) in rows.chunks_exact(len.max(1)).zip(&coeffs) {
            if len > 0 {
                Backend::Scalar.mul_acc(&mut want, row, c);
            }
        }
        for b in Backend::available() {
            let mut got = dst.clone();
            b.mul_acc_rows(&mut got, &rows, &coeffs);
            prop_assert_eq!(&got, &want, "backend {:?}", b);
        }
    }

    #[test]
    fn mul_in_place_matches_scalar((buf, _src, off, c) in data_and_offset()) {
        for b in Backend::available() {
            let mut got = buf.clone();
            b.mul_in_place(&mut got[off..], c);
            for i in off..buf.len() {
                prop_assert_eq!(got[i], gf256::mul(c, buf[i]), "backend {:?}", b);
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[test]
fn simd_backends_are_used_where_available() {
    // Not an assertion on the machine, but make sure the SIMD paths were
    // actually exercised where the CPU has them.
    let avail = Backend::available();
    if std::arch::is_x86_feature_detected!("avx2") {
        assert!(avail.contains(&Backend::Avx2));
        assert_eq!(Backend::active(), Backend::Avx2);
    }
    if std::arch::is_x86_feature_detected!("ssse3") {
        assert!(avail.contains(&Backend::Ssse3));
    }
}
