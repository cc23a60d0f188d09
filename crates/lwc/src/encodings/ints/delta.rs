//! `delta`: differences between consecutive values, with the full value stored every `stride` rows as a
//! data point (seed 001, §3), so that no read walks further back than one stride.
//!
//! Bytes after the id byte:
//!
//! | size | field |
//! |---|---|
//! | 4 | stride: a power of two in 16 ..= 65,536 |
//! | 1 | flags: bit 0 = monotone (the values never decrease) |
//! | … | child stream 0, the deltas: `n` values of the unsigned type (`deltas[0]`, never read, repeats `deltas[1]`) |
//! | … | child stream 1, the data points: `⌈n / stride⌉` values, `data_points[s] = values[s · stride]` |
//!
//! `deltas[i]` is `values[i] - values[i - 1]` computed with wrapping arithmetic in the unsigned domain:
//! as it is for monotone data, zigzagged (`0, -1, 1, -2, …` → `0, 1, 2, 3, …`) otherwise, so sorted keys
//! do not pay the sign bit and `i64::MIN` next to `i64::MAX` still round-trips exactly. Deltas and data
//! points are streams of their own: by default both frame of reference (see [`DELTAS`], [`DATA_POINTS`]),
//! any other encoding through a cascade (`delta(dict)` for keys whose steps take few distinct values).
//!
//! **Layout.** Seed 001 weighs three places for the data points: *header* (data points before the
//! deltas, every row keeps its delta), *reload* (the deltas at data points left out) and *inline* (each
//! data point in place of its delta). This is the header layout. Inline cannot work with a child stream:
//! a full-width value every stride would widen the packed deltas or join the dictionary. Reload saves
//! one delta a stride (at stride 1,024 and 5-bit deltas, 40 bytes of a 65,536-row segment) but needs
//! an index shift and a reload at every stride boundary, whereas with every delta kept a range decodes
//! as one prefix sum from its nearest data point, across strides, row `i`'s delta is child value `i`,
//! and a monotone sum needs only the first value and the deltas.
//!
//! Measured on 65,536 l_orderkey-like `u32` values (keys repeated 1-7 times) with the deltas already
//! decoded, so that only the loops differ (`cargo run --release -p lwc --example delta -- layouts`, a
//! 2-core Xeon shared with other jobs, best of 7 rounds; header / reload / inline):
//!
//! | stride | full decode, ns/value | 64 ranges of 1,000 rows, ns/value | 1% matches, µs | 50% matches, µs |
//! |---|---|---|---|---|
//! | 16 | 0.279 / 0.334 / 0.314 | 0.285 / 0.378 / 0.311 | 2.1 / 2.5 / 2.1 | 541 / 609 / 457 |
//! | 64 | 0.279 / 0.238 / 0.246 | 0.287 / 0.261 / 0.251 | 3.3 / 3.3 / 3.1 | 530 / 604 / 512 |
//! | 1,024 | 0.279 / 0.281 / 0.297 | 0.318 / 0.321 / 0.321 | 6.4 / 5.6 / 5.7 | 523 / 564 / 480 |
//! | 65,536 | 0.279 / 0.279 / 0.299 | 3.82 / 3.23 / 5.10 | 6.7 / 5.9 / 5.9 | 450 / 567 / 511 |
//!
//! No layout wins throughout: the differences are within ±20% and change sign with the stride (the
//! seed's Figure 3 also found them negligible for selective scans). So the layout kept is the one that
//! keeps the deltas a plain child stream: every row's delta, at its own row.
//!
//! **Reads.** A range decodes from the nearest data point at or before its start: the deltas up to the
//! start are summed (a vectorized wrapping sum), the rest are decoded straight into the output and
//! turned into values there by a prefix sum ([`prefix::prefix_sum`]). `get` is O(stride). Sorted
//! positions (match vectors) walk forward and jump to the next data point whenever a position lies in a
//! later stride, so only the strides holding positions are decoded, and only up to their last position;
//! positions close together are served from one prefix-summed span. Monotone data filters by binary
//! search over the data points and a scan of one stride at each end of the range, and sums in closed
//! form: `n · first value + Σ delta · (rows it reaches)`.
//!
//! **Sizes** (`cargo run --release -p lwc --example delta -- sizes`; 65,536-row segments; compression
//! factor 4 · rows / bytes, strides 16 / 1,024 / 65,536): TPC-H o_orderkey at SF1 (1,500,000 sorted
//! keys, steps 1 and 25) 5.2 / 6.4 / 6.4 with the default children, 14.9 / 30.9 / 31.5 as `delta(dict)`
//! (194,313 bytes at stride 1,024), where `for_n` reaches 3.8 and `for` 1.8; l_orderkey (6,001,215
//! rows, each key 1-7 times) 5.3 / 6.4 / 6.4, and 10.5 / 15.7 / 15.9 as `delta(dict)` (`for_n` 4.3).
//!
//! **Speed** (`cargo bench -p lwc --bench segments -- segment_delta`, 65,536 l_orderkey-like `u32`,
//! stride 1,024, on the same loaded machine, so ±30%): decode 16-31 µs (`for_n` 15-24 µs), sum 17 µs
//! (14), `x > c` 1.3 µs (30: two stride scans instead of a pass), take of 1,000 sorted positions 14 µs
//! (2.4) and unsorted 23 µs (2.1), `get` 120 ns (6): delta trades random access for size, as seed 001
//! found.

use super::{Cascade, Children, Encoder, Encoding, OpenStream, Parameter, StreamOps, StreamView, SumMinMax, WordStream};
use crate::stats::{Stats, Shape, SplitMix};
use crate::bitmap::Bitmap;
use crate::bytes::{Reader, Writer};
use crate::error::{Error, Result};
use crate::kernels::bitpack::BLOCK;
use crate::kernels::prefix::{self, zigzag};
use crate::selection::Selection;
use crate::types::{LwcInt, Word};

pub(crate) struct Delta;

/// Rows per data point unless the encoding says otherwise: Umbra's morsel size (seed 001).
pub(crate) const DEFAULT_STRIDE: u32 = 1024;

/// Running sums of values of `width` bits, within `u32` up to 32 bits: the data `delta` and `delta2` are
/// calibrated on (their cost is looked up at the width of the differences).
pub(crate) fn running_sums(width: u32, n: usize, rng: &mut SplitMix) -> Vec<u64> {
    let limit = if width <= 32 { u32::MAX as u64 } else { u64::MAX };
    let mask = if width >= 64 { u64::MAX } else { (1u64 << width) - 1 };
    let mut acc = 0u64;
    (0..n)
        .map(|_| {
            acc = acc.wrapping_add(rng.next() & mask) & limit;
            acc
        })
        .collect()
}

/// Strides allowed: below 16 a data point costs more than frame of reference saves (seed 001, §5).
const STRIDES: std::ops::RangeInclusive<u32> = 16..=65_536;

/// The deltas' encoding unless a cascade says otherwise. Frame of reference is never wider than bit
/// packing (the same kernels, plus a base added while unpacking, at no measurable cost in the
/// `segment_delta` bench) and is far narrower where every step is alike: timestamps about a second
/// apart compress 6.3x with it and 3.2x with bit packing; on o_orderkey both take 5 bits a row and it
/// costs its reference, 8 bytes a segment (`sizes` in `examples/delta.rs`).
const DELTAS: Encoding = Encoding::For;

/// The data points' encoding unless a cascade says otherwise: read one per range, `get` or stride
/// jump, so O(1) random access matters more than their size (a 64th of the deltas' count at the default
/// stride), and those of sorted data span a narrow range.
const DATA_POINTS: Encoding = Encoding::For;

/// Flag: every value is at least the one before it; deltas are plain differences, not zigzagged.
const MONOTONE: u8 = 1;

/// Positions apart by at most this many rows on average are served by one prefix sum over the rows
/// between (about 0.45 ns a row); sparser ones by sums of the deltas between each two, which write
/// nothing (about 8 ns a position and 0.1 ns a row). Below strides of [`SMALL_STRIDE`], sparse positions
/// mostly sit in strides of their own, each a decode call (about 20 ns), so spans stay dense up to
/// [`SMALL_STRIDE_GAP`] rows a position. (Sorted takes at gaps of 4 to 256 rows, `take` in
/// `examples/delta.rs`.)
const DENSE_GAP: usize = 24;
const SMALL_STRIDE: usize = 128;
const SMALL_STRIDE_GAP: usize = 64;

/// Deltas a short seek sums in one piece: a buffer is zeroed before use, and zeroing a block's worth for
/// a few deltas cost as much as the rest of a `get` at small strides.
const SHORT_SEEK: usize = 128;

/// Unsorted lists are sorted (a copy) and walked once when they have at least [`SORT_FROM`] positions
/// and either the stride is at least [`SORT_STRIDE`] or the positions are dense (see [`DENSE_GAP`]);
/// otherwise each position is read on its own. Sorting costs about 15 ns a position; reading one costs
/// a walk of half a stride, 20 ns at stride 16 and 90 ns at 1,024, and a sorted walk shares that walk
/// between positions of a stride: at stride 64 reading each won up to 1,000 of 65,536 rows, at 256
/// they were even from 8 positions on, at 1,024 sorting won by 10% at 5 positions and 5x at 1,000
/// (`take` in `examples/delta.rs`).
const SORT_FROM: usize = 8;
const SORT_STRIDE: usize = 256;

fn check_stride(stride: u32) -> Result<u32> {
    if !stride.is_power_of_two() || !STRIDES.contains(&stride) {
        return Err(Error::InvalidArgument(format!(
            "delta stride {stride} is not a power of two in {}..={}",
            STRIDES.start(),
            STRIDES.end()
        )));
    }
    Ok(stride)
}

/// What `values` are stored as: their deltas, data points and whether they never decrease.
struct Parts<T: LwcInt> {
    deltas: Vec<T::Unsigned>,
    data_points: Vec<T>,
    monotone: bool,
}

impl<T: LwcInt> Parts<T> {
    fn of(values: &[T], stride: usize) -> Parts<T> {
        let monotone = values.windows(2).all(|w| w[0] <= w[1]);
        let mut deltas: Vec<T::Unsigned> = values
            .windows(2)
            .map(|w| {
                let d = w[1].offset_from(w[0]);
                if monotone {
                    d
                } else {
                    zigzag(d)
                }
            })
            .collect();
        // Row 0 is a data point and its delta is never read: a copy of its neighbour widens nothing.
        if !values.is_empty() {
            deltas.insert(0, deltas.first().copied().unwrap_or(T::Unsigned::ZERO));
        }
        let data_points = values.iter().step_by(stride).copied().collect();
        Parts { deltas, data_points, monotone }
    }
}

impl Encoder for Delta {
    const CHILDREN: &'static [&'static str] = &["deltas", "data points"];
    const PARAMETER: Option<Parameter> = Some(Parameter { name: "stride", default: DEFAULT_STRIDE });

    fn pruned(shape: &dyn Shape) -> Option<&'static str> {
        (!shape.ascending() && shape.delta_bits() + 2 > shape.range_bits())
            .then_some("unsorted, and differences are not narrower than the values")
    }

    fn cost_width(shape: &dyn Shape) -> u32 {
        shape.delta_bits().max(1)
    }

    fn calibration_values(width: u32, n: usize, rng: &mut SplitMix) -> Vec<u64> {
        running_sums(width, n, rng)
    }


    fn estimate<T: LwcInt>(values: &[T], _: &Stats<T>, parameter: u32, children: &impl Children) -> Option<usize> {
        let stride = check_stride(parameter).ok()?;
        let parts = Parts::of(values, stride as usize);
        let deltas = children.estimate(0, &parts.deltas, DELTAS)?;
        Some(5 + deltas + children.estimate(1, &parts.data_points, DATA_POINTS)?)
    }

    fn encode<T: LwcInt>(values: &[T], _: &Stats<T>, parameter: u32, children: &impl Children, out: &mut Writer) -> Result<()> {
        let stride = check_stride(parameter)?;
        let parts = Parts::of(values, stride as usize);
        out.u32(stride);
        out.u8(if parts.monotone { MONOTONE } else { 0 });
        children.encode(0, &parts.deltas, DELTAS, out)?;
        children.encode(1, &parts.data_points, DATA_POINTS, out)
    }
}

/// Where a walk through the deltas stands: a row and its value.
#[derive(Debug, Clone, Copy)]
struct Cursor<T> {
    row: usize,
    value: T,
}

pub(crate) struct DeltaView<'a, T: LwcInt> {
    len: usize,
    shift: u32,
    /// Deltas are zigzagged (the values are not monotone).
    zigzag: bool,
    deltas: WordStream<'a, T::Unsigned>,
    data_points: StreamView<'a, T>,
}

impl<'a, T: LwcInt> OpenStream<'a, T> for DeltaView<'a, T> {
    fn open(r: &mut Reader<'a>, n: usize, depth: usize) -> Result<Self> {
        let stride = check_stride(r.u32("delta stride")?).map_err(|e| Error::Corrupt(e.to_string()))?;
        let flags = r.u8("delta flags")?;
        if flags & !MONOTONE != 0 {
            return Err(Error::Corrupt(format!("delta: unknown flags {flags:#x}")));
        }
        // Each child is opened for exactly the values it must hold, and checks its bytes against that.
        let deltas = WordStream::open_nested(r, n, depth + 1)?;
        let data_points = StreamView::open_nested(r, n.div_ceil(stride as usize), depth + 1)?;
        let (shift, zigzag) = (stride.trailing_zeros(), flags & MONOTONE == 0);
        Ok(DeltaView { len: n, shift, zigzag, deltas, data_points })
    }

    fn parameter(&self) -> Option<u32> {
        Some(self.stride())
    }

    fn child_cascades(&self) -> Vec<Cascade> {
        vec![self.deltas_cascade(), self.data_points().cascade()]
    }
}

impl<'a, T: LwcInt> DeltaView<'a, T> {

    /// Rows per data point.
    pub fn stride(&self) -> u32 {
        1 << self.shift
    }

    /// The cascade of the deltas' stream.
    pub fn deltas_cascade(&self) -> Cascade {
        self.deltas.cascade()
    }

    pub fn data_points(&self) -> &StreamView<'a, T> {
        &self.data_points
    }

    /// The data point of `row`'s stride (`row < len()`).
    fn data_point(&self, row: usize) -> Cursor<T> {
        let s = row >> self.shift;
        Cursor { row: s << self.shift, value: self.data_points.get(s) }
    }

    /// A cursor at `row`: moved forward from `from` when that stands in `row`'s stride at or before it,
    /// else from `row`'s data point. The deltas between are summed in `scratch`, not written out.
    fn seek(&self, from: Option<Cursor<T>>, row: usize, scratch: &mut [T::Unsigned]) -> Cursor<T> {
        let mut c = match from {
            Some(c) if c.row <= row && c.row >> self.shift == row >> self.shift => c,
            _ => self.data_point(row),
        };
        let chunk = scratch.len();
        while c.row < row {
            let deltas = &mut scratch[..(row - c.row).min(chunk)];
            self.deltas.decode_into(c.row + 1, deltas);
            c.value = T::add_offset(c.value, prefix::delta_sum(deltas, self.zigzag));
            c.row += deltas.len();
        }
        c
    }

    /// Writes the rows after `cursor` into `out` (they exist) and moves the cursor to the last of them:
    /// the deltas are decoded in place and summed into values there.
    fn extend(&self, cursor: &mut Cursor<T>, out: &mut [T]) {
        if out.is_empty() {
            return;
        }
        let words: &mut [T::Unsigned] = bytemuck::cast_slice_mut(out);
        self.deltas.decode_into(cursor.row + 1, words);
        let last = prefix::prefix_sum(cursor.value.to_bits(), words, self.zigzag);
        *cursor = Cursor { row: cursor.row + out.len(), value: T::from_bits(last) };
    }

    /// Rows `start .. start + out.len()` into `out`, continuing from `cursor` where it can (see
    /// [`DeltaView::seek`]); leaves the cursor at the last row written.
    fn fill(&self, cursor: &mut Option<Cursor<T>>, start: usize, out: &mut [T], scratch: &mut [T::Unsigned]) {
        let Some((first, rest)) = out.split_first_mut() else {
            return;
        };
        let mut c = self.seek(*cursor, start, scratch);
        *first = c.value;
        self.extend(&mut c, rest);
        *cursor = Some(c);
    }

    /// `out[k] = values[positions[k]]` for ascending positions, walking on from `cursor`.
    ///
    /// Window by window: the deltas from the cursor to the last position within a block of rows are
    /// decoded with one call, then prefix-summed where positions are dense, or summed between positions
    /// where they are sparse; then a window ends with its stride, and a position in a later stride starts
    /// from its data point.
    fn walk(&self, cursor: &mut Option<Cursor<T>>, positions: &[u32], out: &mut [T]) {
        let mut deltas = [T::Unsigned::ZERO; BLOCK];
        let mut k = 0;
        while k < positions.len() {
            let p = positions[k] as usize;
            let mut c = match *cursor {
                Some(c) if c.row <= p && c.row >> self.shift == p >> self.shift => c,
                _ => self.data_point(p),
            };
            if p - c.row > BLOCK {
                c = self.seek(Some(c), p, &mut deltas);
            }
            // Dense positions run on across data points; sparse ones stay in the stride, so that a later
            // stride starts from its data point instead of from the deltas before it.
            let mut run = count_up_to(&positions[k..], c.row + BLOCK);
            if !self.dense(positions[k + run - 1] as usize - c.row, run) {
                run = count_up_to(&positions[k..k + run], c.row | (self.stride() as usize - 1));
            }
            let (first, last) = (c.row, positions[k + run - 1] as usize);
            let deltas = &mut deltas[..last - first];
            self.deltas.decode_into(first + 1, deltas);
            let (positions, out) = (&positions[k..k + run], &mut out[k..k + run]);
            if self.dense(deltas.len(), run) {
                let last_value = prefix::prefix_sum(c.value.to_bits(), deltas, self.zigzag);
                for (o, &q) in out.iter_mut().zip(positions) {
                    let q = q as usize - first;
                    *o = if q == 0 { c.value } else { T::from_bits(deltas[q - 1]) };
                }
                c = Cursor { row: last, value: T::from_bits(last_value) };
            } else {
                for (o, &q) in out.iter_mut().zip(positions) {
                    let (from, to) = (c.row - first, q as usize - first);
                    c = Cursor {
                        row: q as usize,
                        value: T::add_offset(c.value, prefix::delta_sum(&deltas[from..to], self.zigzag)),
                    };
                    *o = c.value;
                }
            }
            *cursor = Some(c);
            k += run;
        }
    }

    /// Whether `positions` in a span of `rows` are served best by one prefix sum over them (see [`DENSE_GAP`]).
    fn dense(&self, rows: usize, positions: usize) -> bool {
        let gap = if (self.stride() as usize) < SMALL_STRIDE { SMALL_STRIDE_GAP } else { DENSE_GAP };
        rows <= gap * positions
    }

    /// Runs `f` with a buffer in which a seek over `gap` deltas sums them in one piece (up to a block).
    fn with_scratch<R>(gap: usize, f: impl FnOnce(&mut [T::Unsigned]) -> R) -> R {
        if gap <= SHORT_SEEK {
            f(&mut [T::Unsigned::ZERO; SHORT_SEEK])
        } else {
            f(&mut [T::Unsigned::ZERO; BLOCK])
        }
    }

    /// Rows whose value satisfies `pred`, which holds for a prefix of the (monotone) values: a binary
    /// search over the data points, then a scan of the one stride where `pred` stops holding.
    fn rows_before(&self, pred: impl Fn(&T) -> bool) -> usize {
        let (mut lo, mut hi) = (0, self.data_points.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            if pred(&self.data_points.get(mid)) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        if lo == 0 {
            return 0;
        }
        // The stride's first value satisfies `pred`. Whole blocks of deltas are summed and passed over
        // while the value at their end still does; the block where it stops is prefix-summed and searched.
        let (start, end) = ((lo - 1) << self.shift, (lo << self.shift).min(self.len()));
        let (mut value, mut buf) = (self.data_points.get(lo - 1), [T::Unsigned::ZERO; BLOCK]);
        for from in (start + 1..end).step_by(BLOCK) {
            let deltas = &mut buf[..(end - from).min(BLOCK)];
            self.deltas.decode_into(from, deltas);
            let next = T::add_offset(value, prefix::delta_sum(deltas, self.zigzag));
            if pred(&next) {
                value = next;
                continue;
            }
            prefix::prefix_sum(value.to_bits(), deltas, self.zigzag);
            return from + deltas.partition_point(|d| pred(&T::from_bits(*d)));
        }
        end
    }

    /// Sum of monotone values in closed form: row 0 holds data point 0 and the delta of row `j` adds to
    /// every row from `j` on (the header layout keeps every delta), so the sum is
    /// `n · v0 + Σ deltas[j] · (n - j)`, exact since monotone values never wrap.
    fn sum_monotone(&self) -> i128 {
        let n = self.len();
        if n == 0 {
            return 0;
        }
        let mut total = n as i128 * self.data_points.get(0).to_i128();
        let mut buf = [T::Unsigned::ZERO; BLOCK];
        for from in (1..n).step_by(BLOCK) {
            let end = (from + BLOCK).min(n);
            let deltas = &mut buf[..end - from];
            self.deltas.decode_into(from, deltas);
            // Weights `n - j` split as `(n - end) + (end - j)`: the block's sum, and a weighted sum with
            // weights up to a block.
            let (sum, within) = prefix::weighted_sums(deltas, (end - from) as u64);
            let beyond = ((n - end) as u128).wrapping_mul(sum);
            total = total.wrapping_add(beyond.wrapping_add(within) as i128);
        }
        total
    }
}

/// How many of the ascending `positions` are at most `bound`, found by galloping from the front: windows
/// usually hold few of a long list.
fn count_up_to(positions: &[u32], bound: usize) -> usize {
    let mut end = 1;
    while end < positions.len() && positions[end] as usize <= bound {
        end *= 2;
    }
    let start = end / 2;
    let end = end.min(positions.len());
    start + positions[start..end].partition_point(|&q| q as usize <= bound)
}

/// Sets bits `start .. end` of `words`.
fn set_bits(words: &mut [u64], start: usize, end: usize) {
    if start >= end {
        return;
    }
    let (first, last) = (start / 64, (end - 1) / 64);
    let low = u64::MAX << (start % 64);
    let high = u64::MAX >> (63 - (end - 1) % 64);
    if first == last {
        words[first] |= low & high;
    } else {
        words[first] |= low;
        words[first + 1..last].fill(u64::MAX);
        words[last] |= high;
    }
}

/// Positions of the set bits of `words` (bits `base ..`) into `out`; returns how many.
fn set_positions(words: &[u64], base: usize, out: &mut [u32]) -> usize {
    let mut k = 0;
    for (wi, &w) in words.iter().enumerate() {
        let mut w = w;
        while w != 0 {
            out[k] = (base + wi * 64 + w.trailing_zeros() as usize) as u32;
            k += 1;
            w &= w - 1;
        }
    }
    k
}

/// A delta view through the trait's block-at-a-time defaults, for what non-monotone data cannot
/// shortcut: they run on [`StreamOps::for_each_block`], which walks the deltas once from the start.
struct Blockwise<'v, 'a, T: LwcInt>(&'v DeltaView<'a, T>);

impl<T: LwcInt> StreamOps<T> for Blockwise<'_, '_, T> {
    fn len(&self) -> usize {
        self.0.len()
    }
    fn decode_into(&self, start: usize, out: &mut [T]) {
        self.0.decode_into(start, out)
    }
    fn get(&self, i: usize) -> T {
        self.0.get(i)
    }
    fn for_each_block(&self, f: impl FnMut(usize, &[T])) {
        self.0.for_each_block(f)
    }
}

impl<T: LwcInt> StreamOps<T> for DeltaView<'_, T> {
    fn len(&self) -> usize {
        self.len
    }

    fn decode_into(&self, start: usize, out: &mut [T]) {
        let gap = start & (self.stride() as usize - 1);
        Self::with_scratch(gap, |scratch| self.fill(&mut None, start, out, scratch));
    }

    fn get(&self, i: usize) -> T {
        Self::with_scratch(i & (self.stride() as usize - 1), |scratch| self.seek(None, i, scratch)).value
    }

    fn take_into(&self, positions: &[u32], out: &mut [T]) {
        let k = positions.len();
        if k < SORT_FROM || (self.stride() < SORT_STRIDE as u32 && !self.dense(self.len(), k)) {
            for (o, &p) in out.iter_mut().zip(positions) {
                *o = self.get(p as usize);
            }
            return;
        }
        // Sort (position, index) pairs, walk once, put the values back in the caller's order.
        let mut order: Vec<u64> = positions.iter().enumerate().map(|(i, &p)| (p as u64) << 32 | i as u64).collect();
        order.sort_unstable();
        let sorted: Vec<u32> = order.iter().map(|&o| (o >> 32) as u32).collect();
        let mut values = vec![T::default(); sorted.len()];
        self.walk(&mut None, &sorted, &mut values);
        for (&o, v) in order.iter().zip(values) {
            out[o as u32 as usize] = v;
        }
    }

    fn take_sorted_into(&self, positions: &[u32], out: &mut [T]) {
        self.walk(&mut None, positions, out);
    }

    fn filter_range(&self, lo: T, hi: T, out: &mut Bitmap) {
        if self.zigzag {
            return Blockwise(self).filter_range(lo, hi, out);
        }
        let (start, end) = (self.rows_before(|v| *v < lo), self.rows_before(|v| *v <= hi));
        set_bits(out.words_mut(), start, end);
    }

    fn filter_in(&self, set: &[T], out: &mut Bitmap) {
        // Two searches of a stride each per set value, against one pass over everything.
        if self.zigzag || set.len() * 2 * self.stride() as usize > self.len() {
            return Blockwise(self).filter_in(set, out);
        }
        for &c in set {
            let (start, end) = (self.rows_before(|v| *v < c), self.rows_before(|v| *v <= c));
            set_bits(out.words_mut(), start, end);
        }
    }

    fn sum(&self) -> i128 {
        if !self.zigzag {
            return self.sum_monotone();
        }
        // Zigzagged deltas may wrap around the type between a data point and a value: no closed form.
        let mut sum = 0;
        self.for_each_block(|_, block| sum += T::sum(block));
        sum
    }

    fn aggregate(&self, selection: &Selection) -> SumMinMax<T> {
        // One cursor for the whole selection: strides without selected rows are jumped over.
        let (mut acc, mut cursor) = (SumMinMax::EMPTY, None);
        let mut values = [T::default(); BLOCK];
        let mut take = |positions: &[u32]| {
            let values = &mut values[..positions.len()];
            self.walk(&mut cursor, positions, values);
            acc = acc.merge(SumMinMax::of(values));
        };
        match selection {
            Selection::Positions(p) => p.chunks(BLOCK).for_each(take),
            Selection::Bitmap(bits) => {
                let mut positions = [0u32; BLOCK];
                for (b, words) in bits.words().chunks(BLOCK / 64).enumerate() {
                    let k = set_positions(words, b * BLOCK, &mut positions);
                    if k > 0 {
                        take(&positions[..k]);
                    }
                }
            }
        }
        acc
    }

    fn for_each_block(&self, mut f: impl FnMut(usize, &[T])) {
        let (mut cursor, mut buf, mut scratch) = (None, [T::default(); BLOCK], [T::Unsigned::ZERO; SHORT_SEEK]);
        for start in (0..self.len()).step_by(BLOCK) {
            let block = &mut buf[..(self.len() - start).min(BLOCK)];
            self.fill(&mut cursor, start, block, &mut scratch);
            f(start, block);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bytes::AlignedBytes;
    use crate::column::{EncodeOptions, EncodedColumn};
    use crate::encodings::encode_stream;

    fn encode<T: LwcInt>(values: &[T], cascade: &str) -> AlignedBytes {
        let mut w = Writer::new();
        encode_stream(values, &cascade.parse().unwrap(), Default::default(), &mut w).unwrap();
        w.into_aligned()
    }

    fn open<'a, T: LwcInt>(bytes: &'a [u8], n: usize) -> Result<StreamView<'a, T>> {
        let mut r = Reader::new(bytes);
        let view = StreamView::open(&mut r, n)?;
        r.finish("delta stream")?;
        Ok(view)
    }

    /// Every operation of the delta stream of `values` against the values themselves.
    fn check<T: LwcInt>(values: &[T], cascade: &str) {
        let n = values.len();
        let what = format!("{} {cascade}, {n} values", T::TYPE);
        let bytes = encode(values, cascade);
        let view = open::<T>(&bytes, n).unwrap();
        assert_eq!(view.encoding(), crate::EncodingId::Delta, "{what}");
        assert_eq!(view.cascade().to_string().split('(').next(), cascade.split('(').next(), "{what}");

        let mut all = vec![T::default(); n];
        view.decode_into(0, &mut all);
        assert_eq!(all, values, "{what}: decode");
        let edges = [0, 1, 15, 16, 17, 63, 64, 65, 1023, 1024, 1025, n / 2, n.saturating_sub(1)];
        for &start in edges.iter().filter(|&&s| s < n) {
            for len in [1, 2, 17, 1000, 3000] {
                let len = len.min(n - start);
                let mut out = vec![T::default(); len];
                view.decode_into(start, &mut out);
                assert_eq!(out, &values[start..start + len], "{what}: decode {start}+{len}");
            }
        }
        for (i, &v) in values.iter().enumerate().step_by(1 + n / 3000) {
            assert_eq!(view.get(i), v, "{what}: get {i}");
        }

        let mut x = n as u64 ^ 0x9E37_79B9_7F4A_7C15;
        let mut random = |k: usize| -> Vec<u32> {
            (0..k)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    (x % n.max(1) as u64) as u32
                })
                .collect()
        };
        for k in [1, 5, SORT_FROM, 200, 5000] {
            if n == 0 {
                break;
            }
            let mut positions = random(k);
            let mut out = vec![T::default(); k];
            view.take_into(&positions, &mut out);
            let expect: Vec<T> = positions.iter().map(|&p| values[p as usize]).collect();
            assert_eq!(out, expect, "{what}: take {k}");
            positions.sort_unstable();
            view.take_sorted_into(&positions, &mut out);
            let expect: Vec<T> = positions.iter().map(|&p| values[p as usize]).collect();
            assert_eq!(out, expect, "{what}: take {k} sorted");
        }

        let mut constants: Vec<T> = vec![T::MIN, T::MAX];
        constants.extend(values.iter().step_by(1 + n / 7).copied());
        constants.extend(values.iter().step_by(1 + n / 5).map(|&v| T::add_offset(v, T::Unsigned::from_u64(1))));
        for &lo in &constants {
            for &hi in constants.iter().filter(|&&hi| hi >= lo) {
                let mut bits = Bitmap::new_clear(n);
                view.filter_range(lo, hi, &mut bits);
                let expect: Vec<bool> = values.iter().map(|v| lo <= *v && *v <= hi).collect();
                assert_eq!(bits, Bitmap::from_bools(&expect), "{what}: filter {lo:?}..={hi:?}");
            }
        }
        let mut set: Vec<T> = constants.clone();
        set.sort_unstable();
        set.dedup();
        let mut bits = Bitmap::new_clear(n);
        view.filter_in(&set, &mut bits);
        let expect: Vec<bool> = values.iter().map(|v| set.binary_search(v).is_ok()).collect();
        assert_eq!(bits, Bitmap::from_bools(&expect), "{what}: filter in");

        assert_eq!(view.sum(), values.iter().map(|v| v.to_i128()).sum::<i128>(), "{what}: sum");
        let picked: Vec<u32> = (0..n as u32).filter(|p| p % 7 == 0 || (p / 3000) % 2 == 1).collect();
        let expect = SumMinMax::of(&picked.iter().map(|&p| values[p as usize]).collect::<Vec<_>>());
        assert_eq!(view.aggregate(&Selection::Positions(picked.clone())), expect, "{what}: aggregate positions");
        let bitmap = Selection::Bitmap(Bitmap::from_positions(&picked, n));
        assert_eq!(view.aggregate(&bitmap), expect, "{what}: aggregate bitmap");
    }

    use crate::encodings::test_shapes::{l_orderkey, o_orderkey};

    #[test]
    fn every_operation_on_keys_at_every_stride() {
        for stride in [16, 64, 1024, 65_536] {
            let name = format!("delta:{stride}");
            let cascade = if stride == DEFAULT_STRIDE { "delta" } else { &name };
            check(&o_orderkey(5000), cascade);
            check(&l_orderkey(5000), cascade);
            let descending: Vec<i32> = l_orderkey(3000).iter().map(|&k| -(k as i32)).collect();
            check(&descending, cascade);
        }
        check(&l_orderkey(5000), "delta:16(dict, for)");
        check(&o_orderkey(5000), "delta(dict(bitpack))");
        check(&o_orderkey(5000), "delta(auto, auto)");
    }

    #[test]
    fn extremes_wrap_exactly() {
        let mut swings: Vec<i64> = (0..3000).map(|i| if i % 3 == 0 { i64::MIN } else { i64::MAX - i }).collect();
        check(&swings, "delta:16");
        swings.sort_unstable();
        check(&swings, "delta:16");
        let extremes = [u64::MIN, u64::MAX, 0, u64::MAX, 1, u64::MAX - 1];
        check(&extremes.repeat(50), "delta:16");
        check(&[i8::MIN, i8::MAX, i8::MIN, 0, i8::MAX].repeat(40), "delta:64");
        let wrapping: Vec<u8> = (0..2000u32).map(|i| (i * 3) as u8).collect();
        check(&wrapping, "delta:16");
        check(&[u16::MAX, u16::MAX, u16::MAX], "delta");
        check(&[i32::MIN, 0, i32::MAX], "delta:65536");
    }

    #[test]
    fn strides_longer_than_the_data_and_tiny_data() {
        check::<u32>(&[], "delta");
        check(&[7u32], "delta");
        check(&[7u32, 3], "delta:16");
        for n in [15, 16, 17, 33] {
            check(&o_orderkey(n), "delta:16");
            check(&l_orderkey(n).iter().map(|&k| k as i16).rev().collect::<Vec<_>>(), "delta:65536");
        }
    }

    #[test]
    fn estimates_are_the_encoded_size() {
        for values in [o_orderkey(10_000), l_orderkey(10_000), l_orderkey(777).into_iter().rev().collect()] {
            for stride in [16, 1024] {
                let estimate = crate::encodings::estimate_stream(&values, Encoding::Delta { stride }).unwrap();
                assert_eq!(estimate + 1, encode(&values, &format!("delta:{stride}")).len());
            }
        }
    }

    #[test]
    fn bad_strides_and_flags_are_rejected() {
        let values = o_orderkey(100);
        for stride in [0, 8, 24, 1 << 17] {
            let mut w = Writer::new();
            let cascade = Encoding::Delta { stride }.into();
            assert!(
                matches!(encode_stream(&values, &cascade, Default::default(), &mut w), Err(Error::InvalidArgument(_))),
                "{stride}"
            );
        }
        let bytes = encode(&values, "delta:16").to_vec();
        for (at, byte) in [(1, 8u8), (2, 1), (1, 17), (5, 2), (5, 0x81)] {
            let mut bad = bytes.clone();
            bad[at] = byte;
            let bad = AlignedBytes::copy_from(&bad);
            assert!(matches!(open::<u32>(&bad, 100), Err(Error::Corrupt(_))), "byte {at} = {byte}");
        }
        let truncated = AlignedBytes::copy_from(&bytes[..bytes.len() - 1]);
        assert!(open::<u32>(&truncated, 100).is_err());
        assert!(open::<u32>(&AlignedBytes::copy_from(&bytes), 101).is_err(), "children hold 100 values");
    }

    #[test]
    fn views_stay_send_and_sync() {
        fn send_sync<V: Send + Sync>() {}
        send_sync::<DeltaView<'static, i64>>();
        send_sync::<crate::Segment<'static, u8>>();
    }

    /// o_orderkey at TPC-H scale factor 1 (1,500,000 keys) in 65,536-row segments stays within 200 KB with
    /// its deltas (two distinct steps, 1 and 25) in a dictionary.
    #[test]
    fn o_orderkey_at_sf1_fits_200_kb() {
        let keys = o_orderkey(1_500_000);
        let cascade: Cascade = "delta(dict)".parse().unwrap();
        let column = EncodedColumn::encode(&keys, None, EncodeOptions::with_encoding(cascade)).unwrap();
        let bytes = column.as_bytes().len();
        assert!(bytes <= 200_000, "{bytes} bytes");
        let open = column.open::<u32>().unwrap();
        assert_eq!(open.get(1_234_567).unwrap(), Some(keys[1_234_567]));
    }
}
