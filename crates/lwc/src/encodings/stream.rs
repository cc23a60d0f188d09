//! The reading half every encoding shares: the operation set of an opened stream ([`StreamOps`], with
//! block-at-a-time defaults for what an encoding cannot do better on its encoded form), how a view is
//! opened from bytes ([`OpenStream`]), and a child stream behind a trait object ([`WordStream`]).

use super::{Cascade, StreamView};
use crate::bitmap::Bitmap;
use crate::bytes::Reader;
use crate::error::Result;
use crate::kernels::{bitpack::BLOCK, positions::has_dense_block, scan};
use crate::selection::Selection;
use crate::types::LwcInt;

/// The sum, min and max of some values (their count is the caller's): what aggregates of a selection
/// add up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SumMinMax<T> {
    pub sum: i128,
    pub min: Option<T>,
    pub max: Option<T>,
}

impl<T: LwcInt> SumMinMax<T> {
    pub const EMPTY: SumMinMax<T> = SumMinMax { sum: 0, min: None, max: None };

    pub fn of(values: &[T]) -> SumMinMax<T> {
        SumMinMax { sum: T::sum(values), min: values.iter().min().copied(), max: values.iter().max().copied() }
    }

    pub fn merge(self, other: SumMinMax<T>) -> SumMinMax<T> {
        let pick = |a: Option<T>, b: Option<T>, f: fn(T, T) -> T| match (a, b) {
            (Some(a), Some(b)) => Some(f(a, b)),
            (a, b) => a.or(b),
        };
        SumMinMax {
            sum: self.sum + other.sum,
            min: pick(self.min, other.min, T::min),
            max: pick(self.max, other.max, T::max),
        }
    }
}

/// How a view is opened: its bytes validated once, for a stream of `n` values `depth` streams deep (child
/// streams open at `depth + 1`; the reader bounds the depth). What a view says of itself for the cascade
/// it was written with comes with it.
pub(crate) trait OpenStream<'a, T: LwcInt>: Sized {
    fn open(r: &mut Reader<'a>, n: usize, depth: usize) -> Result<Self>;

    /// The encoding's parameter as the bytes say (for_n's block, delta's stride), `None` without one.
    fn parameter(&self) -> Option<u32> {
        None
    }

    /// The cascades of the child streams, in the encoding's child order.
    fn child_cascades(&self) -> Vec<Cascade> {
        Vec::new()
    }
}

/// Large views sit behind a box, so the dispatch enum stays small.
impl<'a, T: LwcInt, V: OpenStream<'a, T>> OpenStream<'a, T> for Box<V> {
    fn open(r: &mut Reader<'a>, n: usize, depth: usize) -> Result<Self> {
        Ok(Box::new(V::open(r, n, depth)?))
    }
    fn parameter(&self) -> Option<u32> {
        (**self).parameter()
    }
    fn child_cascades(&self) -> Vec<Cascade> {
        (**self).child_cascades()
    }
}

/// Positions in one block of [`BLOCK`] values from which decoding the block beats reading them one by
/// one: with gathers at about 0.8 ns a position and a block decode at about 75 ns, the crossover sits
/// near 250 (`lwc-bench access`, take 10^4 sorted: 150 a block, 2.1x faster read one by one than
/// with a threshold of 96).
pub(crate) const DENSE_BLOCK: usize = 256;

/// The operations every encoded stream answers. Positions passed in are `< len()`; callers check.
pub(crate) trait StreamOps<T: LwcInt> {
    /// Values in the stream.
    fn len(&self) -> usize;

    /// `out = values[start .. start + out.len()]`.
    fn decode_into(&self, start: usize, out: &mut [T]);

    /// For streams of float latents: `out` = the floats' bits (not their latents) of rows
    /// `start .. start + out.len()`, for encodings that read floats back directly (`alp`), which saves the
    /// two passes from floats to latents and back. `false` (out untouched) from the others.
    fn decode_floats_into(&self, _start: usize, _out: &mut [T]) -> bool {
        false
    }

    /// One value, O(1).
    fn get(&self, i: usize) -> T;

    /// `out[k] = values[positions[k]]`, positions in any order.
    fn take_into(&self, positions: &[u32], out: &mut [T]) {
        for (o, &p) in out.iter_mut().zip(positions) {
            *o = self.get(p as usize);
        }
    }

    /// As [`StreamOps::take_into`] for ascending positions: a block holding at least [`DENSE_BLOCK`]
    /// of them is decoded once into a buffer that stays in L1 and picked from; the positions between
    /// dense blocks are read value by value, in one call.
    fn take_sorted_into(&self, positions: &[u32], out: &mut [T]) {
        if !has_dense_block(positions, BLOCK as u32, DENSE_BLOCK) {
            return self.take_into(positions, out);
        }
        let mut buf = [T::default(); BLOCK];
        let (mut k, mut sparse_from) = (0, 0);
        while k < positions.len() {
            let end = (positions[k] as usize / BLOCK + 1) * BLOCK;
            // One probe says whether the block is dense; sparse runs are short, so step over them.
            let dense = positions.get(k + DENSE_BLOCK - 1).is_some_and(|&p| (p as usize) < end);
            if !dense {
                while k < positions.len() && (positions[k] as usize) < end {
                    k += 1;
                }
                continue;
            }
            let run = positions[k..].partition_point(|&p| (p as usize) < end);
            self.take_into(&positions[sparse_from..k], &mut out[sparse_from..k]);
            let start = end - BLOCK;
            let len = (self.len() - start).min(BLOCK);
            self.decode_into(start, &mut buf[..len]);
            for (o, &p) in out[k..k + run].iter_mut().zip(&positions[k..k + run]) {
                *o = buf[p as usize - start];
            }
            k += run;
            sparse_from = k;
        }
        self.take_into(&positions[sparse_from..], &mut out[sparse_from..]);
    }

    /// Sets bit `i` of `out` (all clear on entry) for every value with `lo <= value <= hi`.
    fn filter_range(&self, lo: T, hi: T, out: &mut Bitmap) {
        let span = hi.offset_from(lo);
        self.for_each_block(|start, block| {
            scan::filter_range_plain(
                bytemuck::cast_slice(block),
                lo.to_bits(),
                span,
                &mut out.words_mut()[start / 64..],
            );
        });
    }

    /// Sets bit `i` of `out` for every value in `set` (sorted, distinct, non-empty).
    fn filter_in(&self, set: &[T], out: &mut Bitmap) {
        self.for_each_block(|start, block| {
            for (k, v) in block.iter().enumerate() {
                if set.binary_search(v).is_ok() {
                    out.set(start + k);
                }
            }
        });
    }

    /// Sum of all values.
    fn sum(&self) -> i128 {
        let mut sum = 0;
        self.for_each_block(|_, block| sum += T::sum(block));
        sum
    }

    /// The sum of all (`None`) or the selected values read as floats, for streams of float latents whose
    /// encoding sums on its encoded form (`alp`); `None` from the others, whose values the caller decodes.
    fn float_sum(&self, _selection: Option<&Selection>) -> Option<f64> {
        None
    }

    /// Sum, min and max of the selected values.
    fn aggregate(&self, selection: &Selection) -> SumMinMax<T> {
        let mut acc = SumMinMax::EMPTY;
        match selection {
            Selection::Positions(p) => {
                let mut buf = [T::default(); BLOCK];
                for chunk in p.chunks(BLOCK) {
                    self.take_into(chunk, &mut buf[..chunk.len()]);
                    acc = acc.merge(SumMinMax::of(&buf[..chunk.len()]));
                }
            }
            Selection::Bitmap(bits) => {
                let mut picked = Vec::with_capacity(BLOCK);
                self.for_each_block(|start, block| {
                    picked.clear();
                    let words = &bits.words()[start / 64..(start + block.len()).div_ceil(64)];
                    for (wi, &w) in words.iter().enumerate() {
                        let mut w = w;
                        while w != 0 {
                            picked.push(block[wi * 64 + w.trailing_zeros() as usize]);
                            w &= w - 1;
                        }
                    }
                    acc = acc.merge(SumMinMax::of(&picked));
                });
            }
        }
        acc
    }

    /// Calls `f(start, values)` for consecutive blocks of up to [`BLOCK`] values (starts are multiples of it).
    fn for_each_block(&self, mut f: impl FnMut(usize, &[T])) {
        let mut buf = [T::default(); BLOCK];
        for start in (0..self.len()).step_by(BLOCK) {
            let n = (self.len() - start).min(BLOCK);
            self.decode_into(start, &mut buf[..n]);
            f(start, &buf[..n]);
        }
    }
}

/// A child stream of unsigned words (`T::Unsigned`: deltas, exception bits, quotients), behind a trait object.
///
/// A view cannot hold a `StreamView<'a, T::Unsigned>` field: the compiler's implied-bounds inference
/// follows `T::Unsigned::Unsigned...` through the recursive `StreamView` without seeing that the
/// projection is idempotent, and stops with "overflow computing implied lifetime bounds". A trait
/// object ends that walk; calling through it costs the same indirect jump as `StreamView`'s match.
pub(crate) struct WordStream<'a, U: LwcInt>(Box<dyn DynStream<U> + Send + Sync + 'a>);

impl<'a, U: LwcInt> WordStream<'a, U> {
    /// Opens a child stream of `n` values that sits `depth` streams deep.
    pub fn open_nested(r: &mut Reader<'a>, n: usize, depth: usize) -> Result<Self> {
        Ok(WordStream(Box::new(StreamView::<U>::open_nested(r, n, depth)?)))
    }

    /// The cascade the stream was written with.
    pub fn cascade(&self) -> Cascade {
        self.0.cascade()
    }
}

/// [`StreamOps`] without its generic method, so it can sit behind `dyn`, and the cascade.
trait DynStream<U: LwcInt> {
    fn len(&self) -> usize;
    fn decode_into(&self, start: usize, out: &mut [U]);
    fn get(&self, i: usize) -> U;
    fn take_into(&self, positions: &[u32], out: &mut [U]);
    fn take_sorted_into(&self, positions: &[u32], out: &mut [U]);
    fn filter_range(&self, lo: U, hi: U, out: &mut Bitmap);
    fn filter_in(&self, set: &[U], out: &mut Bitmap);
    fn sum(&self) -> i128;
    fn aggregate(&self, selection: &Selection) -> SumMinMax<U>;
    fn cascade(&self) -> Cascade;
}

impl<U: LwcInt> DynStream<U> for StreamView<'_, U> {
    fn len(&self) -> usize {
        StreamOps::len(self)
    }
    fn decode_into(&self, start: usize, out: &mut [U]) {
        StreamOps::decode_into(self, start, out)
    }
    fn get(&self, i: usize) -> U {
        StreamOps::get(self, i)
    }
    fn take_into(&self, positions: &[u32], out: &mut [U]) {
        StreamOps::take_into(self, positions, out)
    }
    fn take_sorted_into(&self, positions: &[u32], out: &mut [U]) {
        StreamOps::take_sorted_into(self, positions, out)
    }
    fn filter_range(&self, lo: U, hi: U, out: &mut Bitmap) {
        StreamOps::filter_range(self, lo, hi, out)
    }
    fn filter_in(&self, set: &[U], out: &mut Bitmap) {
        StreamOps::filter_in(self, set, out)
    }
    fn sum(&self) -> i128 {
        StreamOps::sum(self)
    }
    fn aggregate(&self, selection: &Selection) -> SumMinMax<U> {
        StreamOps::aggregate(self, selection)
    }
    fn cascade(&self) -> Cascade {
        StreamView::cascade(self)
    }
}

impl<U: LwcInt> StreamOps<U> for WordStream<'_, U> {
    fn len(&self) -> usize {
        self.0.len()
    }
    fn decode_into(&self, start: usize, out: &mut [U]) {
        self.0.decode_into(start, out)
    }
    #[inline(always)]
    fn get(&self, i: usize) -> U {
        self.0.get(i)
    }
    fn take_into(&self, positions: &[u32], out: &mut [U]) {
        self.0.take_into(positions, out)
    }
    fn take_sorted_into(&self, positions: &[u32], out: &mut [U]) {
        self.0.take_sorted_into(positions, out)
    }
    fn filter_range(&self, lo: U, hi: U, out: &mut Bitmap) {
        self.0.filter_range(lo, hi, out)
    }
    fn filter_in(&self, set: &[U], out: &mut Bitmap) {
        self.0.filter_in(set, out)
    }
    fn sum(&self) -> i128 {
        self.0.sum()
    }
    fn aggregate(&self, selection: &Selection) -> SumMinMax<U> {
        self.0.aggregate(selection)
    }
}
