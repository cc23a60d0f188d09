//! The sample a selection estimates sizes on, and the facts ([`Shape`]) encodings are pruned and priced by.
//!
//! Like BtrBlocks, the sample is [`RUNS`] runs of [`RUN`] consecutive values from spread-out places
//! (about 1 % of a 65,536-row segment): runs keep the local structure that run-length, delta and
//! per-block frame of reference live on, and spreading them sees the whole value range. Statistics are
//! taken inside runs only, so the seams between runs never fake a break in sortedness or in a step.
//! Every statistic here is a property the sample can only *lack* if the data lacks it (a sorted stream
//! has sorted samples), so pruning on them never rules out a candidate that fits the whole stream,
//! except the two estimates that extrapolate (distinct values, run length). The converse does not hold:
//! a sample can look like a sequence, or share a divisor, where the stream does not. The divisor is
//! therefore checked on the whole stream; a sequence is checked by its encoder, and the driver chooses
//! again without it when it does not apply.
//!
//! Facts are computed on first use: a constant stream is recognized from its min and max without a sample.

use std::borrow::Cow;
use std::cell::OnceCell;

use crate::kernels::divisor::{common_divisor, divides_offsets, ExactDivisor};
use crate::stats::{Shape, SplitMix, Stats};
use crate::types::{LwcInt, Word};

/// Consecutive values per sampled run.
pub(crate) const RUN: usize = 64;
/// Sampled runs.
pub(crate) const RUNS: usize = 10;
/// Streams up to this long are examined whole: sampling saves too little to pay for its error.
pub(crate) const SAMPLE_ALL: usize = 4 * RUN * RUNS;
/// Runs (or breaks of a step) few enough that finding them in a sampled stream costs less than a sample's
/// error: a stream whose runs are far longer than [`RUN`] shows the sample few of their ends and mostly
/// runs its seams cut (runs 500 rows long: about one end in 640 rows), so `rle` there was estimated at
/// 38 bytes where it wrote 101, and `delta`, whose sampled deltas were all 0, at 31 where it wrote 536.
/// A stream this sparse in changes, near the top, is estimated whole by the encodings they mislead.
pub(crate) const FEW_RUNS: usize = 1_024;

/// What the selector knows about a stream before estimating any encoding.
pub(crate) struct Profile<'a, T: LwcInt> {
    /// The stream.
    values: &'a [T],
    stats: Stats<T>,
    /// The stream is (a child of) a sample being estimated: its steps break where the sample's runs meet.
    within_a_sample: bool,
    /// Where those runs meet, when the stream is a child of a sample and its parent knows.
    seams: &'a [usize],
    /// The stream holds float latents.
    floats: bool,
    sample: OnceCell<SampleFacts<'a, T>>,
    /// Distinct values among spread rows, and the estimate for the stream.
    distinct: OnceCell<(usize, usize)>,
    divisor: OnceCell<u64>,
    fills_range: OnceCell<bool>,
}

/// What the sample says.
struct SampleFacts<'a, T: LwcInt> {
    /// The values estimated on: the whole stream, or [`RUNS`] runs of [`RUN`] values.
    values: Cow<'a, [T]>,
    /// Never decreasing (inside runs and from run to run, as runs are taken in order).
    ascending: bool,
    /// Value changes inside runs, plus one per run: the sample's run count.
    runs: usize,
    /// Every step inside every run is the same.
    uniform_step: bool,
    /// Steps inside runs that differ from the step before them.
    step_changes: usize,
    /// Bits of the largest difference between neighbours (one more when they go both ways).
    delta_bits: u32,
    /// Whether the sample holds the stream's min and its max.
    has_extremes: bool,
}

impl<'a, T: LwcInt> Profile<'a, T> {
    /// The profile of `values`, whose min, max and OR are `stats`.
    pub fn of(values: &'a [T], stats: &Stats<T>, within_a_sample: bool) -> Self {
        Profile {
            values,
            stats: *stats,
            within_a_sample,
            seams: &[],
            floats: false,
            sample: OnceCell::new(),
            distinct: OnceCell::new(),
            divisor: OnceCell::new(),
            fills_range: OnceCell::new(),
        }
    }

    /// The profile of a stream of float latents.
    pub fn of_floats(self, floats: bool) -> Self {
        Profile { floats, ..self }
    }

    /// The profile of a child stream of a sample whose runs meet at `seams`.
    pub fn with_seams(self, seams: &'a [usize]) -> Self {
        Profile { seams, ..self }
    }

    /// The values estimates are made on.
    pub fn sample(&self) -> &[T] {
        &self.facts().values
    }

    /// Whether the sample is the whole stream.
    pub fn is_whole(&self) -> bool {
        self.values.len() <= SAMPLE_ALL
    }

    fn facts(&self) -> &SampleFacts<'a, T> {
        self.sample.get_or_init(|| SampleFacts::of(self.values, &self.stats))
    }

    /// Whether `changes` seen inside the sample's runs, each run giving up its first `lost` rows to see
    /// one, project to at most [`FEW_RUNS`] over the stream: one at least (none seen does not mean none
    /// there).
    fn few(&self, changes: usize, lost: usize) -> bool {
        if self.is_whole() {
            return changes <= FEW_RUNS;
        }
        changes.max(1) * self.values.len() / (self.sample_rows() - lost * RUNS) <= FEW_RUNS
    }

    /// Counted on first use: a stream found to be a sequence never needs them.
    fn distinct_counts(&self) -> (usize, usize) {
        *self.distinct.get_or_init(|| {
            let (n, s) = (self.values.len(), self.sample_rows());
            if self.is_whole() {
                let (distinct, _) = count_distinct(self.values);
                return (distinct, distinct);
            }
            // Counted on rows spread evenly and on the sample's runs, each a lower bound that the other
            // can miss by far: runs of neighbours repeat each other's values (a sorted key column), and
            // rows spread evenly repeat a periodic column's (`i · 7,919 mod 5,000` over 10,000 rows showed
            // 320 values, each twice, where the runs show 640 of 640).
            let spread = count_distinct(&(0..s).map(|k| self.values[k * n / s]).collect::<Vec<_>>());
            let runs = count_distinct(self.sample());
            let estimate = |(distinct, singletons): (usize, usize)| {
                // GEE grows the singletons by only sqrt(n / s): right for skewed data, far too low when
                // nearly every sampled value is unique (a key column), where scaling linearly is the better guess.
                let scaled = match 2 * singletons > s {
                    true => distinct as f64 * self.scale(),
                    false => self.scale().sqrt() * singletons as f64 + (distinct - singletons) as f64,
                };
                (scaled as usize).clamp(distinct, n.max(distinct))
            };
            (spread.0.max(runs.0), estimate(spread).max(estimate(runs)))
        })
    }
}

impl<'a, T: LwcInt> SampleFacts<'a, T> {
    fn of(values: &'a [T], stats: &Stats<T>) -> Self {
        let n = values.len();
        let (sample, run) =
            if n <= SAMPLE_ALL { (Cow::Borrowed(values), n.max(1)) } else { (Cow::Owned(sample(values)), RUN) };
        let s = sample.len();
        let (mut ascending, mut descending, mut uniform_step) = (true, true, true);
        let (mut runs, mut step_changes, mut widest) = (0usize, 0usize, T::Unsigned::ZERO);
        let first_step = sample.get(1).map(|b| b.offset_from(sample[0]));
        for chunk in sample.chunks(run) {
            runs += 1;
            step_changes += chunk.windows(3).filter(|w| w[1].offset_from(w[0]) != w[2].offset_from(w[1])).count();
            for w in chunk.windows(2) {
                let (a, b) = (w[0], w[1]);
                runs += usize::from(a != b);
                ascending &= a <= b;
                descending &= a >= b;
                uniform_step &= Some(b.offset_from(a)) == first_step && (b >= a) == (sample[1] >= sample[0]);
                widest = widest.max(if b >= a { b.offset_from(a) } else { a.offset_from(b) });
            }
        }
        // Runs are taken in row order, so a sorted stream keeps the sample sorted across the seams too.
        for seam in (run..s).step_by(run) {
            ascending &= sample[seam - 1] <= sample[seam];
        }
        let has_extremes = sample.contains(&stats.min) && sample.contains(&stats.max);
        SampleFacts {
            has_extremes,
            ascending,
            runs,
            uniform_step,
            step_changes,
            delta_bits: widest.bits_used() + u32::from(!ascending && !descending),
            values: sample,
        }
    }
}

impl<T: LwcInt> Shape for Profile<'_, T> {
    fn rows(&self) -> usize {
        self.values.len()
    }
    fn floats(&self) -> bool {
        self.floats
    }
    fn range_bits(&self) -> u32 {
        self.stats.range_bits()
    }
    fn range(&self) -> u64 {
        self.stats.range().to_u64()
    }
    fn or_bits(&self) -> u32 {
        self.stats.or_bits.bits_used()
    }
    fn sample_rows(&self) -> usize {
        self.facts().values.len()
    }
    fn seams(&self) -> Vec<usize> {
        match self.is_whole() {
            true => self.seams.to_vec(),
            false => (RUN..self.sample_rows()).step_by(RUN).collect(),
        }
    }
    fn runs(&self) -> usize {
        self.facts().runs
    }
    fn few_runs(&self) -> bool {
        let pieces = if self.is_whole() { 1 } else { RUNS };
        self.few(self.runs().saturating_sub(pieces), 1)
    }
    fn few_step_changes(&self) -> bool {
        self.few(self.facts().step_changes, 2)
    }
    fn uniform_step(&self) -> bool {
        self.facts().uniform_step
    }
    fn seams_only_break_the_step(&self) -> bool {
        // A child stream of a sample (run values, run ends) breaks its step where the sample's runs meet;
        // the full stream's child has no such seams, so a few breaks still make it a sequence. The steps
        // that keep it must be most of them: ten random run values, one a sampled run, broke theirs at
        // every seam, and a `sequence` priced runs 30 rows long at 82 bytes (written: 5,604).
        if !self.within_a_sample {
            return false;
        }
        let sample = self.sample();
        let steps = sample.len().saturating_sub(1);
        if self.seams.is_empty() {
            let breaks = step_breaks(sample, RUNS);
            return (1..=RUNS).contains(&breaks) && 2 * breaks <= steps;
        }
        // Where the runs meet is known: every step inside them is the same. The runs between the seams
        // are walked in turn, and the first step that differs settles it.
        let (mut first, mut kept) = (None, 0);
        for w in crate::stats::between_seams(sample, self.seams).flat_map(|piece| piece.windows(2)) {
            if *first.get_or_insert(step(w)) != step(w) {
                return false;
            }
            kept += 1;
        }
        first.is_some() && 2 * kept >= steps
    }
    fn ascending(&self) -> bool {
        self.facts().ascending
    }
    fn delta_bits(&self) -> u32 {
        self.facts().delta_bits
    }
    fn divisor(&self) -> u64 {
        *self.divisor.get_or_init(|| {
            // A sample's divisor is a multiple of the stream's, and may be larger: rows the sample missed
            // can break it (clock times with 2.5 % nulls once chose `gcd` for a segment whose sample
            // happened to be all multiples of 5). So a divisor the sample shows is checked on every value,
            // a multiply a value in a pass that vectorizes (one value at a time, it took 45 % of choosing
            // `l_quantity`), and Euclid only where it fails.
            let min = self.stats.min;
            let of = |values: &[T]| common_divisor(values.iter().map(|v| v.offset_from(min).to_u64()));
            match of(self.sample()) {
                d if d > 1 && !self.is_whole() => {
                    match ExactDivisor::new(d).is_some_and(|by| divides_offsets(self.values, min, by)) {
                        true => d,
                        false => of(self.values),
                    }
                }
                d => d,
            }
        })
    }
    fn distinct(&self) -> usize {
        self.distinct_counts().0
    }
    fn distinct_estimate(&self) -> usize {
        self.distinct_counts().1
    }
    fn fills_range(&self) -> bool {
        *self.fills_range.get_or_init(|| {
            let slots = self.range().checked_div(self.divisor()).map_or(1, |steps| steps.saturating_add(1));
            if slots > self.values.len() as u64 {
                return false;
            }
            if self.distinct() as u64 >= slots {
                return true;
            }
            // The sample can miss a value (years 1900-2100: 195 of 201 in 640 rows), so where the estimate
            // allows a full range, every value is checked until all the slots are seen: a few times as many
            // values as slots where the values fall at random. A value too rare for the estimate to allow
            // leaves the range priced as not full, as before the check.
            if self.is_whole() || (self.distinct_estimate() as u64) < slots {
                return false;
            }
            // At least 1 here: a divisor of 0 (all values equal) makes one slot, which the sample holds.
            let by = ExactDivisor::new(self.divisor()).expect("a divisor above 0");
            let mut seen = vec![0u64; slots.div_ceil(64) as usize];
            let mut left = slots;
            for v in self.values {
                // Below `slots` where the divisor divides every offset, as it does; a quotient past them
                // (an offset it does not divide) answers no rather than reading past the bits.
                let slot = by.quotient(v.offset_from(self.stats.min).to_u64());
                if slot >= slots {
                    return false;
                }
                let (word, bit) = (&mut seen[slot as usize / 64], 1u64 << (slot % 64));
                left -= u64::from(*word & bit == 0);
                *word |= bit;
                if left == 0 {
                    return true;
                }
            }
            false
        })
    }
    fn sample_has_extremes(&self) -> bool {
        self.facts().has_extremes
    }
    fn sorted_block_range_bits(&self, block: usize) -> Option<u32> {
        let (first, last) = (*self.values.first()?, *self.values.last()?);
        if !self.ascending() || first != self.stats.min || last != self.stats.max || block == 0 {
            return None;
        }
        let widest = self.values.chunks(block).map(|b| b[b.len() - 1].offset_from(b[0])).max()?;
        Some(widest.bits_used())
    }
    fn scale(&self) -> f64 {
        self.values.len() as f64 / self.sample_rows().max(1) as f64
    }
}

/// [`RUNS`] runs of [`RUN`] values, one from each tenth of `values`, at a place that depends only on
/// the length (so encoding the same data twice chooses the same).
fn sample<T: LwcInt>(values: &[T]) -> Vec<T> {
    let n = values.len();
    let mut rng = SplitMix(n as u64);
    let mut out = Vec::with_capacity(RUN * RUNS);
    for k in 0..RUNS {
        let (lo, hi) = (k * n / RUNS, (k + 1) * n / RUNS);
        let start = lo + rng.below(hi - lo - RUN + 1);
        out.extend_from_slice(&values[start..start + RUN]);
    }
    out
}

/// The step from `w[0]` to `w[1]`: the difference in the unsigned word, and whether it ascends.
fn step<T: LwcInt>(w: &[T]) -> (T::Unsigned, bool) {
    (w[1].offset_from(w[0]), w[1] >= w[0])
}

/// Pairs of neighbours whose step is not the most common one (a majority vote finds it), counted up
/// to `limit + 1`: callers only ask whether there are at most `limit`.
fn step_breaks<T: LwcInt>(values: &[T], limit: usize) -> usize {
    let Some(first) = values.get(..2) else { return 0 };
    // Each step off the common one changes the step at most twice (into it, out of it), so more than
    // `2 limit` changes settle it at once: most streams asked about (the children of every sampled
    // estimate) change their step within a few rows, and the two passes below took 11 % of encoding an
    // l_orderkey segment that chooses.
    if values.windows(3).filter(|w| step(&w[..2]) != step(&w[1..])).nth(2 * limit).is_some() {
        return limit + 1;
    }
    let (mut candidate, mut votes) = (step(first), 0usize);
    for w in values.windows(2) {
        let s = step(w);
        if votes == 0 {
            candidate = s;
        }
        votes = if candidate == s { votes + 1 } else { votes - 1 };
    }
    values.windows(2).filter(|w| step(w) != candidate).take(limit + 1).count()
}

/// Distinct values and values seen exactly once.
fn count_distinct<T: LwcInt>(values: &[T]) -> (usize, usize) {
    // Open addressing with Fibonacci hashing over a table at most 2/3 full: a few times faster than
    // sorting a copy, and this runs for every segment the selector samples. Keys and how often each was
    // seen sit apart, so the table to clear stays small; the bounded sample keeps even colliding keys
    // cheap.
    const FIBONACCI: u64 = 0x9e37_79b9_7f4a_7c15;
    let bits = (values.len() + values.len() / 2).max(16).next_power_of_two().trailing_zeros();
    let mask = (1usize << bits) - 1;
    let mut keys = vec![0u64; 1 << bits];
    let mut seen = vec![0u8; 1 << bits];
    let (mut distinct, mut once) = (0, 0);
    for v in values {
        let key = v.to_bits().to_u64();
        let mut i = (key.wrapping_mul(FIBONACCI) >> (64 - bits)) as usize;
        while seen[i] != 0 && keys[i] != key {
            i = (i + 1) & mask;
        }
        match seen[i] {
            0 => {
                (keys[i], seen[i]) = (key, 1);
                (distinct, once) = (distinct + 1, once + 1);
            }
            1 => {
                seen[i] = 2;
                once -= 1;
            }
            _ => {}
        }
    }
    (distinct, once)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Distinct values and values seen once, by sorting a copy.
    fn counted_by_sorting<T: LwcInt>(values: &[T]) -> (usize, usize) {
        let mut sorted = values.to_vec();
        sorted.sort_unstable();
        let groups = sorted.chunk_by(|a, b| a == b);
        groups.fold((0, 0), |(d, once), g| (d + 1, once + usize::from(g.len() == 1)))
    }

    #[test]
    fn distinct_counts_match_sorting() {
        let mut rng = SplitMix(11);
        for n in [0usize, 1, 2, 15, 640, 2_560] {
            for range in [1u64, 2, 10, 600, u64::MAX] {
                let values: Vec<u64> = (0..n).map(|_| rng.next() % range.max(1)).collect();
                assert_eq!(count_distinct(&values), counted_by_sorting(&values), "n={n} range={range}");
                let signed: Vec<i16> = values.iter().map(|&v| v as i16).collect();
                assert_eq!(count_distinct(&signed), counted_by_sorting(&signed));
            }
            // Keys that share their low or high bits, and a key of zero next to empty slots.
            let strided: Vec<u32> = (0..n as u32).map(|i| (i % 97) << 20).collect();
            assert_eq!(count_distinct(&strided), counted_by_sorting(&strided));
        }
    }

    #[test]
    fn sorted_streams_keep_sorted_samples_and_steps() {
        let ids: Vec<u64> = (0..1_000_000).map(|i| 7 + 3 * i).collect();
        let p = Profile::of(&ids, &Stats::compute(&ids), false);
        assert_eq!(p.sample_rows(), RUN * RUNS);
        assert!(p.ascending() && p.uniform_step());
        assert_eq!(p.delta_bits(), 2);
        assert_eq!(p.divisor(), 3);
        assert_eq!(p.runs(), RUN * RUNS, "every value differs from its neighbour");
        assert_eq!(p.distinct(), p.sample_rows());
        assert_eq!(p.distinct_estimate(), 1_000_000, "all distinct: {}", p.distinct_estimate());
    }

    #[test]
    fn steps_that_rarely_change_are_told_from_steps_that_often_do() {
        // Ids with one missing in 3,000: the sample may hold no break, which does not make the step fixed.
        let gaps: Vec<u64> = (0..65_536u64).map(|i| i + i / 3_000).collect();
        let p = Profile::of(&gaps, &Stats::compute(&gaps), false);
        assert!(p.few_step_changes() && !p.few_runs());
        // Long runs: each run's end breaks the step (0) twice, and there are few runs.
        let runs: Vec<u64> = (0..65_536u64).map(|i| i / 2_000).collect();
        let p = Profile::of(&runs, &Stats::compute(&runs), false);
        assert!(p.few_step_changes() && p.few_runs());
        // Steps of 1 to 3 at random, and a short stream, counted whole.
        let mut rng = SplitMix(5);
        let mut at = 0u64;
        let jitter: Vec<u64> = (0..65_536)
            .map(|_| {
                at += 1 + rng.next() % 3;
                at
            })
            .collect();
        assert!(!Profile::of(&jitter, &Stats::compute(&jitter), false).few_step_changes());
        let short = &jitter[..2_000];
        assert!(!Profile::of(short, &Stats::compute(short), false).few_step_changes());
        assert!(Profile::of(&gaps[..2_000], &Stats::compute(&gaps[..2_000]), false).few_step_changes());
    }

    /// The early answer agrees with counting every break, up to `limit + 1`, on steps broken once, at
    /// its limit, just past it, and everywhere.
    #[test]
    fn step_breaks_are_counted_up_to_past_the_limit() {
        let counted = |values: &[u64], limit: usize| {
            let mut steps: Vec<_> = values.windows(2).map(step).collect();
            steps.sort_unstable();
            let common = steps.chunk_by(|a, b| a == b).max_by_key(|run| run.len()).map_or(0, |run| run.len());
            (steps.len() - common).min(limit + 1)
        };
        let mut rng = SplitMix(11);
        for breaks in [0, 1, 5, 9, 10, 11, 12, 30, 640] {
            let mut values: Vec<u64> = (0..640).map(|i| 7 * i).collect();
            for _ in 0..breaks {
                values[rng.below(640)] += 1 + rng.next() % 5;
            }
            for limit in [1, 10] {
                assert_eq!(step_breaks(&values, limit), counted(&values, limit), "{breaks} breaks, limit {limit}");
            }
        }
    }

    #[test]
    fn only_a_samples_seams_may_break_a_sequence() {
        let seams: Vec<usize> = (16..160).step_by(16).collect();
        // Run values of a key column's sample: ten runs of 16 ids, each from another place.
        let keys: Vec<u64> = (0..160u64).map(|i| 1_000 * (i / 16) + i % 16).collect();
        let only_seams_break = |values: &[u64], seams: &[usize]| {
            Profile::of(values, &Stats::compute(values), true).with_seams(seams).seams_only_break_the_step()
        };
        assert!(only_seams_break(&keys, &seams));
        assert!(only_seams_break(&keys, &[]), "nine breaks in 159 steps, where unknown");
        assert!(!Profile::of(&keys, &Stats::compute(&keys), false).seams_only_break_the_step(), "not a sample");
        let mut broken = keys.clone();
        broken[20] += 1;
        assert!(!only_seams_break(&broken, &seams), "a break inside a run");
        // One value a run: no step inside any, and ten values that break it nine times do not make one.
        let mut rng = SplitMix(3);
        let scattered: Vec<u64> = (0..10).map(|_| rng.next() % 1_000_000).collect();
        let every_row: Vec<usize> = (1..10).collect();
        assert!(!only_seams_break(&scattered, &every_row));
        assert!(!only_seams_break(&scattered, &[]));
    }

    #[test]
    fn few_distinct_values_are_estimated_as_few() {
        let codes: Vec<u32> = (0..65_536u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 7) % 50).collect();
        let p = Profile::of(&codes, &Stats::compute(&codes), false);
        assert!(!p.ascending() && !p.uniform_step());
        assert!((45..=60).contains(&p.distinct_estimate()), "{}", p.distinct_estimate());
    }

    #[test]
    fn small_streams_are_their_own_sample() {
        let p = Profile::of(&[5i8, 5, 5, -1], &Stats::compute(&[5i8, 5, 5, -1]), false);
        assert!(p.is_whole());
        assert_eq!((p.runs(), p.distinct(), p.ascending()), (2, 2, false));
        assert_eq!(p.delta_bits(), 3); // |-1 - 5| = 6; never increasing, so no sign bit
        let empty: Profile<'_, u16> = Profile::of(&[], &Stats::compute(&[]), false);
        assert_eq!((empty.distinct(), empty.distinct_estimate()), (0, 0));
    }

    #[test]
    fn a_divisor_the_sample_alone_has_is_not_the_streams() {
        let mut values: Vec<u32> = (0..65_536u32).map(|i| 5 * ((i * 7_919) % 4_000)).collect();
        values[65_535] += 1;
        let p = Profile::of(&values, &Stats::compute(&values), false);
        assert_eq!(p.divisor(), 1);
    }

    #[test]
    fn a_full_range_is_told_from_every_value_not_the_sample() {
        // Days 0-1,999 of 2,000, every tenth, at random in 65,536 rows: the sample holds a few hundred.
        let mut rng = SplitMix(3);
        let days: Vec<u32> = (0..65_536).map(|_| 10 * rng.below(2_000) as u32).collect();
        let p = Profile::of(&days, &Stats::compute(&days), false);
        assert!(p.distinct() < 2_000 && p.divisor() == 10);
        assert!(p.fills_range());
        // One day missing, then the same with that day on one row only.
        let mut missing = days.clone();
        missing.iter_mut().filter(|d| **d == 5_000).for_each(|d| *d = 5_010);
        assert!(!Profile::of(&missing, &Stats::compute(&missing), false).fills_range());
        missing[33_333] = 5_000;
        assert!(Profile::of(&missing, &Stats::compute(&missing), false).fills_range());
        // Short streams are their own sample; one value fills its range of one slot.
        assert!(!Profile::of(&days[..1_000], &Stats::compute(&days[..1_000]), false).fills_range());
        let one = [7u8; 3];
        assert!(Profile::of(&one, &Stats::compute(&one), false).fills_range());
    }
}
