//! Frame errors from the signal-to-noise ratio: ns-3's `NistErrorRateModel`
//! (src/wifi/model/nist-error-rate-model.cc; Pei and Henderson, "Validation of OFDM error
//! rate model in ns-3", Boeing, 2010), for the OFDM modulations of 802.11a/g/n/ac.
//!
//! The uncoded bit error rate of the constellation at SNR `s` (linear) is
//! - BPSK: ½·erfc(√s); QPSK: ½·erfc(√(s/2));
//! - M-QAM: (√M − 1)/(√M·log2 √M) · erfc(√(s / (2(M − 1)/3))) (ns-3's expression as
//!   written, including its integer division of 2(M − 1) by 3);
//!
//! then the Viterbi decoder's first-event error probability Pe from the union bound over
//! the convolutional code's distance spectrum (code rate 1/2, 2/3, 3/4, 5/6; ns-3's
//! `CalculatePe`), and a chunk of `n` bits survives with probability (1 − Pe)^n. A frame's
//! error probability is 1 minus its PSDU's survival (the preamble and header, sent at the
//! most robust rate, are taken as received).

/// Modulation and code rate of an OFDM data rate: bits per subcarrier (1 BPSK, 2 QPSK, 4,
/// 6, 8 for 16/64/256-QAM) and the code rate's numerator / denominator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Modulation {
    pub bits: u32,
    pub rate_num: u32,
    pub rate_den: u32,
}

fn bpsk_ber(snr: f64) -> f64 {
    0.5 * libm::erfc(snr.sqrt())
}

fn qpsk_ber(snr: f64) -> f64 {
    0.5 * libm::erfc((snr / 2.0).sqrt())
}

fn qam_ber(m: u32, snr: f64) -> f64 {
    // ns-3 divides the integers 2(M − 1) by 3 (truncating) and takes √M as an integer.
    let z = (snr / ((2 * (m - 1)) / 3) as f64).sqrt();
    let k = (m as f64).sqrt().floor();
    ((k - 1.0) / (k * k.log2())) * libm::erfc(z)
}

/// Pe of the decoder for bit error rate `p` and code rate `num/den` (ns-3's
/// `CalculatePe`, its `bValue` 1, 2, 3, 5 for rates 1/2, 2/3, 3/4, 5/6).
fn first_event(p: f64, num: u32, den: u32) -> f64 {
    let d = (4.0 * p * (1.0 - p)).sqrt();
    // Σ coef[i]·D^(first + i·step).
    let sum = |first: i32, step: i32, coef: &[f64]| -> f64 {
        coef.iter()
            .enumerate()
            .map(|(i, c)| c * d.powi(first + i as i32 * step))
            .sum()
    };
    match (num, den) {
        (1, 2) => {
            0.5 * sum(
                10,
                2,
                &[
                    36.0,
                    211.0,
                    1404.0,
                    11633.0,
                    77433.0,
                    502690.0,
                    3322763.0,
                    21292910.0,
                    134365911.0,
                ],
            )
        }
        (2, 3) => {
            sum(
                6,
                1,
                &[
                    3.0, 70.0, 285.0, 1276.0, 6160.0, 27128.0, 117019.0, 498860.0, 2103891.0,
                    8784123.0,
                ],
            ) / 4.0
        }
        (3, 4) => {
            sum(
                5,
                1,
                &[
                    42.0,
                    201.0,
                    1492.0,
                    10469.0,
                    62935.0,
                    379644.0,
                    2253373.0,
                    13073811.0,
                    75152755.0,
                    428005675.0,
                ],
            ) / 6.0
        }
        _ => {
            sum(
                4,
                1,
                &[
                    92.0,
                    528.0,
                    8694.0,
                    79453.0,
                    792114.0,
                    7375573.0,
                    67884974.0,
                    610875423.0,
                    5427275376.0,
                    47664215639.0,
                ],
            ) / 10.0
        }
    }
}

/// Probability that `bits` of data sent with `m` are received without error at `snr`
/// (linear).
pub fn chunk_success(m: Modulation, snr: f64, bits: u64) -> f64 {
    let ber = match m.bits {
        1 => bpsk_ber(snr),
        2 => qpsk_ber(snr),
        b => qam_ber(1 << b, snr),
    };
    if ber == 0.0 {
        return 1.0;
    }
    let pe = first_event(ber, m.rate_num, m.rate_den).min(1.0);
    (1.0 - pe).powf(bits as f64)
}

/// The error probability of an MPDU of `bytes` sent with `m` at `snr_db`.
pub fn frame_error(m: Modulation, snr_db: f64, bytes: u64) -> f64 {
    1.0 - chunk_success(m, 10f64.powf(snr_db / 10.0), 8 * bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    const BPSK_12: Modulation = Modulation {
        bits: 1,
        rate_num: 1,
        rate_den: 2,
    };
    const QAM64_56: Modulation = Modulation {
        bits: 6,
        rate_num: 5,
        rate_den: 6,
    };

    /// The BER expressions at known points, and the frame error rate falling with SNR
    /// and rising with the modulation order and the frame length.
    #[test]
    fn shape_of_the_model() {
        // BPSK at Eb/N0 = 1 (0 dB): ½·erfc(1) = 0.0786.
        assert!((bpsk_ber(1.0) - 0.078_649_6).abs() < 1e-6);
        // 16-QAM: z = √(s/10), coefficient (4 − 1)/(4·2) = 3/8.
        assert!((qam_ber(16, 10.0) - 0.375 * libm::erfc(1.0)).abs() < 1e-12);
        let fer = |m, db| frame_error(m, db, 1538);
        assert!(fer(BPSK_12, 0.0) > 0.5 && fer(BPSK_12, 6.0) < 1e-3);
        // A 1538-byte MPDU at 64-QAM 5/6 (HT MCS 7/15): lost at 22 dB, through at 26 dB.
        assert!(fer(QAM64_56, 22.0) > 0.9 && fer(QAM64_56, 26.0) < 1e-3);
        for db in [23.0, 23.5, 24.0] {
            assert!(fer(QAM64_56, db) > fer(QAM64_56, db + 0.5));
            assert!(frame_error(QAM64_56, db, 3000) > fer(QAM64_56, db));
        }
    }
}
