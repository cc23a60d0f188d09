//! Scans over packed or plain words that never materialize the whole stream: range compares into a
//! bitmap and sums, one 1024-value block at a time in a buffer that stays in L1.

use super::bitpack::{self, dispatch_simd, BLOCK};
use crate::types::Word;

/// Sets bit `i` of `out` for every value with `lo <= value <= lo + span` in unsigned order.
///
/// `value - lo <= span` with wrapping subtraction is one compare for the whole range, and the same
/// trick holds for signed values viewed as unsigned bits (see `crate::types`).
#[inline(always)]
fn compare_chunk<U: Word>(values: &[U], lo: U, span: U) -> u64 {
    let mut bits = 0u64;
    for (k, &v) in values.iter().enumerate() {
        bits |= ((v.wrapping_sub(lo) <= span) as u64) << k;
    }
    bits
}

#[inline(always)]
fn filter_plain_generic<U: Word>(values: &[U], lo: U, span: U, out: &mut [u64]) {
    for (chunk, word) in values.chunks(64).zip(out.iter_mut()) {
        *word = compare_chunk(chunk, lo, span);
    }
}

mod plain_dispatch {
    use super::*;
    dispatch_simd!(filter_plain_generic, filter_plain_avx2, <U>(values: &[U], lo: U, span: U, out: &mut [u64]));
    pub(super) use dispatch as filter_plain;
}

/// Range compare over plain values into bitmap words (`out.len() >= values.len().div_ceil(64)`).
pub fn filter_range_plain<U: Word>(values: &[U], lo: U, span: U, out: &mut [u64]) {
    plain_dispatch::filter_plain(values, lo, span, out)
}

/// Range compare over the fields of a packed stream of `n` values (see [`filter_range_plain`]),
/// a block at a time through a buffer that stays in L1.
pub fn filter_range_packed<U: Word>(
    packed: &[u8],
    n: usize,
    w: u32,
    lo: U,
    span: U,
    out: &mut [u64],
) {
    let mut scratch = [U::ZERO; BLOCK];
    for (b, words) in out[..n.div_ceil(64)].chunks_mut(BLOCK / 64).enumerate() {
        let len = (n - b * BLOCK).min(BLOCK);
        bitpack::unpack_range(packed, n, w, U::ZERO, b * BLOCK, &mut scratch[..len]);
        filter_range_plain(&scratch[..len], lo, span, words);
    }
}

/// Exact sum of words, accumulated in `u64` where a block cannot overflow it.
#[inline(always)]
pub fn sum_words<U: Word>(values: &[U]) -> u128 {
    if U::BITS <= 32 {
        values
            .chunks(1 << 31)
            .map(|c| c.iter().map(|v| v.to_u64()).sum::<u64>() as u128)
            .sum()
    } else {
        values.iter().map(|v| v.to_u64() as u128).sum()
    }
}

/// Sum of all fields of a packed stream of `n` values.
pub fn sum_packed<U: Word>(packed: &[u8], n: usize, w: u32) -> u128 {
    let mut scratch = [U::ZERO; BLOCK];
    let mut total = 0u128;
    for start in (0..n).step_by(BLOCK) {
        let len = (n - start).min(BLOCK);
        bitpack::unpack_range(packed, n, w, U::ZERO, start, &mut scratch[..len]);
        total += sum_words(&scratch[..len]);
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_and_plain_filters_agree_with_a_loop() {
        let n: usize = 3000;
        let values: Vec<u32> = (0..n as u32)
            .map(|i| i.wrapping_mul(2654435761) % 1000)
            .collect();
        let mut packed = Vec::new();
        bitpack::pack(&values, 10, &mut packed);
        for (lo, hi) in [(0u32, 0u32), (10, 500), (999, 999), (0, 999), (500, 20_000)] {
            let expect: Vec<bool> = values.iter().map(|&v| v >= lo && v <= hi).collect();
            let mut a = vec![0u64; n.div_ceil(64)];
            let mut b = vec![0u64; n.div_ceil(64)];
            filter_range_packed(&packed, n, 10, lo, hi - lo, &mut a);
            filter_range_plain(&values, lo, hi - lo, &mut b);
            let got: Vec<bool> = (0..n).map(|i| a[i / 64] >> (i % 64) & 1 == 1).collect();
            assert_eq!(got, expect, "packed {lo}..={hi}");
            assert_eq!(a, b, "plain {lo}..={hi}");
        }
        assert_eq!(
            sum_packed::<u32>(&packed, n, 10),
            values.iter().map(|&v| v as u128).sum()
        );
    }
}
