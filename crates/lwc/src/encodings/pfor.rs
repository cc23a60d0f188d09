//! `pfor`: patched frame of reference (PFOR, seed 002's SIMD-FastPFOR). Residuals `value - min` are
//! bit-packed at a width `w` that most of them fit; the few that do not (exceptions) keep their low `w`
//! bits in the packed slot and their high bits, `residual >> w`, in a child stream. One outlier no longer
//! widens every value: on seed 002's D4 (90 % near 2^5, 10 % near 2^25) `for` packs 26 bits a value,
//! `pfor` 7 bits plus a few bytes per exception.
//!
//! Bytes: the reference (8, zero-extended bits), the width byte and the packed low bits (as `for`), the
//! exception index (u32 each, 8-aligned: for each block of [`BLOCK`] rows, the index of its first
//! exception, then the number of exceptions), and two child streams of one value per exception:
//! - `exception positions` (u32): the row's offset within its block (below 1,024), ascending within the
//!   block; the block comes from the index. Offsets need 10 bits where row numbers need 16.
//! - `exception values` (`T::Unsigned`): the high bits.
//!
//! Why an index per block rather than a bitmap of exceptions: the index costs 32 bits per 1,024 rows
//! (0.03 bits a row), a bitmap 1 bit a row, 14 % on top of D4's 7-bit residuals. `get` reads the block's
//! two index entries; most blocks of data worth this encoding have few exceptions, and a block with some
//! takes a binary search over its offsets (about 7 probes at D4's 100 a block).
//!
//! Width: one pass counts the residuals of each bit width; the width then minimizes packed bits plus
//! exception bits (offset and high bits), as FastPFOR does. Decoding unpacks a block and adds each
//! exception's `high << w`; filters compare the packed low bits where the constant range starts below
//! `2^w` and then recompute the exceptions' rows; the sum is `n * reference + sum of low bits + sum of
//! high << w`.

use super::bitpack::Packed;
use super::{read_value, value_bits, Codec, Encoding, EncodingId, Params, Stats, StreamOps, StreamView, WordStream};
use crate::bitmap::Bitmap;
use crate::bytes::{Reader, Writer};
use crate::error::{Error, Result};
use crate::kernels::bitpack::{self as kernel, BLOCK};
use crate::types::{LwcInt, Word};

pub(crate) struct Pfor;

/// Offsets are below [`BLOCK`] and ascend within a block: bit packing stores them at 10 bits or fewer and
/// reads each with one load, which the binary search in `get` wants.
const POSITIONS: Encoding = Encoding::Bitpack;

/// High bits of outliers cluster around the outliers' magnitude (2^18 on D4): a frame of reference
/// takes that away.
const EXCEPTIONS: Encoding = Encoding::For;

/// The width minimizing packed bits plus exception bits, from a histogram of residual widths.
fn best_width<T: LwcInt>(values: &[T], stats: &Stats<T>) -> u32 {
    let mut counts = [0usize; 65];
    for v in values {
        counts[v.offset_from(stats.min).bits_used() as usize] += 1;
    }
    let widest = stats.range_bits();
    let offset_bits = (values.len().clamp(1, BLOCK) as u32 - 1).bits_used();
    let (mut best, mut best_cost, mut above) = (widest, values.len() * widest as usize, 0);
    for w in (0..widest).rev() {
        above += counts[w as usize + 1];
        let cost = values.len() * w as usize + above * (offset_bits + widest - w) as usize;
        // Ties keep the wider width: fewer exceptions to patch.
        if cost < best_cost {
            (best, best_cost) = (w, cost);
        }
    }
    best
}

/// The exception index and the two child streams' values for residuals packed at width `w`.
struct Exceptions<U> {
    index: Vec<u32>,
    offsets: Vec<u32>,
    highs: Vec<U>,
}

fn exceptions<T: LwcInt>(values: &[T], min: T, w: u32) -> Exceptions<T::Unsigned> {
    let mut e = Exceptions { index: Vec::with_capacity(values.len() / BLOCK + 2), offsets: vec![], highs: vec![] };
    for block in values.chunks(BLOCK) {
        e.index.push(e.offsets.len() as u32);
        for (k, v) in block.iter().enumerate() {
            let residual = v.offset_from(min);
            if residual.bits_used() > w {
                e.offsets.push(k as u32);
                e.highs.push(residual >> w);
            }
        }
    }
    e.index.push(e.offsets.len() as u32);
    e
}

impl Codec for Pfor {
    const ID: EncodingId = EncodingId::Pfor;

    fn estimate<T: LwcInt>(values: &[T], stats: &Stats<T>, params: &Params) -> Option<usize> {
        let w = best_width(values, stats);
        let e = exceptions(values, stats.min, w);
        let children =
            params.estimate_child(0, &e.offsets, POSITIONS)? + params.estimate_child(1, &e.highs, EXCEPTIONS)?;
        // Reference, width, packed bits, padding before the index, the index, the children.
        Some(9 + kernel::packed_len(values.len(), w) + 4 + 4 * e.index.len() + children)
    }

    fn encode<T: LwcInt>(values: &[T], stats: &Stats<T>, params: &Params, out: &mut Writer) -> Result<()> {
        let w = best_width(values, stats);
        out.u64(value_bits(stats.min));
        out.u8(w as u8);
        // Packing keeps the low `w` bits of each residual: the exceptions' high bits go to the child.
        let residuals: Vec<T::Unsigned> = values.iter().map(|v| v.offset_from(stats.min)).collect();
        out.packed(|buf| kernel::pack(&residuals, w, buf));
        let e = exceptions(values, stats.min, w);
        out.array(&e.index);
        params.encode_child(0, &e.offsets, POSITIONS, out)?;
        params.encode_child(1, &e.highs, EXCEPTIONS, out)
    }
}

pub(crate) struct PforView<'a, T: LwcInt> {
    reference: T,
    /// Low `w` bits of every residual.
    low: Packed<'a, T::Unsigned>,
    /// `index[b]..index[b + 1]`: the exceptions of block `b`, at most its rows.
    index: &'a [u32],
    positions: StreamView<'a, u32>,
    highs: WordStream<'a, T::Unsigned>,
}

impl<'a, T: LwcInt> PforView<'a, T> {
    pub fn open(r: &mut Reader<'a>, n: usize, depth: usize) -> Result<Self> {
        let reference = read_value(r, "pfor reference")?;
        let low = Packed::open::<T>(r, n)?;
        let index: &[u32] = r.array("pfor exception index", n.div_ceil(BLOCK) + 1)?;
        if index[0] != 0 {
            return Err(Error::Corrupt(format!("pfor: the first block's exceptions start at {}", index[0])));
        }
        for (b, pair) in index.windows(2).enumerate() {
            if pair[1] < pair[0] || (pair[1] - pair[0]) as usize > (n - b * BLOCK).min(BLOCK) {
                return Err(Error::Corrupt(format!("pfor: block {b} claims exceptions {}..{}", pair[0], pair[1])));
            }
        }
        let count = index[index.len() - 1] as usize;
        if count > 0 && low.width() >= T::Unsigned::BITS {
            return Err(Error::Corrupt("pfor: exceptions to residuals packed at the full width".into()));
        }
        let positions = StreamView::open_nested(r, count, depth + 1)?;
        let highs = WordStream::open_nested(r, count, depth + 1)?;
        Ok(PforView { reference, low, index, positions, highs })
    }

    /// The exception positions stream (offsets within blocks).
    pub fn positions(&self) -> &StreamView<'a, u32> {
        &self.positions
    }

    /// The exception values stream (high bits).
    pub fn exceptions(&self) -> &WordStream<'a, T::Unsigned> {
        &self.highs
    }

    fn has_exceptions(&self) -> bool {
        self.index[self.index.len() - 1] != 0
    }

    /// What an exception adds to its packed low bits (open checked that `w` is below the word's width).
    #[inline(always)]
    fn patch(&self, high: T::Unsigned) -> T::Unsigned {
        high << self.low.width()
    }

    /// The index of row `i`'s exception, if it has one: a binary search over its block's offsets.
    #[inline]
    fn exception_at(&self, i: usize) -> Option<usize> {
        let b = i / BLOCK;
        let (mut lo, mut hi) = (self.index[b] as usize, self.index[b + 1] as usize);
        let target = (i % BLOCK) as u32;
        while lo < hi {
            let mid = (lo + hi) / 2;
            match self.positions.get(mid).cmp(&target) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(mid),
            }
        }
        None
    }

    /// Calls `f(row, high bits)` for every exception of the blocks that hold rows `start..end`.
    fn for_each_exception(&self, start: usize, end: usize, mut f: impl FnMut(usize, T::Unsigned)) {
        if start >= end || !self.has_exceptions() {
            return;
        }
        let (mut offsets, mut highs) = ([0u32; BLOCK], [T::Unsigned::ZERO; BLOCK]);
        for b in start / BLOCK..=(end - 1) / BLOCK {
            let (first, last) = (self.index[b] as usize, self.index[b + 1] as usize);
            let (offsets, highs) = (&mut offsets[..last - first], &mut highs[..last - first]);
            if offsets.is_empty() {
                continue;
            }
            self.positions.decode_into(first, offsets);
            self.highs.decode_into(first, highs);
            for (&offset, &high) in offsets.iter().zip(highs.iter()) {
                // A corrupt offset still lands on a row of this block, or the last row.
                f((b * BLOCK + offset as usize % BLOCK).min(self.len() - 1), high);
            }
        }
    }
}

impl<T: LwcInt> StreamOps<T> for PforView<'_, T> {
    fn len(&self) -> usize {
        self.low.len()
    }

    fn decode_into(&self, start: usize, out: &mut [T]) {
        let out: &mut [T::Unsigned] = bytemuck::cast_slice_mut(out);
        self.low.decode_into(start, self.reference.to_bits(), out);
        let end = start + out.len();
        self.for_each_exception(start, end, |row, high| {
            if (start..end).contains(&row) {
                out[row - start] = out[row - start].wrapping_add(self.patch(high));
            }
        });
    }

    fn get(&self, i: usize) -> T {
        let mut residual = self.low.get(i);
        if let Some(k) = self.exception_at(i) {
            residual = residual.wrapping_add(self.patch(self.highs.get(k)));
        }
        T::add_offset(self.reference, residual)
    }

    fn take_into(&self, positions: &[u32], out: &mut [T]) {
        let out: &mut [T::Unsigned] = bytemuck::cast_slice_mut(out);
        self.low.take_into(positions, self.reference.to_bits(), out);
        if self.has_exceptions() {
            for (o, &p) in out.iter_mut().zip(positions) {
                if let Some(k) = self.exception_at(p as usize) {
                    *o = o.wrapping_add(self.patch(self.highs.get(k)));
                }
            }
        }
    }

    fn filter_range(&self, lo: T, hi: T, out: &mut Bitmap) {
        let lo = lo.max(self.reference);
        if lo > hi {
            return;
        }
        let (lo, span) = (lo.offset_from(self.reference), hi.offset_from(lo));
        // Rows without an exception have residuals below 2^w: they can match only a range starting there.
        if lo <= T::Unsigned::low_mask(self.low.width()) {
            self.low.filter(lo, span, out);
        }
        // Exception rows were compared on their low bits alone: compare their whole residuals.
        let words = out.words_mut();
        self.for_each_exception(0, self.len(), |row, high| {
            let residual = self.low.get(row).wrapping_add(self.patch(high));
            let hit = residual.wrapping_sub(lo) <= span;
            words[row / 64] = words[row / 64] & !(1 << (row % 64)) | (hit as u64) << (row % 64);
        });
    }

    fn sum(&self) -> i128 {
        let mut patches = 0u128;
        if self.has_exceptions() {
            self.highs.for_each_block(|_, highs| {
                patches += highs.iter().map(|&h| self.patch(h).to_u64() as u128).sum::<u128>();
            });
        }
        self.reference.to_i128() * self.len() as i128 + (self.low.sum() + patches) as i128
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bytes::AlignedBytes;
    use crate::encodings::{encode_stream, Cascade};

    fn encoded<T: LwcInt>(values: &[T], cascade: &str) -> AlignedBytes {
        let mut w = Writer::new();
        encode_stream(values, &cascade.parse::<Cascade>().unwrap(), &mut w).unwrap();
        w.into_aligned()
    }

    fn open<T: LwcInt>(bytes: &[u8], n: usize) -> StreamView<'_, T> {
        StreamView::open(&mut Reader::new(bytes), n).unwrap()
    }

    /// Seed 002's D4: 90 % normal(2^5, σ 20), 10 % normal(2^25, σ 20), rounded and clamped at 0 (a
    /// Box-Muller normal from a small xorshift, to stay free of dependencies).
    fn d4(n: usize) -> Vec<u32> {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut uniform = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 11) as f64 / (1u64 << 53) as f64
        };
        (0..n)
            .map(|_| {
                let normal = (-2.0 * (1.0 - uniform()).ln()).sqrt() * (std::f64::consts::TAU * uniform()).cos();
                let mean = if uniform() < 0.9 { 32.0 } else { (1u32 << 25) as f64 };
                (mean + 20.0 * normal).round().max(0.0) as u32
            })
            .collect()
    }

    fn check_all<T: LwcInt>(values: &[T], view: &StreamView<'_, T>) {
        let mut out = vec![T::default(); values.len()];
        view.decode_into(0, &mut out);
        assert_eq!(out, values);
        for (i, &v) in values.iter().enumerate() {
            assert_eq!(view.get(i), v, "get {i}");
        }
        let positions: Vec<u32> = (0..values.len() as u32).rev().step_by(3).collect();
        let mut taken = vec![T::default(); positions.len()];
        view.take_into(&positions, &mut taken);
        assert!(positions.iter().zip(&taken).all(|(&p, &t)| values[p as usize] == t));
        assert_eq!(view.sum(), values.iter().map(|v| v.to_i128()).sum::<i128>());
    }

    #[test]
    fn d4_is_much_smaller_than_for_and_bitpack() {
        let values = d4(1 << 16);
        let size = |cascade: &str| encoded(&values, cascade).len();
        let (pfor, r#for, bitpack) = (size("pfor"), size("for"), size("bitpack"));
        assert!(pfor * 2 < r#for, "pfor {pfor} bytes, for {}", r#for);
        assert!(pfor * 2 < bitpack, "pfor {pfor} bytes, bitpack {bitpack}");
        let bytes = encoded(&values, "pfor");
        let view = open::<u32>(&bytes, values.len());
        check_all(&values, &view);
        // Filters on both sides of 2^w: small values, outliers, and a range across both.
        for (lo, hi) in [(0, 40), (1 << 24, u32::MAX), (30, 1 << 25), (1 << 25, 1 << 25)] {
            let mut bits = Bitmap::new_clear(values.len());
            view.filter_range(lo, hi, &mut bits);
            let want: Vec<u32> =
                (0..values.len() as u32).filter(|&i| (lo..=hi).contains(&values[i as usize])).collect();
            assert_eq!(bits.to_positions(), want, "{lo}..={hi}");
        }
    }

    #[test]
    fn width_balances_packed_bits_against_exceptions() {
        let stats = |v: &[u64]| Stats::compute(v);
        // One outlier in 1,000: the small width wins.
        let one: Vec<u64> = (0..1000).map(|i| if i == 500 { u64::MAX } else { i % 16 }).collect();
        assert_eq!(best_width(&one, &stats(&one)), 4);
        // Half the values 40 bits wide, half the minimum: half exceptions at width 0 beat 40 bits each.
        let half: Vec<u64> = (0..1000).map(|i| if i % 2 == 0 { 1 << 40 } else { 3 }).collect();
        assert_eq!(best_width(&half, &stats(&half)), 0);
        // Nine in ten wide: exceptions would cost more than they save.
        let most: Vec<u64> = (0..1000).map(|i| if i % 10 == 0 { 3 } else { 1 << 40 }).collect();
        assert_eq!(best_width(&most, &stats(&most)), 40);
        assert_eq!(best_width::<u8>(&[], &Stats::compute(&[])), 0);
    }

    #[test]
    fn extremes_and_every_width_round_trip() {
        let mut values: Vec<i64> = (0..3000).map(|i| i % 7 - 3).collect();
        values[0] = i64::MIN;
        values[1023] = i64::MAX;
        values[1024] = i64::MAX - 1;
        values[2999] = i64::MAX;
        for cascade in ["pfor", "pfor(for, bitpack)", "pfor(plain, pfor)", "pfor(auto, auto)"] {
            let bytes = encoded(&values, cascade);
            check_all(&values, &open::<i64>(&bytes, values.len()));
        }
        // Exceptions only at block edges; none at all; a stream of one row.
        let edges: Vec<u8> = (0..2049).map(|i| if i % 1024 == 0 || i % 1024 == 1023 { 255 } else { 1 }).collect();
        check_all(&edges, &open::<u8>(&encoded(&edges, "pfor"), edges.len()));
        let flat: Vec<u16> = vec![7; 100];
        check_all(&flat, &open::<u16>(&encoded(&flat, "pfor"), flat.len()));
        check_all(&[i8::MIN], &open::<i8>(&encoded(&[i8::MIN], "pfor"), 1));
    }

    #[test]
    fn corrupt_indexes_are_rejected() {
        let values: Vec<u32> = (0..2000).map(|i| if i % 100 == 0 { 1 << 30 } else { i % 8 }).collect();
        let bytes = encoded(&values, "pfor");
        // id, reference (8), width (1), packed low bits, padding, then the index of three entries.
        let at = (10 + kernel::packed_len(values.len(), 3)).next_multiple_of(8);
        let index: Vec<u32> =
            (0..3).map(|k| u32::from_le_bytes(bytes[at + 4 * k..at + 4 * k + 4].try_into().unwrap())).collect();
        assert_eq!(index, [0, 11, 20]);
        for (entry, value) in [(0, 1), (1, 1025), (1, 21), (2, 10)] {
            let mut bad = bytes.to_vec();
            bad[at + 4 * entry..at + 4 * entry + 4].copy_from_slice(&(value as u32).to_le_bytes());
            let bad = AlignedBytes::copy_from(&bad);
            assert!(StreamView::<u32>::open(&mut Reader::new(&bad), values.len()).is_err(), "entry {entry} = {value}");
        }
    }
}
