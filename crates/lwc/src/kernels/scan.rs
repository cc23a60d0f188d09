//! Scans over packed or plain words that never materialize the whole stream: range compares into a
//! bitmap and sums, one 1024-value block at a time in a buffer that stays in L1.

use super::bitpack::{self, dispatch_simd, BLOCK};
use crate::types::{LwcInt, Word};

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
    assert!(out.len() >= values.len().div_ceil(64), "bitmap too short for {} values", values.len());
    #[cfg(target_arch = "x86_64")]
    {
        let full = values.len() / 64;
        if simd::compare(&values[..full * 64], lo, span, &mut out[..full]) {
            if full * 64 < values.len() {
                out[full] = compare_chunk(&values[full * 64..], lo, span);
            }
            return;
        }
    }
    plain_dispatch::filter_plain(values, lo, span, out)
}

/// Membership in a sorted set of distinct values, for `IN` filters. A set dense enough over its span
/// (a join's build side of 10^4 part keys among 2 · 10^5) tests each value with one load from a
/// bitmap of the span; others search the set, which for 10^4 values is 14 hard-to-predict compares.
pub struct Membership<'a, T: LwcInt> {
    set: &'a [T],
    /// Bit `v - set[0]` for every `v` of the set, then a clear bit at `span` that every value outside
    /// the span reads (branch-free); empty where the set is searched.
    bits: Vec<u64>,
    span: u64,
}

/// Spans up to this many bits keep their bitmap in L2 (256 KiB).
const MEMBERSHIP_MAX_SPAN: u64 = 1 << 21;
/// Sets this small are searched (at most four compares); sparser than one value in this many bits too.
const MEMBERSHIP_MIN_SET: usize = 16;
const MEMBERSHIP_MAX_GAP: u64 = 1024;

impl<'a, T: LwcInt> Membership<'a, T> {
    /// Membership in `set` (sorted, distinct).
    pub fn new(set: &'a [T]) -> Membership<'a, T> {
        debug_assert!(set.windows(2).all(|w| w[0] < w[1]), "the set is sorted and distinct");
        let (Some(&first), Some(&last)) = (set.first(), set.last()) else {
            return Membership { set, bits: Vec::new(), span: 0 };
        };
        let span = last.offset_from(first).to_u64().saturating_add(1);
        let bitmap = set.len() >= MEMBERSHIP_MIN_SET
            && span <= MEMBERSHIP_MAX_SPAN
            && span <= set.len() as u64 * MEMBERSHIP_MAX_GAP;
        if !bitmap {
            return Membership { set, bits: Vec::new(), span };
        }
        let mut bits = vec![0u64; span as usize / 64 + 1];
        for v in set {
            let d = v.offset_from(first).to_u64();
            bits[(d / 64) as usize] |= 1 << (d % 64);
        }
        Membership { set, bits, span }
    }

    /// Sets bit `k % 64` of `out[k / 64]` for every `values[k]` in the set (other bits untouched).
    pub fn filter(&self, values: &[T], out: &mut [u64]) {
        assert!(out.len() >= values.len().div_ceil(64), "bitmap too short for {} values", values.len());
        let Some(&first) = self.set.first() else { return };
        for (chunk, word) in values.chunks(64).zip(out.iter_mut()) {
            let mut hits = 0u64;
            if self.bits.is_empty() {
                for (k, v) in chunk.iter().enumerate() {
                    hits |= (self.set.binary_search(v).is_ok() as u64) << k;
                }
            } else {
                for (k, v) in chunk.iter().enumerate() {
                    let d = v.offset_from(first).to_u64().min(self.span);
                    hits |= ((self.bits[(d / 64) as usize] >> (d % 64)) & 1) << k;
                }
            }
            *word |= hits;
        }
    }
}

/// Range compare over the fields of a packed stream of `n` values (see [`filter_range_plain`]).
/// `u32` compares while decoding, so values never reach memory; other words go a block at a time
/// through a buffer that stays in L1.
pub fn filter_range_packed<U: Word>(packed: &[u8], n: usize, w: u32, lo: U, span: U, out: &mut [u64]) {
    assert!(out.len() >= n.div_ceil(64), "bitmap too short for {n} values");
    #[cfg(target_arch = "x86_64")]
    if U::BITS == 32 && w >= 1 {
        assert!(packed.len() >= bitpack::packed_len(n, w), "packed stream too short");
        let full = n / 64;
        let (lo32, span32) = (lo.to_u64() as u32, span.to_u64() as u32);
        if bitpack::x86_scan::filter_u32(packed, w, lo32, span32, &mut out[..full]) {
            if full * 64 < n {
                let mut tail = [U::ZERO; 64];
                let tail = &mut tail[..n - full * 64];
                bitpack::unpack_range(packed, n, w, U::ZERO, full * 64, tail);
                out[full] = compare_chunk(tail, lo, span);
            }
            return;
        }
    }
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
        values.chunks(1 << 31).map(|c| c.iter().map(|v| v.to_u64()).sum::<u64>() as u128).sum()
    } else {
        values.iter().map(|v| v.to_u64() as u128).sum()
    }
}

#[inline(always)]
fn sum_packed_generic<U: Word>(packed: &[u8], n: usize, w: u32) -> u128 {
    let mut scratch = [U::ZERO; BLOCK];
    let mut total = 0u128;
    for start in (0..n).step_by(BLOCK) {
        let len = (n - start).min(BLOCK);
        bitpack::unpack_range(packed, n, w, U::ZERO, start, &mut scratch[..len]);
        total += sum_words(&scratch[..len]);
    }
    total
}

mod sum_dispatch {
    use super::*;
    dispatch_simd!(sum_packed_generic, sum_packed_avx2, <U>(packed: &[u8], n: usize, w: u32) -> u128);
    pub(super) use dispatch as sum_packed;
}

/// Sum of all fields of a packed stream of `n` values.
pub fn sum_packed<U: Word>(packed: &[u8], n: usize, w: u32) -> u128 {
    if w == 0 {
        return 0;
    }
    #[cfg(target_arch = "x86_64")]
    if U::BITS == 32 {
        assert!(packed.len() >= bitpack::packed_len(n, w), "packed stream too short");
        let groups = n / 8;
        if let Some(body) = bitpack::x86_scan::sum_u32(packed, w, groups) {
            let mut tail = [U::ZERO; 8];
            let tail = &mut tail[..n - groups * 8];
            bitpack::unpack_range(packed, n, w, U::ZERO, groups * 8, tail);
            return body + sum_words(tail);
        }
    }
    sum_dispatch::sum_packed::<U>(packed, n, w)
}

/// Fields below this many are summed in place by [`RangeSums`] (eight at a time up to 7 bits a field,
/// one by one above): the whole-group kernel's setup costs more than reading them.
const SHORT_RANGE: usize = 64;
/// The same up to 7 bits a field, where eight fields take one load and a dozen operations.
const SHORT_RANGE_NARROW: usize = 512;

/// Sum of fields `start .. start + len` of a packed stream of `n` values (exact): what a walk over deltas
/// adds to move past them without writing them out.
///
/// # Panics
/// If `start + len > n` or `packed` is shorter than [`bitpack::packed_len`]`(n, w)`.
pub fn sum_packed_range<U: Word>(packed: &[u8], n: usize, w: u32, start: usize, len: usize) -> u128 {
    let fields = bitpack::PackedRef::<U>::new(packed, n, w).expect("packed stream too short");
    RangeSums::new(fields).sum(start, len)
}

/// Sums of ranges of a packed stream, for a caller that asks for many: short ranges are summed in place
/// (with masks worked out once, here), long ones go to [`sum_packed`] for their whole groups of 8 fields
/// (8 fields fill `w` whole bytes) and are summed in place at their ends.
#[derive(Clone, Copy)]
pub struct RangeSums<'a, U: Word> {
    fields: bitpack::PackedRef<'a, U>,
    /// Fields 0, 2, 4 and 6 of eight, then lanes 0 and 4 of `2w` bits: the masks of the pairwise adds.
    pairs: u64,
    quads: u64,
}

impl<'a, U: Word> RangeSums<'a, U> {
    /// Sums over `fields`.
    pub fn new(fields: bitpack::PackedRef<'a, U>) -> Self {
        let w = fields.width() as usize;
        let lanes = |width: usize, every: usize| {
            (0..8).step_by(every).fold(0u64, |m, i| m | u64::low_mask(width.min(64) as u32) << (i * w).min(63))
        };
        RangeSums { fields, pairs: lanes(w, 2), quads: lanes(2 * w, 4) }
    }

    /// The fields summed.
    pub fn fields(&self) -> bitpack::PackedRef<'a, U> {
        self.fields
    }

    /// Sum of fields `start .. start + len`, exact.
    ///
    /// # Panics
    /// If `start + len > len()` of the stream.
    #[inline(always)]
    pub fn sum(&self, start: usize, len: usize) -> u128 {
        let w = self.fields.width();
        if len < SHORT_RANGE || (w <= 7 && len < SHORT_RANGE_NARROW) {
            return self.sum_in_place(start, len);
        }
        let end = start.checked_add(len).filter(|&e| e <= self.fields.len()).expect("range inside the stream");
        let (first_group, last_group) = (start.div_ceil(8), end / 8);
        let body = (last_group - first_group) * 8;
        self.sum_in_place(start, first_group * 8 - start)
            + sum_packed::<U>(&self.fields.bytes()[first_group * w as usize..], body, w)
            + self.sum_in_place(last_group * 8, end - last_group * 8)
    }

    /// For fields of at most 2 bits, how many of `start .. start + len` have their low bit set, their
    /// high bit, and both: what a sum of any function of the fields needs (a dictionary's values over
    /// its codes). `None` for wider fields.
    ///
    /// # Panics
    /// If `start + len > len()` of the stream.
    pub fn bit_counts(&self, start: usize, len: usize) -> Option<[u64; 3]> {
        let fields = &self.fields;
        start.checked_add(len).filter(|&e| e <= fields.len()).expect("range inside the stream");
        let w = fields.width() as usize;
        if w == 0 || w > 2 {
            return (w == 0).then_some([0; 3]);
        }
        #[cfg(target_arch = "x86_64")]
        if crate::kernels::cpu::popcnt() {
            // SAFETY: the CPU has POPCNT, checked just above; the function is otherwise safe.
            return Some(unsafe { self.count_bits_popcnt(start, len) });
        }
        // Ones of a word by pairwise adds (`popcnt` is not in the baseline x86-64 target).
        Some(self.count_bits(start, len, |x: u64| {
            let x = x - (x >> 1 & 0x5555_5555_5555_5555);
            let x = (x & 0x3333_3333_3333_3333) + (x >> 2 & 0x3333_3333_3333_3333);
            ((x + (x >> 4)) & 0x0f0f_0f0f_0f0f_0f0f).wrapping_mul(0x0101_0101_0101_0101) >> 56
        }))
    }

    /// [`RangeSums::bit_counts`] compiled with POPCNT.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt")]
    unsafe fn count_bits_popcnt(&self, start: usize, len: usize) -> [u64; 3] {
        self.count_bits(start, len, |x: u64| u64::from(x.count_ones()))
    }

    /// [`RangeSums::bit_counts`] of 1- or 2-bit fields, with `ones` counting a word's ones.
    #[inline(always)]
    fn count_bits(&self, start: usize, len: usize, ones: impl Fn(u64) -> u64) -> [u64; 3] {
        // Bit `j` of every field, for 28 fields (56 bits) a load.
        let w = self.fields.width() as usize;
        // Bit 0 of each 2-bit field.
        let lows = 0x5555_5555_5555_5555;
        let (mut counts, mut field, end) = ([0u64; 3], start, start + len);
        while field < end {
            let k = (end - field).min(56 / w);
            let x = self.bits_at(field * w) & u64::low_mask((k * w) as u32);
            if w == 1 {
                counts[0] += ones(x);
            } else {
                let (lo, hi) = (x & lows, x >> 1 & lows);
                counts[0] += ones(lo);
                counts[1] += ones(hi);
                counts[2] += ones(lo & hi);
            }
            field += k;
        }
        counts
    }

    /// The 64 bits of the stream from bit `bit` on (the top `bit % 8` of them zero), where `bit` starts a
    /// field at most 7 past one below `n`, for fields of at most 32 bits.
    #[inline(always)]
    fn bits_at(&self, bit: usize) -> u64 {
        // Such a field starts at most `(n + 6) * 32 / 8 <= n * w / 8 + 24` bytes in (`w <= 32`), and
        // `PackedRef::new` checked that `(n * w).div_ceil(8) + PADDING` bytes are there.
        const { assert!(bitpack::PADDING >= 32) };
        let bytes = self.fields.bytes();
        debug_assert!(bit / 8 + 8 <= bytes.len(), "a load past the stream's padding");
        // SAFETY: the 8 bytes from `bit / 8` are in bounds (above).
        (unsafe { bytes.as_ptr().add(bit / 8).cast::<u64>().read_unaligned() }) >> (bit % 8)
    }

    /// [`RangeSums::sum`] read where the fields lie.
    #[inline(always)]
    fn sum_in_place(&self, start: usize, len: usize) -> u128 {
        let fields = &self.fields;
        let end = start.checked_add(len).filter(|&e| e <= fields.len()).expect("range inside the stream");
        if fields.width() == 0 {
            return 0;
        }
        if fields.width() > 32 {
            return (start..end).map(|i| fields.get(i).to_u64() as u128).sum();
        }
        if let Some([low, high, _]) = self.bit_counts(start, len) {
            // Fields of 1 or 2 bits: counted 28 or 56 to a load, where the lanes below take eight.
            return (low + 2 * high) as u128;
        }
        // Fields of at most 32 bits sit in the 64 bits loaded at their first byte, and fewer than 2^32 of
        // them sum exactly in `u64`. Eight at a time, those past `len` masked off: a walk's sums have
        // lengths no branch predicts, and this leaves one exit to mispredict per eight fields, not one per
        // field.
        // Loads are at most 7 fields past the last one summed (see `bits_at`).
        let (w, load) = (fields.width() as usize, |bit| self.bits_at(bit));
        let (mut sum, mut bit, mut left) = (0u64, start * w, len);
        if w <= 7 {
            // Eight fields and the bit offset fit one load, and are summed there in three steps of
            // pairwise adds (SWAR): into four lanes of `2w` bits, two of `4w`, then one. (Popcounts of bit
            // planes would do it too, but `popcnt` is not in the baseline x86-64 target.) The first step's
            // lanes of whole groups are added up first, four groups a step in lanes of their own, and
            // the last two steps taken once a batch: a lane of `2w` bits holds `2^(w - 1)` groups' pairs
            // (each below `2^(w + 1)`; `w >= 3` here), so a group costs about half the operations.
            let pair = |x: u64| (x & self.pairs) + (x >> w & self.pairs);
            let fold = |x: u64| {
                let x = (x & self.quads) + (x >> (2 * w) & self.quads);
                (x & u64::low_mask(4 * w as u32)) + (x >> (4 * w))
            };
            let (group, batch) = (u64::low_mask(8 * w as u32), 4 << (w - 1));
            // Whole groups before the last (which holds 1 to 8 fields and is masked to them).
            let mut groups = left.saturating_sub(1) / 8;
            while groups > 0 {
                let now = groups.min(batch);
                let mut lanes = [0u64; 4];
                for k in 0..now {
                    lanes[k % 4] += pair(load(bit + k * 8 * w) & group);
                }
                sum += lanes.into_iter().map(fold).sum::<u64>();
                (bit, groups, left) = (bit + now * 8 * w, groups - now, left - now * 8);
            }
            return (sum + fold(pair(load(bit) & u64::low_mask((left * w) as u32)))) as u128;
        }
        let mask = u64::low_mask(w as u32);
        for _ in 0..len.div_ceil(8) {
            for i in 0..8 {
                let keep = u64::from(i < left).wrapping_neg() & mask;
                sum += load(bit) & keep;
                bit += w;
            }
            left = left.saturating_sub(8);
        }
        sum as u128
    }
}

#[cfg(target_arch = "x86_64")]
mod simd {
    //! AVX2 range compares over plain words: `x = v - lo` (wrapping), `x <= span` as
    //! `min(x, span) == x` (no unsigned compare in AVX2), and a movemask to gather one bit a lane.
    //! `u64` has no unsigned min, so it flips the sign bits and uses the signed `>`.
    use std::arch::x86_64::*;

    use crate::types::Word;

    /// Fills `out` with the bits of `values` (`values.len() == out.len() * 64`) when AVX2 is present;
    /// returns `false`, touching nothing, otherwise.
    pub fn compare<U: Word>(values: &[U], lo: U, span: U, out: &mut [u64]) -> bool {
        assert_eq!(values.len(), out.len() * 64);
        if !crate::kernels::cpu::avx2() {
            return false;
        }
        let (lo, span) = (lo.to_u64(), span.to_u64());
        // SAFETY: AVX2 is present (checked above); each kernel reads exactly `out.len() * 64` words.
        unsafe {
            match U::BITS {
                8 => compare_u8(bytemuck::cast_slice(values), lo as u8, span as u8, out),
                16 => compare_u16(bytemuck::cast_slice(values), lo as u16, span as u16, out),
                32 => compare_u32(bytemuck::cast_slice(values), lo as u32, span as u32, out),
                _ => compare_u64(bytemuck::cast_slice(values), lo, span, out),
            }
        }
        true
    }

    /// # Safety
    /// AVX2; `values.len() == out.len() * 64`.
    #[target_feature(enable = "avx2")]
    unsafe fn compare_u8(values: &[u8], lo: u8, span: u8, out: &mut [u64]) {
        let (lo, span) = (_mm256_set1_epi8(lo as i8), _mm256_set1_epi8(span as i8));
        for (chunk, word) in values.chunks_exact(64).zip(out.iter_mut()) {
            let p = chunk.as_ptr();
            let mut bits = 0u64;
            for h in 0..2 {
                // SAFETY: `chunk` holds 64 bytes; this reads 32 of them.
                let v = unsafe { _mm256_loadu_si256(p.add(32 * h).cast()) };
                let x = _mm256_sub_epi8(v, lo);
                let m = _mm256_cmpeq_epi8(_mm256_min_epu8(x, span), x);
                bits |= (_mm256_movemask_epi8(m) as u32 as u64) << (32 * h);
            }
            *word = bits;
        }
    }

    /// # Safety
    /// AVX2; `values.len() == out.len() * 64`.
    #[target_feature(enable = "avx2")]
    unsafe fn compare_u16(values: &[u16], lo: u16, span: u16, out: &mut [u64]) {
        let (lo, span) = (_mm256_set1_epi16(lo as i16), _mm256_set1_epi16(span as i16));
        let test = |v: __m256i| {
            let x = _mm256_sub_epi16(v, lo);
            _mm256_cmpeq_epi16(_mm256_min_epu16(x, span), x)
        };
        for (chunk, word) in values.chunks_exact(64).zip(out.iter_mut()) {
            let p = chunk.as_ptr();
            let mut bits = 0u64;
            for h in 0..2 {
                // SAFETY: `chunk` holds 64 `u16`; this reads 32 of them. The signed saturating pack
                // keeps the all-ones / zero masks, interleaving 64-bit quarters that the permute
                // puts back in order.
                let (a, b) = unsafe {
                    (_mm256_loadu_si256(p.add(32 * h).cast()), _mm256_loadu_si256(p.add(32 * h + 16).cast()))
                };
                let m = _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packs_epi16(test(a), test(b)));
                bits |= (_mm256_movemask_epi8(m) as u32 as u64) << (32 * h);
            }
            *word = bits;
        }
    }

    /// # Safety
    /// AVX2; `values.len() == out.len() * 64`.
    #[target_feature(enable = "avx2")]
    unsafe fn compare_u32(values: &[u32], lo: u32, span: u32, out: &mut [u64]) {
        let (lo, span) = (_mm256_set1_epi32(lo as i32), _mm256_set1_epi32(span as i32));
        for (chunk, word) in values.chunks_exact(64).zip(out.iter_mut()) {
            let p = chunk.as_ptr();
            let mut bits = 0u64;
            for g in 0..8 {
                // SAFETY: `chunk` holds 64 `u32`; this reads 8 of them.
                let v = unsafe { _mm256_loadu_si256(p.add(8 * g).cast()) };
                let x = _mm256_sub_epi32(v, lo);
                let m = _mm256_cmpeq_epi32(_mm256_min_epu32(x, span), x);
                bits |= (_mm256_movemask_ps(_mm256_castsi256_ps(m)) as u8 as u64) << (8 * g);
            }
            *word = bits;
        }
    }

    /// # Safety
    /// AVX2; `values.len() == out.len() * 64`.
    #[target_feature(enable = "avx2")]
    unsafe fn compare_u64(values: &[u64], lo: u64, span: u64, out: &mut [u64]) {
        let sign = _mm256_set1_epi64x(i64::MIN);
        let lo = _mm256_set1_epi64x(lo as i64);
        let span = _mm256_xor_si256(_mm256_set1_epi64x(span as i64), sign);
        for (chunk, word) in values.chunks_exact(64).zip(out.iter_mut()) {
            let p = chunk.as_ptr();
            let mut outside = 0u64;
            for g in 0..16 {
                // SAFETY: `chunk` holds 64 `u64`; this reads 4 of them.
                let v = unsafe { _mm256_loadu_si256(p.add(4 * g).cast()) };
                let x = _mm256_xor_si256(_mm256_sub_epi64(v, lo), sign);
                let m = _mm256_cmpgt_epi64(x, span);
                outside |= (_mm256_movemask_pd(_mm256_castsi256_pd(m)) as u64 & 0xF) << (4 * g);
            }
            *word = !outside;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn membership_by_bitmap_and_by_search_agree_with_the_set() {
        // Dense sets take the bitmap, sparse or small ones the search; both against `contains`.
        let dense: Vec<i64> = (-600..2_000).filter(|v| v % 3 != 0).collect();
        let sparse: Vec<i64> = (0..100).map(|v| v * 100_000 - 7).collect();
        let small: Vec<i64> = vec![-5, 0, 9];
        let wide: Vec<i64> = vec![i64::MIN, -1, 0, i64::MAX];
        let values: Vec<i64> = (-3_000..3_000).chain([i64::MIN, i64::MAX, 9_899_993]).collect();
        for set in [&dense, &sparse, &small, &wide, &Vec::new()] {
            let membership = Membership::new(set);
            assert_eq!(membership.bits.is_empty(), set != &dense);
            let mut out = vec![0u64; values.len().div_ceil(64)];
            membership.filter(&values, &mut out);
            for (k, v) in values.iter().enumerate() {
                assert_eq!(out[k / 64] >> (k % 64) & 1 == 1, set.contains(v), "{v} in a set of {}", set.len());
            }
        }
        // Unsigned values below the first wrap to the top of the span and stay out.
        let set: Vec<u8> = (10..60).collect();
        let mut out = [0u64; 4];
        Membership::new(&set).filter(&(0..=255).collect::<Vec<u8>>(), &mut out);
        assert_eq!(out, [((1u64 << 60) - 1) & !((1u64 << 10) - 1), 0, 0, 0]);
    }

    #[test]
    fn packed_and_plain_filters_agree_with_a_loop() {
        let n: usize = 3000;
        let values: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(2654435761) % 1000).collect();
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
        assert_eq!(sum_packed::<u32>(&packed, n, 10), values.iter().map(|&v| v as u128).sum());
    }

    /// Range sums against a loop for every width of each word, over starts and lengths on both sides of
    /// the 8-value groups and of the short-range cuts (64, and 512 up to 7 bits), up to the stream's end.
    #[test]
    fn packed_range_sums_agree_with_a_loop() {
        fn run<U: Word>() {
            let n = 1500;
            // Fields at random, and every field at its largest (what fills the lanes summed in place).
            for (w, largest) in (0..=U::BITS).flat_map(|w| [(w, false), (w, true)]) {
                let values: Vec<U> = (0..n as u64)
                    .map(|i| U::from_u64(i.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(29)) & U::low_mask(w))
                    .map(|v| if largest { U::low_mask(w) } else { v })
                    .collect();
                let mut packed = Vec::new();
                bitpack::pack(&values, w, &mut packed);
                for start in [0, 1, 7, 8, 9, 63, 64, 65, 300, n - 17, n - 9, n - 8, n - 1, n] {
                    for len in [0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 66, 200, 400, 511, 512, 513, 1000] {
                        let len = len.min(n - start);
                        let want: u128 = values[start..start + len].iter().map(|v| v.to_u64() as u128).sum();
                        assert_eq!(sum_packed_range::<U>(&packed, n, w, start, len), want, "w={w} {start}+{len}");
                    }
                }
                let whole: u128 = values.iter().map(|v| v.to_u64() as u128).sum();
                assert_eq!(sum_packed_range::<U>(&packed, n, w, 0, n), whole, "w={w} all");
            }
        }
        run::<u8>();
        run::<u16>();
        run::<u32>();
        run::<u64>();
    }

    /// Counts of low, high and both bits of 1- and 2-bit fields against a loop, across the 28-field loads
    /// and up to the stream's end; none for wider fields.
    #[test]
    fn bit_counts_agree_with_a_loop() {
        let n = 300;
        for w in 0..=3u32 {
            let values: Vec<u32> =
                (0..n as u32).map(|i| i.wrapping_mul(2_654_435_761).rotate_left(7) & u32::low_mask(w)).collect();
            let mut packed = Vec::new();
            bitpack::pack(&values, w, &mut packed);
            let sums = RangeSums::new(bitpack::PackedRef::<u32>::new(&packed, n, w).unwrap());
            for start in [0, 1, 27, 28, 29, 100, n - 29, n - 1, n] {
                for len in [0, 1, 27, 28, 29, 56, 57, 200] {
                    let len = len.min(n - start);
                    let got = sums.bit_counts(start, len);
                    if w > 2 {
                        assert_eq!(got, None);
                        continue;
                    }
                    let count =
                        |f: fn(u32) -> bool| values[start..start + len].iter().filter(|&&v| f(v)).count() as u64;
                    let want = [count(|v| v & 1 == 1), count(|v| v & 2 == 2), count(|v| v == 3)];
                    assert_eq!(got, Some(want), "w={w} {start}+{len}");
                }
            }
        }
    }

    #[test]
    #[should_panic(expected = "range inside the stream")]
    fn packed_range_sum_rejects_a_range_past_the_end() {
        let mut packed = Vec::new();
        bitpack::pack(&[1u32; 10], 1, &mut packed);
        sum_packed_range::<u32>(&packed, 10, 1, 5, 6);
    }

    fn bits_of(values: &[u64], n: usize) -> Vec<bool> {
        (0..n).map(|i| values[i / 64] >> (i % 64) & 1 == 1).collect()
    }

    /// Packed filter, plain filter and packed sum against loops, for every width of one word type, at
    /// lengths around the 8-value group and 64-value word boundaries, with ranges that wrap.
    fn check_type<U: Word>() {
        for w in 0..=U::BITS {
            for n in [0usize, 1, 7, 63, 64, 65, 200, 1024, 2048 + 77] {
                let values: Vec<U> = (0..n as u64)
                    .map(|i| U::from_u64(i.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(29)))
                    .map(|v| v & U::low_mask(w))
                    .collect();
                let mut packed = vec![1u8; 3];
                bitpack::pack(&values, w, &mut packed);
                let packed = &packed[3..];
                let mid = U::low_mask(w) >> 1;
                let ranges = [
                    (U::ZERO, U::ZERO),
                    (U::ZERO, U::MAX),
                    (mid, U::low_mask(w) >> 2),
                    (mid, U::MAX.wrapping_sub(mid)),  // x >= mid
                    (U::low_mask(w), U::from_u64(3)), // wraps past the word's top
                    (U::MAX, U::from_u64(5)),
                    (U::low_mask(w).wrapping_add(U::from_u64(1)), U::from_u64(2)), // empty
                    (U::from_u64(1), U::MAX.wrapping_sub(U::from_u64(1))),         // all but 0
                ];
                for (lo, span) in ranges {
                    let expect: Vec<bool> = values.iter().map(|&v| v.wrapping_sub(lo) <= span).collect();
                    let words = n.div_ceil(64);
                    let mut a = vec![!0u64; words];
                    let mut b = vec![!0u64; words];
                    let mut c = vec![!0u64; words];
                    filter_range_packed(packed, n, w, lo, span, &mut a);
                    filter_range_plain(&values, lo, span, &mut b);
                    filter_plain_generic(&values, lo, span, &mut c);
                    let what = format!("{} bits, w={w} n={n} lo={lo:?} span={span:?}", U::BITS);
                    assert_eq!(bits_of(&a, n), expect, "packed {what}");
                    assert_eq!(a, b, "plain {what}");
                    assert_eq!(b, c, "scalar {what}");
                }
                let total: u128 = values.iter().map(|v| v.to_u64() as u128).sum();
                assert_eq!(sum_packed::<U>(packed, n, w), total, "sum w={w} n={n}");
                assert_eq!(sum_packed_generic::<U>(packed, n, w), total, "scalar sum w={w}");
            }
        }
    }

    #[test]
    fn every_width_of_every_word_filters_and_sums() {
        check_type::<u8>();
        check_type::<u16>();
        check_type::<u32>();
        check_type::<u64>();
    }
}
