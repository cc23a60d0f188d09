//! `rle`: run-end encoding. A run of equal values is stored once, as its value and its end (the row after
//! its last row), in two child streams with one entry per run: `values` (of `T`) and `ends` (strictly
//! ascending `u32`, the last one the row count). Any encoding can hold either child, so sorted keys become
//! `rle(sequence, sequence)` when every key repeats equally often (TPC-H `ps_partkey`: 16 bytes per child
//! for a whole segment) and `rle(for_n, for_n)` when not. Ends rather than lengths (as Arrow's run-end
//! encoded arrays): the run of a row is a binary search away instead of a prefix sum.
//!
//! Body:
//!
//! | size | field |
//! |---|---|
//! | 4 | runs (u32) |
//! | … | `values`: a stream of `runs` values (encoding id, body) |
//! | … | `ends`: a stream of `runs` `u32` (encoding id, body) |
//!
//! Opening checks that the ends ascend strictly and that the last is the row count, so every run holds a
//! row and the runs tile the rows; operations then walk runs without checks. Ends that are a `sequence`
//! make the runs all of one length after the first: a row's run is then a shift or a multiply, for every
//! read, and over a `sequence` of values a row is read in place, as a sequence reads its own (a column
//! of such segments gathers its rows with no dispatch). Otherwise `get` and unsorted `take` bisect the
//! ends; sorted `take` walks them forward (ends counted 64 at a time against each position,
//! `delta`-coded ends decoded block after block) and takes the runs found from the values, as sorted as
//! the positions, so a `delta` child walks them too; filters compare each run's value once, through the
//! `values` stream's own filter on its encoded form, and set whole row ranges; the sum weighs each value
//! by its run's length, and aggregates of a selection count the selected rows per run.

use std::ops::Range;

use super::sequence::{step_of, EqualRuns};
use super::{
    Cascade, ChildReads, Children, Encoder, Encoding, EncodingId, InPlace, OpenStream, StreamOps, StreamView, SumMinMax,
};
use crate::stats::{Stats, Shape, SplitMix};
use crate::bitmap::Bitmap;
use crate::bytes::{Reader, Writer};
use crate::error::{Error, Result};
use crate::kernels::bitpack::BLOCK;
use crate::kernels::positions::{runs_of_rows, RUN_WINDOW};
use crate::selection::Selection;
use crate::types::{LwcInt, Word};

pub(crate) struct Rle;

/// The values' encoding unless a cascade says otherwise: `Auto`, the smallest by exact estimate, since no
/// fixed choice fits every column: run values of sorted data ascend (sequence, for_n), those of unsorted
/// low-cardinality data want bitpack or dict. A lookup reads one value, so a slower read costs once.
const VALUES: Encoding = Encoding::Auto;

/// The ends' encoding unless a cascade says otherwise. A lookup bisects the ends, O(log runs) reads, so
/// they need O(1) reads, which `Auto` does not promise: by size alone it picks delta2 for ascending ends,
/// and every probe then walks up to a stride (measured in a debug build, 20,000 rows: 0.33 ms a `get`,
/// against 0.4 µs with FOR64).
/// A sequence when the runs have one length (16 bytes however many runs: ps_partkey), otherwise FOR64,
/// whose residuals over 64 runs are as narrow as 64 runs are long.
fn ends_encoding(ends: &[u32]) -> Encoding {
    if step_of(ends).is_some() {
        Encoding::Sequence
    } else {
        Encoding::FOR64
    }
}

fn count_runs<T: LwcInt>(values: &[T]) -> usize {
    values.windows(2).filter(|w| w[0] != w[1]).count() + usize::from(!values.is_empty())
}

/// The rows of the runs that lie whole between `seams` (where runs of rows from far-apart places meet,
/// in a sample), and where those pieces now meet; nothing when there are no seams.
fn whole_runs<T: LwcInt>(values: &[T], seams: &[usize]) -> (Vec<T>, Vec<usize>) {
    let (mut rows, mut joins) = (Vec::new(), Vec::new());
    if seams.is_empty() {
        return (rows, joins);
    }
    for piece in crate::stats::between_seams(values, seams) {
        // From the first change of value to the last: the runs before and after run on past the piece.
        let first = (1..piece.len()).find(|&i| piece[i] != piece[i - 1]);
        let last = (1..piece.len()).rev().find(|&i| piece[i] != piece[i - 1]);
        if let (Some(first), Some(last)) = (first, last) {
            if first < last {
                if !rows.is_empty() {
                    joins.push(rows.len());
                }
                rows.extend_from_slice(&piece[first..last]);
            }
        }
    }
    (rows, joins)
}

/// Rows a run averages, in a stream's first [`RUN_PROBE`] rows, below which [`runs_of`] finds the runs
/// without a branch per change.
const SHORT_RUN: usize = 8;
const RUN_PROBE: usize = 1_024;

/// Each run's value and end row (`values.len() < 2^32`: a segment's rows are a `u32`).
fn runs_of<T: LwcInt>(values: &[T]) -> (Vec<T>, Vec<u32>) {
    let Some(&last) = values.last() else {
        return (Vec::new(), Vec::new());
    };
    let head = &values[..values.len().min(RUN_PROBE)];
    let (mut run_values, mut ends) = if count_runs(head) * SHORT_RUN < head.len() {
        // Long runs: the branch is well predicted, and writing at the changes alone costs least.
        let (mut run_values, mut ends) = (Vec::new(), Vec::new());
        for (i, w) in values.windows(2).enumerate().filter(|(_, w)| w[0] != w[1]) {
            run_values.push(w[0]);
            ends.push(i as u32 + 1);
        }
        (run_values, ends)
    } else {
        // Short runs of uneven length (l_orderkey's are 1-7 rows) mispredicted that branch about once a
        // run, the costliest part of writing the column. Here every row writes its run's value and end,
        // and the next run starts where the value changes. `run` counts the changes so far, so stays
        // below `runs`; the last run's entry is dropped, to be written as the other path's is.
        let runs = count_runs(values);
        let (mut run_values, mut ends) = (vec![T::default(); runs], vec![0; runs]);
        let mut run = 0;
        for (i, w) in values.windows(2).enumerate() {
            (run_values[run], ends[run]) = (w[0], i as u32 + 1);
            run += usize::from(w[0] != w[1]);
        }
        run_values.truncate(runs - 1);
        ends.truncate(runs - 1);
        (run_values, ends)
    };
    // The last run ends with the stream, where no change marks it.
    run_values.push(last);
    ends.push(values.len() as u32);
    (run_values, ends)
}

impl Encoder for Rle {
    const CHILDREN: &'static [&'static str] = &["values", "ends"];

    /// Everything lies in the child streams.
    fn lines(_: u32, _: u32) -> f64 {
        0.0
    }

    /// A lookup searches the run ends for its run, then reads the run's value.
    fn child_reads(k: usize, _: u32, _: usize, _: usize) -> ChildReads {
        match k {
            0 => ChildReads::ONE_GET,
            _ => ChildReads::SEARCH,
        }
    }

    /// The calibration's runs are all of one length, so their ends are a `sequence`.
    fn calibrated_child(k: usize) -> Option<Encoding> {
        (k == 1).then_some(Encoding::Sequence)
    }

    /// Equal runs (ends that are a `sequence`) over a `sequence` read a row in place as a sequence does: its
    /// run is a shift or a multiply, as a sequence's index is the row itself (see [`RleView::in_place`]).
    fn scattered_as_child(child: &dyn Fn(usize) -> Option<EncodingId>) -> Option<usize> {
        let sequence = |k| child(k) == Some(EncodingId::Sequence);
        (sequence(0) && sequence(1)).then_some(0)
    }

    fn pruned(shape: &dyn Shape) -> Option<&'static str> {
        (!shape.repeats()).then_some("runs average under two rows")
    }

    /// Its work follows its runs, not its values' width: it is priced at `64 / rows per run` (1: runs
    /// of 64 rows and more; 64: every row a run), the scale [`Rle::calibration_values`] measures.
    fn cost_width(shape: &dyn Shape) -> u32 {
        let rows_per_run = shape.sample_rows().max(1) as f64 / shape.runs().max(1) as f64;
        (64.0 / rows_per_run).round().clamp(1.0, 64.0) as u32
    }

    /// Runs of `64 / width` rows (see [`Rle::cost_width`]) of 20-bit values.
    fn calibration_values(width: u32, n: usize, _: &mut SplitMix) -> Vec<u64> {
        let run = (64 / width.max(1)).max(1) as u64;
        (0..n).map(|i| (i as u64 / run).wrapping_mul(0x9e37_79b9_7f4a_7c15) & 0xf_ffff).collect()
    }

    /// Few runs are found and estimated on every row (the sample's would be those its seams cut).
    fn estimated_whole(shape: &dyn Shape) -> bool {
        shape.few_runs()
    }

    fn estimate<T: LwcInt>(values: &[T], stats: &Stats<T>, parameter: u32, children: &impl Children) -> Option<usize> {
        Self::estimate_with_seams(values, stats, parameter, children, &[])
    }

    /// On a sample, the runs that its seams cut are left out: they are shorter than the stream's, and made
    /// ps_partkey's run ends (every fourth row) look like no sequence. The seams pass to the run values:
    /// a sorted key's run values jump there, which made `delta`'s deltas of them look as if they needed a
    /// dictionary of 11 entries where the stream's have 2 (l_orderkey).
    fn estimate_with_seams<T: LwcInt>(
        values: &[T],
        _: &Stats<T>,
        _parameter: u32,
        children: &impl Children,
        seams: &[usize],
    ) -> Option<usize> {
        if count_runs(values) == values.len() {
            // No run is longer than a row: the values stream alone would hold the data again.
            return None;
        }
        let (whole_runs, seams) = whole_runs(values, seams);
        let rows = if whole_runs.is_empty() { values } else { &whole_runs };
        let (run_values, ends) = runs_of(rows);
        // Run `r` starts at row `ends[r - 1]`.
        let run_seams: Vec<usize> =
            seams.iter().filter_map(|&s| ends.binary_search(&(s as u32)).ok().map(|r| r + 1)).collect();
        let ends_size = children.estimate(1, &ends, ends_encoding(&ends))?;
        let bytes = 4 + children.estimate_with_seams(0, &run_values, &run_seams, VALUES)? + ends_size;
        Some(bytes * values.len() / rows.len())
    }

    fn encode<T: LwcInt>(values: &[T], _: &Stats<T>, _parameter: u32, children: &impl Children, out: &mut Writer) -> Result<()> {
        let (run_values, ends) = runs_of(values);
        out.u32(ends.len() as u32);
        children.encode(0, &run_values, VALUES, out)?;
        children.encode(1, &ends, ends_encoding(&ends), out)
    }
}

/// Checks that the run ends ascend strictly from above 0 to `n`: each run holds a row and the runs cover
/// the rows exactly, however they are read; the error names the first bad end.
fn check_ends(ends: &StreamView<'_, u32>, n: usize) -> Result<()> {
    let runs = ends.len();
    if runs == 0 {
        return Ok(());
    }
    if ends.get(runs - 1) as usize != n {
        return bad(format!("the last run ends at row {}, not at the row count {n}", ends.get(runs - 1)));
    }
    if let StreamView::Sequence(s) = ends {
        // Settled by the step in O(1), however many runs a corrupt header claims.
        return if s.is_strictly_ascending() && ends.get(0) > 0 { Ok(()) } else { bad("empty runs".into()) };
    }
    if let StreamView::Delta(delta) = ends {
        // Settled from the deltas where they all pass; else the decode names what fails.
        if delta.ascends_agreeing() == Some(true) {
            return Ok(());
        }
    }
    check_ends_decoded(ends)
}

/// [`check_ends`] by decoding the ends, which names the first bad end.
fn check_ends_decoded(ends: &StreamView<'_, u32>) -> Result<()> {
    // The first end not after the one before it: the run, its end, and the end before it.
    let (mut descent, mut previous) = (None, 0);
    let mut check = |start: usize, block: &[u32]| {
        if descent.is_none() {
            descent = first_descent(previous, block).map(|(k, before)| (start + k, block[k], before));
        }
        previous = block[block.len() - 1];
    };
    let agree = match ends {
        // Delta-coded ends are read from a data point or by walking past one. Unless the two agree, ends
        // checked one way could be out of order read the other way.
        StreamView::Delta(delta) => delta.decode_agreeing(&mut check),
        _ => {
            ends.for_each_block(&mut check);
            true
        }
    };
    if let Some((run, end, before)) = descent {
        return bad(format!("run {run} ends at row {end}, not after row {before}"));
    }
    if !agree {
        return bad("the run ends' data points are not the sums of their deltas".into());
    }
    Ok(())
}

/// The error of run ends that fail [`check_ends`].
fn bad(what: String) -> Result<()> {
    Err(Error::Corrupt(format!("rle: {what}")))
}

/// Where `block`, after `previous`, first fails to ascend strictly: the index and the value before it.
/// Compared without a branch, so the compares vectorize (a column opens each of its segments, and a
/// branch a value took half of opening TPC-H `l_orderkey`'s runs, before its delta-coded ends were checked
/// from their deltas); the index is found after.
fn first_descent(previous: u32, block: &[u32]) -> Option<(usize, u32)> {
    let pairs = block[1..].iter().zip(block);
    if !pairs.fold(block[0] <= previous, |descent, (&end, &before)| descent | (end <= before)) {
        return None;
    }
    let before = |k: usize| if k == 0 { previous } else { block[k - 1] };
    (0..block.len()).find(|&k| block[k] <= before(k)).map(|k| (k, before(k)))
}

pub(crate) struct RleView<'a, T: LwcInt> {
    values: StreamView<'a, T>,
    ends: StreamView<'a, u32>,
    n: usize,
    /// The runs, where the ends are a `sequence`: all of one length after the first, a row's run found by
    /// a shift or a multiply.
    equal_runs: Option<EqualRuns>,
}

impl<'a, T: LwcInt> OpenStream<'a, T> for RleView<'a, T> {
    fn open(r: &mut Reader<'a>, n: usize, depth: usize) -> Result<Self> {
        let runs = r.u32("rle run count")? as usize;
        if runs > n || (runs == 0) != (n == 0) {
            return Err(Error::Corrupt(format!("rle: {runs} runs for {n} rows")));
        }
        let values = StreamView::open_nested(r, runs, depth + 1)?;
        let ends = StreamView::open_nested(r, runs, depth + 1)?;
        check_ends(&ends, n)?;
        let equal_runs = match &ends {
            StreamView::Sequence(ends) => ends.equal_runs(),
            _ => None,
        };
        Ok(RleView { values, ends, n, equal_runs })
    }

    /// Equal runs of a `sequence`'s values: a row's run, then its value, each in a few instructions.
    fn in_place(&self) -> Option<InPlace<'a, T>> {
        match (&self.values, self.equal_runs) {
            (StreamView::Sequence(values), Some(runs)) => Some(values.stepped(runs)),
            _ => None,
        }
    }

    fn child_cascades(&self) -> Vec<Cascade> {
        vec![self.values().cascade(), self.ends().cascade()]
    }
}

impl<'a, T: LwcInt> RleView<'a, T> {
    /// The run values stream.
    pub fn values(&self) -> &StreamView<'a, T> {
        &self.values
    }

    /// The run ends stream.
    pub fn ends(&self) -> &StreamView<'a, u32> {
        &self.ends
    }

    fn runs(&self) -> usize {
        self.ends.len()
    }

    /// About how many runs `rows` rows hold, at the segment's average run length.
    fn runs_in(&self, rows: usize) -> usize {
        ((rows as u128 * self.runs() as u128).div_ceil(self.n.max(1) as u128) as usize).max(1)
    }

    #[inline]
    fn end_of(&self, run: usize) -> usize {
        self.ends.get(run) as usize
    }

    fn start_of(&self, run: usize) -> usize {
        if run == 0 {
            0
        } else {
            self.end_of(run - 1)
        }
    }

    /// The run holding `row` (`< n`): the runs ending at or before it.
    fn run_of(&self, row: usize) -> usize {
        if let Some(runs) = &self.equal_runs {
            return runs.run_of(row as u64) as usize; // no division
        }
        // A run of the segment even where ends read by rank disagree with the check's (see `fill_runs`).
        self.ends.rank(row as u32).min(self.runs() - 1)
    }

    /// The run holding `row` (`< n`), known to be run `from` or a later one, for ends read in place:
    /// gallops forward, then bisects, in O(log distance).
    fn run_from(&self, row: usize, from: usize) -> usize {
        if let StreamView::Sequence(_) = &self.ends {
            return self.run_of(row); // in O(1)
        }
        let runs = self.runs();
        let (mut lo, mut span) = (from, 1);
        while lo + span < runs && self.end_of(lo + span - 1) <= row {
            lo += span;
            span *= 2;
        }
        // Without a branch on the comparison (a select instead), which unpredictable rows would mispredict.
        let (mut base, mut size) = (lo, (lo + span).min(runs) - lo);
        while size > 1 {
            let half = size / 2;
            // Runs before `base` end at or before `row`; the run holding it lies in `base..base + size`.
            base = if self.end_of(base + half - 1) <= row { base + half } else { base };
            size -= half;
        }
        base
    }

    /// Calls `f(ends, values)` for the runs `first..` a block at a time, in order, until it returns
    /// `false`, decoding at most `limit` runs (a caller that needs `k` more rows needs at most `k` runs).
    fn for_each_block(&self, first: usize, limit: usize, mut f: impl FnMut(&[u32], &[T]) -> bool) {
        let (mut ends, mut values) = ([0u32; BLOCK], [T::default(); BLOCK]);
        let stop = first.saturating_add(limit).min(self.runs());
        let mut run = first;
        while run < stop {
            let k = (stop - run).min(BLOCK);
            self.ends.decode_into(run, &mut ends[..k]);
            self.values.decode_into(run, &mut values[..k]);
            if !f(&ends[..k], &values[..k]) {
                return;
            }
            run += k;
        }
    }

    /// Calls `f(rows, value)` for runs `first..` in order until it returns `false`, decoding at most
    /// `limit` runs (see [`RleView::for_each_block`]).
    fn for_each_run(&self, first: usize, limit: usize, mut f: impl FnMut(Range<usize>, T) -> bool) {
        let mut start = self.start_of(first).min(self.n);
        self.for_each_block(first, limit, |ends, values| {
            for (&end, &value) in ends.iter().zip(values) {
                // Within the rows and after the run before, however the ends read (see `fill_runs`).
                let end = (end as usize).clamp(start, self.n);
                if !f(start..end, value) {
                    return false;
                }
                start = end;
            }
            true
        });
    }

    /// Whether a sorted take of `k` positions spanning `span` rows ranks each position on its own, as an
    /// unsorted take does, instead of walking the ends: ends decoded by blocks with more than a block of
    /// runs between positions on average, where the walk would decode a block or two of ends for each
    /// position besides its rank. 1,000 sorted rows of TPC-H `l_orderkey` (11 a segment) took 1.5x as
    /// long walked as the same rows in no order, ranked.
    fn ranks_each(&self, k: usize, span: usize) -> bool {
        self.ends.get_cost() > 1 && self.runs_in(span) > k.saturating_mul(BLOCK)
    }

    /// Takes `positions`, each one's run found on its own (see [`RleView::run_of`]), then the runs from the
    /// values a block at a time, by their sorted take where the positions ascend.
    fn take_ranked(&self, positions: &[u32], out: &mut [T], ascending: bool) {
        let mut runs = [0u32; BLOCK];
        for (chunk, out) in positions.chunks(BLOCK).zip(out.chunks_mut(BLOCK)) {
            let runs = &mut runs[..chunk.len()];
            for (r, &p) in runs.iter_mut().zip(chunk) {
                *r = self.run_of(p as usize) as u32;
            }
            match ascending {
                true => self.values.take_sorted_into(runs, out),
                false => self.values.take_into(runs, out),
            }
        }
    }

    /// Sets the rows of the runs set in `runs` (one bit per run), a row range per stretch of runs.
    fn set_rows_of(&self, runs: &Bitmap, out: &mut Bitmap) {
        for stretch in runs.set_ranges() {
            let end = self.end_of(stretch.end - 1).min(self.n);
            out.set_range(self.start_of(stretch.start).min(end)..end);
        }
    }
}

/// Finds the runs of ascending rows, each search going on from the last: a row within the runs whose
/// ends were read last is found among them in order. Past them, ends read in place are galloped over
/// from the last run and one end is kept; ends that take a walk to read (`delta`) are decoded a block at
/// a time, the next block where the rows go on into it and else the block a rank finds, so no row pays a
/// search of gets that each walk a stride.
struct RunCursor {
    /// Ends of runs `first .. first + held`, then [`RUN_WINDOW`] ends of `u32::MAX` that no row reaches, so a
    /// window of ends can be read from any run held; `next` indexes the first that may still hold a row.
    ends: Vec<u32>,
    held: usize,
    first: usize,
    next: usize,
    by_blocks: bool,
}

/// What finding one position's run costs a sorted take, in values decoded by a kernel (see
/// [`StreamOps::sorted_take_cost`]): about 12 ns a position (windows of 64 ends counted with AVX2) against
/// about 0.22 ns a decoded value (`match_vectors` example, l_orderkey, 1 % positions, AMD EPYC Zen 5).
const RUN_SEEK_COST: usize = 48;

/// What decoding costs per run beyond its rows and its children's values (see [`StreamOps::decode_cost`]):
/// l_orderkey's `rle(delta(dict), delta)` decoded at 0.5 ns a row, 4 rows a run.
const RUN_DECODE_COST: usize = 3;

impl RunCursor {
    fn new<T: LwcInt>(view: &RleView<'_, T>) -> RunCursor {
        RunCursor { ends: vec![u32::MAX; RUN_WINDOW], held: 0, first: 0, next: 0, by_blocks: view.ends.get_cost() > 1 }
    }

    /// The runs holding ascending `rows` (`< n`, at or after the last row asked), into `out`.
    fn runs_of<T: LwcInt>(&mut self, view: &RleView<'_, T>, rows: &[u32], out: &mut [u32]) {
        if !self.by_blocks {
            for (o, &row) in out.iter_mut().zip(rows) {
                *o = self.run_of(view, row) as u32;
            }
            return;
        }
        let mut k = 0;
        while k < rows.len() {
            let (placed, next) = runs_of_rows(&self.ends, self.held, self.first, self.next, &rows[k..], &mut out[k..]);
            (self.next, k) = (next, k + placed);
            if let Some(&row) = rows.get(k) {
                out[k] = self.run_of(view, row) as u32; // past the ends held
                k += 1;
            }
        }
    }

    /// The run holding `row` (`< n`), which is at or after the last row asked.
    fn run_of<T: LwcInt>(&mut self, view: &RleView<'_, T>, row: u32) -> usize {
        if !self.by_blocks {
            // Ends read in place: the run found last, else a gallop from the run after it; one end held.
            if self.held == 0 || row >= self.ends[0] {
                let run = view.run_from(row as usize, self.first + self.held);
                (self.ends[0], self.first, self.held) = (view.end_of(run) as u32, run, 1);
            }
            return self.first;
        }
        let mut went_on = false;
        loop {
            let mut run = [0];
            let (placed, next) = runs_of_rows(&self.ends, self.held, self.first, self.next, &[row], &mut run);
            self.next = next;
            if placed == 1 {
                return run[0] as usize;
            }
            let following = self.first + self.held;
            if !went_on && self.held > 0 && following < view.runs() {
                // Ascending rows mostly go on into the next block: it is decoded without a search, and a
                // row past it too is ranked (a rank of `delta` ends cost as much as the block's decode).
                went_on = true;
                self.hold(view, following, (view.runs() - following).min(BLOCK), following);
                continue;
            }
            let run = view.run_of(row as usize);
            // Blocks start at multiples of their length, as `delta`'s strides do: none seeks mid-stride.
            let start = run / BLOCK * BLOCK;
            self.hold(view, start, (view.runs() - start).min(BLOCK), run);
            return run;
        }
    }

    /// Decodes the ends of runs `start .. start + count` and stands at run `at` among them.
    fn hold<T: LwcInt>(&mut self, view: &RleView<'_, T>, start: usize, count: usize, at: usize) {
        self.ends.resize(count + RUN_WINDOW, u32::MAX);
        view.ends.decode_into(start, &mut self.ends[..count]);
        self.ends[count..].fill(u32::MAX);
        (self.first, self.held, self.next) = (start, count, at - start);
    }
}

/// Writes runs, given by their ends and values in order, into `out` (rows `start ..`) from row `row` on,
/// and returns the row reached. A block whose ends ascend from `row`, as the check at open found them,
/// goes by a loop with no clamp per run: l_orderkey's runs of 1 to 7 rows took 11 cycles a run through
/// clamps and a closure. Ends that do not ascend (a child read another way than the check read it) fill
/// no row before `row` and none past `out`.
fn fill_runs<T: Copy>(out: &mut [T], start: usize, mut row: usize, ends: &[u32], values: &[T]) -> usize {
    // A short run is one store of fixed size, whose excess the next runs overwrite, instead of a loop
    // whose exit mispredicts on runs of random length (l_orderkey: 7x faster).
    const SHORT: usize = 8;
    let end = start + out.len();
    let ascending = !ends.is_empty() && u32::try_from(row).is_ok_and(|row| first_descent(row, ends).is_none());
    // Runs whose row before them leaves room for a whole short store.
    let roomy = if ascending { ends.partition_point(|&e| e as usize + SHORT <= end) } else { 0 };
    for (&e, &value) in ends[..roomy].iter().zip(values) {
        let (at, len) = (row - start, e as usize - row);
        if len <= SHORT {
            out[at..at + SHORT].copy_from_slice(&[value; SHORT]);
        } else {
            out[at..at + len].fill(value);
        }
        row = e as usize;
    }
    for (&e, &value) in ends[roomy..].iter().zip(&values[roomy..]) {
        if row >= end {
            break;
        }
        // Never before `row` nor past `out`, however the ends read.
        let stop = (e as usize).clamp(row, end);
        let at = row - start;
        if stop - row <= SHORT && at + SHORT <= out.len() {
            out[at..at + SHORT].copy_from_slice(&[value; SHORT]);
        } else {
            out[at..stop - start].fill(value);
        }
        row = stop;
    }
    row
}

/// The sum of runs, given by their ends and values in order, over rows `row .. n`, and the row reached.
/// Where the ends ascend from `row` within `n` and the values have at most 32 bits, each run's value times
/// its length is summed in `i64`, which vectorizes and is exact: the block spans fewer than 2^31 rows.
/// Otherwise run by run in `i128`, each run clamped to the rows after the one before.
fn sum_runs<T: LwcInt>(mut row: usize, n: usize, ends: &[u32], values: &[T]) -> (i128, usize) {
    let (Some(&first), Some(&last)) = (ends.first(), ends.last()) else {
        return (0, row);
    };
    let ascending = u32::try_from(row).is_ok_and(|row| first_descent(row, ends).is_none());
    if ascending && <T::Unsigned as Word>::BITS <= 32 && last as usize <= n && (last as usize - row) < 1 << 31 {
        let narrow = |v: T| v.to_i128() as i64;
        let lengths = ends.windows(2).map(|w| i64::from(w[1] - w[0]));
        let rest: i64 = values[1..].iter().zip(lengths).map(|(&v, len)| narrow(v) * len).sum();
        return ((narrow(values[0]) * (first as usize - row) as i64 + rest) as i128, last as usize);
    }
    let mut sum = 0;
    for (&e, &value) in ends.iter().zip(values) {
        let stop = (e as usize).clamp(row, n);
        sum += value.to_i128() * (stop - row) as i128;
        row = stop;
    }
    (sum, row)
}

/// `count` rows of `value`.
fn repeated<T: LwcInt>(value: T, count: usize) -> SumMinMax<T> {
    SumMinMax { sum: value.to_i128() * count as i128, min: Some(value), max: Some(value) }
}

impl<T: LwcInt> StreamOps<T> for RleView<'_, T> {
    fn len(&self) -> usize {
        self.n
    }

    fn decode_into(&self, start: usize, out: &mut [T]) {
        if out.is_empty() {
            return;
        }
        let mut row = start;
        // A run fills at least one row where the ends ascend: no more runs than rows.
        self.for_each_block(self.run_of(start), out.len(), |ends, values| {
            row = fill_runs(out, start, row, ends, values);
            row < start + out.len()
        });
    }

    fn get(&self, i: usize) -> T {
        self.values.get(self.run_of(i))
    }

    fn get_cost(&self) -> usize {
        if self.in_place().is_some() {
            return 1; // a shift or a multiply, then a multiply-add
        }
        // A rank of the ends (a bisection, or their own search), then a read of the value.
        self.ends.rank_cost() + self.values.get_cost()
    }

    fn sorted_take_cost(&self, k: usize, span: usize) -> usize {
        // A sorted take finds its runs by walking the ends forward (see `RunCursor`), then takes those runs,
        // as sorted as the positions, from the values: every pass is shared between the positions, and a
        // `delta` child walks its runs too.
        if self.ranks_each(k, span) {
            return k.saturating_mul(self.get_cost());
        }
        let runs = self.runs_in(span);
        if self.equal_runs.is_some() {
            return k.saturating_add(self.values.sorted_take_cost(k, runs)); // a shift or a multiply a run
        }
        let ends = if self.ends.get_cost() <= 1 {
            k.saturating_mul(2 * (runs / k.max(1) + 1).ilog2() as usize) // read in place: a gallop a position
        } else {
            runs + self.ends.get_cost() // decoded block after block, from one rank
        };
        let found = k.saturating_mul(RUN_SEEK_COST).saturating_add(ends);
        found.saturating_add(self.values.sorted_take_cost(k, runs))
    }

    fn decode_cost(&self, rows: usize) -> usize {
        // Rows written, and per run a value and an end decoded and a step of the loop over runs.
        let runs = self.runs_in(rows);
        let children = self.values.decode_cost(runs).saturating_add(self.ends.decode_cost(runs));
        rows.saturating_add(runs.saturating_mul(RUN_DECODE_COST)).saturating_add(children)
    }

    fn take_into(&self, positions: &[u32], out: &mut [T]) {
        self.take_ranked(positions, out, false);
    }

    fn take_sorted_into(&self, positions: &[u32], out: &mut [T]) {
        if self.equal_runs.is_some() {
            // Each run found in O(1), with no ends to walk; the values taken as sorted as the positions.
            return self.take_ranked(positions, out, true);
        }
        if let (Some(&first), Some(&last)) = (positions.first(), positions.last()) {
            if self.ranks_each(positions.len(), (last - first) as usize + 1) {
                return self.take_into(positions, out);
            }
        }
        let (mut runs, mut cursor) = ([0u32; BLOCK], RunCursor::new(self));
        for (chunk, out) in positions.chunks(BLOCK).zip(out.chunks_mut(BLOCK)) {
            let runs = &mut runs[..chunk.len()];
            cursor.runs_of(self, chunk, runs);
            self.values.take_sorted_into(runs, out);
        }
    }

    fn filter_range(&self, lo: T, hi: T, out: &mut Bitmap) {
        let mut matching = Bitmap::new_clear(self.runs());
        self.values.filter_range(lo, hi, &mut matching);
        self.set_rows_of(&matching, out);
    }

    fn filter_in(&self, set: &[T], out: &mut Bitmap) {
        let mut matching = Bitmap::new_clear(self.runs());
        self.values.filter_in(set, &mut matching);
        self.set_rows_of(&matching, out);
    }

    fn sum(&self) -> i128 {
        let (mut sum, mut row) = (0, 0);
        self.for_each_block(0, self.runs(), |ends, values| {
            let (block, reached) = sum_runs(row, self.n, ends, values);
            (sum, row) = (sum + block, reached);
            true
        });
        sum
    }

    fn aggregate(&self, selection: &Selection) -> SumMinMax<T> {
        let mut acc = SumMinMax::EMPTY;
        match selection {
            Selection::Positions(positions) => {
                // Each run touched: its value once, weighed by the positions that fall in it.
                let (mut k, mut cursor) = (0, RunCursor::new(self));
                while k < positions.len() {
                    let run = cursor.run_of(self, positions[k]);
                    let end = cursor.ends[cursor.next] as usize;
                    // At least the position itself, so that ends read out of order cannot stall the loop.
                    let count = positions[k..].partition_point(|&p| (p as usize) < end).max(1);
                    acc = acc.merge(repeated(self.values.get(run), count));
                    k += count;
                }
            }
            Selection::Bitmap(bits) => self.for_each_run(0, self.runs(), |rows, value| {
                let count = bits.count_ones_in(rows);
                if count > 0 {
                    acc = acc.merge(repeated(value, count));
                }
                true
            }),
        }
        acc
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bytes::AlignedBytes;
    use crate::column::{EncodeOptions, EncodedColumn};
    use crate::encodings::{encode_stream, Cascade};

    fn encoded<T: LwcInt>(values: &[T], cascade: &str) -> AlignedBytes {
        let mut w = Writer::new();
        encode_stream(values, &cascade.parse().unwrap(), Default::default(), &mut w).unwrap();
        w.into_aligned()
    }

    use crate::encodings::stream::TakePlan;

    /// Each run's value and end, for no rows, one, runs of one row, runs of ten and one run of every row.
    #[test]
    fn runs_are_their_values_and_ends() {
        assert_eq!(runs_of::<i32>(&[]), (vec![], vec![]));
        assert_eq!(runs_of(&[7i32]), (vec![7], vec![1]));
        assert_eq!(runs_of(&[3u8, 3, 1, 2, 2, 2, 3]), (vec![3, 1, 2, 3], vec![2, 3, 6, 7]));
        assert_eq!(runs_of(&[-1i64, 0, -1]), (vec![-1, 0, -1], vec![1, 2, 3]));
        assert_eq!(runs_of(&[5u64; 1 << 16]), (vec![5], vec![1 << 16]));
        // Runs long enough to be found at their changes alone.
        let tens: Vec<i16> = (0..100).map(|i| i / 10 - 5).collect();
        assert_eq!(runs_of(&tens), ((-5..5).collect(), (1..=10).map(|r| r * 10).collect()));
    }

    /// On a sample, runs cut by a seam are left out: the first and last run of each piece run on past it.
    #[test]
    fn whole_runs_leave_out_the_runs_that_seams_cut() {
        let values = [1u32, 1, 2, 2, 2, 3, 7, 7, 8, 9, 9];
        assert_eq!(whole_runs(&values, &[6]), (vec![2, 2, 2, 8], vec![3]));
        // Pieces of one value, or of two runs, hold no whole run.
        assert_eq!(whole_runs(&values, &[2, 6, 9]), (vec![], vec![]));
        assert_eq!(whole_runs(&values, &[]), (vec![], vec![]));
    }
    use crate::encodings::test_shapes::{l_orderkey, ps_partkey};

    /// Sums of runs match a sum run by run, in `i64` lanes and in `i128`: extreme values, blocks up to 2^31
    /// rows long, and ends that do not ascend (clamped to the rows after the run before, as a decode fills).
    #[test]
    fn runs_sum_exactly_at_the_extremes() {
        fn reference<T: LwcInt>(mut row: usize, n: usize, ends: &[u32], values: &[T]) -> i128 {
            let mut sum = 0;
            for (&e, &v) in ends.iter().zip(values) {
                let stop = (e as usize).clamp(row, n);
                sum += v.to_i128() * (stop - row) as i128;
                row = stop;
            }
            sum
        }
        fn check<T: LwcInt>(row: usize, n: usize, ends: &[u32], values: &[T]) {
            let expect = reference(row, n, ends, values);
            assert_eq!(sum_runs(row, n, ends, values).0, expect, "{ends:?} from {row}");
        }
        let big = [(1u32 << 31) - 1, u32::MAX - 1, u32::MAX];
        check(0, u32::MAX as usize, &big, &[u32::MAX, u32::MAX, 7]);
        check(0, u32::MAX as usize, &big, &[i32::MIN, i32::MAX, i32::MIN]);
        check(0, u32::MAX as usize, &big, &[u64::MAX, u64::MAX, 1]);
        check(0, u32::MAX as usize, &[1 << 30, (1 << 31) - 1], &[i32::MIN, i32::MIN]);
        check(5, 100, &[10, 20, 15, 200, 30], &[-3i16, 4, 9, -1, 2]);
        check(5, 100, &[3, 50], &[u8::MAX, 1]);
        let mut rng = SplitMix(13);
        for _ in 0..200 {
            let ends: Vec<u32> = (1..=500).map(|i| i * 3 - (rng.next() % 3) as u32).collect();
            let values: Vec<i32> = ends.iter().map(|_| rng.next() as i32).collect();
            check(1, 1500, &ends, &values);
            check(0, 1000, &ends, &values);
        }
    }

    /// Runs filled from their ends match a fill run by run, from any row and up to any end, across the
    /// fixed-size stores of short runs and the fills of long ones; ends in any order fill nothing outside
    /// `out` and never panic.
    #[test]
    fn runs_fill_their_rows_from_any_start_and_any_ends() {
        let mut rng = SplitMix(11);
        for case in 0..2000 {
            let runs = 1 + (rng.next() % 300) as usize;
            // Mostly short runs (l_orderkey's), some long ones, so a block mixes both kinds of store.
            let mut length = || if rng.next().is_multiple_of(8) { 9 + rng.next() % 40 } else { 1 + rng.next() % 8 };
            let lengths: Vec<u32> = (0..runs).map(|_| length() as u32).collect();
            let ends: Vec<u32> = lengths.iter().scan(0, |end, &len| Some(*end + len).inspect(|&e| *end = e)).collect();
            let values: Vec<u16> = (0..runs as u16).collect();
            let n = *ends.last().unwrap() as usize;
            let start = (rng.next() % n as u64) as usize;
            let stop = start + 1 + (rng.next() % (n - start) as u64) as usize;
            let first = ends.partition_point(|&e| e as usize <= start);
            let mut out = vec![u16::MAX; stop - start];
            let row = fill_runs(&mut out, start, start, &ends[first..], &values[first..]);
            let expect: Vec<u16> = (start..stop).map(|r| ends.partition_point(|&e| e as usize <= r) as u16).collect();
            assert_eq!((row, &out), (stop, &expect), "case {case}: rows {start}..{stop} of {n}");
            // The same ends shuffled: whatever is written stays inside `out`.
            let mut shuffled = ends.clone();
            for i in (1..shuffled.len()).rev() {
                shuffled.swap(i, (rng.next() % (i as u64 + 1)) as usize);
            }
            let row = fill_runs(&mut out, start, start, &shuffled, &values);
            assert!((start..=stop).contains(&row), "case {case}: row {row} outside {start}..={stop}");
            assert_eq!(fill_runs(&mut out, start, start, &[], &values[..0]), start, "no runs");
        }
    }

    #[test]
    fn ps_partkey_is_a_few_dozen_bytes_a_segment() {
        let values: Vec<i32> = ps_partkey(800_000).into_iter().map(|k| k as i32).collect();
        let cascade: Cascade = "rle(sequence, sequence)".parse().unwrap();
        let options = EncodeOptions { cascade: cascade.clone(), segment_rows: 1 << 16, ..Default::default() };
        let encoded = EncodedColumn::encode(&values, None, options).unwrap();
        let column = encoded.open::<i32>().unwrap();
        let segments = column.segments().len();
        assert_eq!(segments, 13);
        assert!(column.cascades().iter().all(|(c, _)| *c == cascade), "{:?}", column.cascades());
        // Per segment: a 40-byte header, a 16-byte table entry, the run count and two 17-byte sequences.
        let bytes = encoded.as_bytes().len();
        assert!(bytes <= 25_000 && bytes <= segments * 100 + 64, "{bytes} bytes for {segments} segments");
        assert_eq!(column.decode(0..800_000).unwrap().values, values);
        for row in [0, 65_535, 65_536, 400_001, 799_999] {
            assert_eq!(column.get(row).unwrap(), Some(values[row as usize]));
        }
    }

    /// TPC-H `l_orderkey`: order keys sparse as dbgen makes them (8 of every 32), each repeated for the order's
    /// 1 to 7 line items. At scale factor 1 (6,001,215 rows) the catalog issue asks for at most 1.0 MB,
    /// 1.33 bits a row; this checks the rate on ten segments, and that the column still answers get and take.
    #[test]
    fn l_orderkey_fits_in_a_megabyte_at_scale_factor_1() {
        let values = l_orderkey(10 << 16);
        let options = EncodeOptions::with_encoding("rle(delta(dict), delta)".parse::<Cascade>().unwrap());
        let encoded = EncodedColumn::encode(&values, None, options).unwrap();
        let bits_per_row = encoded.as_bytes().len() as f64 * 8.0 / values.len() as f64;
        assert!(bits_per_row * 6_001_215.0 / 8.0 <= 1.0e6, "{bits_per_row:.2} bits a row");
        let column = encoded.open::<u32>().unwrap();
        let rows: Vec<u64> = (0..values.len() as u64).rev().step_by(997).collect();
        let taken = column.take(&rows).unwrap().values;
        assert!(rows.iter().zip(&taken).all(|(&r, &v)| values[r as usize] == v));
        assert_eq!(column.get(123_457).unwrap(), Some(values[123_457]));
    }

    #[test]
    fn scattered_takes_over_many_short_runs_decode_instead_of_bisecting() {
        // 65,536 rows of random years: runs of about one row, so each get bisects 16 times over the ends,
        // each probe waiting for the one before. A take of one row in 8 costs more in such gets than
        // decoding the segment (it measured 10x the decode when a probe was priced as one value);
        // one row in 1,024 still reads its rows.
        let mut rng = crate::stats::SplitMix(5);
        let values: Vec<u32> = (0..1 << 16).map(|_| 1900 + (rng.next() % 201) as u32).collect();
        let bytes = encoded(&values, "rle");
        let view = StreamView::<u32>::open(&mut Reader::new(&bytes), values.len()).unwrap();
        let (n, get) = (values.len(), view.get_cost());
        assert!((n / 8) * get >= view.decode_cost(n), "{get} a get against {} a decode", view.decode_cost(n));
        assert!((n / 1024) * get < view.decode_cost(n), "{get} a get against {} a decode", view.decode_cost(n));
        // Runs of 4 rows with `sequence` ends (ps_partkey's) rank by a division: one row in 128 reads its rows.
        let keys: Vec<u32> = (0..1 << 16).map(|i| i / 4).collect();
        let bytes = encoded(&keys, "rle(sequence, sequence)");
        let view = StreamView::<u32>::open(&mut Reader::new(&bytes), keys.len()).unwrap();
        assert!((n / 128) * view.get_cost() < view.decode_cost(n), "{} a get", view.get_cost());
    }

    #[test]
    fn unsorted_takes_that_pay_for_a_sort_are_sorted_and_put_back() {
        // l_orderkey's runs with delta-coded ends: a hundred rows in no order, repeats among them, cost
        // less sorted and walked than ranked one by one or decoded whole (measured 0.3x either on the AMD
        // EPYC, Zen 4); ten do not. Either way every value comes back at its own index.
        let keys = l_orderkey(1 << 16);
        let bytes = encoded(&keys, "rle(delta(dict), delta)");
        let view = StreamView::<u32>::open(&mut Reader::new(&bytes), keys.len()).unwrap();
        let (n, mut rng) = (keys.len(), crate::stats::SplitMix(9));
        assert_eq!((view.take_plan(100), view.take_plan(10)), (TakePlan::Sorted, TakePlan::Gets));
        for k in [10, 100, 1000] {
            let mut positions: Vec<u32> = (0..k).map(|_| (rng.next() % n as u64) as u32).collect();
            positions.extend_from_within(..k / 10);
            let mut out = vec![0; positions.len()];
            view.take_into(&positions, &mut out);
            let expect: Vec<u32> = positions.iter().map(|&p| keys[p as usize]).collect();
            assert_eq!(out, expect, "{k} positions");
        }
    }

    #[test]
    fn a_child_is_priced_as_its_bounded_take() {
        // o_orderkey's unique keys as runs of one row over `delta(gcd(bitpack))` values: the values' walk
        // of 1,024 positions costs more than their decode, so the dispatch decodes them, and the sorted
        // take is priced with that decode; it then wins by a third, not by half, over a decode of the
        // whole stream. Priced with the walk, or asked to win by half, the list in no order was decoded
        // whole, in 2.2x the time of sorting it and taking it so (`take_bound` example, AMD EPYC Zen 5).
        let keys = crate::encodings::test_shapes::o_orderkey(1 << 16);
        let bytes = encoded(&keys, "rle(delta(gcd(bitpack), sequence), sequence)");
        let view = StreamView::<u32>::open(&mut Reader::new(&bytes), keys.len()).unwrap();
        assert_eq!(view.take_plan(1024), TakePlan::Sorted);
        let mut rng = crate::stats::SplitMix(3);
        let positions: Vec<u32> = (0..1024).map(|_| (rng.next() % keys.len() as u64) as u32).collect();
        let mut out = vec![0; positions.len()];
        view.take_into(&positions, &mut out);
        assert!(positions.iter().zip(&out).all(|(&p, &v)| keys[p as usize] == v));
    }

    #[test]
    fn sparse_sorted_takes_rank_each_position() {
        // l_orderkey's runs with delta-coded ends, about 16,000 runs a segment: 11 sorted rows (1,000 over
        // TPC-H SF 1's 92 segments) lie more than a block of runs apart, so each is ranked as an unsorted
        // row is, and priced so; 100 share the walk's blocks, and cost less walked than ranked.
        let keys = l_orderkey(1 << 16);
        let bytes = encoded(&keys, "rle(delta(dict), delta)");
        let StreamView::Rle(view) = StreamView::<u32>::open(&mut Reader::new(&bytes), keys.len()).unwrap() else {
            panic!("not rle");
        };
        let n = keys.len();
        assert!(view.ranks_each(11, n) && !view.ranks_each(100, n));
        assert_eq!(view.sorted_take_cost(11, n), 11 * view.get_cost());
        assert!(view.sorted_take_cost(100, n) < 100 * view.get_cost());
        for k in [11, 100] {
            let positions: Vec<u32> = (0..k).map(|i| (i * (n / k) + i % 7) as u32).collect();
            let mut out = vec![0; k];
            view.take_sorted_into(&positions, &mut out);
            assert!(positions.iter().zip(&out).all(|(&p, &v)| keys[p as usize] == v), "{k} positions");
        }
    }

    #[test]
    fn sorted_walks_find_every_run_however_far_apart() {
        // 5,000 runs of 1 to 9 rows. The walk itself (not the bound that may decode instead), over ends
        // read in place and ends decoded by blocks (`delta`): positions a few runs apart (the window
        // counts), about a block apart (the next block, decoded without a search), many blocks apart
        // (a rank, or a rank each where all are), on every run's first and last row, and repeated.
        let values: Vec<i32> = (0..5000i32).flat_map(|k| std::iter::repeat_n(k * 7 - 9000, 1 + (k * k) as usize % 9)).collect();
        let n = values.len() as u32;
        let lists: Vec<Vec<u32>> = vec![
            (0..n).step_by(3).collect(),
            (0..n).step_by(4099).chain([n - 1]).collect(),
            (0..n).step_by(20_011).collect(),
            (0..n).filter(|r| r % 5_000 < 70 || r % 5_000 > 4_990).collect(),
            [0, 0, 1, 1, 2, 5_000, 5_000, 5_001, n - 2, n - 1, n - 1].to_vec(),
            vec![n - 1],
        ];
        for cascade in ["rle", "rle(for_n, for_n)", "rle(delta(dict), delta)", "rle(delta, delta:16)", "rle(plain, delta:64(bitpack, plain))"] {
            let bytes = encoded(&values, cascade);
            let StreamView::Rle(view) = StreamView::<i32>::open(&mut Reader::new(&bytes), values.len()).unwrap() else {
                panic!("{cascade} is not rle");
            };
            for positions in &lists {
                let mut out = vec![0; positions.len()];
                view.take_sorted_into(positions, &mut out);
                for (&p, &v) in positions.iter().zip(&out) {
                    assert_eq!(v, values[p as usize], "{cascade}: row {p} of {} positions", positions.len());
                }
                let picked: Vec<i32> = positions.iter().map(|&p| values[p as usize]).collect();
                assert_eq!(view.aggregate(&Selection::Positions(positions.clone())), SumMinMax::of(&picked), "{cascade}");
            }
        }
    }

    #[test]
    fn runs_across_blocks_of_runs() {
        // 3,000 runs of lengths 1 to 7: decodes and sorted takes that cross the 1,024-run blocks.
        let values: Vec<u16> = (0..3000u16).flat_map(|k| std::iter::repeat_n(k * 3, 1 + k as usize % 7)).collect();
        for cascade in ["rle", "rle(for_n, for_n)", "rle(bitpack, plain)"] {
            let bytes = encoded(&values, cascade);
            let view = StreamView::<u16>::open(&mut Reader::new(&bytes), values.len()).unwrap();
            for (start, len) in [(0, values.len()), (4001, 7000), (values.len() - 1, 1), (17, 0)] {
                let mut out = vec![0; len];
                view.decode_into(start, &mut out);
                assert_eq!(out, &values[start..start + len], "{cascade}: {start}+{len}");
            }
            let positions: Vec<u32> = (0..values.len() as u32).step_by(5).chain([values.len() as u32 - 1]).collect();
            let mut out = vec![0; positions.len()];
            view.take_sorted_into(&positions, &mut out);
            assert!(positions.iter().zip(&out).all(|(&p, &v)| values[p as usize] == v), "{cascade}");
            let selection = Selection::Positions(positions.clone());
            let picked: Vec<u16> = positions.iter().map(|&p| values[p as usize]).collect();
            assert_eq!(view.aggregate(&selection), SumMinMax::of(&picked), "{cascade}");
            assert_eq!(view.sum(), values.iter().map(|&v| v as i128).sum::<i128>(), "{cascade}");
        }
    }

    /// A stream with the given run ends (plain `u32`) and constant values.
    fn hand_made(ends: &[u32]) -> AlignedBytes {
        let mut w = Writer::new();
        w.u32(ends.len() as u32);
        encode_stream(&vec![5u32; ends.len()], &Encoding::Constant.into(), Default::default(), &mut w).unwrap();
        encode_stream(ends, &Encoding::Plain.into(), Default::default(), &mut w).unwrap();
        w.into_aligned()
    }

    #[test]
    fn run_ends_whose_data_points_disagree_are_corrupt() {
        // Ends 3, 6, … 192 coded `delta:16`: the ends check walks through the deltas, while a read that
        // starts at run 16 starts from its data point (51). A data point changed to any other value would
        // read out of order from there (a decode panicked at 40 and at 60), so the segment is corrupt.
        let ends: Vec<u32> = (1..=64).map(|k| k * 3).collect();
        let mut w = Writer::new();
        w.u32(64);
        encode_stream(&(0..64u32).collect::<Vec<_>>(), &Encoding::Plain.into(), Default::default(), &mut w).unwrap();
        let deltas_from = w.len();
        encode_stream(&ends, &"delta:16(plain, plain)".parse().unwrap(), Default::default(), &mut w).unwrap();
        let clean = w.into_aligned().as_bytes().to_vec();
        // The data points 3, 51, 99 and 147 are stored after the deltas, which are all 3.
        let at = (deltas_from..clean.len() - 4).find(|&i| clean[i..i + 4] == 51u32.to_le_bytes()).unwrap();
        for point in [0u32, 2, 40, 50, 51, 52, 60, 192, 300] {
            let mut bytes = clean.clone();
            bytes[at..at + 4].copy_from_slice(&point.to_le_bytes());
            let bytes = AlignedBytes::copy_from(&bytes);
            let opened = RleView::<u32>::open(&mut Reader::new(&bytes), 192, 0).map(|view| {
                let mut out = vec![0; 150];
                view.decode_into(42, &mut out);
                out == (42..192).map(|row| row / 3).collect::<Vec<u32>>()
            });
            match point {
                51 => assert_eq!(opened, Ok(true)),
                _ => assert!(matches!(opened, Err(Error::Corrupt(_))), "data point {point}: {opened:?}"),
            }
        }
    }

    #[test]
    fn delta_ends_pass_from_their_deltas_as_by_decoding() {
        // Every byte of delta-coded ends changed in turn: the check from the deltas alone passes only ends
        // that the decoding check passes, and all of those that end at the row count (zigzagged deltas,
        // which it leaves to the decode, aside).
        let ends: Vec<u32> = (1..=300u32).map(|k| k * 3 + (k * k) % 3).collect();
        for cascade in ["delta:16(plain, plain)", "delta:64(bitpack, plain)", "delta(bitpack, bytepack)"] {
            let clean = encoded(&ends, cascade);
            let (mut passed, mut failed) = (0, 0);
            for (i, change) in (0..clean.len()).flat_map(|i| [1u8, 3, 0x80, 0xff].map(|c| (i, c))) {
                let mut bytes = clean.as_bytes().to_vec();
                bytes[i] = bytes[i].wrapping_add(change);
                let bytes = AlignedBytes::copy_from(&bytes);
                let Ok(StreamView::Delta(delta)) = StreamView::<u32>::open(&mut Reader::new(&bytes), ends.len()) else {
                    continue;
                };
                let Some(by_deltas) = delta.ascends_agreeing() else { continue };
                let view = StreamView::Delta(delta);
                let by_decoding = check_ends_decoded(&view).is_ok();
                // Every pass is right; and ends that could be a segment's (the last at the row count, so no
                // delta is too large to sum in 32 bits) pass from their deltas whenever they pass at all.
                assert!(!by_deltas || by_decoding, "{cascade}: byte {i} + {change} passed from its deltas alone");
                let last = view.get(ends.len() - 1) == ends[ends.len() - 1];
                assert!(by_deltas || !by_decoding || !last, "{cascade}: byte {i} + {change} left to the decode");
                (passed, failed) = if by_deltas { (passed + 1, failed) } else { (passed, failed + 1) };
            }
            assert!(passed > 0 && failed > 0, "{cascade}: {passed} passed, {failed} failed");
        }
    }

    /// Runs of one length after a first one shorter, as long or longer (a segment cut mid-run), over
    /// ascending, descending and scattered values: each row's run is found by a shift or a multiply, and
    /// gets, takes in any order and the reader in place (over a sequence) agree with the values.
    #[test]
    fn equal_runs_read_in_place_as_the_values_are() {
        fn check<T: LwcInt>(values: &[T], cascade: &str) {
            let bytes = encoded(values, cascade);
            let n = values.len();
            let view = RleView::<T>::open(&mut Reader::new(&bytes[1..]), n, 0).unwrap();
            assert!(view.equal_runs.is_some(), "{cascade}: {n} rows");
            // Read in place, at a get cost of 1, only over a sequence of values.
            let in_place = view.in_place();
            assert_eq!(in_place.is_some(), cascade.starts_with("rle(sequence"), "{cascade}");
            assert_eq!(view.get_cost() == 1, in_place.is_some(), "{cascade}");
            let rows: Vec<u32> = (0..n as u32).rev().chain([0, n as u32 - 1, n as u32 / 2]).collect();
            let mut out = vec![T::default(); rows.len()];
            view.take_into(&rows, &mut out);
            for (&row, &value) in rows.iter().zip(&out) {
                let expected = values[row as usize];
                assert_eq!((value, view.get(row as usize)), (expected, expected), "{cascade}");
                assert!(in_place.as_ref().is_none_or(|reader| reader.get(row as usize) == expected), "{cascade}");
            }
            let mut all = vec![T::default(); n];
            view.take_sorted_into(&(0..n as u32).collect::<Vec<_>>(), &mut all);
            assert_eq!(all, values);
        }
        for (first, length, runs) in [(1, 4, 1), (4, 4, 200), (3, 7, 50), (12, 5, 40), (1, 1, 300), (7, 1, 10), (5, 6, 2)] {
            let run = |row: usize| if row < first { 0 } else { (row - first) / length + 1 };
            let n = first + length * (runs - 1);
            check(&(0..n).map(|r| 700 + 3 * run(r) as u32).collect::<Vec<_>>(), "rle(sequence, sequence)");
            check(&(0..n).map(|r| 1_000 - 9 * run(r) as i64).collect::<Vec<_>>(), "rle(sequence, sequence)");
            let scattered = |r: usize| (run(r) as u32).wrapping_mul(2_654_435_761) >> 9;
            check(&(0..n).map(scattered).collect::<Vec<_>>(), "rle(bitpack, sequence)");
        }
    }

    #[test]
    fn reads_of_corrupt_run_ends_never_panic() {
        // Every byte of the ends' stream changed in turn, over ends coded in ways whose reads can disagree
        // with the check's when corrupt (a delta of deltas: its inner data points are not checked against
        // its deltas). A segment that opens must decode, get, take, aggregate and filter without a panic
        // or a stall. Before the reads clamped what they read, decodes overflowed and filters set rows past
        // the segment on some of these bytes.
        let ends: Vec<u32> = (1..=200u32).map(|k| k * 3 + (k * k) % 3).collect();
        let n = ends[ends.len() - 1] as usize;
        for cascade in ["delta:16(plain, plain)", "delta:16(delta:16(plain, plain), plain)", "delta:64(delta:16(plain, plain), delta:16(plain, plain))", "pfor(plain, plain)", "rle(plain, delta:16(plain, plain))"] {
            let mut w = Writer::new();
            w.u32(ends.len() as u32);
            encode_stream(&(0..200u32).collect::<Vec<_>>(), &Encoding::Plain.into(), Default::default(), &mut w).unwrap();
            let from = w.len();
            encode_stream(&ends, &cascade.parse().unwrap(), Default::default(), &mut w).unwrap();
            let clean = w.into_aligned().as_bytes().to_vec();
            for (i, change) in (from..clean.len()).flat_map(|i| [1u8, 2, 7, 0x80, 0xff].map(|c| (i, c))) {
                let mut bytes = clean.clone();
                bytes[i] = bytes[i].wrapping_add(change);
                let bytes = AlignedBytes::copy_from(&bytes);
                let Ok(view) = RleView::<u32>::open(&mut Reader::new(&bytes), n, 0) else { continue };
                let read = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    for start in (0..n).step_by(7) {
                        let mut out = vec![0; (n - start).min(100)];
                        view.decode_into(start, &mut out);
                        view.get(start);
                    }
                    let (unsorted, sorted): (Vec<u32>, Vec<u32>) = ((0..n as u32).rev().step_by(3).collect(), (0..n as u32).step_by(5).collect());
                    view.take_into(&unsorted, &mut vec![0; unsorted.len()]);
                    view.take_sorted_into(&sorted, &mut vec![0; sorted.len()]);
                    view.aggregate(&Selection::Positions(sorted));
                    view.aggregate(&Selection::Bitmap(Bitmap::new_set(n)));
                    view.filter_range(3, 50, &mut Bitmap::new_clear(n));
                }));
                assert!(read.is_ok(), "{cascade}: byte {i} + {change} panicked a read");
            }
        }
    }

    #[test]
    fn bad_run_ends_are_corrupt() {
        let open = |n: usize, ends: &[u32]| {
            let bytes = hand_made(ends);
            RleView::<u32>::open(&mut Reader::new(&bytes), n, 0).map(|v| v.len())
        };
        assert_eq!(open(6, &[2, 3, 6]), Ok(6));
        for (n, ends) in
            [(6, &[2, 2, 6][..]), (6, &[0, 3, 6]), (6, &[2, 3, 5]), (6, &[4, 3, 6]), (2, &[1, 2, 3]), (0, &[0])]
        {
            assert!(matches!(open(n, ends), Err(Error::Corrupt(_))), "{n} rows, ends {ends:?}");
        }
        // Past the first block of ends: the error names the first run that does not end after the one
        // before it, at a block's first run (compared with the block before) and within a block.
        for (bad, end) in [(1024, 1024), (1500, 1499)] {
            let mut ends: Vec<u32> = (1..=2048).collect();
            ends[bad] = end;
            let expect = format!("rle: run {bad} ends at row {end}, not after row {}", ends[bad - 1]);
            assert_eq!(open(2048, &ends), Err(Error::Corrupt(expect)));
        }
        // Sequences of ends are checked by their step alone.
        let mut w = Writer::new();
        w.u32(3);
        encode_stream(&[1u32, 2, 3], &Encoding::Plain.into(), Default::default(), &mut w).unwrap();
        encode_stream(&[10u32, 8, 6], &Encoding::Sequence.into(), Default::default(), &mut w).unwrap();
        let bytes = w.into_aligned();
        assert!(matches!(RleView::<u32>::open(&mut Reader::new(&bytes), 6, 0), Err(Error::Corrupt(_))));
    }
}
