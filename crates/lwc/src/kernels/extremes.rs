//! The one pass every encoder reads: minimum, maximum and the OR of all bits, compiled for AVX2 where
//! the CPU has it (baseline x86-64 has no vector min or max of unsigned 32-bit or any 64-bit lanes, so a
//! default build would run this pass one value at a time).

use crate::types::{LwcInt, Word};

/// `(min, max, OR of all bits)` of `values`; `(T::MAX, T::MIN, 0)` when empty.
pub fn min_max_or<T: LwcInt>(values: &[T]) -> (T, T, T::Unsigned) {
    extremes::<T, Or>(values)
}

/// `(min, max, wrapping sum of the bits)` of `values` in one pass; `(T::MAX, T::MIN, 0)` when empty. Run
/// ends' check at open reads each piece of deltas this way: a pass for the extremes and another for the
/// sum took half of opening TPC-H `l_orderkey`'s column.
pub fn min_max_sum<T: LwcInt>(values: &[T]) -> (T, T, T::Unsigned) {
    extremes::<T, WrappingSum>(values)
}

/// How the values' bits are folded beside their minimum and maximum, in the same pass.
trait BitsFold {
    fn fold<U: Word>(acc: U, bits: U) -> U;
}

struct Or;

impl BitsFold for Or {
    #[inline(always)]
    fn fold<U: Word>(acc: U, bits: U) -> U {
        acc | bits
    }
}

struct WrappingSum;

impl BitsFold for WrappingSum {
    #[inline(always)]
    fn fold<U: Word>(acc: U, bits: U) -> U {
        acc.wrapping_add(bits)
    }
}

/// `(min, max, the bits folded by F from 0)` of `values`, in one pass.
fn extremes<T: LwcInt, F: BitsFold>(values: &[T]) -> (T, T, T::Unsigned) {
    #[cfg(target_arch = "x86_64")]
    if super::cpu::avx2() {
        // SAFETY: the CPU supports AVX2, checked just above; the function is otherwise safe.
        return unsafe { extremes_avx2::<T, F>(values) };
    }
    extremes_generic::<T, F>(values)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn extremes_avx2<T: LwcInt, F: BitsFold>(values: &[T]) -> (T, T, T::Unsigned) {
    extremes_generic::<T, F>(values)
}

#[inline(always)]
fn extremes_generic<T: LwcInt, F: BitsFold>(values: &[T]) -> (T, T, T::Unsigned) {
    let (mut min, mut max, mut bits) = (T::MAX, T::MIN, T::Unsigned::ZERO);
    for &v in values {
        min = min.min(v);
        max = max.max(v);
        bits = F::fold(bits, v.to_bits());
    }
    (min, max, bits)
}

/// The minimum of each block of `block` values (the last may be shorter) and the bits of the widest
/// block's `max - min`: frame of reference per block (for_n) in one pass.
pub fn block_minima<T: LwcInt>(values: &[T], block: usize) -> (Vec<T>, u32) {
    #[cfg(target_arch = "x86_64")]
    if super::cpu::avx2() {
        // SAFETY: the CPU supports AVX2, checked just above; the function is otherwise safe.
        return unsafe { block_minima_avx2(values, block) };
    }
    block_minima_generic(values, block)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn block_minima_avx2<T: LwcInt>(values: &[T], block: usize) -> (Vec<T>, u32) {
    block_minima_generic(values, block)
}

#[inline(always)]
fn block_minima_generic<T: LwcInt>(values: &[T], block: usize) -> (Vec<T>, u32) {
    // The OR of every block's range has the width of the widest one.
    // A plain loop, not an iterator chain: `collect` would be a function of its own, compiled without
    // the caller's AVX2.
    let mut ranges = T::Unsigned::ZERO;
    let mut minima = Vec::with_capacity(values.len().div_ceil(block));
    for c in values.chunks(block) {
        let (min, max, _) = extremes_generic::<T, Or>(c);
        ranges = ranges | max.offset_from(min);
        minima.push(min);
    }
    (minima, ranges.bits_used())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dispatched_and_generic_agree_on_every_type() {
        fn check<T: LwcInt>(values: &[T]) {
            assert_eq!(min_max_or(values), extremes_generic::<T, Or>(values));
            assert_eq!(min_max_sum(values), extremes_generic::<T, WrappingSum>(values));
        }
        let mut rng = crate::stats::SplitMix(7);
        let raw: Vec<u64> = (0..1_000).map(|_| rng.next()).collect();
        check(&raw.iter().map(|&v| v as u8).collect::<Vec<_>>());
        check(&raw.iter().map(|&v| v as i16).collect::<Vec<_>>());
        check(&raw.iter().map(|&v| v as u32).collect::<Vec<_>>());
        check(&raw.iter().map(|&v| v as i32).collect::<Vec<_>>());
        check(&raw);
        check(&raw.iter().map(|&v| v as i64).collect::<Vec<_>>());
        assert_eq!(min_max_or::<i32>(&[]), (i32::MAX, i32::MIN, 0));
        assert_eq!(min_max_or(&[-3i8, 5, -128]), (-128, 5, 0xFD));
    }

    #[test]
    fn block_minima_are_each_blocks_minimum_and_the_widest_range() {
        let values: Vec<i32> = (0..200).map(|i| if i == 150 { -1_000 } else { i * 3 }).collect();
        let (minima, width) = block_minima(&values, 64);
        assert_eq!(minima, [0, 192, -1_000, 576]);
        // Block 2 spans -1000 ..= 381: a range of 1381 takes 11 bits.
        assert_eq!(width, 11);
        assert_eq!(block_minima(&values, 64), block_minima_generic(&values, 64));
        assert_eq!(block_minima::<u8>(&[], 64), (vec![], 0));
    }
}
