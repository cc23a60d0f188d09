//! Prefix sums and sums of deltas over unsigned words, wrapping: the kernels of delta encoding.
//!
//! Deltas come in two forms. Plain differences `v[i] - v[i-1]` for non-decreasing data, and zigzagged
//! differences (`0, -1, 1, -2, …` as `0, 1, 2, 3, …`) otherwise, so that small steps in either direction
//! stay small. Both are computed with wrapping arithmetic in the unsigned domain, so every sequence of
//! the type, `MIN` next to `MAX` included, round-trips exactly.
//!
//! The running sum is a chain of dependent adds, one cycle a value in a scalar loop. With AVX2, 32- and
//! 64-bit words are scanned a vector at a time instead: shifted adds sum each vector's lanes in place
//! (independent from one vector to the next), and only one add and one broadcast a vector carry the
//! running value forward. (The compiler's own vectorization of a grouped scalar loop ran at 1 ns a value,
//! a third of the scalar loop's speed: it assembled each group lane by lane.)

use super::bitpack::dispatch_simd;
use crate::types::Word;

/// The zigzag form of a wrapping difference: `d` as a signed number `s`, then `2s` for `s >= 0` and
/// `-2s - 1` for `s < 0`.
#[inline(always)]
pub fn zigzag<U: Word>(d: U) -> U {
    (d << 1) ^ U::ZERO.wrapping_sub(d >> (U::BITS - 1))
}

/// The inverse of [`zigzag`].
#[inline(always)]
pub fn unzigzag<U: Word>(z: U) -> U {
    (z >> 1) ^ U::ZERO.wrapping_sub(z & U::from_u64(1))
}

fn prefix_sum_scalar<U: Word>(carry: U, words: &mut [U], zigzag: bool) -> U {
    let mut carry = carry;
    if zigzag {
        for w in words {
            carry = carry.wrapping_add(unzigzag(*w));
            *w = carry;
        }
    } else {
        for w in words {
            carry = carry.wrapping_add(*w);
            *w = carry;
        }
    }
    carry
}

#[inline(always)]
fn delta_sum_any<U: Word>(words: &[U], zigzag: bool) -> U {
    if zigzag {
        words.iter().fold(U::ZERO, |s, &d| s.wrapping_add(unzigzag(d)))
    } else {
        words.iter().fold(U::ZERO, |s, &d| s.wrapping_add(d))
    }
}

#[inline(always)]
fn weighted_sums_any<U: Word>(words: &[U], first_weight: u64) -> (u128, u128) {
    if U::BITS <= 32 {
        // A delta below 2^32 times a weight up to 2^16 is below 2^48, and 2^16 of them sum in a `u64`.
        // Both factors as zero-extended `u32` make one 32 x 32 -> 64-bit multiply a lane.
        let (mut sum, mut weighted, mut weight) = (0u64, 0u64, first_weight as u32);
        for &d in words {
            let d = d.to_u64() as u32 as u64;
            sum = sum.wrapping_add(d);
            weighted = weighted.wrapping_add(d * weight as u64);
            weight = weight.wrapping_sub(1);
        }
        (sum as u128, weighted as u128)
    } else {
        let (mut sum, mut weighted, mut weight) = (0u128, 0u128, first_weight as u128);
        for &d in words {
            let d = d.to_u64() as u128;
            sum = sum.wrapping_add(d);
            weighted = weighted.wrapping_add(d.wrapping_mul(weight));
            weight = weight.wrapping_sub(1);
        }
        (sum, weighted)
    }
}

mod delta_dispatch {
    use super::*;
    dispatch_simd!(delta_sum_any, delta_sum_avx2, <U>(words: &[U], zigzag: bool) -> U);
    pub(super) use dispatch as delta_sum;
}

mod weighted_dispatch {
    use super::*;
    dispatch_simd!(weighted_sums_any, weighted_sums_avx2, <U>(words: &[U], first_weight: u64) -> (u128, u128));
    pub(super) use dispatch as weighted_sums;
}

/// Turns deltas into running values in place: `words[k] = carry + d[0] + … + d[k]` (wrapping), where
/// `d` are the differences the deltas stand for (`zigzag`: stored zigzagged). Returns the last running
/// value, `carry` when `words` is empty.
pub fn prefix_sum<U: Word>(carry: U, words: &mut [U], zigzag: bool) -> U {
    #[cfg(target_arch = "x86_64")]
    if let Some(last) = simd::prefix_sum(carry, words, zigzag) {
        return last;
    }
    prefix_sum_scalar(carry, words, zigzag)
}

/// The wrapping sum of the differences the deltas stand for: how far a running value moves over them.
pub fn delta_sum<U: Word>(words: &[U], zigzag: bool) -> U {
    delta_dispatch::delta_sum(words, zigzag)
}

/// `(Σ words[k], Σ words[k] · (first_weight - k))` for plain deltas, in one pass: what they contribute
/// to a closed-form sum over a run of values (a delta adds to every value from its own on). Exact while
/// `words.len() <= first_weight <= 2^16`; wraps, without panicking, beyond.
pub fn weighted_sums<U: Word>(words: &[U], first_weight: u64) -> (u128, u128) {
    weighted_dispatch::weighted_sums(words, first_weight)
}

#[cfg(target_arch = "x86_64")]
mod simd {
    //! AVX2 scans. Within each 128-bit half, adding the vector shifted up by one lane, then by two
    //! (32-bit words), leaves each lane the sum of its half up to it; adding the low half's last lane to
    //! the high half finishes the vector's own scan, and its last lane, broadcast, is what it adds to the
    //! carry. Only that one add depends on the vector before.
    use std::arch::x86_64::*;

    use super::prefix_sum_scalar;
    use crate::types::Word;

    /// The scan of [`super::prefix_sum`] for 32- and 64-bit words when the CPU has AVX2; `None`,
    /// touching nothing, otherwise.
    pub fn prefix_sum<U: Word>(carry: U, words: &mut [U], zigzag: bool) -> Option<U> {
        if !(U::BITS == 32 || U::BITS == 64) || !crate::kernels::cpu::avx2() {
            return None;
        }
        let lanes = 256 / U::BITS as usize;
        let body = words.len() / lanes * lanes;
        let (head, tail) = words.split_at_mut(body);
        // SAFETY: AVX2 is present (checked above); each kernel reads and writes whole vectors of `head`,
        // whose length is a multiple of the vector's lanes.
        let carry = unsafe {
            match (U::BITS, zigzag) {
                (32, false) => {
                    U::from_u64(scan_u32::<false>(carry.to_u64() as u32, bytemuck::cast_slice_mut(head)) as u64)
                }
                (32, true) => {
                    U::from_u64(scan_u32::<true>(carry.to_u64() as u32, bytemuck::cast_slice_mut(head)) as u64)
                }
                (_, false) => U::from_u64(scan_u64::<false>(carry.to_u64(), bytemuck::cast_slice_mut(head))),
                (_, true) => U::from_u64(scan_u64::<true>(carry.to_u64(), bytemuck::cast_slice_mut(head))),
            }
        };
        Some(prefix_sum_scalar(carry, tail, zigzag))
    }

    /// # Safety
    /// AVX2; `words.len()` is a multiple of 8.
    #[target_feature(enable = "avx2")]
    unsafe fn scan_u32<const ZIGZAG: bool>(carry: u32, words: &mut [u32]) -> u32 {
        let mut carry = _mm256_set1_epi32(carry as i32);
        let (one, last) = (_mm256_set1_epi32(1), _mm256_set1_epi32(7));
        for chunk in words.chunks_exact_mut(8) {
            let p = chunk.as_mut_ptr().cast::<__m256i>();
            // SAFETY: `chunk` holds 8 `u32`, one vector.
            let mut x = unsafe { _mm256_loadu_si256(p) };
            if ZIGZAG {
                let sign = _mm256_sub_epi32(_mm256_setzero_si256(), _mm256_and_si256(x, one));
                x = _mm256_xor_si256(_mm256_srli_epi32::<1>(x), sign);
            }
            x = _mm256_add_epi32(x, _mm256_slli_si256::<4>(x));
            x = _mm256_add_epi32(x, _mm256_slli_si256::<8>(x));
            let low_total = _mm256_shuffle_epi32::<0xFF>(_mm256_permute2x128_si256::<0x08>(x, x));
            x = _mm256_add_epi32(x, low_total);
            // SAFETY: as the load.
            unsafe { _mm256_storeu_si256(p, _mm256_add_epi32(x, carry)) };
            carry = _mm256_add_epi32(carry, _mm256_permutevar8x32_epi32(x, last));
        }
        _mm256_cvtsi256_si32(carry) as u32
    }

    /// # Safety
    /// AVX2; `words.len()` is a multiple of 4.
    #[target_feature(enable = "avx2")]
    unsafe fn scan_u64<const ZIGZAG: bool>(carry: u64, words: &mut [u64]) -> u64 {
        let mut carry = _mm256_set1_epi64x(carry as i64);
        let one = _mm256_set1_epi64x(1);
        for chunk in words.chunks_exact_mut(4) {
            let p = chunk.as_mut_ptr().cast::<__m256i>();
            // SAFETY: `chunk` holds 4 `u64`, one vector.
            let mut x = unsafe { _mm256_loadu_si256(p) };
            if ZIGZAG {
                let sign = _mm256_sub_epi64(_mm256_setzero_si256(), _mm256_and_si256(x, one));
                x = _mm256_xor_si256(_mm256_srli_epi64::<1>(x), sign);
            }
            x = _mm256_add_epi64(x, _mm256_slli_si256::<8>(x));
            let low_total = _mm256_shuffle_epi32::<0xEE>(_mm256_permute2x128_si256::<0x08>(x, x));
            x = _mm256_add_epi64(x, low_total);
            // SAFETY: as the load.
            unsafe { _mm256_storeu_si256(p, _mm256_add_epi64(x, carry)) };
            carry = _mm256_add_epi64(carry, _mm256_permute4x64_epi64::<0xFF>(x));
        }
        _mm256_extract_epi64::<0>(carry) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check<U: Word>() {
        let values: Vec<U> =
            (0..1000u64).map(|i| U::from_u64(i.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17))).collect();
        for zig in [false, true] {
            let deltas: Vec<U> = std::iter::once(U::ZERO)
                .chain(values.windows(2).map(|w| {
                    let d = w[1].wrapping_sub(w[0]);
                    if zig {
                        zigzag(d)
                    } else {
                        d
                    }
                }))
                .collect();
            for len in [0, 1, 7, 8, 9, 63, 1000] {
                let mut words = deltas[..len].to_vec();
                let last = prefix_sum(values[0], &mut words, zig);
                assert_eq!(words, &values[..len], "{} bits, zigzag {zig}, {len} values", U::BITS);
                assert_eq!(last, if len == 0 { values[0] } else { values[len - 1] });
                if len > 0 {
                    let moved = delta_sum(&deltas[1..len], zig);
                    assert_eq!(values[0].wrapping_add(moved), values[len - 1]);
                }
            }
        }
    }

    #[test]
    fn prefix_and_delta_sums_round_trip_every_word() {
        check::<u8>();
        check::<u16>();
        check::<u32>();
        check::<u64>();
    }

    #[test]
    fn zigzag_maps_small_steps_either_way_to_small_words() {
        assert_eq!([0u32, u32::MAX, 1, u32::MAX - 1].map(zigzag), [0, 1, 2, 3]);
        for d in [0u64, 1, u64::MAX, 1 << 63, (1 << 63) - 1, 12345] {
            assert_eq!(unzigzag(zigzag(d)), d);
        }
        assert_eq!(zigzag(i8::MIN as u8), u8::MAX);
    }

    #[test]
    fn weighted_sums_are_exact_at_the_bounds() {
        let words = vec![u32::MAX; 1 << 16];
        let expect: u128 = (1..=1u128 << 16).map(|w| w * u32::MAX as u128).sum();
        assert_eq!(weighted_sums(&words, 1 << 16), ((1 << 16) * u32::MAX as u128, expect));
        let words = vec![u64::MAX; 1000];
        let expect: u128 = (0..1000u128).map(|k| (65_536 - k) * u64::MAX as u128).sum();
        assert_eq!(weighted_sums(&words, 65_536), (1000 * u64::MAX as u128, expect));
        assert_eq!(weighted_sums::<u8>(&[200, 100], 2), (300, 500));
        assert_eq!(weighted_sums::<u16>(&[], 5), (0, 0));
    }
}
