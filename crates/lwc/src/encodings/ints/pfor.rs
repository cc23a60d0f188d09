//! `pfor`: patched frame of reference (PFOR, seed 002's SIMD-FastPFOR). Residuals `value - min` are
//! bit-packed at a width `w` that most of them fit; the few that do not (exceptions) are kept whole in
//! child streams, and their packed slot holds the marker `2^w - 1`. One outlier no longer widens every
//! value: on seed 002's D4 (90 % near 2^5, 10 % near 2^25) `for` packs 26 bits a value, `pfor` 7 bits
//! plus a few bytes per exception.
//!
//! Bytes: the reference (8, zero-extended bits), the width byte and the packed slots (as `for`), the
//! exception index (u32 each, 8-aligned: for each block of [`BLOCK`] rows, the index of its first
//! exception, then the number of exceptions), and two child streams of one value per exception:
//! - `exception positions` (u32): the row's offset within its block (below 1,024), ascending within the
//!   block; the block comes from the index. Offsets need 10 bits where row numbers need 16.
//! - `exception values` (`T::Unsigned`): the whole residual.
//!
//! Finding a row's exception: only a row whose slot holds the marker can have one (a value equal to the
//! marker is stored as it is and merely pays the search). The block's two index entries bound its
//! exceptions, and a binary search over their offsets finds the row's. So `get` of an ordinary row costs
//! `for`'s plus one compare. Measured on D4 (`cargo bench -p lwc --bench segments -- pfor_d4`), 1,000
//! random gets took 58 µs when every row searched its block (about 100 exceptions a block), 10 µs with
//! the marker (`for`: 4 µs); take of 1,000 62 µs, then 4.5 µs (`for`: 1.6 µs). The marker costs the
//! exceptions their low bits, so the child keeps whole residuals: 8 bits each on D4 instead of 1 for
//! high bits alone, about 2 % of plain. A bitmap of exceptions would find them in O(1) too, but costs a
//! bit a row whatever their number (14 % on top of D4's 7-bit residuals); the index costs 32 bits per
//! 1,024 rows.
//!
//! Width: one pass counts the residuals of each bit width; the width then minimizes packed bits plus
//! exception bits (offset and residual), as FastPFOR does. Decoding unpacks a block and overwrites its
//! exceptions; filters compare the packed slots where the constant range starts below `2^w`, then
//! recompute the exceptions' rows; the sum is `n * reference + sum of slots + sum over exceptions of
//! (residual - marker)`.

use std::sync::Arc;

use super::bitpack::{Frame, Packed};
use super::{Cascade, InPlace, ChildReads, Children, Encoder, Encoding, EncodingId, OpenStream, StreamOps, StreamView, WordStream, read_value, value_bits};
use crate::stats::{Stats, Shape, SplitMix};
use crate::bitmap::Bitmap;
use crate::bytes::{Reader, Writer};
use crate::error::{Error, Result};
use crate::kernels::bitpack::{self as kernel, BLOCK};
use crate::types::{LwcInt, Word};

pub(crate) struct Pfor;

/// Offsets are below [`BLOCK`] and ascend within a block: bit packing stores them at 10 bits or fewer and
/// reads each with one load, which the binary search wants.
const POSITIONS: Encoding = Encoding::Bitpack;

/// Outliers usually cluster around their own magnitude (2^25 on D4), which `for` takes away, but one
/// stray value just past `2^w` on the low side widens `for` to every bit (seen on D4: 8 bits a residual
/// became 26, 0.280 of plain became 0.333). The smallest estimate picks (a dictionary, there).
const EXCEPTIONS: Encoding = Encoding::Auto;

/// The width minimizing packed bits plus exception bits, from a histogram of residual widths.
fn best_width<T: LwcInt>(values: &[T], stats: &Stats<T>) -> u32 {
    // Four histograms, a value's chosen by its place: most residuals share a width, and one histogram's
    // count of it would wait on its own last store every value.
    let mut partial = [[0u32; 65]; 4];
    let chunks = values.chunks_exact(4);
    let rest = chunks.remainder();
    for four in chunks {
        for (counts, v) in partial.iter_mut().zip(four) {
            counts[v.offset_from(stats.min).bits_used() as usize] += 1;
        }
    }
    for v in rest {
        partial[0][v.offset_from(stats.min).bits_used() as usize] += 1;
    }
    let counts: [usize; 65] = std::array::from_fn(|b| partial.iter().map(|c| c[b] as usize).sum());
    let widest = stats.range_bits();
    // An exception: its offset, and its residual at the widest width (a bound: the child stream takes
    // less where outliers cluster).
    let exception_bits = (values.len().clamp(1, BLOCK) as u32 - 1).bits_used() + widest;
    let (mut best, mut best_cost, mut above) = (widest, values.len() * widest as usize, 0);
    for w in (0..widest).rev() {
        above += counts[w as usize + 1];
        let cost = values.len() * w as usize + above * exception_bits as usize;
        // Ties keep the wider width: fewer exceptions to patch.
        if cost < best_cost {
            (best, best_cost) = (w, cost);
        }
    }
    best
}

/// The packed slots, the exception index and the two child streams' values at width `w`.
struct Split<U> {
    slots: Vec<U>,
    index: Vec<u32>,
    offsets: Vec<u32>,
    residuals: Vec<U>,
}

fn split<T: LwcInt>(values: &[T], min: T, w: u32) -> Split<T::Unsigned> {
    let marker = T::Unsigned::low_mask(w);
    let index = Vec::with_capacity(values.len() / BLOCK + 2);
    let mut s = Split { slots: Vec::with_capacity(values.len()), index, offsets: vec![], residuals: vec![] };
    // A block's exceptions are written at the next free place whether or not the value is one, and the
    // place advances when it is: no branch a value (on D4 one value in ten is, at random).
    let (mut offsets, mut residuals) = ([0u32; BLOCK], [T::Unsigned::ZERO; BLOCK]);
    for block in values.chunks(BLOCK) {
        s.index.push(s.offsets.len() as u32);
        s.slots.extend(block.iter().map(|v| v.offset_from(min).min(marker)));
        let mut found = 0;
        for (k, v) in block.iter().enumerate() {
            let residual = v.offset_from(min);
            offsets[found] = k as u32;
            residuals[found] = residual;
            found += (residual > marker) as usize;
        }
        s.offsets.extend_from_slice(&offsets[..found]);
        s.residuals.extend_from_slice(&residuals[..found]);
    }
    s.index.push(s.offsets.len() as u32);
    s
}

/// Rows in the calibration's data per exception.
const CALIBRATION_EXCEPTION_SPACING: usize = 64;

impl Encoder for Pfor {
    const CHILDREN: &'static [&'static str] = &["exception positions", "exception values"];

    /// Rows holding the marker (an exception's share of the rows) search the exception positions and read
    /// the exception's value.
    fn child_reads(k: usize, _: u32, rows: usize, exceptions: usize) -> ChildReads {
        let share = exceptions as f64 / rows.max(1) as f64;
        match k {
            0 => ChildReads { searches: share, ..ChildReads::NONE },
            _ => ChildReads { gets: share, ..ChildReads::NONE },
        }
    }

    fn pruned(shape: &dyn Shape) -> Option<&'static str> {
        (shape.range_bits() <= 8).then_some("values already fit 8 bits")
    }

    /// One value in [`CALIBRATION_EXCEPTION_SPACING`] is full-width, the others `width` bits.
    fn calibration_values(width: u32, n: usize, rng: &mut SplitMix) -> Vec<u64> {
        let limit = if width <= 32 { u32::MAX as u64 } else { u64::MAX };
        let mask = if width >= 64 { u64::MAX } else { (1u64 << width) - 1 };
        (0..n).map(|i| rng.next() & if i % CALIBRATION_EXCEPTION_SPACING == 7 { limit } else { mask }).collect()
    }

    /// A frame of reference patched: forced on values with no exceptions (months, sorted keys) it decoded
    /// at `for`'s speed, half what its calibration measured with one row in 64 patched (`lwc-bench costs`).
    fn patches() -> Option<(EncodingId, f64)> {
        Some((EncodingId::For, 1.0 / CALIBRATION_EXCEPTION_SPACING as f64))
    }

    fn estimate<T: LwcInt>(values: &[T], stats: &Stats<T>, _parameter: u32, children: &impl Children) -> Option<usize> {
        let w = best_width(values, stats);
        let s = split(values, stats.min, w);
        let children =
            children.estimate(0, &s.offsets, POSITIONS)? + children.estimate(1, &s.residuals, EXCEPTIONS)?;
        // Reference, width, packed bits, padding before the index, the index, the children.
        Some(9 + kernel::packed_len(values.len(), w) + 4 + 4 * s.index.len() + children)
    }

    fn encode<T: LwcInt>(values: &[T], stats: &Stats<T>, _parameter: u32, children: &impl Children, out: &mut Writer) -> Result<()> {
        let w = best_width(values, stats);
        let s = split(values, stats.min, w);
        out.u64(value_bits(stats.min));
        out.u8(w as u8);
        out.packed(|buf| kernel::pack(&s.slots, w, buf));
        out.array(&s.index);
        children.encode(0, &s.offsets, POSITIONS, out)?;
        children.encode(1, &s.residuals, EXCEPTIONS, out)
    }
}

pub(crate) struct PforView<'a, T: LwcInt> {
    reference: T,
    /// A residual, or the marker where a row may be an exception.
    slots: Packed<'a, T::Unsigned>,
    /// `2^w - 1`.
    marker: T::Unsigned,
    /// `index[b]..index[b + 1]`: the exceptions of block `b`, at most its rows.
    index: &'a [u32],
    positions: StreamView<'a, u32>,
    residuals: WordStream<'a, T::Unsigned>,
}

impl<'a, T: LwcInt> OpenStream<'a, T> for PforView<'a, T> {
    fn open(r: &mut Reader<'a>, n: usize, depth: usize) -> Result<Self> {
        let reference = read_value(r, "pfor reference")?;
        let slots = Packed::open::<T>(r, n)?;
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
        let positions = StreamView::open_nested(r, count, depth + 1)?;
        let residuals = WordStream::open_nested(r, count, depth + 1)?;
        let marker = T::Unsigned::low_mask(slots.width());
        Ok(PforView { reference, slots, marker, index, positions, residuals })
    }

    fn child_cascades(&self) -> Vec<Cascade> {
        vec![self.positions().cascade(), self.exceptions().cascade()]
    }

    /// The slots as a frame, and the exceptions decoded into arrays (a column gathers its readers once,
    /// when it opens): a lone row costs `for`'s read and a compare, and a row on the marker a search
    /// of plain offsets. Read through each segment's dispatch instead, 1,000 random rows of o_totalprice
    /// took 10.6-11.1x a plain gather (`lwc-bench costs`, AMD EPYC Zen 5).
    fn in_place(&self) -> Option<InPlace<'a, T>> {
        let count = self.index[self.index.len() - 1] as usize;
        let (mut offsets, mut residuals) = (vec![0; count], vec![T::Unsigned::ZERO; count]);
        self.positions.decode_into(0, &mut offsets);
        self.residuals.decode_into(0, &mut residuals);
        let exceptions = Exceptions { index: self.index, offsets, residuals };
        let frame = Frame { base: self.reference, fields: self.slots };
        Some(InPlace::Patched { frame, marker: self.marker, exceptions: Arc::new(exceptions) })
    }
}

/// A `pfor` stream's exceptions decoded, for reads in place: each block's range of them (the stream's
/// index), and each one's offset in its block and residual.
pub(crate) struct Exceptions<'a, U> {
    index: &'a [u32],
    offsets: Vec<u32>,
    residuals: Vec<U>,
}

impl<U: Word> Exceptions<'_, U> {
    /// None at all: a frame read among `pfor` streams.
    pub fn none() -> Self {
        Exceptions { index: &[], offsets: Vec::new(), residuals: Vec::new() }
    }

    /// Row `i`'s residual over the reference, its slot holding `field`: the slot, unless it holds the
    /// marker and the row is an exception.
    #[inline(always)]
    pub fn patched(&self, i: usize, field: U, marker: U) -> U {
        if field == marker {
            return self.residual_of(i).unwrap_or(field);
        }
        field
    }

    /// Row `i`'s residual, where it is an exception. Corrupt offsets find some residual or none, within
    /// the arrays.
    #[inline]
    pub fn residual_of(&self, i: usize) -> Option<U> {
        let b = i / BLOCK;
        let (first, end) = (*self.index.get(b)? as usize, *self.index.get(b + 1)? as usize);
        let k = self.offsets.get(first..end)?.binary_search(&((i % BLOCK) as u32)).ok()?;
        self.residuals.get(first + k).copied()
    }
}

impl<'a, T: LwcInt> PforView<'a, T> {
    /// The exception positions stream (offsets within blocks).
    pub fn positions(&self) -> &StreamView<'a, u32> {
        &self.positions
    }

    /// The exception values stream (whole residuals).
    pub fn exceptions(&self) -> &WordStream<'a, T::Unsigned> {
        &self.residuals
    }

    fn has_exceptions(&self) -> bool {
        self.index[self.index.len() - 1] != 0
    }

    /// The index of row `i`'s exception, if it has one: a binary search over its block's offsets.
    #[inline]
    fn exception_at(&self, i: usize) -> Option<usize> {
        let b = i / BLOCK;
        let k = self.last_at_most(self.index[b] as usize, self.index[b + 1] as usize, (i % BLOCK) as u32);
        k.filter(|&k| self.positions.get(k) == (i % BLOCK) as u32)
    }

    /// Of exceptions `first..end` (one block's, offsets ascending), the last whose offset is at most
    /// `target`; `None` where there is none. Branch-free: the range halves towards it.
    #[inline]
    fn last_at_most(&self, mut first: usize, end: usize, target: u32) -> Option<usize> {
        let mut len = end.saturating_sub(first);
        while len > 1 {
            let half = len / 2;
            first += half * usize::from(self.positions.get(first + half) <= target);
            len -= half;
        }
        (len == 1 && self.positions.get(first) <= target).then_some(first)
    }

    /// Of exceptions `first..end` (one block's), the first whose offset is at least `target` (`end` where
    /// none is).
    fn first_at_least(&self, first: usize, end: usize, target: u32) -> usize {
        match target.checked_sub(1) {
            Some(below) => self.last_at_most(first, end, below).map_or(first, |k| k + 1),
            None => first,
        }
    }

    /// `value` (row `i`'s slot plus the reference), or row `i`'s exception where it has one.
    #[inline(always)]
    fn patched(&self, i: usize, value: T::Unsigned) -> T::Unsigned {
        if value != self.reference.to_bits().wrapping_add(self.marker) || !self.has_exceptions() {
            return value;
        }
        match self.exception_at(i) {
            Some(k) => self.reference.to_bits().wrapping_add(self.residuals.get(k)),
            None => value,
        }
    }

    /// Calls `f(row, residual)` for the exceptions of rows `start..end` (on corrupt offsets, possibly
    /// others of their blocks). Where the range cuts a block, its exceptions are first bounded by two
    /// searches of their offsets, and they are decoded [`EXCEPTION_CHUNK`] at a time: short decodes (a
    /// `delta` stride's deltas sought for one position) zeroed two blocks' buffers and read every
    /// exception of the block, and `delta(pfor)` took 10^3 random rows in up to 3x its decode and a gather.
    fn for_each_exception(&self, start: usize, end: usize, mut f: impl FnMut(usize, T::Unsigned)) {
        if start >= end || !self.has_exceptions() {
            return;
        }
        let (mut offsets, mut residuals) = ([0u32; EXCEPTION_CHUNK], [T::Unsigned::ZERO; EXCEPTION_CHUNK]);
        for b in start / BLOCK..=(end - 1) / BLOCK {
            let (block_start, mut first, mut last) = (b * BLOCK, self.index[b] as usize, self.index[b + 1] as usize);
            if first == last {
                continue;
            }
            if start > block_start {
                first = self.first_at_least(first, last, (start - block_start) as u32);
            }
            if end < block_start + BLOCK {
                last = self.first_at_least(first, last, (end - block_start) as u32);
            }
            for from in (first..last).step_by(EXCEPTION_CHUNK) {
                let len = (last - from).min(EXCEPTION_CHUNK);
                let (offsets, residuals) = (&mut offsets[..len], &mut residuals[..len]);
                self.positions.decode_into(from, offsets);
                self.residuals.decode_into(from, residuals);
                for (&offset, &residual) in offsets.iter().zip(residuals.iter()) {
                    // A corrupt offset still lands on a row of this block, or the last row.
                    f((block_start + offset as usize % BLOCK).min(self.len() - 1), residual);
                }
            }
        }
    }
}

/// Exceptions decoded at a time by [`PforView::for_each_exception`]: most blocks have fewer, and the
/// buffers are zeroed on every call.
const EXCEPTION_CHUNK: usize = 128;

impl<T: LwcInt> StreamOps<T> for PforView<'_, T> {
    fn len(&self) -> usize {
        self.slots.len()
    }

    fn decode_into(&self, start: usize, out: &mut [T]) {
        let out: &mut [T::Unsigned] = bytemuck::cast_slice_mut(out);
        self.slots.decode_into(start, self.reference.to_bits(), out);
        let end = start + out.len();
        self.for_each_exception(start, end, |row, residual| {
            if (start..end).contains(&row) {
                out[row - start] = self.reference.to_bits().wrapping_add(residual);
            }
        });
    }

    fn get(&self, i: usize) -> T {
        T::from_bits(self.patched(i, self.reference.to_bits().wrapping_add(self.slots.get(i))))
    }

    fn wrapping_sum(&self, start: usize, len: usize) -> T {
        // As `sum`: each exception's slot counted the marker, which its residual replaces. A seek over
        // `delta(pfor)` (a column of strings' row offsets) sums its deltas without unpacking them. Not
        // `sums_in_place`: every call searches its blocks' exceptions, so a walk that sums many short
        // ranges pays more than decoding windows (`delta(pfor)` took 1 % match vectors of the TPC-H
        // keys in 1.2-3.5x the time when `delta` priced it so).
        let end = start + len;
        let mut sum = self.slots.wrapping_sum(start, len, self.reference.to_bits());
        self.for_each_exception(start, end, |row, residual| {
            if (start..end).contains(&row) {
                sum = sum.wrapping_add(residual).wrapping_sub(self.marker);
            }
        });
        T::from_bits(sum)
    }

    fn take_into(&self, positions: &[u32], out: &mut [T]) {
        let out: &mut [T::Unsigned] = bytemuck::cast_slice_mut(out);
        self.slots.take_into(positions, self.reference.to_bits(), out);
        if self.has_exceptions() {
            for (o, &p) in out.iter_mut().zip(positions) {
                *o = self.patched(p as usize, *o);
            }
        }
    }

    fn filter_range(&self, lo: T, hi: T, out: &mut Bitmap) {
        let lo = lo.max(self.reference);
        if lo > hi {
            return;
        }
        let (lo, span) = (lo.offset_from(self.reference), hi.offset_from(lo));
        // Ordinary rows have residuals up to the marker: they can match only a range starting there.
        if lo <= self.marker {
            self.slots.filter(lo, span, out);
        }
        // Exception rows were compared on their marker: compare their residuals.
        let words = out.words_mut();
        self.for_each_exception(0, self.len(), |row, residual| {
            let hit = residual.wrapping_sub(lo) <= span;
            words[row / 64] = words[row / 64] & !(1 << (row % 64)) | (hit as u64) << (row % 64);
        });
    }

    fn sum(&self) -> i128 {
        // Each exception's slot counted the marker; its residual replaces it.
        let (mut residuals, mut count) = (0u128, 0u128);
        self.residuals.for_each_block(|_, block| {
            residuals += crate::kernels::scan::sum_words(block);
            count += block.len() as u128;
        });
        let slots = self.slots.sum() as i128 - (count * self.marker.to_u64() as u128) as i128;
        self.reference.to_i128() * self.len() as i128 + slots + residuals as i128
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bytes::AlignedBytes;
    use crate::encodings::{encode_stream, Cascade};

    fn encoded<T: LwcInt>(values: &[T], cascade: &str) -> AlignedBytes {
        let mut w = Writer::new();
        encode_stream(values, &cascade.parse::<Cascade>().unwrap(), Default::default(), &mut w).unwrap();
        w.into_aligned()
    }

    fn open<T: LwcInt>(bytes: &[u8], n: usize) -> StreamView<'_, T> {
        StreamView::open(&mut Reader::new(bytes), n).unwrap()
    }

    use crate::encodings::test_shapes::d4;

    fn check_all<T: LwcInt>(values: &[T], view: &StreamView<'_, T>) {
        let mut out = vec![T::default(); values.len()];
        view.decode_into(0, &mut out);
        assert_eq!(out, values);
        // Ranges that cut blocks at and beside their exceptions: each block's are bounded by two searches.
        let n = values.len();
        for start in [0, 1, 2, 511, 1022, 1023, 1024, 1025, 2047, 2048].into_iter().filter(|&s| s < n) {
            for len in [1, 2, 3, 130, 300, 1024, 1500] {
                let end = (start + len).min(n);
                let mut out = vec![T::default(); end - start];
                view.decode_into(start, &mut out);
                assert_eq!(out, values[start..end], "decode {start}..{end}");
                // Summed where the slots lie, the exceptions in range patched in.
                let want = values[start..end].iter().fold(T::Unsigned::ZERO, |s, v| s.wrapping_add(v.to_bits()));
                assert_eq!(view.wrapping_sum(start, end - start).to_bits(), want, "sum {start}..{end}");
            }
        }
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
        // About 0.28, 0.81 and 0.81 of plain.
        assert!(pfor * 5 < r#for * 2, "pfor {pfor} bytes, for {}", r#for);
        assert!(pfor * 5 < bitpack * 2, "pfor {pfor} bytes, bitpack {bitpack}");
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
    fn auto_picks_pfor_for_rare_outliers_among_many_values() {
        // Too many distinct values for a dictionary, one outlier in a hundred widening `for` to 32 bits.
        let values: Vec<u32> =
            (0..1u32 << 14).map(|i| if i % 100 == 7 { u32::MAX - i } else { i * 37 % 1024 }).collect();
        let chosen = crate::encode_segment(&values, None, Encoding::Auto).unwrap().cascade().encoding();
        assert_eq!(chosen, Encoding::Pfor);
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
        // A third of the rows exceptions: more in a block than are decoded at a time.
        let many: Vec<u64> = (0..3000).map(|i| if i % 3 == 0 { (1 << 40) + i } else { i % 4 }).collect();
        let bytes = encoded(&many, "pfor");
        let view = open::<u64>(&bytes, many.len());
        let StreamView::Pfor(pfor) = &view else { panic!("pfor") };
        assert!(pfor.index[1] as usize > EXCEPTION_CHUNK, "{} exceptions in block 0", pfor.index[1]);
        check_all(&many, &view);
        let flat: Vec<u16> = vec![7; 100];
        check_all(&flat, &open::<u16>(&encoded(&flat, "pfor"), flat.len()));
        check_all(&[i8::MIN], &open::<i8>(&encoded(&[i8::MIN], "pfor"), 1));
    }

    #[test]
    fn views_with_word_children_stay_send_and_sync() {
        // Segments are read from many threads; `WordStream`'s trait object must not take that away.
        fn check<S: Send + Sync>() {}
        check::<StreamView<'static, i16>>();
        check::<crate::Segment<'static, u64>>();
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
