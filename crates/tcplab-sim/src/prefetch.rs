//! Asking the cache for a value's first lines ahead of its use.
//!
//! With thousands of flows each packet hop finds its next link direction out of the
//! L2; when the loop knows that direction well before it admits there, a prefetch lets
//! the miss overlap the work in between instead of stalling the admission.

/// Asks for the first two cache lines at `v` (a hint: no effect on any result, and no
/// fault whatever the address, so `v` need not point at a value).
#[inline(always)]
pub(crate) fn first_two_lines<T>(v: *const T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let p = v as *const i8;
        // SAFETY: `sse` is part of the x86_64 baseline, and a prefetch never faults,
        // whatever the address (it reads nothing the program sees).
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(p);
            _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(64));
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = v;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A prefetch reads nothing the program sees and never faults: of a value, of no
    /// address, and of an address far past any allocation (as the loop may compute for a
    /// medium index that is not one).
    #[test]
    fn a_prefetch_of_any_address_changes_nothing() {
        let v = [7u64; 32];
        first_two_lines(&v);
        first_two_lines(std::ptr::null::<u64>());
        first_two_lines(v.as_ptr().wrapping_add(1 << 40));
        assert_eq!(v, [7u64; 32]);
    }
}
