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
//! positions close together are served from one prefix-summed span. Sparse positions over plain deltas
//! are each sought from the nearest of the position before, the data point before and the data point
//! after (minus the deltas between), without a branch on which; when both children are `for` or
//! `bitpack` they are read in place ([`StreamOps::frame`]), summing up to eight narrow deltas a load.
//! With strides of at most 128 rows and deltas of at most 7 bits (`delta(16)` and `delta(64)` on keys),
//! each is read from the nearer data point alone, by a kernel with the deltas' width a constant
//! ([`prefix::DeltasWithPoints::values_near_points`]). Monotone data filters by binary
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

use super::{Cascade, ChildReads, Children, Encoder, Encoding, Frame, FrameSums, OpenStream, Parameter, StreamOps, StreamView, SumMinMax, WordStream};
use crate::stats::{Stats, Shape, SplitMix};
use crate::bitmap::Bitmap;
use crate::bytes::{Reader, Writer};
use crate::error::{Error, Result};
use crate::kernels::bitpack::BLOCK;
use crate::kernels::prefix::{self, zigzag};
use crate::selection::Selection;
use crate::types::{LwcInt, Word};
use crate::encodings::stream::{take_by_sorting, SORT_COST};

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

/// What seeking one position of a sorted walk costs beyond the rows it passes, in decoded values (see
/// [`StreamOps::sorted_take_cost`] of `DeltaView`): with children read in place as frames, and through
/// their dispatch (a data point and a sum, each a call down the cascade). Sparse sorted takes of
/// o_orderkey at stride 1,024 fit about 10 ns a position framed (`delta(for, for)`, whose full decode
/// takes 0.15 ns a value) and 20-25 ns dispatched (`delta(gcd(bitpack), for)`, `delta(dict, for)`), whose
/// children decode more slowly: 0.2-0.26 ns a value, 0.5 for l_orderkey's `delta(dict)` (`take_bound`
/// example with the walk forced, AMD EPYC Zen 5). Both priced at 32 before, the dispatched walk took
/// 1,024 sorted positions of a segment in 1.9x the time of a decode and a gather; priced at 100, 655
/// (a 1 % match vector) were decoded in 1.1-1.6x the time of their walk.
const SEEK_COST: usize = 50;
const DISPATCHED_SEEK_COST: usize = 64;

/// What reading a position near its data points costs ([`prefix::DeltasWithPoints::values_near_points`]),
/// in decoded values: a base, and a load for every `2 * fields_a_load` rows of the stride (16 where a
/// load sums eight deltas, up to 64 for one-bit deltas: [`prefix::DeltasWithPoints::fields_a_load`]).
/// Sorted 1 % match vectors of o_orderkey took 5.2, 6.6 and 9.0 ns a position at strides 16, 32 and 64,
/// against 0.45 ns a value of its full decode (`take_bound` example, Intel Xeon).
const NEAR_SEEK_COST: usize = 20;
const NEAR_LOAD_COST: usize = 6;

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

    /// The parts of a sample whose runs from far-apart rows start at `seams` (ascending): each delta across
    /// a seam is taken to be the last delta inside a run before it, which the stream does have. Jumps
    /// before any such delta stand, as do all where no run holds two rows: copying a jump made the run
    /// values of runs 30 rows long, one a sampled run, look like one delta repeated (estimated at 82
    /// bytes, written in 5,604).
    fn of_sample(sample: &[T], stride: usize, seams: &[usize]) -> Parts<T> {
        let mut parts = Parts::of(sample, stride);
        let mut seams = seams.iter().copied().filter(|&s| (1..sample.len()).contains(&s)).peekable();
        let (mut first, mut inside) = (None, None);
        for k in 1..sample.len() {
            if seams.next_if_eq(&k).is_none() {
                first = first.or(Some(parts.deltas[k]));
                inside = Some(parts.deltas[k]);
            } else if let Some(delta) = inside {
                parts.deltas[k] = delta;
            }
        }
        // Row 0's delta, never read, copies a delta inside a run rather than a jump.
        if let (Some(delta), Some(slot)) = (first, parts.deltas.first_mut()) {
            *slot = delta;
        }
        parts
    }

    /// Body bytes with the children estimated on these parts.
    fn estimate(&self, children: &impl Children) -> Option<usize> {
        let deltas = children.estimate(0, &self.deltas, DELTAS)?;
        Some(5 + deltas + children.estimate(1, &self.data_points, DATA_POINTS)?)
    }
}

impl Encoder for Delta {
    const CHILDREN: &'static [&'static str] = &["deltas", "data points"];
    const PARAMETER: Option<Parameter> = Some(Parameter { name: "stride", default: DEFAULT_STRIDE });

    /// Everything lies in the child streams.
    fn lines(_: u32, _: u32) -> f64 {
        0.0
    }

    /// A rank of ascending values bisects the data points (read in place), sums a stride's deltas a window
    /// at a time from the data point it lies nearer, and walks the run of deltas it stops in, where a
    /// lookup sums the deltas from its nearer data point:
    /// `rle(for, delta)` over l_orderkey looked a row up in 195 ns, `rle(for, for)` in 56 and `delta` in
    /// 97 (AMD EPYC, Zen 4; 355 ns before the rank stopped prefix-summing a block).
    fn search_gets() -> Option<f64> {
        Some(2.0)
    }

    /// A lookup reads its data point and sums half a stride of deltas on average.
    fn child_reads(k: usize, stride: u32, _: usize, _: usize) -> ChildReads {
        match k {
            0 => ChildReads { values: stride as f64 / 2.0, ..ChildReads::NONE },
            _ => ChildReads::ONE_GET,
        }
    }

    fn pruned(shape: &dyn Shape) -> Option<&'static str> {
        (!shape.ascending() && shape.delta_bits() + 2 > shape.range_bits())
            .then_some("unsorted, and differences are not narrower than the values")
    }

    /// A step that breaks rarely (clock times with a gap every few thousand rows, sorted runs) shows its
    /// sample deltas all alike: `delta` was estimated at 23-31 bytes where it wrote 200-33,989, and was
    /// chosen over `rle`'s 82-130.
    fn estimated_whole(shape: &dyn Shape) -> bool {
        shape.few_step_changes()
    }

    fn cost_width(shape: &dyn Shape) -> u32 {
        shape.delta_bits().max(1)
    }

    fn calibration_values(width: u32, n: usize, rng: &mut SplitMix) -> Vec<u64> {
        running_sums(width, n, rng)
    }

    fn estimate<T: LwcInt>(values: &[T], stats: &Stats<T>, parameter: u32, children: &impl Children) -> Option<usize> {
        Self::estimate_with_seams(values, stats, parameter, children, &[])
    }

    /// Estimated on deltas within the sample's runs: a sorted key's sample jumps thousands of rows at each
    /// of its nine seams, and those jumps, taken as deltas, made the deltas look as if they needed
    /// exceptions (`pfor`) or a frame twice as wide.
    fn estimate_with_seams<T: LwcInt>(
        values: &[T],
        _: &Stats<T>,
        parameter: u32,
        children: &impl Children,
        seams: &[usize],
    ) -> Option<usize> {
        let stride = check_stride(parameter).ok()?;
        Parts::of_sample(values, stride as usize, seams).estimate(children)
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

    // Out of line, as `blocks`' get: the scratch buffer would otherwise sit in the frame of every
    // dispatched `get`.
    #[inline(never)]
    fn get(&self, i: usize) -> T {
        Self::with_scratch(i & (self.stride() as usize - 1), |scratch| self.seek(None, i, scratch)).value
    }

    fn get_cost(&self) -> usize {
        // Half a stride of deltas summed on average, from a data point.
        self.stride() as usize / 2 + self.deltas.get_cost() + self.data_points.get_cost()
    }

    fn sorted_take_cost(&self, k: usize, span: usize) -> usize {
        // A sorted walk reads each position from the one before or from a data point, so it passes over
        // at most the rows its positions span, and at most half a stride a position. A row passed costs
        // about a decoded delta where the deltas are decoded, half one where plain deltas are summed in
        // their frame (the same forced walks: 0.09 ns a row, fields of 5 bits), and a quarter where a
        // child sums them on its own (0.02 ns over quotients or codes of one bit, 0.13 over codes of 4).
        if let Some(loads) = self.near_point_loads() {
            // Sparse positions are read near their data points, dense ones by a prefix sum over what they
            // span: costing more than a decode of the span, where the caller decodes instead.
            return k.saturating_mul(NEAR_SEEK_COST + loads * NEAR_LOAD_COST);
        }
        let rows = span.min(k.saturating_mul(self.stride() as usize / 2));
        let (seek, rows) = match (self.walks_framed(), !self.zigzag && self.deltas.sums_in_place()) {
            (true, _) => (SEEK_COST, rows / 2),
            (false, true) => (DISPATCHED_SEEK_COST, rows / 4),
            (false, false) => (SEEK_COST, rows),
        };
        k.saturating_mul(seek + self.data_points.get_cost()) + rows
    }

    fn rank(&self, value: T) -> usize {
        if self.zigzag {
            return Blockwise(self).rank(value);
        }
        self.rows_before(value, true)
    }

    fn unsorted_take_cost(&self, k: usize) -> usize {
        if self.sorts(k) {
            k.saturating_mul(SORT_COST).saturating_add(self.sorted_take_cost(k, self.len()))
        } else {
            k.saturating_mul(self.get_cost())
        }
    }

    fn take_into(&self, positions: &[u32], out: &mut [T]) {
        if !self.sorts(positions.len()) {
            // Few or sparse positions in short strides: each from its nearer data point, where it can.
            if self.take_near_points(positions, out) {
                return;
            }
            for (o, &p) in out.iter_mut().zip(positions) {
                *o = self.get(p as usize);
            }
            return;
        }
        // Sorted and walked once.
        take_by_sorting(self, positions, out);
    }

    fn take_sorted_into(&self, positions: &[u32], out: &mut [T]) {
        self.walk(&mut None, positions, out);
    }

    fn filter_range(&self, lo: T, hi: T, out: &mut Bitmap) {
        if self.zigzag {
            return Blockwise(self).filter_range(lo, hi, out);
        }
        let (start, end) = (self.rows_before(lo, false), self.rows_before(hi, true));
        set_bits(out.words_mut(), start, end);
    }

    fn filter_in(&self, set: &[T], out: &mut Bitmap) {
        // Two searches of a stride each per set value, against one pass over everything.
        if self.zigzag || set.len() * 2 * self.stride() as usize > self.len() {
            return Blockwise(self).filter_in(set, out);
        }
        for &c in set {
            let (start, end) = (self.rows_before(c, false), self.rows_before(c, true));
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

mod walk;

use walk::{set_bits, set_positions};

#[cfg(test)]
mod tests;
