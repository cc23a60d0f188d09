//! What is known about a stream before it is encoded: the one pass every encoder needs ([`Stats`]), the
//! facts the selector finds on a sample ([`Shape`], implemented by the selector's profile), and a small
//! deterministic generator for samples and calibration data.
//!
//! Encodings read these to say when they apply and what they cost; the selector computes them. Both depend
//! on this module, so facts flow down to encodings without encodings knowing the selector.

use crate::types::{LwcInt, Word};

/// What one pass over the values tells every encoder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stats<T: LwcInt> {
    pub min: T,
    pub max: T,
    /// OR of all values' bits: its width is the width plain bit packing needs.
    pub or_bits: T::Unsigned,
}

impl<T: LwcInt> Stats<T> {
    pub fn compute(values: &[T]) -> Stats<T> {
        let (mut min, mut max, or_bits) = crate::kernels::extremes::min_max_or(values);
        if values.is_empty() {
            (min, max) = (T::default(), T::default());
        }
        Stats { min, max, or_bits }
    }

    /// `max - min`, in the unsigned word.
    pub fn range(&self) -> T::Unsigned {
        self.max.offset_from(self.min)
    }

    /// Bits of `max - min`: the width of frame-of-reference residuals.
    pub fn range_bits(&self) -> u32 {
        self.range().bits_used()
    }
}

/// The facts about a stream that say which encodings apply and what they cost. Sample-based facts are
/// computed on first use (a constant stream is recognized from its [`Stats`] alone).
pub(crate) trait Shape {
    /// Values in the stream.
    fn rows(&self) -> usize;
    /// The stream holds the latents of floats (a float segment's own stream, not a child of it).
    fn floats(&self) -> bool;
    /// Bits of `max - min`.
    fn range_bits(&self) -> u32;
    /// `max - min`, as a `u64`.
    fn range(&self) -> u64;
    /// Bits of the OR of all values: the width plain bit packing needs.
    fn or_bits(&self) -> u32;
    /// Values the sample holds (all of them for short streams).
    fn sample_rows(&self) -> usize;
    /// Where in the sample a run of consecutive rows starts after another from far-apart rows: none when
    /// the sample is the whole stream, unless the stream is itself (a child of) a sample.
    fn seams(&self) -> Vec<usize>;
    /// Runs of equal neighbours in the sample.
    fn runs(&self) -> usize;
    /// Whether neighbours repeat: the sample's runs average two rows or more.
    fn repeats(&self) -> bool {
        2 * self.runs() <= self.sample_rows().max(1)
    }
    /// The stream has few runs of equal neighbours ([`crate::select`]'s `FEW_RUNS` at most), as the value
    /// changes inside the sample's runs project: few enough to estimate on every row, where the sample's
    /// runs, cut by their seams, would mislead.
    fn few_runs(&self) -> bool;
    /// The stream's step (the difference between neighbours) changes rarely, as [`Shape::few_runs`]
    /// projects runs: an arithmetic sequence but for a few breaks (clock times with gaps, ids with a few
    /// missing, the run ends of long runs), whose breaks a sample seldom holds.
    fn few_step_changes(&self) -> bool;
    /// Every step inside the sample's runs is the same: the stream looks like an arithmetic sequence.
    fn uniform_step(&self) -> bool;
    /// The stream is (a child of) a sample being estimated, and only where the sample's runs meet does its
    /// step break: the stream it stands for would be a sequence.
    fn seams_only_break_the_step(&self) -> bool;
    /// The values never decrease (in the sample).
    fn ascending(&self) -> bool;
    /// Bits of the widest difference between neighbours (one more when they go both ways).
    fn delta_bits(&self) -> u32;
    /// Greatest common divisor of every value's offset from the minimum, checked on the whole stream
    /// (0 when all are equal).
    fn divisor(&self) -> u64;
    /// Distinct values seen: the more of those among the sample's runs and among as many rows spread
    /// over the stream.
    fn distinct(&self) -> usize;
    /// Distinct values in the whole stream, estimated.
    fn distinct_estimate(&self) -> usize;
    /// Every multiple of [`Shape::divisor`] from the least value to the greatest occurs in the stream:
    /// checked on every value where the sample missed some and the distinct estimate allows them all.
    fn fills_range(&self) -> bool;
    /// Whether the sample holds the stream's min and max.
    fn sample_has_extremes(&self) -> bool;
    /// On a stream that looks sorted (its sample ascends, its first row is its min and its last its max),
    /// the bits of the widest `last - first` over blocks of `block` rows: n / `block` pairs of reads. A
    /// sorted block's range is that difference; `None` when the stream does not look sorted.
    fn sorted_block_range_bits(&self, block: usize) -> Option<u32>;
    /// Rows of the stream per row of the sample (1 when the sample is the stream).
    fn scale(&self) -> f64;
}

/// The pieces of a sample (or of a child stream of one) between its [`Shape::seams`], in order: runs of
/// neighbouring rows. A seam out of order or past the end gives an empty piece.
pub(crate) fn between_seams<'v, T>(values: &'v [T], seams: &'v [usize]) -> impl Iterator<Item = &'v [T]> + 'v {
    let starts = std::iter::once(0).chain(seams.iter().copied());
    let ends = seams.iter().copied().chain([values.len()]);
    starts.zip(ends).map(|(start, end)| values.get(start..end).unwrap_or_default())
}

/// Bits needed to write `x`.
pub(crate) fn bits(x: usize) -> u32 {
    usize::BITS - x.leading_zeros()
}

/// A small deterministic generator (SplitMix64): samples and calibration data are the same on every run.
pub(crate) struct SplitMix(pub u64);

impl SplitMix {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        ((self.next() as u128 * n as u128) >> 64) as usize
    }
}
