//! `alp`: Adaptive Lossless floating-Point compression (Afroozeh, Kuffo, Boncz, SIGMOD 2023) for floats of
//! decimal origin: prices, measurements, anything once written with a few decimal digits. A value `v`
//! becomes the integer `d = round(v · 10^e / 10^f)` (its *digits*), which reads back as
//! `d · 10^f / 10^e`, correctly rounded ([`crate::kernels::decimal`]: the paper multiplies by the inexact
//! `10^-e` and misses often); `e` and `f` are chosen once per stream so that as many values as possible come
//! back bit for bit and the digits span as few bits as possible. The digits are an `i64` child stream,
//! encoded by the integer encodings (TPC-H's `l_extendedprice` as `f64` becomes cents under `for`);
//! the values that do not come back exactly (NaN, ±inf, -0.0, values of other origin) are exceptions,
//! kept whole as two child streams, and their digit slot repeats the digit before so the shape holds.
//!
//! Bytes: `e` (1), `f` (1), two zero bytes, the digits stream (`i64`), then the exception count (u32) and
//! the exceptions' rows (`u32`, ascending) and latents (`T`) as child streams.
//!
//! Operations map through the digits: decoding is a multiply-add per value the compiler vectorizes; a
//! range of floats is a range of digits (reading back is monotone in `d`, so the bounds are found by
//! binary search over the digits and the digits' own encoding compares them), then the exceptions' rows
//! are settled one by one; a set maps each member that round-trips to its digit; the sum of `f64`s is the
//! exact sum of the digits, scaled once, plus the exceptions: within a few ulps of `Σ|v|` of the exact
//! sum, no worse than compensated summation of the decoded values (`f32`s are summed as read back).

use super::patches::{self, float_bits, float_of, is_float_latent, latent_of, latent_of_bits, Patches};
use super::{Cascade, ChildReads, Children, Encoder, Encoding, OpenStream, StreamOps, StreamView};
use crate::bitmap::Bitmap;
use crate::bytes::{Reader, Writer};
use crate::error::{Error, Result};
use crate::kernels::bitpack::BLOCK;
use crate::kernels::decimal;
use crate::selection::Selection;
use crate::stats::{Shape, SplitMix, Stats};
use crate::types::{LwcInt, Value, ValueType, Word};

pub(crate) struct Alp;

/// The digits' encoding unless a cascade says otherwise: they keep the data's shape (sorted, runs,
/// few distinct), so the smallest estimate picks.
const DIGITS: Encoding = Encoding::Auto;

/// The largest exponent tried: more decimal digits than the type carries never round-trip better.
fn max_exponent<T: LwcInt>() -> u8 {
    if T::TYPE == ValueType::U32 { 10 } else { 18 }
}

/// Values the exponents are chosen on: this many, spread over the stream (the paper samples 256 too).
const CHOICE_SAMPLE: usize = 256;

/// An exception costs about its row and its latent; digits cost their width.
fn exception_bits<T: LwcInt>() -> usize {
    32 + T::Unsigned::BITS as usize
}

/// The digits of `latent` under `(e, f)`, if they read back as exactly that latent.
#[inline(always)]
fn encode<T: LwcInt>(latent: T, e: u8, f: u8) -> Option<i64> {
    let d = decimal::digits(float_of(latent), e, f)?;
    (latent_of::<T>(decimal::read_back(d, e, f)) == latent).then_some(d)
}

/// The `(e, f)` that minimizes digit bits plus exception bits on up to [`CHOICE_SAMPLE`] spread values.
fn choose_exponents<T: LwcInt>(values: &[T]) -> (u8, u8) {
    let sample = patches::choice_sample(values, CHOICE_SAMPLE);
    let mut best = ((0u8, 0u8), usize::MAX);
    for e in 0..=max_exponent::<T>() {
        for f in 0..=e {
            let (mut lo, mut hi, mut exceptions) = (i64::MAX, i64::MIN, 0usize);
            for &v in &sample {
                match encode(v, e, f) {
                    Some(d) => (lo, hi) = (lo.min(d), hi.max(d)),
                    None => exceptions += 1,
                }
            }
            let width = if lo > hi { 0 } else { 64 - (hi.wrapping_sub(lo) as u64).leading_zeros() as usize };
            let bits = (sample.len() - exceptions) * width + exceptions * exception_bits::<T>();
            // Ties keep the smaller exponents, whose digits are smaller.
            if bits < best.1 {
                best = ((e, f), bits);
            }
        }
    }
    best.0
}

/// What [`Alp`] writes: the digits and the exceptions.
struct Split<T> {
    e: u8,
    f: u8,
    digits: Vec<i64>,
    rows: Vec<u32>,
    exceptions: Vec<T>,
}

fn split<T: LwcInt>(values: &[T]) -> Split<T> {
    let (e, f) = choose_exponents(values);
    let mut digits = Vec::with_capacity(values.len());
    let (mut rows, mut exceptions) = (Vec::new(), Vec::new());
    let mut last = None;
    for (i, &v) in values.iter().enumerate() {
        match encode(v, e, f) {
            Some(d) => {
                digits.push(d);
                last = Some(d);
            }
            None => {
                rows.push(i as u32);
                exceptions.push(v);
                digits.push(last.unwrap_or(0));
            }
        }
    }
    // Exceptions at the start repeat the first digit that follows them, not 0.
    let leading = rows.iter().enumerate().take_while(|&(k, &row)| row as usize == k).count();
    if let Some(&d) = digits.get(leading) {
        digits[..leading].iter_mut().for_each(|slot| *slot = d);
    }
    Split { e, f, digits, rows, exceptions }
}

impl Encoder for Alp {
    const CHILDREN: &'static [&'static str] = &["digits", "exception rows", "exception values"];

    /// The values lie in the child streams.
    fn lines(_: u32, _: u32) -> f64 {
        0.0
    }

    fn child_reads(k: usize, _: u32, _: usize, _: usize) -> ChildReads {
        patches::child_reads(k, 1)
    }

    fn pruned(shape: &dyn Shape) -> Option<&'static str> {
        (!shape.floats()).then_some("stores floats")
    }

    fn cost_width(shape: &dyn Shape) -> u32 {
        // Priced as reading back digits: about what a decimal column spans.
        shape.range_bits().clamp(1, 32)
    }

    /// Decimals with two digits after the point, their digits `width` bits wide: `f32` up to 32 bits
    /// (as the calibration reads them), `f64` above.
    fn calibration_values(width: u32, n: usize, rng: &mut SplitMix) -> Vec<u64> {
        let mask = (1u64 << width.min(40)) - 1;
        (0..n)
            .map(|_| {
                let digits = rng.next() & mask;
                match width <= 32 {
                    true => (((digits & 0xff_ffff) as f32) / 100.0).to_latent() as u64,
                    false => (digits as f64 / 100.0).to_latent(),
                }
            })
            .collect()
    }

    fn estimate<T: LwcInt>(values: &[T], _stats: &Stats<T>, _parameter: u32, children: &impl Children) -> Option<usize> {
        if !is_float_latent::<T>() {
            return None;
        }
        let split = split(values);
        let digits = children.estimate(0, &split.digits, DIGITS)?;
        Some(4 + digits + patches::estimate(children, 1, &split.rows, &split.exceptions)?)
    }

    fn encode<T: LwcInt>(values: &[T], _stats: &Stats<T>, _parameter: u32, children: &impl Children, out: &mut Writer) -> Result<()> {
        if !is_float_latent::<T>() {
            return Err(Error::NotApplicable { encoding: "alp", reason: format!("stores floats, not {}", T::TYPE) });
        }
        let split = split(values);
        out.u8(split.e);
        out.u8(split.f);
        out.zeros(2);
        children.encode(0, &split.digits, DIGITS, out)?;
        patches::write(children, 1, &split.rows, &split.exceptions, out)
    }
}

pub(crate) struct AlpView<'a, T: LwcInt> {
    e: u8,
    f: u8,
    digits: StreamView<'a, i64>,
    exceptions: Patches<T>,
}

impl<'a, T: LwcInt> OpenStream<'a, T> for AlpView<'a, T> {
    fn open(r: &mut Reader<'a>, n: usize, depth: usize) -> Result<Self> {
        if !is_float_latent::<T>() {
            return Err(Error::Corrupt(format!("alp: a float encoding where {} are", T::TYPE)));
        }
        let (e, f) = (r.u8("alp exponent")?, r.u8("alp factor")?);
        r.take("alp padding", 2)?;
        if e > max_exponent::<T>() || f > e {
            return Err(Error::Corrupt(format!("alp: exponent {e} and factor {f}")));
        }
        let digits = StreamView::open_nested(r, n, depth + 1)?;
        let exceptions = Patches::open(r, n, depth, "alp")?;
        Ok(AlpView { e, f, digits, exceptions })
    }

    fn child_cascades(&self) -> Vec<Cascade> {
        let [rows, values] = self.exceptions.cascades();
        vec![self.digits.cascade(), rows, values]
    }
}

impl<T: LwcInt> AlpView<'_, T> {
    #[inline(always)]
    fn value(&self, d: i64) -> T {
        latent_of(decimal::read_back(d, self.e, self.f))
    }

    /// The smallest digits in `-2^51 ..= 2^51 + 1` for which `above` holds of the value read back (it
    /// holds from some digits on: reading back is monotone).
    fn first_digit(&self, above: impl Fn(T) -> bool) -> i64 {
        let (mut lo, mut hi) = (-decimal::MAX_DIGITS, decimal::MAX_DIGITS + 1);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if above(self.value(mid)) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        lo
    }

    /// A take: the digits at `positions` by `take` a block at a time, read back, exceptions patched.
    fn take_with(&self, positions: &[u32], out: &mut [T], take: impl Fn(&[u32], &mut [i64])) {
        let mut digits = [0i64; BLOCK];
        for (chunk, dst) in positions.chunks(BLOCK).zip(out.chunks_mut(BLOCK)) {
            let digits = &mut digits[..chunk.len()];
            take(chunk, digits);
            self.convert(digits, dst);
        }
        self.exceptions.patch_taken(positions, out);
    }

    /// The latents of `digits` read back.
    fn convert(&self, digits: &[i64], out: &mut [T]) {
        let mut floats = [0f64; BLOCK];
        for (digits, out) in digits.chunks(BLOCK).zip(out.chunks_mut(BLOCK)) {
            let floats = &mut floats[..digits.len()];
            decimal::read_back_into(digits, self.e, self.f, floats);
            for (o, &x) in out.iter_mut().zip(floats.iter()) {
                *o = latent_of(x);
            }
        }
    }
}

impl<T: LwcInt> StreamOps<T> for AlpView<'_, T> {
    fn len(&self) -> usize {
        self.digits.len()
    }

    fn decode_into(&self, start: usize, out: &mut [T]) {
        self.decode_floats_into(start, out);
        for v in out.iter_mut() {
            *v = latent_of_bits(*v);
        }
    }

    /// Digits read back straight into the floats' bits: `f64` in place, `f32` through a buffer.
    fn decode_floats_into(&self, start: usize, out: &mut [T]) -> bool {
        if T::TYPE == ValueType::U64 {
            self.digits.decode_into(start, bytemuck::cast_slice_mut(out));
            decimal::read_back_in_place(bytemuck::cast_slice_mut(out), self.e, self.f);
        } else {
            let mut digits = [0i64; BLOCK];
            let mut floats = [0f64; BLOCK];
            for (k, chunk) in out.chunks_mut(BLOCK).enumerate() {
                let (digits, floats) = (&mut digits[..chunk.len()], &mut floats[..chunk.len()]);
                self.digits.decode_into(start + k * BLOCK, digits);
                decimal::read_back_into(digits, self.e, self.f, floats);
                for (o, &x) in chunk.iter_mut().zip(floats.iter()) {
                    *o = T::from_bits(T::Unsigned::from_u64((x as f32).to_bits() as u64));
                }
            }
        }
        self.exceptions.patch(start, out, float_bits);
        true
    }

    #[inline]
    fn get(&self, i: usize) -> T {
        self.exceptions.get(i).unwrap_or_else(|| self.value(self.digits.get(i)))
    }

    fn get_cost(&self) -> usize {
        self.digits.get_cost() + self.exceptions.search_cost()
    }

    fn take_into(&self, positions: &[u32], out: &mut [T]) {
        self.take_with(positions, out, |chunk, digits| self.digits.take_into(chunk, digits));
    }

    fn take_sorted_into(&self, positions: &[u32], out: &mut [T]) {
        self.take_with(positions, out, |chunk, digits| self.digits.take_sorted_into(chunk, digits));
    }

    fn filter_range(&self, lo: T, hi: T, out: &mut Bitmap) {
        let first = self.first_digit(|v| v >= lo);
        let last = self.first_digit(|v| v > hi) - 1;
        if first <= last {
            self.digits.filter_range(first, last, out);
        }
        self.exceptions.refilter(out, |v| lo <= v && v <= hi);
    }

    fn filter_in(&self, set: &[T], out: &mut Bitmap) {
        let mut digits: Vec<i64> = set.iter().filter_map(|&v| encode(v, self.e, self.f)).collect();
        digits.sort_unstable();
        digits.dedup();
        if !digits.is_empty() {
            self.digits.filter_in(&digits, out);
        }
        self.exceptions.refilter(out, |v| set.binary_search(&v).is_ok());
    }

    fn float_sum(&self, selection: Option<&Selection>) -> Option<f64> {
        // An `f32` is its decimal only to within its own precision: summed as digits, the error would be
        // the `f32`'s, not the `f64` sum's that callers are promised.
        if T::TYPE != ValueType::U64 {
            return None;
        }
        let mut digit_sum = match selection {
            None => self.digits.sum(),
            Some(selection) => self.digits.aggregate(selection).sum,
        };
        // Exceptions: take their digit slots out, add their values.
        let mut exceptions = Vec::new();
        for (row, v) in self.exceptions.rows_and_values() {
            if selection.is_none_or(|s| s.contains(row)) {
                digit_sum -= self.digits.get(row as usize) as i128;
                exceptions.push(float_of(v));
            }
        }
        Some(decode_sum(digit_sum, self.e, self.f) + f64::sum(&exceptions))
    }
}

/// `sum · 10^f / 10^e` for an exact sum of digits.
fn decode_sum(sum: i128, e: u8, f: u8) -> f64 {
    sum as f64 * decimal::POW10[f as usize] / decimal::POW10[e as usize]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encodings::{encode_stream, Cascade};
    use crate::Objective;

    fn written<T: LwcInt>(values: &[T]) -> crate::AlignedBytes {
        let mut w = Writer::new();
        encode_stream(values, &"alp".parse::<Cascade>().unwrap(), Objective::default(), &mut w).unwrap();
        w.into_aligned()
    }

    fn check<T: LwcInt>(values: &[T]) {
        let bytes = written(values);
        let view = StreamView::<T>::open(&mut Reader::new(bytes.as_bytes()), values.len()).unwrap();
        let mut out = vec![T::default(); values.len()];
        view.decode_into(0, &mut out);
        assert_eq!(out, values);
        for (i, &v) in values.iter().enumerate() {
            assert_eq!(view.get(i), v, "row {i}");
        }
    }

    fn latents(values: &[f64]) -> Vec<u64> {
        values.iter().map(|v| v.to_latent()).collect()
    }

    #[test]
    fn prices_become_cents() {
        // Parsed from text, as decimal data is: the nearest double to each price.
        let prices: Vec<f64> = (0..10_000).map(|i| (90_000 + (i * 7_919) % 100_000) as f64 / 100.0).collect();
        let values = latents(&prices);
        assert_eq!(choose_exponents(&values), (2, 0));
        let split = split(&values);
        assert!(split.rows.is_empty());
        assert_eq!(split.digits[1], 7_919 + 90_000);
        let bytes = written(&values);
        assert!(bytes.len() < values.len() * 3, "{} bytes", bytes.len()); // 17-bit cents, not 64-bit floats
        check(&values);
    }

    #[test]
    fn specials_are_exceptions_and_round_trip_bit_exactly() {
        let specials = [
            f64::NAN,
            -f64::NAN,
            f64::from_bits(0x7ff0_0000_0000_0001),
            f64::INFINITY,
            f64::NEG_INFINITY,
            -0.0,
            0.0,
            5e-324,
            f64::MAX,
            f64::MIN,
            1.0 / 3.0,
        ];
        let mut values: Vec<f64> = (0..2_000).map(|i| i as f64 * 0.25).collect();
        for (k, &s) in specials.iter().enumerate() {
            values[k * 150] = s;
        }
        values[1_999] = f64::NAN;
        check(&latents(&values));
        let f32s: Vec<u32> = values.iter().map(|&v| (v as f32).to_latent()).collect();
        check(&f32s);
    }

    #[test]
    fn range_filters_and_sums_agree_with_the_values() {
        let prices: Vec<f64> = (0..5_000).map(|i| ((i * 31) % 1_000) as f64 / 10.0 - 50.0).collect();
        let mut values = prices.clone();
        values[17] = f64::NAN;
        values[4_000] = 1e300;
        values[4_001] = -0.0;
        let stored = latents(&values);
        let bytes = written(&stored);
        let view = StreamView::<u64>::open(&mut Reader::new(bytes.as_bytes()), stored.len()).unwrap();
        for (lo, hi) in [(-0.0, 10.0), (-50.0, -49.9), (0.0, 0.0), (3.33, 3.34), (-1e308, 1e308), (f64::NEG_INFINITY, f64::NAN)] {
            let mut bits = Bitmap::new_clear(values.len());
            view.filter_range(lo.to_latent(), hi.to_latent(), &mut bits);
            let expected: Vec<u32> = (0..values.len() as u32)
                .filter(|&i| {
                    let v = values[i as usize];
                    v.total_cmp(&lo).is_ge() && v.total_cmp(&hi).is_le()
                })
                .collect();
            assert_eq!(bits.to_positions(), expected, "{lo} ..= {hi}");
        }
        let mut bits = Bitmap::new_clear(values.len());
        view.filter_in(&[(-0.0f64).to_latent(), 0.0f64.to_latent(), 3.4f64.to_latent()], &mut bits);
        let expected: Vec<u32> =
            (0..values.len() as u32).filter(|&i| [-0.0f64, 0.0, 3.4].iter().any(|s| s.to_bits() == values[i as usize].to_bits())).collect();
        assert_eq!(bits.to_positions(), expected);
        // Sums: the finite rows, exact sum of cents against the compensated sum of values.
        let finite: Vec<u32> = (0..values.len() as u32).filter(|&i| values[i as usize].is_finite()).collect();
        let sum = view.float_sum(Some(&Selection::Positions(finite.clone()))).unwrap();
        let expected = f64::sum(&finite.iter().map(|&i| values[i as usize]).collect::<Vec<_>>());
        let magnitude: f64 = finite.iter().map(|&i| values[i as usize].abs()).sum();
        assert!((sum - expected).abs() <= 4.0 * f64::EPSILON * magnitude, "{sum} vs {expected}");
        assert!(view.float_sum(None).unwrap().is_nan());
    }
}
