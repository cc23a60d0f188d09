//! `narrow`: doubles that are exactly single-precision values stored in four bytes (seed 004 keeps doubles
//! in 4 bytes where that is lossless). Data measured or computed in `f32` and widened on its way into a
//! double column (sensor readings, model outputs, columns a tool cast to `f64`) has random low mantissa
//! bits as `f32` but 29 zero bits at the bottom of every `f64`: neither ALP nor ALP-RD sees that. Each
//! value becomes its `f32` latent in a `u32` child stream; the values that do not narrow back exactly are
//! exceptions, kept whole as two child streams, and their slot repeats the value before.
//!
//! Bytes: the `f32` latents stream (`u32`), then the exception count (u32) and the exceptions' rows (`u32`,
//! ascending) and latents (`u64`) as child streams.
//!
//! Widening is monotone (order-preserving latents on both sides), so a range of doubles is a range of `f32`
//! latents found by binary search, compared by the child's own encoding; a set maps each member that
//! narrows. NaN payloads are moved by bit arithmetic, not by the hardware's casts, which may quiet them.

use super::patches::{self, float_bits, is_float_latent, Patches};
use super::{Cascade, ChildReads, Children, Encoder, Encoding, OpenStream, Requirement, StreamOps, StreamView};
use crate::bitmap::Bitmap;
use crate::bytes::{Reader, Writer};
use crate::error::{Error, Result};
use crate::kernels::bitpack::BLOCK;
use crate::stats::{Shape, SplitMix, Stats};
use crate::types::{LwcInt, Value, ValueType, Word};

pub(crate) struct Narrow;

/// The `f32` latents' encoding unless a cascade says otherwise: whatever is smallest.
const SINGLES: Encoding = Encoding::Auto;

/// The `f64` bits of the `f32` with bits `b`, exactly, NaN payloads included.
#[inline(always)]
fn widen_bits(b: u32) -> u64 {
    // Both computed and one selected, so loops of widenings vectorize.
    let f = f32::from_bits(b);
    let nan = ((b as u64 >> 31) << 63) | (0x7ff << 52) | ((b as u64 & 0x7f_ffff) << 29);
    let cast = (f as f64).to_bits();
    if f.is_nan() { nan } else { cast }
}

/// The `f32` bits of the `f64` with bits `b`, if they widen back to exactly `b`.
#[inline(always)]
fn narrow_bits(b: u64) -> Option<u32> {
    let f = f64::from_bits(b);
    let n = match f.is_nan() {
        true => (((b >> 63) as u32) << 31) | 0x7f80_0000 | ((b >> 29) & 0x7f_ffff) as u32,
        false => (f as f32).to_bits(),
    };
    (widen_bits(n) == b).then_some(n)
}

/// The `f64` latent (as `T`, which is `u64` wherever this encoding applies) of the `f32` latent `single`.
#[inline(always)]
fn widen<T: LwcInt>(single: u32) -> T {
    let bits = widen_bits(f32::from_latent(single).to_bits());
    T::from_bits(T::Unsigned::from_u64(f64::from_bits(bits).to_latent()))
}

/// The `f32` latent of the `f64` latent `latent`, if it narrows exactly.
#[inline(always)]
fn narrow<T: LwcInt>(latent: T) -> Option<u32> {
    narrow_bits(f64::from_latent(latent.to_bits().to_u64()).to_bits()).map(|b| f32::from_bits(b).to_latent())
}

/// The smallest `f32` latent whose widening passes `at_or_past` (`2^32` if none): a test that fails up to
/// some value and passes from it on.
fn first_single<T: LwcInt>(at_or_past: impl Fn(T) -> bool) -> u64 {
    let (mut lo, mut hi) = (0u64, 1u64 << 32);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if at_or_past(widen::<T>(mid as u32)) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    lo
}

struct Split<T> {
    singles: Vec<u32>,
    rows: Vec<u32>,
    exceptions: Vec<T>,
}

fn split<T: LwcInt>(values: &[T]) -> Split<T> {
    let mut split = Split { singles: Vec::with_capacity(values.len()), rows: Vec::new(), exceptions: Vec::new() };
    let mut last = 0u32;
    for (i, &v) in values.iter().enumerate() {
        match narrow(v) {
            Some(single) => last = single,
            None => {
                split.rows.push(i as u32);
                split.exceptions.push(v);
            }
        }
        split.singles.push(last);
    }
    split
}

/// Whether `T` is the latent of `f64`, the one type this encoding narrows.
fn is_double_latent<T: LwcInt>() -> bool {
    is_float_latent::<T>() && T::TYPE == ValueType::U64
}

impl Encoder for Narrow {
    const CHILDREN: &'static [&'static str] = &["singles", "exception rows", "exception values"];

    /// The values lie in the child streams.
    fn lines(_: u32, _: u32) -> f64 {
        0.0
    }

    fn child_reads(k: usize, _: u32, _: usize, _: usize) -> ChildReads {
        patches::child_reads(k, 1)
    }
    const REQUIRES: Requirement = Requirement::Doubles;

    fn pruned(shape: &dyn Shape) -> Option<&'static str> {
        (!shape.floats()).then_some("stores floats")
    }

    /// Its work is widening 64-bit values, whatever their range.
    fn cost_width(_: &dyn Shape) -> u32 {
        64
    }

    /// Uniformly random `f32`s in `[0, 1000)`, widened (as `f64` latents).
    fn calibration_values(_width: u32, n: usize, rng: &mut SplitMix) -> Vec<u64> {
        (0..n).map(|_| widen(((rng.next() >> 40) as f32 / (1u32 << 24) as f32 * 1000.0).to_latent())).collect()
    }

    fn estimate<T: LwcInt>(values: &[T], _stats: &Stats<T>, _parameter: u32, children: &impl Children) -> Option<usize> {
        if !is_double_latent::<T>() {
            return None;
        }
        let split = split(values);
        Some(children.estimate(0, &split.singles, SINGLES)? + patches::estimate(children, 1, &split.rows, &split.exceptions)?)
    }

    fn encode<T: LwcInt>(values: &[T], _stats: &Stats<T>, _parameter: u32, children: &impl Children, out: &mut Writer) -> Result<()> {
        if !is_double_latent::<T>() {
            return Err(Error::NotApplicable { encoding: "narrow", reason: format!("narrows doubles, not {}", T::TYPE) });
        }
        let split = split(values);
        children.encode(0, &split.singles, SINGLES, out)?;
        patches::write(children, 1, &split.rows, &split.exceptions, out)
    }
}

pub(crate) struct NarrowView<'a, T: LwcInt> {
    singles: StreamView<'a, u32>,
    exceptions: Patches<T>,
}

impl<'a, T: LwcInt> OpenStream<'a, T> for NarrowView<'a, T> {
    fn open(r: &mut Reader<'a>, n: usize, depth: usize) -> Result<Self> {
        if !is_double_latent::<T>() {
            return Err(Error::Corrupt(format!("narrow: a double encoding where {} are", T::TYPE)));
        }
        let singles = StreamView::open_nested(r, n, depth + 1)?;
        let exceptions = Patches::open(r, n, depth, "narrow")?;
        Ok(NarrowView { singles, exceptions })
    }

    fn child_cascades(&self) -> Vec<Cascade> {
        let [rows, values] = self.exceptions.cascades();
        vec![self.singles.cascade(), rows, values]
    }
}

impl<T: LwcInt> NarrowView<'_, T> {
    /// Widens `out.len()` singles that `read` fills a block at a time, with `widen` (to latents or bits).
    fn widen_into(&self, out: &mut [T], widen: impl Fn(u32) -> T, mut read: impl FnMut(usize, &mut [u32])) {
        let mut singles = [0u32; BLOCK];
        for (k, chunk) in out.chunks_mut(BLOCK).enumerate() {
            let singles = &mut singles[..chunk.len()];
            read(k * BLOCK, singles);
            chunk.iter_mut().zip(singles.iter()).for_each(|(v, &s)| *v = widen(s));
        }
    }
}

/// The `f64` bits (as `T`) of the `f32` latent `single`.
#[inline(always)]
fn widen_to_bits<T: LwcInt>(single: u32) -> T {
    T::from_bits(T::Unsigned::from_u64(widen_bits(f32::from_latent(single).to_bits())))
}

impl<T: LwcInt> StreamOps<T> for NarrowView<'_, T> {
    fn len(&self) -> usize {
        self.singles.len()
    }

    fn decode_into(&self, start: usize, out: &mut [T]) {
        self.widen_into(out, widen, |at, singles| self.singles.decode_into(start + at, singles));
        self.exceptions.patch(start, out, |v| v);
    }

    fn decode_floats_into(&self, start: usize, out: &mut [T]) -> bool {
        self.widen_into(out, widen_to_bits, |at, singles| self.singles.decode_into(start + at, singles));
        self.exceptions.patch(start, out, float_bits);
        true
    }

    #[inline]
    fn get(&self, i: usize) -> T {
        self.exceptions.get(i).unwrap_or_else(|| widen(self.singles.get(i)))
    }

    fn get_cost(&self) -> usize {
        self.singles.get_cost() + self.exceptions.search_cost()
    }

    fn take_into(&self, positions: &[u32], out: &mut [T]) {
        self.widen_into(out, widen, |at, singles| self.singles.take_into(&positions[at..at + singles.len()], singles));
        self.exceptions.patch_taken(positions, out);
    }

    fn take_sorted_into(&self, positions: &[u32], out: &mut [T]) {
        self.widen_into(out, widen, |at, singles| self.singles.take_sorted_into(&positions[at..at + singles.len()], singles));
        self.exceptions.patch_taken(positions, out);
    }

    fn filter_range(&self, lo: T, hi: T, out: &mut Bitmap) {
        let (first, end) = (first_single(|w: T| w >= lo), first_single(|w: T| w > hi));
        if first < end {
            self.singles.filter_range(first as u32, (end - 1) as u32, out);
        }
        self.exceptions.refilter(out, |v| lo <= v && v <= hi);
    }

    fn filter_in(&self, set: &[T], out: &mut Bitmap) {
        let mut singles: Vec<u32> = set.iter().filter_map(|&v| narrow(v)).collect();
        singles.sort_unstable();
        if !singles.is_empty() {
            self.singles.filter_in(&singles, out);
        }
        self.exceptions.refilter(out, |v| set.binary_search(&v).is_ok());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encodings::encode_stream;
    use crate::Objective;

    fn written(values: &[u64], cascade: &str) -> crate::AlignedBytes {
        let mut w = Writer::new();
        encode_stream(values, &cascade.parse::<Cascade>().unwrap(), Objective::default(), &mut w).unwrap();
        w.into_aligned()
    }

    /// Widened singles with specials mixed in (NaNs with every kind of payload, ±0, ±inf, subnormals of
    /// both widths, doubles that do not narrow) read back bit for bit, and filter as the values do.
    #[test]
    fn widened_singles_narrow_and_everything_else_round_trips() {
        let mut rng = SplitMix(3);
        let mut values = Narrow::calibration_values(32, 5_000, &mut rng);
        let specials = [
            f64::NAN.to_bits(),
            f64::NAN.to_bits() | 1,
            f64::NAN.to_bits() | (1 << 40),
            (-f64::NAN).to_bits() | (5 << 29),
            0x7ff0_0000_0000_0001, // a signalling NaN no f32 holds
            0x7ff0_0000_2000_0000, // a signalling NaN an f32 holds
            (-0.0f64).to_bits(),
            f64::INFINITY.to_bits(),
            f64::NEG_INFINITY.to_bits(),
            (f32::MIN_POSITIVE as f64 / 8.0).to_bits(),
            5e-324f64.to_bits(),
            0.1f64.to_bits(),
        ];
        for (k, &bits) in specials.iter().enumerate() {
            values[k * 401] = f64::from_bits(bits).to_latent();
        }
        let bytes = written(&values, "narrow");
        assert!(bytes.len() * 10 < values.len() * 8 * 6, "{} bytes", bytes.len());
        let view = StreamView::<u64>::open(&mut Reader::new(bytes.as_bytes()), values.len()).unwrap();
        let mut out = vec![0; values.len()];
        view.decode_into(0, &mut out);
        assert_eq!(out, values);
        assert!(values.iter().enumerate().all(|(i, &v)| view.get(i) == v));
        let positions: Vec<u32> = (0..values.len() as u32).rev().step_by(3).collect();
        let mut taken = vec![0; positions.len()];
        view.take_into(&positions, &mut taken);
        assert!(positions.iter().zip(&taken).all(|(&p, &t)| values[p as usize] == t));
        for (lo, hi) in [(10.0f64, 500.5), (-1.0, 0.0), (0.0, f64::INFINITY), (999.9, 1e300)] {
            let (lo, hi) = (lo.to_latent(), hi.to_latent());
            let mut bits = Bitmap::new_clear(values.len());
            view.filter_range(lo, hi, &mut bits);
            let want: Vec<bool> = values.iter().map(|&v| lo <= v && v <= hi).collect();
            assert_eq!(bits, Bitmap::from_bools(&want));
        }
        let mut bits = Bitmap::new_clear(values.len());
        view.filter_range(0, u64::MAX, &mut bits);
        assert_eq!(bits.count_ones(), values.len());
        let mut set = vec![values[7], values[401], values[4_000], 0.1f64.to_latent()];
        set.sort_unstable();
        let mut bits = Bitmap::new_clear(values.len());
        view.filter_in(&set, &mut bits);
        let want: Vec<bool> = values.iter().map(|v| set.contains(v)).collect();
        assert_eq!(bits, Bitmap::from_bools(&want));
    }
}
