//! Walking the deltas: a cursor moved forward from a data point, summing deltas in place or between
//! positions, so decodes, gets and sorted takes each touch only the strides they need, and a sorted take
//! walks each stride once.

use super::*;
use crate::kernels::extremes::min_max_sum;

/// Where a walk through the deltas stands: a row and its value.
#[derive(Debug, Clone, Copy)]
pub(super) struct Cursor<T> {
    pub(super) row: usize,
    pub(super) value: T,
}

impl<T: LwcInt> Cursor<T> {
    /// A cursor past every row: it stands in no stride at or before a row sought, so a seek starts
    /// from a data point.
    fn nowhere() -> Cursor<T> {
        Cursor { row: usize::MAX, value: T::default() }
    }
}

/// Run ends, which must ascend strictly.
impl DeltaView<'_, u32> {
    /// Whether the values ascend strictly from above 0 without wrapping, and every data point is the value
    /// that the deltas before it sum to (see [`DeltaView::decode_agreeing`]), found from the deltas alone:
    /// each at least 1, summed a stride at a time, with no prefix sum written. `Some(false)` says only that
    /// one of these fails or that the deltas are too large to sum this way (a decode settles it); `None`
    /// for zigzagged deltas, which this does not read.
    pub(crate) fn ascends_agreeing(&self) -> Option<bool> {
        if self.zigzag {
            return None;
        }
        if self.len == 0 {
            return Some(true);
        }
        let (stride, mut deltas) = (self.stride() as usize, [0u32; BLOCK]);
        let mut value = u64::from(self.data_points.get(0));
        let (mut ascends, mut row) = (value > 0, 0);
        while row < self.len && ascends {
            // Blocks start at multiples of their length, so the deltas unpack whole groups; the first
            // row's delta is not read (its value is the first data point).
            let block = &mut deltas[..(self.len - row).min(BLOCK)];
            self.deltas.decode_into(row, block);
            // Pieces that end at a data point's row (its delta included), or at the block's end.
            let mut k = usize::from(row == 0);
            while k < block.len() {
                let point = (row + k).next_multiple_of(stride);
                let piece = &block[k..(k + point + 1 - (row + k)).min(block.len())];
                // The least and largest delta and their sum in one pass of the AVX2 kernel (baseline
                // x86-64 has no unsigned 32-bit min). Deltas at least 1 whose piece cannot sum past 2^32
                // are summed in 32 bits, which vectorize; larger ones fail here and the caller's decode
                // settles them.
                let (least, most, sum) = min_max_sum(piece);
                ascends &= least >= 1 && u64::from(most) * piece.len() as u64 <= u64::from(u32::MAX);
                value += u64::from(sum);
                k += piece.len();
                if row + k == point + 1 && point < self.len {
                    ascends &= value == u64::from(self.data_points.get(point / stride));
                }
            }
            // The values only grow, so none wrapped while the last is below 2^32.
            ascends &= value <= u64::from(u32::MAX);
            row += block.len();
        }
        Some(ascends)
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
    pub(super) fn data_point(&self, row: usize) -> Cursor<T> {
        let s = row >> self.shift;
        Cursor { row: s << self.shift, value: self.data_points.get(s) }
    }

    /// A cursor at `row`: moved forward from `from` when that stands in `row`'s stride at or before it,
    /// else from `row`'s data point. The deltas between are summed where they are stored when they are
    /// plain (the stream's [`StreamOps::wrapping_sum`]), zigzagged ones in `scratch`; none is written out.
    pub(super) fn seek(&self, from: Option<Cursor<T>>, row: usize, scratch: &mut [T::Unsigned]) -> Cursor<T> {
        if !self.zigzag {
            let from = from.unwrap_or_else(Cursor::nowhere);
            return match self.framed() {
                Some(reads) => self.seek_plain(&reads, from, row),
                None => self.seek_plain(&Dispatched(self), from, row),
            };
        }
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

    /// [`DeltaView::seek`] over plain deltas, from whichever is nearest: `from` when it stands in
    /// `row`'s stride at or before it, the data point before `row`, or the one after it minus the deltas
    /// between (which halves the deltas summed when positions lie in strides of their own). Without
    /// branches on which: sparse positions pick at random, and a mispredicted pick cost more than the
    /// sum.
    #[inline(always)]
    fn seek_plain(&self, reads: &impl PlainReads<T>, from: Cursor<T>, row: usize) -> Cursor<T> {
        use std::hint::select_unpredictable as select;
        let s = row >> self.shift;
        let (stride_start, next) = (s << self.shift, (s + 1) << self.shift);
        let in_stride = from.row <= row && from.row >= stride_start;
        let start = select(in_stride, from.row, stride_start);
        // The data point after `row` exists when its row does.
        let back = next < self.len && next - row < row - start;
        let point = reads.point(select(back, s + 1, s));
        let (first, count) = select(back, (row + 1, next - row), (start + 1, row - start));
        let sum = reads.sum(first, count);
        let value = select(in_stride && !back, from.value, point).to_bits();
        let value = select(back, value.wrapping_sub(sum), value.wrapping_add(sum));
        Cursor { row, value: T::from_bits(value) }
    }

    /// The children read in place (see [`StreamOps::frame`]) when the deltas are plain (not zigzagged) and
    /// both are packed fields plus a base.
    fn framed(&self) -> Option<Framed<'_, T>> {
        if self.zigzag {
            return None;
        }
        Some(Framed { deltas: self.deltas.frame()?.sums(), points: self.data_points.frame()? })
    }

    /// Whether a walk reads the children in place as frames, with no dispatch a read (see
    /// [`DeltaView::walk`]).
    pub(super) fn walks_framed(&self) -> bool {
        self.framed().is_some()
    }

    /// Writes the rows after `cursor` into `out` (they exist) and moves the cursor to the last of them:
    /// the deltas are decoded in place and summed into values there.
    pub(super) fn extend(&self, cursor: &mut Cursor<T>, out: &mut [T]) {
        if out.is_empty() {
            return;
        }
        let words: &mut [T::Unsigned] = bytemuck::cast_slice_mut(out);
        self.deltas.decode_into(cursor.row + 1, words);
        let last = prefix::prefix_sum(cursor.value.to_bits(), words, self.zigzag);
        *cursor = Cursor { row: cursor.row + out.len(), value: T::from_bits(last) };
    }

    /// Decodes every row in one walk from the first data point, `f(start, rows)` a block at a time, and
    /// says whether each data point is the value that the deltas before it sum to. Only then does a read
    /// that starts from a data point agree with one that walks past it. A caller that needs every read of a
    /// row to agree (run ends, which must ascend however they are read) checks this on bytes it did not
    /// write.
    pub(crate) fn decode_agreeing(&self, mut f: impl FnMut(usize, &[T])) -> bool {
        if self.len == 0 {
            return true;
        }
        let (stride, mut block) = (self.stride() as usize, [T::default(); BLOCK]);
        let (mut cursor, mut agree, mut start) = (self.data_point(0), true, 0);
        while start < self.len {
            let rows = &mut block[..(self.len - start).min(BLOCK)];
            if start == 0 {
                rows[0] = cursor.value;
                self.extend(&mut cursor, &mut rows[1..]);
            } else {
                self.extend(&mut cursor, rows);
            }
            let end = start + rows.len();
            for s in start.div_ceil(stride).max(1)..end.div_ceil(stride) {
                agree &= self.data_points.get(s) == rows[s * stride - start];
            }
            f(start, rows);
            start = end;
        }
        agree
    }

    /// Rows `start .. start + out.len()` into `out`, continuing from `cursor` where it can (see
    /// [`DeltaView::seek`]); leaves the cursor at the last row written.
    pub(super) fn fill(&self, cursor: &mut Option<Cursor<T>>, start: usize, out: &mut [T], scratch: &mut [T::Unsigned]) {
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
    ///
    /// Plain deltas whose children read in place ([`StreamOps::frame`]) go by chunks of positions instead:
    /// a sparse chunk is sought position by position, without windows: from the nearer data point where
    /// strides are short and deltas narrow ([`DeltaView::seek_near_points`]), else from the cursor or a
    /// data point ([`DeltaView::seek_plain`]).
    pub(super) fn walk(&self, cursor: &mut Option<Cursor<T>>, positions: &[u32], out: &mut [T]) {
        let Some(reads) = self.framed() else {
            return self.walk_windows(cursor, positions, out, None);
        };
        for (positions, out) in positions.chunks(SPARSE_CHUNK).zip(out.chunks_mut(SPARSE_CHUNK)) {
            let span = (positions[positions.len() - 1] - positions[0]) as usize + 1;
            if self.dense(span, positions.len()) {
                self.walk_windows(cursor, positions, out, Some(&reads));
            } else {
                *cursor = self.seek_near_points(&reads, positions, out).or_else(|| {
                    let from = cursor.unwrap_or_else(Cursor::nowhere);
                    Some(self.seek_each(&reads, from, positions, out))
                });
            }
        }
    }

    /// [`DeltaView::walk`] window by window.
    fn walk_windows(&self, cursor: &mut Option<Cursor<T>>, positions: &[u32], out: &mut [T], framed: Option<&Framed<'_, T>>) {
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
            let sparse = !self.dense(positions[k + run - 1] as usize - c.row, run);
            if sparse && !self.zigzag {
                // Plain deltas are summed where they are stored (packed), from the cursor or from the
                // data point of a later stride: nothing is written but the values asked for.
                let (positions, out) = (&positions[k..k + run], &mut out[k..k + run]);
                *cursor = Some(match framed {
                    Some(reads) => self.seek_each(reads, c, positions, out),
                    None => self.seek_each(&Dispatched(self), c, positions, out),
                });
                k += run;
                continue;
            }
            if sparse {
                run = count_up_to(&positions[k..k + run], c.row | (self.stride() as usize - 1));
            }
            let (first, last) = (c.row, positions[k + run - 1] as usize);
            let (positions, out) = (&positions[k..k + run], &mut out[k..k + run]);
            let deltas = &mut deltas[..last - first];
            self.deltas.decode_into(first + 1, deltas);
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

    /// `out[k]` = the value at `positions[k]` (ascending) over plain deltas, each sought from the one
    /// before (see [`DeltaView::seek_plain`]); returns the cursor at the last.
    fn seek_each(&self, reads: &impl PlainReads<T>, mut c: Cursor<T>, positions: &[u32], out: &mut [T]) -> Cursor<T> {
        for (o, &q) in out.iter_mut().zip(positions) {
            c = self.seek_plain(reads, c, q as usize);
            *o = c.value;
        }
        c
    }

    /// [`DeltaView::seek_each`] where the children are read in place and [`prefix::DeltasWithPoints`] reads
    /// them near their data points (strides of at most [`prefix::NEAR_POINTS_MAX_STRIDE`] rows, deltas of
    /// at most 7 bits): each position from the nearer data point, with no walk and without going on from
    /// the one before. Those in the last stride, which has no data point after it, go by
    /// [`DeltaView::seek_each`]. Returns the cursor at the last (`positions` is not empty); `None`, writing
    /// nothing, where the stream is not read so.
    fn seek_near_points(&self, reads: &Framed<'_, T>, positions: &[u32], out: &mut [T]) -> Option<Cursor<T>> {
        let stream = self.near_points(reads)?;
        let near = positions.partition_point(|&q| (q as usize) < self.last_stride());
        stream.values_near_points(&positions[..near], bytemuck::cast_slice_mut(&mut out[..near]));
        if near < positions.len() {
            return Some(self.seek_each(reads, Cursor::nowhere(), &positions[near..], &mut out[near..]));
        }
        let last = positions.len() - 1;
        Some(Cursor { row: positions[last] as usize, value: out[last] })
    }

    /// Positions in any order read near their data points (see [`DeltaView::seek_near_points`]), where the
    /// stream is read so and none lies in the last stride; false, writing nothing, otherwise.
    pub(super) fn take_near_points(&self, positions: &[u32], out: &mut [T]) -> bool {
        let Some(reads) = self.framed() else { return false };
        let Some(stream) = self.near_points(&reads) else { return false };
        if crate::kernels::positions::max_position(positions) as usize >= self.last_stride() {
            return false;
        }
        stream.values_near_points(positions, bytemuck::cast_slice_mut(out));
        true
    }

    /// How many loads of deltas a read near the data points takes, where the stream is read so
    /// (see [`DeltaView::seek_near_points`]).
    pub(super) fn near_point_loads(&self) -> Option<usize> {
        Some(self.near_points(&self.framed()?)?.near_loads())
    }

    /// The children read near their data points, where [`prefix::DeltasWithPoints`] serves them.
    fn near_points<'r>(&self, reads: &Framed<'r, T>) -> Option<prefix::DeltasWithPoints<'r, T::Unsigned>> {
        let (delta_base, deltas) = reads.deltas.parts();
        let stream = prefix::DeltasWithPoints {
            points: reads.points.fields.fields(),
            point_base: reads.points.base.to_bits(),
            deltas,
            delta_base,
            shift: self.shift,
        };
        stream.near_points_apply().then_some(stream)
    }

    /// The first row of the last stride, which has no data point after it.
    fn last_stride(&self) -> usize {
        self.len.saturating_sub(1) >> self.shift << self.shift
    }

    /// Whether a take of `k` positions in any order sorts them and walks them once (see [`SORT_FROM`]),
    /// rather than reading each from its data point.
    pub(super) fn sorts(&self, k: usize) -> bool {
        k >= SORT_FROM && (self.stride() >= SORT_STRIDE as u32 || self.dense(self.len(), k))
    }

    /// Whether `positions` in a span of `rows` are served best by one prefix sum over them (see [`DENSE_GAP`]).
    pub(super) fn dense(&self, rows: usize, positions: usize) -> bool {
        let gap = if self.zigzag && (self.stride() as usize) < SMALL_STRIDE { SMALL_STRIDE_GAP } else { DENSE_GAP };
        rows <= gap * positions
    }

    /// Runs `f` with a buffer in which a seek over `gap` deltas sums them in one piece (up to a block).
    pub(super) fn with_scratch<R>(gap: usize, f: impl FnOnce(&mut [T::Unsigned]) -> R) -> R {
        if gap <= SHORT_SEEK {
            f(&mut [T::Unsigned::ZERO; SHORT_SEEK])
        } else {
            f(&mut [T::Unsigned::ZERO; BLOCK])
        }
    }

    /// Rows whose value is below `bound` (at most `bound` where `inclusive`), of values that ascend: a
    /// binary search over the data points, then a scan of the one stride where the values pass `bound`,
    /// from whichever of its two data points `bound` lies nearer.
    pub(super) fn rows_before(&self, bound: T, inclusive: bool) -> usize {
        debug_assert!(!self.zigzag, "values with zigzagged deltas are not monotone");
        let pred = |v: &T| if inclusive { *v <= bound } else { *v < bound };
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
        // The stride's first value satisfies `pred`. Windows of deltas are summed and passed over while
        // the value at their far end still does (from the stride's start) or no longer does (back from
        // the next data point, where `bound` lies nearer it: that halves the deltas a rank sums). In the
        // window where `pred` stops holding, the values are walked as below. No prefix sum is written: a
        // rank reads a few values of the stride, and a block's prefix sum took a third of an `rle` lookup
        // over `delta` run ends.
        let (start, end) = ((lo - 1) << self.shift, (lo << self.shift).min(self.len()));
        let (point, mut buf) = (self.data_points.get(lo - 1), [T::Unsigned::ZERO; RANK_WINDOW]);
        if let Some(next) = (lo < self.data_points.len()).then(|| self.data_points.get(lo)) {
            // `point <= bound <= next` as the search found them, so both differences are exact in the word.
            let past_point = bound.to_bits().wrapping_sub(point.to_bits());
            if next.to_bits().wrapping_sub(bound.to_bits()) < past_point {
                return self.rows_before_back(start, end, next, &mut buf, pred);
            }
        }
        let mut value = point;
        // Windows start at the stride's first row, whose delta (kept, see the module documentation) is
        // zeroed: its value is the data point's. Decodes then start on whole groups of the kernels.
        for from in (start..end).step_by(RANK_WINDOW) {
            let deltas = &mut buf[..(end - from).min(RANK_WINDOW)];
            self.deltas.decode_into(from, deltas);
            if from == start {
                deltas[0] = T::Unsigned::ZERO;
            }
            let next = T::add_offset(value, prefix::delta_sum(deltas, false));
            if pred(&next) {
                value = next;
                continue;
            }
            return first_failing(value, from, deltas, pred);
        }
        end
    }

    /// [`DeltaView::rows_before`] in the stride `start..end`, back from the value `next` of row `end` (the
    /// next data point's, which fails `pred`): windows of deltas ending at `end`, whole groups of the
    /// kernels as forward, are subtracted while the value at their start still fails `pred`.
    fn rows_before_back(
        &self,
        start: usize,
        end: usize,
        next: T,
        buf: &mut [T::Unsigned; RANK_WINDOW],
        pred: impl Fn(&T) -> bool,
    ) -> usize {
        // The value of row `upto` fails `pred`; `top` is that row's delta.
        let (mut upto, mut value, mut top) = (end, next, self.deltas.get(end).to_bits());
        loop {
            let from = upto.saturating_sub(RANK_WINDOW).max(start);
            let deltas = &mut buf[..upto - from];
            self.deltas.decode_into(from, deltas);
            let below = std::mem::replace(&mut deltas[0], T::Unsigned::ZERO);
            // The value of row `from`: `upto`'s less the deltas of the rows after `from`.
            let sum = prefix::delta_sum(deltas, false).wrapping_add(top);
            let at_from = T::from_bits(value.to_bits().wrapping_sub(sum));
            if from == start || pred(&at_from) {
                return first_failing(at_from, from + 1, &deltas[1..], pred);
            }
            (upto, value, top) = (from, at_from, below);
        }
    }

    /// Sum of monotone values in closed form: row 0 holds data point 0 and the delta of row `j` adds to
    /// every row from `j` on (the header layout keeps every delta), so the sum is
    /// `n · v0 + Σ deltas[j] · (n - j)`, exact since monotone values never wrap.
    pub(super) fn sum_monotone(&self) -> i128 {
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
pub(super) fn count_up_to(positions: &[u32], bound: usize) -> usize {
    crate::kernels::positions::leading(positions, |q| q as usize <= bound)
}

/// Sets bits `start .. end` of `words`.
pub(super) fn set_bits(words: &mut [u64], start: usize, end: usize) {
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
pub(super) fn set_positions(words: &[u64], base: usize, out: &mut [u32]) -> usize {
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

/// The first row from `row` on whose value fails `pred`, walking `deltas` (those of rows `row ..`) on from
/// `value`, the value of the row before: runs of deltas are summed and passed over while the value at
/// their end satisfies `pred`, then the last run is walked value by value. `row + deltas.len()` where
/// every value satisfies it.
fn first_failing<T: LwcInt>(mut value: T, mut row: usize, deltas: &[T::Unsigned], pred: impl Fn(&T) -> bool) -> usize {
    for run in deltas.chunks(RANK_RUN) {
        let next = T::add_offset(value, run.iter().fold(T::Unsigned::ZERO, |a, &d| a.wrapping_add(d)));
        if pred(&next) {
            (value, row) = (next, row + run.len());
            continue;
        }
        for &d in run {
            value = T::add_offset(value, d);
            if !pred(&value) {
                return row;
            }
            row += 1;
        }
    }
    row
}

/// Deltas a rank decodes and sums at a time, and within the window where its value is passed, deltas
/// summed at a time before the last run is walked value by value (see [`DeltaView::rows_before`]).
const RANK_WINDOW: usize = 256;
const RANK_RUN: usize = 32;

/// Positions a sorted walk over plain deltas read in place weighs at once: dense ones go by windows,
/// sparse ones are sought one by one.
const SPARSE_CHUNK: usize = 64;

/// How a seek over plain deltas reads the children: data points one at a time, deltas as wrapping sums.
trait PlainReads<T: LwcInt> {
    fn point(&self, s: usize) -> T;
    fn sum(&self, start: usize, len: usize) -> T::Unsigned;
}

/// Children read in place, through their frames: no dispatch per read.
struct Framed<'v, T: LwcInt> {
    deltas: FrameSums<'v, T::Unsigned>,
    points: Frame<'v, T>,
}

impl<T: LwcInt> PlainReads<T> for Framed<'_, T> {
    #[inline(always)]
    fn point(&self, s: usize) -> T {
        self.points.get(s)
    }
    #[inline(always)]
    fn sum(&self, start: usize, len: usize) -> T::Unsigned {
        self.deltas.wrapping_sum(start, len)
    }
}

/// Children of any encoding, through their streams' dispatch.
struct Dispatched<'v, 'a, T: LwcInt>(&'v DeltaView<'a, T>);

impl<T: LwcInt> PlainReads<T> for Dispatched<'_, '_, T> {
    fn point(&self, s: usize) -> T {
        self.0.data_points.get(s)
    }
    fn sum(&self, start: usize, len: usize) -> T::Unsigned {
        self.0.deltas.wrapping_sum(start, len)
    }
}
