//! `gcd`: residuals `value - min` divided by their greatest common divisor `d`, as ClickHouse's GCD codec
//! and pcodec's int-mult mode do. Prices stored in cents that are whole dollars, TPC-H's `l_quantity`
//! (×100), timestamps in whole seconds stored as milliseconds: the quotients are `log2(d)` bits
//! narrower, and keep the data's shape (sorted, runs, outliers) for the encoding below.
//!
//! Bytes: the reference (8, zero-extended bits), the divisor (8, zero-extended bits of `T::Unsigned`),
//! then the quotients as a child stream of `T::Unsigned`. Applies when `d > 1`; constant data (every
//! residual 0) has no divisor and is `constant`'s.
//!
//! Every operation maps through the child: `value = reference + d * quotient`. A value range becomes
//! the quotient range `ceil((lo - ref) / d) ..= floor((hi - ref) / d)`; a value set keeps the members
//! that are `ref` plus a multiple of `d`; the sum is `n * ref + d * sum of quotients`, and min and max of a
//! selection are those of its quotients, mapped.

use super::{Cascade, Children, Encoder, Encoding, Frame, InPlace, OpenStream, Requirement, StreamOps, SumMinMax, WordStream, read_value, scaled, value_bits, wrapping_sum_decoded};
use crate::stats::{Stats, Shape, SplitMix};
use crate::bitmap::Bitmap;
use crate::bytes::{Reader, Writer};
use crate::error::{Error, Result};
use crate::kernels::divisor::{ExactDivisor, common_divisor, divide_offsets, multiply_offsets};
use crate::selection::Selection;
use crate::types::{LwcInt, Word};

pub(crate) struct Gcd;

/// The quotients' encoding unless a cascade says otherwise: they keep the data's shape, whatever it is,
/// so the smallest estimate picks.
const QUOTIENTS: Encoding = Encoding::Auto;

/// The greatest common divisor of all residuals (0 when they are all 0); stops early at 1.
fn divisor<T: LwcInt>(values: &[T], min: T) -> u64 {
    common_divisor(values.iter().map(|v| v.offset_from(min).to_u64()))
}

/// The residuals' greatest common divisor, when above 1, and the residuals divided by it.
fn divided<T: LwcInt>(values: &[T], min: T) -> Option<(u64, Vec<T::Unsigned>)> {
    // The divisor of the first rows usually divides them all: then one pass divides and checks.
    let first = divisor(&values[..values.len().min(64)], min);
    if first == 1 {
        return None;
    }
    let mut quotients = vec![T::Unsigned::ZERO; values.len()];
    let mut divide = |d| ExactDivisor::new(d).is_some_and(|by| divide_offsets(values, min, by, &mut quotients));
    if first > 1 && divide(first) {
        return Some((first, quotients));
    }
    let d = divisor(values, min);
    (d > 1 && divide(d)).then_some((d, quotients))
}

impl Encoder for Gcd {
    const CHILDREN: &'static [&'static str] = &["quotients"];

    /// The quotients lie in the child stream.
    fn lines(_: u32, _: u32) -> f64 {
        0.0
    }
    const REQUIRES: Requirement = Requirement::CommonDivisor;

    fn pruned(shape: &dyn Shape) -> Option<&'static str> {
        (shape.divisor() <= 1).then_some("no common divisor")
    }

    /// A run of values sums from its quotients' sum, which packed quotients (its usual child, as the
    /// data's shape keeps them narrow) take where they lie.
    fn sums_in_place(_: u32) -> bool {
        true
    }

    fn calibration_values(width: u32, n: usize, rng: &mut SplitMix) -> Vec<u64> {
        let limit = if width <= 32 { u32::MAX as u64 } else { u64::MAX };
        let mask = if width >= 64 { u64::MAX } else { (1u64 << width) - 1 };
        (0..n).map(|_| ((rng.next() & mask) << 3) & limit).collect()
    }

    fn estimate<T: LwcInt>(values: &[T], stats: &Stats<T>, _parameter: u32, children: &impl Children) -> Option<usize> {
        let (_, quotients) = divided(values, stats.min)?;
        Some(16 + children.estimate(0, &quotients, QUOTIENTS)?)
    }

    fn encode<T: LwcInt>(values: &[T], stats: &Stats<T>, _parameter: u32, children: &impl Children, out: &mut Writer) -> Result<()> {
        let Some((d, quotients)) = divided(values, stats.min) else {
            let reason = match stats.min == stats.max {
                true => format!("the {} values are all equal", values.len()),
                false => "the differences between values have no common divisor above 1".to_string(),
            };
            return Err(Error::NotApplicable { encoding: "gcd", reason });
        };
        out.u64(value_bits(stats.min));
        out.u64(d);
        children.encode(0, &quotients, QUOTIENTS, out)
    }
}

pub(crate) struct GcdView<'a, T: LwcInt> {
    reference: T,
    /// Above 1 and within `T::Unsigned`.
    divisor: u64,
    quotients: WordStream<'a, T::Unsigned>,
}

impl<'a, T: LwcInt> OpenStream<'a, T> for GcdView<'a, T> {
    fn open(r: &mut Reader<'a>, n: usize, depth: usize) -> Result<Self> {
        let reference = read_value(r, "gcd reference")?;
        let divisor = read_value::<T::Unsigned>(r, "gcd divisor")?.to_u64();
        if divisor <= 1 {
            return Err(Error::Corrupt(format!("gcd: divisor {divisor}")));
        }
        let quotients = WordStream::open_nested(r, n, depth + 1)?;
        Ok(GcdView { reference, divisor, quotients })
    }

    fn child_cascades(&self) -> Vec<Cascade> {
        vec![self.quotients().cascade()]
    }

    /// Packed quotients read as a frame times the divisor: `reference + d · (base + field)` is
    /// `(reference + d · base) + d · field`, wrapping in the type.
    fn in_place(&self) -> Option<InPlace<'a, T>> {
        let quotients = self.quotients.frame()?;
        let frame = Frame { base: self.value(quotients.base), fields: quotients.fields };
        Some(InPlace::Scaled { frame, divisor: self.divisor })
    }
}

impl<'a, T: LwcInt> GcdView<'a, T> {
    /// The quotients stream.
    pub fn quotients(&self) -> &WordStream<'a, T::Unsigned> {
        &self.quotients
    }

    /// `reference + d * quotient`, wrapping in the type (exact for the quotients a writer stores).
    #[inline(always)]
    fn value(&self, quotient: T::Unsigned) -> T {
        scaled(self.reference, self.divisor, quotient.to_u64())
    }

    /// `n * reference + d * (sum of quotients)`; wrapping, so corrupt quotients cannot overflow.
    fn total(&self, n: usize, quotient_sum: i128) -> i128 {
        (self.reference.to_i128() * n as i128).wrapping_add(quotient_sum.wrapping_mul(self.divisor as i128))
    }
}

impl<T: LwcInt> StreamOps<T> for GcdView<'_, T> {
    fn len(&self) -> usize {
        self.quotients.len()
    }

    fn decode_into(&self, start: usize, out: &mut [T]) {
        let quotients: &mut [T::Unsigned] = bytemuck::cast_slice_mut(out);
        self.quotients.decode_into(start, quotients);
        // As `value` does for each, in one pass (a 64-bit multiply a value took as long as the unpacking).
        multiply_offsets(quotients, self.reference.to_bits(), T::Unsigned::from_u64(self.divisor));
    }

    fn get(&self, i: usize) -> T {
        self.value(self.quotients.get(i))
    }

    fn get_cost(&self) -> usize {
        self.quotients.get_cost()
    }

    fn sums_in_place(&self) -> bool {
        self.quotients.sums_in_place()
    }

    fn wrapping_sum(&self, start: usize, len: usize) -> T {
        // `len · reference + d · Σ quotients`, wrapping in the word: the quotients' sum where they lie. A
        // walk over `delta(gcd(bitpack))` (o_orderkey's deltas, 1 and 25, as quotients of one bit) then
        // reads as fast as over a dictionary of two steps.
        if !self.quotients.sums_in_place() {
            return wrapping_sum_decoded(self, start, len);
        }
        let quotients = self.quotients.wrapping_sum(start, len).to_u64();
        let first = self.reference.to_bits().to_u64().wrapping_mul(len as u64);
        T::from_bits(T::Unsigned::from_u64(first.wrapping_add(quotients.wrapping_mul(self.divisor))))
    }

    fn take_into(&self, positions: &[u32], out: &mut [T]) {
        self.quotients.take_into(positions, bytemuck::cast_slice_mut(out));
        for v in out.iter_mut() {
            *v = self.value(v.to_bits());
        }
    }

    fn take_sorted_into(&self, positions: &[u32], out: &mut [T]) {
        self.quotients.take_sorted_into(positions, bytemuck::cast_slice_mut(out));
        for v in out.iter_mut() {
            *v = self.value(v.to_bits());
        }
    }

    fn filter_range(&self, lo: T, hi: T, out: &mut Bitmap) {
        let lo = lo.max(self.reference);
        if lo > hi {
            return;
        }
        let (lo, hi) = (lo.offset_from(self.reference).to_u64(), hi.offset_from(self.reference).to_u64());
        let first = lo / self.divisor + (lo % self.divisor != 0) as u64;
        let last = hi / self.divisor;
        if first <= last {
            self.quotients.filter_range(T::Unsigned::from_u64(first), T::Unsigned::from_u64(last), out);
        }
    }

    fn filter_in(&self, set: &[T], out: &mut Bitmap) {
        // Values at or above the reference map to quotients in the same order, so the set stays sorted.
        let quotients: Vec<T::Unsigned> = set
            .iter()
            .filter(|&&v| v >= self.reference)
            .map(|v| v.offset_from(self.reference).to_u64())
            .filter(|r| r % self.divisor == 0)
            .map(|r| T::Unsigned::from_u64(r / self.divisor))
            .collect();
        if !quotients.is_empty() {
            self.quotients.filter_in(&quotients, out);
        }
    }

    fn sum(&self) -> i128 {
        self.total(self.len(), self.quotients.sum())
    }

    fn aggregate(&self, selection: &Selection) -> SumMinMax<T> {
        let quotients = self.quotients.aggregate(selection);
        SumMinMax {
            sum: self.total(selection.count(), quotients.sum),
            min: quotients.min.map(|q| self.value(q)),
            max: quotients.max.map(|q| self.value(q)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bytes::AlignedBytes;
    use crate::encodings::{encode_stream, Cascade, StreamView};

    fn encoded<T: LwcInt>(values: &[T], cascade: &str) -> Result<AlignedBytes> {
        let mut w = Writer::new();
        encode_stream(values, &cascade.parse::<Cascade>().unwrap(), Default::default(), &mut w)?;
        Ok(w.into_aligned())
    }

    fn check<T: LwcInt>(values: &[T], cascade: &str) {
        let bytes = encoded(values, cascade).unwrap();
        let view = StreamView::<T>::open(&mut Reader::new(&bytes), values.len()).unwrap();
        let mut out = vec![T::default(); values.len()];
        view.decode_into(0, &mut out);
        assert_eq!(out, values, "{cascade}");
        assert!(values.iter().enumerate().all(|(i, &v)| view.get(i) == v));
        // Packed quotients read in place as a scaled frame, each value as `get` reads it.
        let in_place = view.in_place();
        if cascade.contains("bitpack") || cascade.contains("(for)") {
            assert!(in_place.is_some(), "{cascade}");
        }
        if let Some(reader) = in_place {
            assert!(values.iter().enumerate().all(|(i, &v)| reader.get(i) == v), "{cascade}: in place");
        }
        assert_eq!(view.sum(), values.iter().map(|v| v.to_i128()).sum::<i128>());
        // Sums of ranges (in place where the quotients are packed) wrap in the word as the values do.
        let n = values.len();
        for (start, len) in [(0, n), (1, n - 1), (n / 3, n / 2), (n - 1, 1), (n / 2, 0)] {
            let want = values[start..start + len].iter().fold(T::Unsigned::ZERO, |s, v| s.wrapping_add(v.to_bits()));
            assert_eq!(view.wrapping_sum(start, len).to_bits(), want, "{cascade}: sum of {len} from {start}");
        }
        let all = Selection::Positions((0..values.len() as u32).collect());
        let partial = view.aggregate(&all);
        assert_eq!((partial.min, partial.max), (values.iter().min().copied(), values.iter().max().copied()));
        for &c in values.iter().step_by(values.len() / 5 + 1) {
            for (lo, hi) in [(c, c), (T::MIN, c), (c, T::MAX)] {
                let mut bits = Bitmap::new_clear(values.len());
                view.filter_range(lo, hi, &mut bits);
                let want: Vec<u32> =
                    (0..values.len() as u32).filter(|&i| (lo..=hi).contains(&values[i as usize])).collect();
                assert_eq!(bits.to_positions(), want, "{cascade} {lo:?}..={hi:?}");
            }
        }
    }

    #[test]
    fn multiples_of_100_take_7_bits_less() {
        let values: Vec<u32> = (0..10_000u32).map(|i| 100 * (i * 7919 % 5000)).collect();
        let (gcd, r#for) = (encoded(&values, "gcd").unwrap().len(), encoded(&values, "for").unwrap().len());
        // 13 bits a value against 19.
        assert!(gcd * 10 < r#for * 7, "gcd {gcd} bytes, for {}", r#for);
        check(&values, "gcd");
        check(&values, "gcd(pfor)");
    }

    #[test]
    fn packed_quotients_sum_in_place_under_a_walk() {
        // o_orderkey's steps, 1 and 25: one bit a quotient. `delta` walks its deltas by their sums.
        let keys: Vec<u32> = (0..20_000u32).map(|i| (i / 8) * 32 + i % 8 + 1).collect();
        let steps: Vec<u32> = keys.windows(2).map(|w| w[1] - w[0]).collect();
        for cascade in ["gcd(bitpack)", "gcd(for)"] {
            let bytes = encoded(&steps, cascade).unwrap();
            assert!(StreamView::<u32>::open(&mut Reader::new(&bytes), steps.len()).unwrap().sums_in_place(), "{cascade}");
            check(&steps, cascade);
        }
        check(&steps, "gcd(pfor)");
        let bytes = encoded(&keys, "delta:64(gcd(bitpack), for)").unwrap();
        let view = StreamView::<u32>::open(&mut Reader::new(&bytes), keys.len()).unwrap();
        let positions: Vec<u32> = (0..keys.len() as u32).step_by(97).chain([1, 63, 64, 65, 19_999]).collect();
        let mut out = vec![0; positions.len()];
        view.take_into(&positions, &mut out);
        assert!(positions.iter().zip(&out).all(|(&p, &v)| keys[p as usize] == v && view.get(p as usize) == v));
    }

    #[test]
    fn extremes_and_wrapping() {
        // i64::MIN to i64::MAX is 2^64 - 1 = 3 * 5 * 17 * 257 * 641 * 65537 * 6700417.
        check(&[i64::MIN, i64::MAX, i64::MIN + 3 * 5 * 17, i64::MIN], "gcd");
        check(&[u64::MAX - 4, u64::MAX, u64::MAX - 2], "gcd(bitpack)");
        check(&[-128i8, 126, 0, -2], "gcd(for)");
        // The divisor alone: all quotients 0 or 1.
        check(&[u16::MAX, 1, u16::MAX, 1], "gcd(auto)");
    }

    #[test]
    fn sets_map_to_quotients() {
        let values: Vec<i32> = (0..500).map(|i| -7 + 6 * (i % 37)).collect();
        let bytes = encoded(&values, "gcd").unwrap();
        let view = StreamView::<i32>::open(&mut Reader::new(&bytes), values.len()).unwrap();
        let set = [-13, -7, -6, 5, 11, 200];
        let mut bits = Bitmap::new_clear(values.len());
        view.filter_in(&set, &mut bits);
        let want: Vec<u32> = (0..values.len() as u32).filter(|&i| set.contains(&values[i as usize])).collect();
        assert_eq!(bits.to_positions(), want);
    }

    #[test]
    fn auto_picks_gcd_for_multiples_of_100() {
        let values: Vec<i64> = (0..5000).map(|i| 100 * (i * 7919 % 3000) - 50_000).collect();
        let chosen = crate::encode_segment(&values, None, Encoding::Auto).unwrap().cascade().encoding();
        assert_eq!(chosen, Encoding::Gcd);
    }

    #[test]
    fn applies_only_above_1() {
        let not = |r: Result<AlignedBytes>| matches!(r, Err(Error::NotApplicable { .. }));
        assert!(not(encoded(&[5u32, 6, 8], "gcd")));
        assert!(not(encoded(&[5u32, 5], "gcd")));
        assert!(not(encoded::<u32>(&[], "gcd")));
        assert!(crate::encodings::estimate_stream(&[3u8, 4], Encoding::Gcd).is_none());
        assert_eq!(divisor(&[10u32, 30, 110, 70], 10), 20);
    }

    #[test]
    fn corrupt_divisors_are_rejected() {
        let bytes = encoded(&[0u32, 4, 8], "gcd").unwrap();
        for bad in [0u64, 1, 1 << 32] {
            let mut b = bytes.to_vec();
            b[9..17].copy_from_slice(&bad.to_le_bytes());
            let b = AlignedBytes::copy_from(&b);
            assert!(matches!(StreamView::<u32>::open(&mut Reader::new(&b), 3), Err(Error::Corrupt(_))), "{bad}");
        }
    }
}
