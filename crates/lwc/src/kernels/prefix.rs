//! Prefix sums and sums of deltas over unsigned words, wrapping: the kernels of delta encoding.
//!
//! Deltas come in two forms. Plain differences `v[i] - v[i-1]` for non-decreasing data, and zigzagged
//! differences (`0, -1, 1, -2, …` as `0, 1, 2, 3, …`) otherwise, so that small steps in either direction
//! stay small. Both are computed with wrapping arithmetic in the unsigned domain, so every sequence of
//! the type, `MIN` next to `MAX` included, round-trips exactly.
//!
//! The running sum is a chain of dependent adds. [`prefix_sum`] breaks it into groups of [`LANES`]: the
//! scans inside groups are independent of each other and overlap, and only one add a group carries the
//! running value forward.

use super::bitpack::dispatch_simd;
use crate::types::Word;

/// Values scanned together by [`prefix_sum`].
const LANES: usize = 8;

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

/// The difference a stored delta stands for.
#[inline(always)]
fn step<U: Word, const ZIGZAG: bool>(d: U) -> U {
    if ZIGZAG {
        unzigzag(d)
    } else {
        d
    }
}

#[inline(always)]
fn prefix_sum_generic<U: Word, const ZIGZAG: bool>(carry: U, words: &mut [U]) -> U {
    let mut carry = carry;
    let mut groups = words.chunks_exact_mut(LANES);
    for group in &mut groups {
        let mut local = [U::ZERO; LANES];
        let mut run = U::ZERO;
        for (l, &d) in local.iter_mut().zip(group.iter()) {
            run = run.wrapping_add(step::<U, ZIGZAG>(d));
            *l = run;
        }
        for (w, l) in group.iter_mut().zip(local) {
            *w = carry.wrapping_add(l);
        }
        carry = group[LANES - 1];
    }
    for w in groups.into_remainder() {
        carry = carry.wrapping_add(step::<U, ZIGZAG>(*w));
        *w = carry;
    }
    carry
}

#[inline(always)]
fn prefix_sum_any<U: Word>(carry: U, words: &mut [U], zigzag: bool) -> U {
    if zigzag {
        prefix_sum_generic::<U, true>(carry, words)
    } else {
        prefix_sum_generic::<U, false>(carry, words)
    }
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
fn weighted_sum_any<U: Word>(words: &[U], first_weight: u64) -> u128 {
    if U::BITS <= 32 {
        // A delta below 2^32 times a weight up to 2^16 is below 2^48: a block of them sums in a `u64`.
        let (mut sum, mut weight) = (0u64, first_weight);
        for &d in words {
            sum = sum.wrapping_add(d.to_u64().wrapping_mul(weight));
            weight = weight.wrapping_sub(1);
        }
        sum as u128
    } else {
        let (mut sum, mut weight) = (0u128, first_weight as u128);
        for &d in words {
            sum = sum.wrapping_add((d.to_u64() as u128).wrapping_mul(weight));
            weight = weight.wrapping_sub(1);
        }
        sum
    }
}

mod prefix_dispatch {
    use super::*;
    dispatch_simd!(prefix_sum_any, prefix_sum_avx2, <U>(carry: U, words: &mut [U], zigzag: bool) -> U);
    pub(super) use dispatch as prefix_sum;
}

mod delta_dispatch {
    use super::*;
    dispatch_simd!(delta_sum_any, delta_sum_avx2, <U>(words: &[U], zigzag: bool) -> U);
    pub(super) use dispatch as delta_sum;
}

mod weighted_dispatch {
    use super::*;
    dispatch_simd!(weighted_sum_any, weighted_sum_avx2, <U>(words: &[U], first_weight: u64) -> u128);
    pub(super) use dispatch as weighted_sum;
}

/// Turns deltas into running values in place: `words[k] = carry + d[0] + … + d[k]` (wrapping), where
/// `d` are the differences the deltas stand for (`zigzag`: stored zigzagged). Returns the last running
/// value, `carry` when `words` is empty.
pub fn prefix_sum<U: Word>(carry: U, words: &mut [U], zigzag: bool) -> U {
    prefix_dispatch::prefix_sum(carry, words, zigzag)
}

/// The wrapping sum of the differences the deltas stand for: how far a running value moves over them.
pub fn delta_sum<U: Word>(words: &[U], zigzag: bool) -> U {
    delta_dispatch::delta_sum(words, zigzag)
}

/// `Σ words[k] · (first_weight - k)` for plain deltas: the part of a closed-form sum over a run of values
/// that the deltas contribute (a delta adds to every value from its own on). Exact while
/// `words.len() <= first_weight <= 2^16`; wraps, without panicking, beyond.
pub fn weighted_sum<U: Word>(words: &[U], first_weight: u64) -> u128 {
    weighted_dispatch::weighted_sum(words, first_weight)
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
        assert_eq!(weighted_sum(&words, 1 << 16), expect);
        let words = vec![u64::MAX; 1000];
        let expect: u128 = (0..1000u128).map(|k| (65_536 - k) * u64::MAX as u128).sum();
        assert_eq!(weighted_sum(&words, 65_536), expect);
        assert_eq!(weighted_sum::<u8>(&[], 5), 0);
    }
}
