//! `dict`: the sorted distinct values, and one code per row (its index among them) as a child stream,
//! bit-packed (the attribute vector of seed 000 §5, with second-order compression). Because the
//! dictionary is sorted, a value range is a code range: filters run on codes, and min/max of a selection
//! are the dictionary entries of its smallest and largest code.

use super::{Cascade, Children, Encoder, Encoding, EncodingId, Frame, InPlace, OpenStream, StreamOps, StreamView, SumMinMax, wrapping_sum_decoded};
use crate::stats::{Stats, Shape, SplitMix, bits};
use crate::bitmap::Bitmap;
use crate::bytes::{Reader, Writer};
use crate::error::{Error, Result};
use crate::kernels::bitpack::{self as kernel, BLOCK};
use crate::kernels::lookup;
use crate::selection::Selection;
use crate::types::{LwcInt, Word};

pub(crate) struct Dict;

/// The codes' encoding unless a cascade says otherwise: bit packing keeps every code one load away.
const CODES: Encoding = Encoding::Bitpack;

/// Largest dictionary whose four count tables (32 bytes an entry) stay in L1 when summing.
const HISTOGRAM_MAX: usize = 1024;

/// The dictionary (distinct values, sorted) and each value's code in it, from one hashing pass: each
/// value gets the number of its first occurrence, and the sorted dictionary renumbers them. A binary
/// search of the dictionary per value cost a wide dictionary more than the rest of its encode. `stats`
/// bound the values (their own, or their stream's when they are a sample of it).
fn dictionary_and_codes<T: LwcInt>(values: &[T], stats: &Stats<T>) -> (Vec<T>, Vec<u32>) {
    let span = stats.range().to_u64();
    if span < (values.len() as u64).min(1 << 16) {
        // A range narrower than the values (the deltas of sorted keys): a table over the range marks
        // which values occur, in order, with no hashing and no sort.
        let offset = |v: &T| v.offset_from(stats.min).to_u64() as usize;
        let mut code_of = vec![0u32; span as usize + 1];
        for v in values {
            code_of[offset(v)] = 1;
        }
        let mut dictionary = Vec::new();
        for (k, code) in code_of.iter_mut().enumerate() {
            if *code == 1 {
                *code = dictionary.len() as u32;
                dictionary.push(T::add_offset(stats.min, T::Unsigned::from_u64(k as u64)));
            }
        }
        return (dictionary, values.iter().map(|v| code_of[offset(v)]).collect());
    }
    let mut first: crate::hashing::KeyMap<T, u32> = crate::hashing::KeyMap::default();
    // A value equal to the one before it repeats its number without hashing: runs cost a compare a row.
    let mut previous: Option<(T, u32)> = None;
    let provisional: Vec<u32> = values
        .iter()
        .map(|&v| match previous {
            Some((p, id)) if p == v => id,
            _ => {
                let next = first.len() as u32;
                let id = *first.entry(v).or_insert(next);
                previous = Some((v, id));
                id
            }
        })
        .collect();
    let mut entries: Vec<(T, u32)> = first.into_iter().collect();
    entries.sort_unstable();
    let mut code_of = vec![0u32; entries.len()];
    for (code, &(_, id)) in entries.iter().enumerate() {
        code_of[id as usize] = code as u32;
    }
    let codes = provisional.iter().map(|&id| code_of[id as usize]).collect();
    (entries.into_iter().map(|(v, _)| v).collect(), codes)
}

/// How many distinct values there are; `None` once there are more than `cap`.
fn count_up_to<T: LwcInt>(values: &[T], cap: usize) -> Option<usize> {
    let mut seen = crate::hashing::KeySet::default();
    // Only where the value changes: runs are hashed once.
    let changes = values.first().into_iter().chain(values.windows(2).filter(|w| w[0] != w[1]).map(|w| &w[1]));
    for &v in changes {
        if seen.insert(v) && seen.len() > cap {
            return None;
        }
    }
    Some(seen.len())
}

/// The entries of `values`' dictionary and the bytes of their codes, as the children estimate them;
/// `distinct` is how many distinct values there are, where the caller knows.
fn sized<T: LwcInt>(
    values: &[T],
    stats: &Stats<T>,
    children: &impl Children,
    distinct: Option<usize>,
) -> Option<(usize, usize)> {
    // A dictionary only pays when its codes are narrower than frame-of-reference residuals.
    let cap = 1usize << stats.range_bits().saturating_sub(1).min(20);
    let entries = match distinct {
        Some(known) => Some(known).filter(|&d| d <= cap),
        None => count_up_to(values, cap),
    }?;
    let codes = if !children.given(0) {
        // The default, bit packing, at the width of the largest code: no codes need computing.
        kernel::packed_len(values.len(), (entries.max(1) as u32 - 1).bits_used())
    } else {
        children.estimate(0, &dictionary_and_codes(values, stats).1, CODES)?
    };
    Some((entries, codes))
}

impl Encoder for Dict {
    const CHILDREN: &'static [&'static str] = &["codes"];

    fn pruned(shape: &dyn Shape) -> Option<&'static str> {
        if 2 * shape.distinct_estimate() > shape.rows() || shape.distinct() == shape.sample_rows().max(1) {
            return Some("too many distinct values");
        }
        if (shape.distinct_estimate() as u128) << 1 > 1u128 << shape.range_bits() {
            return Some("values fill their range: codes would be as wide as the values");
        }
        None
    }

    fn cost_width(shape: &dyn Shape) -> u32 {
        bits(shape.distinct_estimate().max(2) - 1)
    }

    /// Entries that fill their range at even steps (every multiple of the values' common divisor from the
    /// least to the greatest: months, years) decode with no lookup: the codes unpacked into a block, as
    /// `for` unpacks, then `first + step · code` from it, as `gcd` multiplies (`lwc-bench costs`: 0.09 ns
    /// a value, `for` 0.03 and `gcd` 0.08, where a lookup was priced 0.32). Every value counts: a sample
    /// of years 1900-2100 held 195 of them, and the decode was priced as lookups, 3.3x what it measured.
    fn decodes_as(shape: &dyn Shape) -> &'static [EncodingId] {
        match shape.fills_range() {
            true => &[EncodingId::For, EncodingId::Gcd],
            false => &[],
        }
    }

    /// Codes of at most 2 bits (four entries) are summed from their bit counts where they lie; so are
    /// evenly spaced entries, which the width does not tell.
    fn sums_in_place(width: u32) -> bool {
        width <= 2
    }

    fn calibration_values(width: u32, n: usize, rng: &mut SplitMix) -> Vec<u64> {
        let limit = if width <= 32 { u32::MAX as u64 } else { u64::MAX };
        let pool: Vec<u64> = (0..1usize << width.min(12)).map(|_| rng.next() & limit).collect();
        (0..n).map(|_| pool[rng.below(pool.len())]).collect()
    }

    /// Long runs repeat a code for hundreds of rows: the sample sees each of its runs as one code, and
    /// priced the codes of runs 500 rows long at nothing (written: 65,536 codes, 450 bytes to 262 KB).
    fn estimated_whole(shape: &dyn Shape) -> bool {
        shape.few_runs()
    }

    /// The dictionary does not grow with the rows, it grows with the distinct values; the codes grow with
    /// the rows, one bit wider per doubling of the dictionary.
    fn estimate_from_sample<T: LwcInt>(
        sample: &[T],
        stats: &Stats<T>,
        _parameter: u32,
        children: &impl Children,
        shape: &dyn Shape,
    ) -> Option<usize> {
        let (entries, codes) = sized(sample, stats, children, None)?;
        // The sample's codes are as wide as its own dictionary; the stream's, as its estimated one.
        let code_bits = |d: usize| bits(d.max(2) - 1) as f64;
        let codes = codes as f64 * shape.scale() * code_bits(shape.distinct_estimate()) / code_bits(entries);
        Some(16 + shape.distinct_estimate() * size_of::<T>() + codes as usize)
    }

    fn estimate<T: LwcInt>(values: &[T], stats: &Stats<T>, _parameter: u32, children: &impl Children) -> Option<usize> {
        let (entries, codes) = sized(values, stats, children, None)?;
        Some(16 + entries * size_of::<T>() + codes)
    }

    /// The profile counted the distinct values to prune: counted again, they took a fifth of choosing
    /// l_orderkey's cascade. A profile that is a sample's knows only the sample's count.
    fn estimate_profiled<T: LwcInt>(
        values: &[T],
        stats: &Stats<T>,
        _parameter: u32,
        children: &impl Children,
        _seams: &[usize],
        shape: &dyn Shape,
    ) -> Option<usize> {
        let known = (shape.sample_rows() == values.len()).then(|| shape.distinct());
        let (entries, codes) = sized(values, stats, children, known)?;
        Some(16 + entries * size_of::<T>() + codes)
    }

    fn encode<T: LwcInt>(values: &[T], stats: &Stats<T>, _parameter: u32, children: &impl Children, out: &mut Writer) -> Result<()> {
        let (dictionary, codes) = dictionary_and_codes(values, stats);
        out.u32(dictionary.len() as u32);
        out.array(&dictionary);
        children.encode(0, &codes, CODES, out)
    }
}

pub(crate) struct DictView<'a, T: LwcInt> {
    dictionary: &'a [T],
    codes: StreamView<'a, u32>,
    /// The step between entries when they are evenly spaced (always so for one or two): then the values
    /// are `dictionary[0] + step · code`, and sum as their codes do.
    step: Option<u64>,
}

impl<'a, T: LwcInt> OpenStream<'a, T> for DictView<'a, T> {
    fn open(r: &mut Reader<'a>, n: usize, depth: usize) -> Result<Self> {
        let len = r.u32("dict length")? as usize;
        if len == 0 && n > 0 {
            return Err(Error::Corrupt("dict: empty dictionary for a non-empty stream".into()));
        }
        let dictionary: &[T] = r.array("dict values", len)?;
        if dictionary.windows(2).any(|w| w[0] >= w[1]) {
            return Err(Error::Corrupt("dict: dictionary is not sorted and distinct".into()));
        }
        let codes = StreamView::open_nested(r, n, depth + 1)?;
        let gap = |w: &[T]| w[1].to_bits().to_u64().wrapping_sub(w[0].to_bits().to_u64());
        let step = dictionary.windows(2).map(gap).try_fold(None, |step, g| match step {
            Some(s) if s != g => Err(()),
            _ => Ok(Some(g)),
        });
        let step = step.ok().map(|s| s.unwrap_or(0));
        Ok(DictView { dictionary, codes, step })
    }

    fn child_cascades(&self) -> Vec<Cascade> {
        vec![self.codes().cascade()]
    }

    fn in_place(&self) -> Option<InPlace<'a, T>> {
        Some(InPlace::Coded { codes: self.codes.frame()?, dictionary: self.dictionary })
    }
}

impl<'a, T: LwcInt> DictView<'a, T> {
    /// The codes stream.
    pub fn codes(&self) -> &StreamView<'a, u32> {
        &self.codes
    }

    /// [`StreamOps::wrapping_sum`] over codes of at most 2 bits above their frame's base (see there). Out
    /// of line: kept in, it slowed the evenly spaced sums by a fifth.
    #[inline(never)]
    fn sum_by_code_bits(&self, codes: Frame<'_, u32>, start: usize, len: usize) -> T {
        let (base, [low, high, both]) = codes.sums().bit_counts(start, len).expect("codes of at most 2 bits");
        let f = |field: u32| self.value(base.saturating_add(field)).to_bits().to_u64();
        let (f0, f1, f2, f3) = (f(0), f(1), f(2), f(3));
        let (g1, g2) = (f1.wrapping_sub(f0), f2.wrapping_sub(f0));
        let g3 = f3.wrapping_sub(f2).wrapping_sub(f1).wrapping_add(f0);
        let terms = [(f0, len as u64), (g1, low), (g2, high), (g3, both)];
        let total = terms.iter().fold(0u64, |sum, &(g, count)| sum.wrapping_add(g.wrapping_mul(count)));
        T::from_bits(T::Unsigned::from_u64(total))
    }

    /// The value of a code (see [`lookup::entry`]).
    #[inline(always)]
    fn value(&self, code: u32) -> T {
        lookup::entry(self.dictionary, code)
    }

    /// [`StreamOps::decode_into`] by a lookup per code (gathered, where the CPU can).
    #[inline(never)]
    fn decode_looked_up(&self, start: usize, out: &mut [T]) {
        self.decode_codes(start, out, |codes, out| lookup::lookup(self.dictionary, codes, out));
    }

    /// [`StreamOps::decode_into`] for entries `step` apart: values computed, `dictionary[0] + step · code`
    /// (a code past the last entry clamped to it, as [`DictView::value`] does), with no load per code
    /// (`lwc-bench keys`, decode of `delta(dict)` over o_orderkey's steps of 1 and 25: 0.81 ms -> 0.61
    /// ms; compiled for AVX2 since, see [`lookup::evenly_spaced`]).
    #[inline(never)]
    fn decode_evenly_spaced(&self, step: u64, start: usize, out: &mut [T]) {
        let Some(first) = self.dictionary.first() else {
            return; // an empty stream may have an empty dictionary, and then nothing to decode
        };
        let (first, step) = (first.to_bits(), T::Unsigned::from_u64(step));
        let last = self.dictionary.len() as u32 - 1;
        self.decode_codes(start, out, |codes, out| {
            lookup::evenly_spaced(first, step, last, codes, bytemuck::cast_slice_mut(out));
        });
    }

    /// Decodes the codes of rows `start ..` a block at a time, and `values(codes, out)` writes their values.
    #[inline(always)]
    fn decode_codes(&self, start: usize, out: &mut [T], mut values: impl FnMut(&[u32], &mut [T])) {
        let mut codes = [0u32; BLOCK];
        for (k, chunk) in out.chunks_mut(BLOCK).enumerate() {
            let codes = &mut codes[..chunk.len()];
            self.codes.decode_into(start + k * BLOCK, codes);
            values(codes, chunk);
        }
    }
}

impl<T: LwcInt> StreamOps<T> for DictView<'_, T> {
    fn len(&self) -> usize {
        self.codes.len()
    }

    fn decode_into(&self, start: usize, out: &mut [T]) {
        match self.step {
            Some(step) => self.decode_evenly_spaced(step, start, out),
            None => self.decode_looked_up(start, out),
        }
    }

    fn get(&self, i: usize) -> T {
        self.value(self.codes.get(i))
    }

    fn sums_in_place(&self) -> bool {
        self.codes.frame().is_some_and(|codes| self.step.is_some() || codes.fields.width() <= 2)
    }

    fn wrapping_sum(&self, start: usize, len: usize) -> T {
        // Codes packed in place, summed modulo 2^64 and then cut to the word, where the entries are
        // evenly spaced (deltas taking two values, as sorted keys' do): `len · dictionary[0] + step · Σ
        // codes`; or where the codes take at most 2 bits over a base (up to four entries): a value is
        // `f0 + g1 · low + g2 · high + g3 · low · high` of its code's bits, summed from their counts
        // ([`DictView::sum_by_code_bits`]).
        match (self.step, self.codes.frame()) {
            (Some(step), Some(codes)) if !self.dictionary.is_empty() => {
                let first = self.dictionary[0].to_bits().to_u64().wrapping_mul(len as u64);
                let codes = codes.sums().sum_u64(start, len);
                T::from_bits(T::Unsigned::from_u64(first.wrapping_add(step.wrapping_mul(codes))))
            }
            (None, Some(codes)) if codes.fields.width() <= 2 && !self.dictionary.is_empty() => {
                self.sum_by_code_bits(codes, start, len)
            }
            _ => wrapping_sum_decoded(self, start, len),
        }
    }

    fn get_cost(&self) -> usize {
        self.codes.get_cost()
    }

    fn take_into(&self, positions: &[u32], out: &mut [T]) {
        let mut codes = [0u32; BLOCK];
        for (chunk, out) in positions.chunks(BLOCK).zip(out.chunks_mut(BLOCK)) {
            let codes = &mut codes[..chunk.len()];
            self.codes.take_into(chunk, codes);
            lookup::lookup(self.dictionary, codes, out);
        }
    }

    fn filter_range(&self, lo: T, hi: T, out: &mut Bitmap) {
        let first = self.dictionary.partition_point(|v| *v < lo) as u32;
        let end = self.dictionary.partition_point(|v| *v <= hi) as u32;
        if first < end {
            self.codes.filter_range(first, end - 1, out);
        }
    }

    fn filter_in(&self, set: &[T], out: &mut Bitmap) {
        let codes: Vec<u32> =
            set.iter().filter_map(|v| self.dictionary.binary_search(v).ok()).map(|c| c as u32).collect();
        if !codes.is_empty() {
            self.codes.filter_in(&codes, out);
        }
    }

    fn sum(&self) -> i128 {
        if self.dictionary.len() > HISTOGRAM_MAX {
            // Counters past L1 cost a cache miss per row; summing looked-up values is cheaper.
            let mut sum = 0;
            self.for_each_block(|_, values| sum += T::sum(values));
            return sum;
        }
        // Count each code, then weigh the dictionary: no value is materialized. Four count tables keep
        // repeated codes from chaining one increment's store to the next one's load.
        let last = self.dictionary.len().saturating_sub(1); // an empty stream may have an empty dictionary
        let mut counts = vec![[0u64; 4]; self.dictionary.len()];
        self.codes.for_each_block(|_, codes| {
            let mut quads = codes.chunks_exact(4);
            for quad in &mut quads {
                for (lane, &c) in quad.iter().enumerate() {
                    counts[(c as usize).min(last)][lane] += 1;
                }
            }
            for &c in quads.remainder() {
                counts[(c as usize).min(last)][0] += 1;
            }
        });
        counts.iter().zip(self.dictionary).map(|(c, v)| c.iter().sum::<u64>() as i128 * v.to_i128()).sum()
    }

    /// A histogram of the selected codes: the dictionary holds each value once, so the sum is one
    /// product a code, and the extremes are the first and last codes counted.
    fn aggregate(&self, selection: &Selection) -> SumMinMax<T> {
        let mut counts = vec![0u64; self.dictionary.len()];
        let last = self.dictionary.len().saturating_sub(1);
        self.codes.for_each_selected(selection, |codes| {
            for &c in codes {
                counts[(c as usize).min(last)] += 1; // a corrupt code counts as the last entry, as `value` reads it
            }
        });
        let mut acc = SumMinMax::EMPTY;
        for (&value, &count) in self.dictionary.iter().zip(&counts).filter(|(_, &count)| count > 0) {
            acc.sum += value.to_i128() * count as i128;
            acc.min = acc.min.or(Some(value));
            acc.max = Some(value);
        }
        acc
    }
}
