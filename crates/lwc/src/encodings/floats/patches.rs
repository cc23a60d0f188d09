//! What the float encodings share: reading a stream's latents as the floats they stand for, and
//! exceptions (rows kept whole, patched over what the encoded form reads there) as two child streams.
//!
//! A float stream holds [`crate::Value::Latent`]s: `u64` for `f64`, `u32` for `f32`. The float encodings
//! are generic over the latent like every encoding; on other integer types they do not apply.

use super::{Cascade, ChildReads, Children, Encoding, StreamOps, StreamView};
use crate::bitmap::Bitmap;
use crate::bytes::{Reader, Writer};
use crate::error::{Error, Result};
use crate::types::{LwcInt, Value, ValueType, Word};

/// Whether `T` is the latent of a float type (`u32` of `f32`, `u64` of `f64`).
/// How a lookup of a float encoding reads its child `k`: its row of each of the first `value_streams`
/// streams (digits, codes, tails); the exceptions, after them, were decoded when the segment was opened.
pub(crate) fn child_reads(k: usize, value_streams: usize) -> ChildReads {
    match k < value_streams {
        true => ChildReads::ONE_GET,
        false => ChildReads::NONE,
    }
}

pub(crate) fn is_float_latent<T: LwcInt>() -> bool {
    matches!(T::TYPE, ValueType::U32 | ValueType::U64)
}

/// The float a latent stands for, widened to `f64` (exactly).
#[inline(always)]
pub(crate) fn float_of<T: LwcInt>(latent: T) -> f64 {
    let bits = latent.to_bits().to_u64();
    match T::TYPE {
        ValueType::U32 => f32::from_latent(bits as u32) as f64,
        _ => f64::from_latent(bits),
    }
}

/// The bits of the float a latent stands for, in the latent's type.
#[inline(always)]
pub(crate) fn float_bits<T: LwcInt>(latent: T) -> T {
    let bits = latent.to_bits().to_u64();
    let float = match T::TYPE {
        ValueType::U32 => f32::from_latent(bits as u32).to_bits() as u64,
        _ => f64::from_latent(bits).to_bits(),
    };
    T::from_bits(T::Unsigned::from_u64(float))
}

/// The latent of the float whose bits are `bits`.
#[inline(always)]
pub(crate) fn latent_of_bits<T: LwcInt>(bits: T) -> T {
    let bits = bits.to_bits().to_u64();
    let latent = match T::TYPE {
        ValueType::U32 => f32::from_bits(bits as u32).to_latent() as u64,
        _ => f64::from_bits(bits).to_latent(),
    };
    T::from_bits(T::Unsigned::from_u64(latent))
}

/// The latent of `x` rounded to the stream's float type (`f32` streams round to nearest).
#[inline(always)]
pub(crate) fn latent_of<T: LwcInt>(x: f64) -> T {
    let bits = match T::TYPE {
        ValueType::U32 => (x as f32).to_latent() as u64,
        _ => x.to_latent(),
    };
    T::from_bits(T::Unsigned::from_u64(bits))
}

/// Up to `k` values from places drawn at random (seeded by the length, so the same data chooses the same):
/// a stride would see only the rows of one residue, and data with a period (every tenth price whole)
/// would fool it.
pub(crate) fn choice_sample<T: LwcInt>(values: &[T], k: usize) -> Vec<T> {
    if values.len() <= k {
        return values.to_vec();
    }
    let mut rng = crate::stats::SplitMix(values.len() as u64);
    (0..k).map(|_| values[rng.below(values.len())]).collect()
}

/// The order in which a float encoding's exception children come: positions, then values.
pub(crate) const POSITIONS: Encoding = Encoding::Auto;
pub(crate) const VALUES: Encoding = Encoding::Auto;

/// Writes the exception count and the two child streams `k` (ascending rows) and `k + 1` (their latents).
pub(crate) fn write<T: LwcInt>(
    children: &impl Children,
    k: usize,
    positions: &[u32],
    values: &[T],
    out: &mut Writer,
) -> Result<()> {
    out.u32(positions.len() as u32);
    children.encode(k, positions, POSITIONS, out)?;
    children.encode(k + 1, values, VALUES, out)
}

/// Estimated bytes of what [`write`] writes.
pub(crate) fn estimate<T: LwcInt>(
    children: &impl Children,
    k: usize,
    positions: &[u32],
    values: &[T],
) -> Option<usize> {
    Some(4 + children.estimate(k, positions, POSITIONS)? + children.estimate(k + 1, values, VALUES)?)
}

/// Exceptions as read: rows ascending, each with the latent it holds. Decoded whole when the stream is
/// opened (they are few where the encoding was chosen), so reads find them by binary search.
pub(crate) struct Patches<T> {
    rows: Vec<u32>,
    values: Vec<T>,
    cascades: [Cascade; 2],
}

impl<T: LwcInt> Patches<T> {
    /// Reads what [`write`] wrote for a stream of `n` rows.
    pub fn open(r: &mut Reader<'_>, n: usize, depth: usize, what: &'static str) -> Result<Self> {
        let count = r.u32("exception count")? as usize;
        if count > n {
            return Err(Error::Corrupt(format!("{what}: {count} exceptions in {n} rows")));
        }
        let rows_stream = StreamView::<u32>::open_nested(r, count, depth + 1)?;
        let values_stream = StreamView::<T>::open_nested(r, count, depth + 1)?;
        let mut rows = vec![0u32; count];
        rows_stream.decode_into(0, &mut rows);
        if rows.windows(2).any(|w| w[0] >= w[1]) || rows.last().is_some_and(|&p| p as usize >= n) {
            return Err(Error::Corrupt(format!("{what}: exception rows do not ascend within the stream")));
        }
        let mut values = vec![T::default(); count];
        values_stream.decode_into(0, &mut values);
        Ok(Patches { rows, values, cascades: [rows_stream.cascade(), values_stream.cascade()] })
    }

    /// The cascades of the two child streams.
    pub fn cascades(&self) -> [Cascade; 2] {
        self.cascades.clone()
    }

    /// Rows a lookup probes: a bisection of the exception rows.
    pub fn search_cost(&self) -> usize {
        self.rows.len().max(1).ilog2() as usize
    }

    /// The latent row `i` holds, if it is an exception.
    #[inline]
    pub fn get(&self, i: usize) -> Option<T> {
        if self.rows.is_empty() {
            return None;
        }
        self.rows.binary_search(&(i as u32)).ok().map(|k| self.values[k])
    }

    /// Overwrites the exceptions among rows `start .. start + out.len()` with `map` of their latents.
    pub fn patch(&self, start: usize, out: &mut [T], map: impl Fn(T) -> T) {
        let first = self.rows.partition_point(|&p| (p as usize) < start);
        for (&p, &v) in self.rows[first..].iter().zip(&self.values[first..]) {
            match out.get_mut(p as usize - start) {
                Some(slot) => *slot = map(v),
                None => break,
            }
        }
    }

    /// Overwrites the values of `positions` (any order) that are exceptions.
    pub fn patch_taken(&self, positions: &[u32], out: &mut [T]) {
        if self.rows.is_empty() {
            return;
        }
        for (o, &p) in out.iter_mut().zip(positions) {
            if let Some(v) = self.get(p as usize) {
                *o = v;
            }
        }
    }

    /// Settles the exceptions' bits in a filter's result: set where `keep` says so, clear otherwise.
    pub fn refilter(&self, out: &mut Bitmap, keep: impl Fn(T) -> bool) {
        for (&p, &v) in self.rows.iter().zip(&self.values) {
            match keep(v) {
                true => out.set(p as usize),
                false => out.clear(p as usize),
            }
        }
    }

    /// Each exception among the rows the positions select (ascending): its row and latent.
    pub fn rows_and_values(&self) -> impl Iterator<Item = (u32, T)> + '_ {
        self.rows.iter().copied().zip(self.values.iter().copied())
    }
}
