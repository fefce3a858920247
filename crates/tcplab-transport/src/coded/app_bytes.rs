//! The application's bytes in payload mode (`payload = true`).

use tcplab_coding::rng::{mix64, SplitMix64};

/// The application's bytes of segment `index` of flow `flow` (`out.len()` of them): a
/// fixed pseudo-random function of the position, so a sink can check every byte it
/// delivers without a copy of the data.
pub fn segment_bytes(flow: u32, index: u32, out: &mut [u8]) {
    SplitMix64::new(mix64((u64::from(flow) << 32) | u64::from(index))).fill_bytes(out);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_are_a_function_of_the_position() {
        let (mut a, mut b) = ([0u8; 16], [0u8; 16]);
        segment_bytes(0, 3, &mut a);
        segment_bytes(0, 3, &mut b);
        assert_eq!(a, b);
        segment_bytes(0, 4, &mut b);
        assert_ne!(a, b);
        segment_bytes(1, 3, &mut b);
        assert_ne!(a, b);
    }
}
