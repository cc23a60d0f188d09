//! `sequence`: `value(i) = base + i · step` (Umbra's Increment), for data that is exactly an arithmetic
//! sequence in the type's order (ascending, descending or constant, never wrapping past `MIN` or `MAX`):
//! row ids, generated keys, the run ends of equal-length runs. Nothing is stored per value, so every
//! operation is O(1) or O(output): filters solve for the index range, the sum is closed-form, and the
//! minimum and maximum of a selection sit at its first and last position.
//!
//! Body (16 bytes):
//!
//! | size | field |
//! |---|---|
//! | 8 | base, as zero-extended bits |
//! | 8 | step: `value(1) - value(0)` in the type's unsigned word, zero-extended |
//!
//! A descending step is stored wrapped (−3 in `i32` or `u32` is `0xFFFF_FFFD`). Which way the sequence
//! runs need not be stored: of the two readings of the bits (ascending `step`, descending
//! `step - 2^bits`), exactly one keeps the last of two or more values inside the type. A reader takes that
//! one and rejects bits under which neither does, so `|step| · (n - 1)` fits the type's range and the sums
//! below fit `i128` (`n <= 2^32`).

use std::ops::Range;

use super::{Children, Encoder, InPlace, OpenStream, Requirement, StreamOps, SumMinMax, read_value, value_bits};
use crate::stats::{Stats, Shape, SplitMix};
use crate::bitmap::Bitmap;
use crate::bytes::{Reader, Writer};
use crate::error::{Error, Result};
use crate::kernels::divisor::EqualParts;
use crate::kernels::lookup::SteppedRuns;
use crate::selection::Selection;
use crate::types::{LwcInt, Word};

pub(crate) struct Sequence;

/// The step of `values` as an unsigned word if they form a sequence without wrapping (0 for fewer than two).
pub(crate) fn step_of<T: LwcInt>(values: &[T]) -> Option<T::Unsigned> {
    let [first, second, ..] = values else {
        return Some(T::Unsigned::ZERO);
    };
    let step = second.offset_from(*first);
    let ascending = second >= first;
    // Equal differences in the unsigned word, and every pair ordered the same way: a wrap would break the order.
    values.windows(2).all(|w| w[1].offset_from(w[0]) == step && (w[1] >= w[0]) == ascending).then_some(step)
}

impl Encoder for Sequence {
    /// A rank is a division.
    fn search_gets() -> Option<f64> {
        Some(1.0)
    }

    /// The header holds every value: a lookup touches no data.
    fn lines(_: u32, _: u32) -> f64 {
        0.0
    }

    const REQUIRES: Requirement = Requirement::EqualSteps;
    const TAKEN_AT_ONCE: bool = true;
    const TAKEN_BECAUSE: &'static str = "an arithmetic sequence: two numbers answer everything";

    fn pruned(shape: &dyn Shape) -> Option<&'static str> {
        (!shape.uniform_step() && !shape.seams_only_break_the_step()).then_some("not an arithmetic sequence")
    }

    fn calibration_values(_: u32, n: usize, _: &mut SplitMix) -> Vec<u64> {
        (0..n as u64).map(|i| 1_000 + 3 * i).collect()
    }

    /// Sixteen bytes however many rows. Not checked here: the encoder checks every step anyway, and on a
    /// miss the driver chooses again without `sequence`, so a sequence costs one pass, not two.
    fn estimate_from_sample<T: LwcInt>(_: &[T], _: &Stats<T>, _: u32, _: &impl Children, _: &dyn Shape) -> Option<usize> {
        Some(16)
    }

    fn estimate<T: LwcInt>(values: &[T], _: &Stats<T>, _: u32, _: &impl Children) -> Option<usize> {
        step_of(values).map(|_| 16)
    }

    fn encode<T: LwcInt>(values: &[T], _: &Stats<T>, _: u32, _: &impl Children, out: &mut Writer) -> Result<()> {
        let step = step_of(values).ok_or_else(|| Error::NotApplicable {
            encoding: "sequence",
            reason: format!("{} values are not an arithmetic sequence", values.len()),
        })?;
        out.u64(values.first().map_or(0, |&v| value_bits(v)));
        out.u64(step.to_u64());
        Ok(())
    }
}

/// `k · step`, wrapping in the word (exact modulo its width, as the `u64` product is).
#[inline(always)]
pub(crate) fn wrapping_times<U: Word>(step: U, k: usize) -> U {
    U::from_u64(step.to_u64().wrapping_mul(k as u64))
}

/// `out[k] = first + k · step`, wrapping. Written as a running sum, which LLVM recognizes as an induction
/// variable and vectorizes into one vector add per register of values (a multiply per value, or lanes
/// advanced by hand, came out 3x slower).
pub(crate) fn fill_arithmetic<U: Word>(first: U, step: U, out: &mut [U]) {
    let mut value = first;
    for o in out {
        *o = value;
        value = value.wrapping_add(step);
    }
}

/// Runs of one length after the first, whose ends form an ascending sequence (`rle` of a key repeated a
/// fixed number of times, as TPC-H's ps_partkey is): a row's run is a compare and a shift or a multiply
/// by a reciprocal, where a rank of the ends divides by the step.
#[derive(Clone, Copy, Debug)]
pub(crate) struct EqualRuns {
    /// The row where the first run ends.
    first_end: u64,
    /// Every later run's length.
    length: EqualParts,
    /// The last run: every row from its start on is in it (none past it, once the ends are checked).
    last: u64,
    /// The rows the runs hold.
    rows: u64,
}

impl EqualRuns {
    /// Runs of one row each, `n` of them: a sequence's own values.
    pub fn of_rows(n: usize) -> EqualRuns {
        let length = EqualParts::new(1, u64::MAX).expect("a power of two");
        EqualRuns { first_end: 1, length, last: (n as u64).saturating_sub(1), rows: n as u64 }
    }

    /// The rows the runs hold.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Where `next` (runs of the rows from `start` on) continues these as if they went on: the run that
    /// holds row `start` in these, extended past their rows, ends where `next`'s first run does and the
    /// later runs are as long. That run's number, `None` otherwise (a run cut by `start` continues too).
    pub fn continued_at(&self, start: u64, next: &EqualRuns) -> Option<u64> {
        let length = self.length.part_len();
        let run = start.checked_sub(self.first_end).map_or(0, |past| past / length + 1);
        let end = run.checked_mul(length)?.checked_add(self.first_end)?;
        (next.length.part_len() == length && Some(end) == start.checked_add(next.first_end)).then_some(run)
    }

    /// These runs extended to `rows` rows and `last` runs past the first: what [`EqualRuns::continued_at`]
    /// joins. `None` where the length's reciprocal is not exact for so many rows.
    pub fn extended(&self, rows: u64, last: u64) -> Option<EqualRuns> {
        let length = EqualParts::new(self.length.part_len(), rows)?;
        Some(EqualRuns { first_end: self.first_end, length, last, rows })
    }

    /// These runs as [`crate::kernels::lookup::stepped`] reads them, where later runs are a power of two
    /// long and every figure fits `u32`.
    pub fn in_u32(&self) -> Option<SteppedRuns> {
        let length = self.length.part_len();
        let fits = |x: u64| u32::try_from(x).ok();
        Some(SteppedRuns {
            first_end: fits(self.first_end)?,
            shift: length.is_power_of_two().then(|| length.trailing_zeros()).filter(|&s| s < 32)?,
            last: fits(self.last)?,
            len: fits(self.rows)?,
        })
    }

    /// The run holding `row`.
    #[inline(always)]
    pub fn run_of(&self, row: u64) -> u64 {
        match row.checked_sub(self.first_end) {
            None => 0,
            Some(past) => (self.length.locate(past).0 + 1).min(self.last),
        }
    }
}

impl SequenceView<u32> {
    /// The runs these values end, where they ascend (the ends of a checked `rle`).
    pub fn equal_runs(&self) -> Option<EqualRuns> {
        if self.n == 0 || !self.is_strictly_ascending() {
            return None;
        }
        // Any step of `u32` and rows below `2^32`: the reciprocal is exact for every row.
        let length = EqualParts::new((self.step as u64).max(1), 1 << 32)?;
        let last = self.n as u64 - 1;
        let rows = u64::from(self.base) + self.step as u64 * last;
        Some(EqualRuns { first_end: self.base.into(), length, last, rows })
    }
}

pub(crate) struct SequenceView<T: LwcInt> {
    base: T,
    /// The step in the unsigned word, wrapped when descending: what `get` multiplies.
    step_bits: T::Unsigned,
    /// The step as a number, negative when descending: what filters and sums work with.
    step: i128,
    n: usize,
}

impl<'a, T: LwcInt> OpenStream<'a, T> for SequenceView<T> {
    fn open(r: &mut Reader<'a>, n: usize, _: usize) -> Result<Self> {
        let base: T = read_value(r, "sequence base")?;
        let bits: T::Unsigned = read_value(r, "sequence step")?;
        if n <= 1 {
            // One value or none: the step is never used, and zero keeps every formula trivially in range.
            return Ok(SequenceView { base, step_bits: T::Unsigned::ZERO, step: 0, n });
        }
        let last = |step: i128| base.to_i128() + (n as i128 - 1) * step;
        let up = bits.to_u64() as i128;
        let down = up - (1i128 << T::Unsigned::BITS);
        let step = if last(up) <= T::MAX.to_i128() {
            up
        } else if last(down) >= T::MIN.to_i128() {
            down
        } else {
            return Err(Error::Corrupt(format!(
                "sequence: base {base:?} and step bits {bits:?} wrap within {n} values"
            )));
        };
        Ok(SequenceView { base, step_bits: bits, step, n })
    }

    fn in_place(&self) -> Option<InPlace<'a, T>> {
        Some(self.stepped(EqualRuns::of_rows(self.n)))
    }
}

impl<T: LwcInt> SequenceView<T> {
    /// Whether each value exceeds the one before (so, as run ends, the runs are not empty).
    pub fn is_strictly_ascending(&self) -> bool {
        self.step > 0 || self.n <= 1
    }

    /// Value `runs.run_of(row)` for each row, read in place: this sequence's own values with
    /// [`EqualRuns::of_rows`], the values of runs that `runs` ends otherwise.
    pub fn stepped<'a>(&self, runs: EqualRuns) -> InPlace<'a, T> {
        InPlace::Stepped { first: self.base, step: self.step_bits, runs }
    }

    #[inline(always)]
    fn value(&self, i: usize) -> T {
        T::add_offset(self.base, wrapping_times(self.step_bits, i))
    }

    /// The positions whose values lie in `[lo, hi]`: one range, since the values are monotone.
    fn positions_between(&self, lo: T, hi: T) -> Range<usize> {
        let base = self.base.to_i128();
        let inside = lo <= self.base && self.base <= hi;
        if self.step == 0 || self.n <= 1 {
            return if inside { 0..self.n } else { 0..0 };
        }
        // Distances from the base in the direction the values run, in whole steps.
        let (near, far) = if self.step > 0 {
            (lo.to_i128() - base, hi.to_i128() - base)
        } else {
            (base - hi.to_i128(), base - lo.to_i128())
        };
        let step = self.step.abs();
        let first = -(-near).div_euclid(step); // ceil(near / step)
        let last = far.div_euclid(step);
        let clamp = |i: i128| i.clamp(0, self.n as i128) as usize;
        clamp(first)..clamp(last + 1).max(clamp(first))
    }
}

impl<T: LwcInt> StreamOps<T> for SequenceView<T> {
    fn len(&self) -> usize {
        self.n
    }

    fn decode_into(&self, start: usize, out: &mut [T]) {
        fill_arithmetic(self.value(start).to_bits(), self.step_bits, bytemuck::cast_slice_mut(out));
    }

    fn get(&self, i: usize) -> T {
        self.value(i)
    }

    fn rank_cost(&self) -> usize {
        1 // a division
    }

    /// In O(1), for an ascending sequence.
    fn rank(&self, v: T) -> usize {
        debug_assert!(self.step >= 0);
        if v < self.base {
            0
        } else if self.step == 0 {
            self.n
        } else {
            // One `u64` division: `positions_between` divides `i128`s, a library call 3x slower here.
            let steps = v.offset_from(self.base).to_u64() / self.step as u64;
            (steps as usize).saturating_add(1).min(self.n)
        }
    }

    fn take_into(&self, positions: &[u32], out: &mut [T]) {
        for (o, &p) in out.iter_mut().zip(positions) {
            *o = self.value(p as usize);
        }
    }

    fn take_sorted_into(&self, positions: &[u32], out: &mut [T]) {
        self.take_into(positions, out) // already O(1) per position
    }

    fn filter_range(&self, lo: T, hi: T, out: &mut Bitmap) {
        out.set_range(self.positions_between(lo, hi));
    }

    fn filter_in(&self, set: &[T], out: &mut Bitmap) {
        for &v in set {
            out.set_range(self.positions_between(v, v));
        }
    }

    fn sum(&self) -> i128 {
        match self.n {
            0 => 0,
            // Exact: (first + last) · n is even, and below 2^97.
            n => (self.base.to_i128() + self.value(n - 1).to_i128()) * n as i128 / 2,
        }
    }

    fn aggregate(&self, selection: &Selection) -> SumMinMax<T> {
        // Σ (base + p · step) = k · base + step · Σ p; |step| · p fits the type's range, Σ p below 2^64.
        let (mut count, mut position_sum, mut first, mut last) = (0u64, 0u128, None, 0);
        let mut visit = |p: usize| {
            count += 1;
            position_sum += p as u128;
            first.get_or_insert(p);
            last = p;
        };
        match selection {
            Selection::Positions(p) => p.iter().for_each(|&p| visit(p as usize)),
            Selection::Bitmap(b) => b.ones().for_each(visit),
        }
        let Some(first) = first else {
            return SumMinMax::EMPTY;
        };
        let (a, b) = (self.value(first), self.value(last));
        SumMinMax {
            sum: count as i128 * self.base.to_i128() + self.step * position_sum as i128,
            min: Some(a.min(b)),
            max: Some(a.max(b)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bytes::AlignedBytes;
    use crate::encodings::{encode_stream, Encoding, StreamView};

    fn encoded<T: LwcInt>(values: &[T]) -> Result<AlignedBytes> {
        let mut w = Writer::new();
        encode_stream(values, &Encoding::Sequence.into(), Default::default(), &mut w)?;
        Ok(w.into_aligned())
    }

    /// Every operation against the values themselves.
    fn check<T: LwcInt>(values: &[T]) {
        let bytes = encoded(values).unwrap();
        let view = StreamView::<T>::open(&mut Reader::new(&bytes), values.len()).unwrap();
        let mut out = vec![T::default(); values.len()];
        view.decode_into(0, &mut out);
        assert_eq!(out, values);
        for (i, &v) in values.iter().enumerate() {
            assert_eq!(view.get(i), v);
        }
        assert_eq!(view.sum(), values.iter().map(|v| v.to_i128()).sum::<i128>());
        let all = Selection::Positions((0..values.len() as u32).collect());
        assert_eq!(view.aggregate(&all), SumMinMax::of(values));
        let probes = [T::MIN, T::MAX, T::default(), values[0], values[values.len() / 2], *values.last().unwrap()];
        for &lo in &probes {
            for &hi in &probes {
                let mut bits = Bitmap::new_clear(values.len());
                view.filter_range(lo, hi, &mut bits);
                let want: Vec<u32> = (0..values.len() as u32)
                    .filter(|&i| lo <= values[i as usize] && values[i as usize] <= hi)
                    .collect();
                assert_eq!(bits.to_positions(), want, "{lo:?}..={hi:?}");
            }
        }
    }

    #[test]
    fn sequences_across_the_whole_range_of_the_type() {
        check(&[i64::MIN, -1, i64::MAX - 1]);
        check(&[i64::MAX, i64::MIN + 1]);
        check(&[u64::MAX, 0]);
        check(&[0u64, u64::MAX]);
        check(&[i8::MIN, -1, i8::MAX - 1]);
        check(&[i8::MAX, i8::MIN]); // step -255, stored as the u8 bits 1
        check(&[u8::MAX, 170, 85, 0]);
        check(&[7u32; 5]);
        check(&[42i16]);
        check(&(0..1000).map(|i| 1_000_000 - 7 * i).collect::<Vec<i32>>());
        let big = (0..70_000u64).map(|i| u64::MAX - i * (u64::MAX / 69_999)).collect::<Vec<_>>();
        check(&big);
    }

    #[test]
    fn data_that_is_not_a_sequence_is_not_applicable() {
        for values in [vec![1u8, 2, 4], vec![1, 2, 1], vec![250, 255, 4], vec![5, 0, 251]] {
            assert!(matches!(encoded(&values), Err(Error::NotApplicable { .. })), "{values:?}");
        }
    }

    #[test]
    fn wrapping_base_and_step_are_corrupt() {
        let mut w = Writer::new();
        w.u64(200);
        w.u64(100);
        let bytes = w.into_aligned();
        assert!(SequenceView::<u8>::open(&mut Reader::new(&bytes), 2, 0).is_ok()); // 200, 44 descending
        assert!(matches!(SequenceView::<u8>::open(&mut Reader::new(&bytes), 3, 0), Err(Error::Corrupt(_))));
        assert!(SequenceView::<u8>::open(&mut Reader::new(&bytes), 1, 0).is_ok());
    }
}
