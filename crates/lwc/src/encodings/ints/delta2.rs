//! `delta2`: double delta, for regular series (timestamps, counters, keys with a steady stride). Each value
//! is the previous one plus a delta, and each delta the previous one plus a second difference; a regular
//! series has second differences near zero, which pack in a few bits, and a perfectly regular one in none.
//! Every `stride` rows (a power of two, 1,024 by default) a data point holds the block's first value and
//! first delta, so a read walks at most `stride` differences from the data point before it (seed 001's
//! delta with data points, in its "header" layout: the points sit apart from the differences, which then
//! pack at one width).
//!
//! Arithmetic wraps in the type's unsigned word, so every series is exact, `i64::MIN..=i64::MAX` included.
//! For the block starting at row `p`: `delta = v(p+1) - v(p)`, and for rows `p + 2 <= i < p + stride`,
//! `dd(i) = (v(i) - v(i-1)) - (v(i-1) - v(i-2))`, stored zigzag-encoded (0, −1, 1, −2, … as 0, 1, 2, 3, …)
//! so that small differences of either sign are narrow. Rows `p` and `p + 1` store 0: row `i` stays at
//! field `i`, and the fields the data point makes redundant never widen the stream.
//!
//! Body:
//!
//! | size | field |
//! |---|---|
//! | 4 | stride (u32, a power of two) |
//! | 0–7 | padding to 8 |
//! | 2 · ⌈n / stride⌉ words | data points, per block: `v(p)` and `delta`, as bits of `T`'s unsigned word |
//! | 1 | width `w` of the fields |
//! | packed | `n` fields `zigzag(dd(i))` at width `w` (horizontal bit packing, see `Packed`) |
//!
//! A perfectly regular series (width 0) reads any row in O(1) as `v(p) + (i - p) · delta`, and decodes as
//! `sequence` does. Otherwise `get` costs O(stride); range decodes start at the data point before the range,
//! and takes walk forward from the previous position while it lies earlier in the same block.

use super::bitpack::Packed;
use super::sequence::{fill_arithmetic, wrapping_times};
use super::{Children, Encoder, OpenStream, Parameter, StreamOps};
use crate::stats::{Stats, Shape, SplitMix};
use crate::bytes::{Reader, Writer};
use crate::error::{Error, Result};
use crate::kernels::bitpack::{self as kernel, BLOCK};
use crate::kernels::prefix::{self, unzigzag, zigzag};
use crate::types::{LwcInt, Word};

pub(crate) struct Delta2;

/// Rows per data point unless configured: a walk of at most 1,024 differences per `get`.
pub(crate) const DEFAULT_STRIDE: u32 = 1024;

fn check_stride(stride: u32) -> Result<u32> {
    if !stride.is_power_of_two() {
        return Err(Error::InvalidArgument(format!("delta2 stride {stride} is not a power of two")));
    }
    Ok(stride)
}

/// The field stored for row `i` with data points every `stride` rows (a power of two).
fn field<T: LwcInt>(values: &[T], stride: usize, i: usize) -> T::Unsigned {
    if i & (stride - 1) < 2 {
        return T::Unsigned::ZERO;
    }
    let (a, b, c) = (values[i - 2], values[i - 1], values[i]);
    zigzag(c.offset_from(b).wrapping_sub(b.offset_from(a)))
}

impl Encoder for Delta2 {
    const PARAMETER: Option<Parameter> = Some(Parameter { name: "stride", default: DEFAULT_STRIDE });

    /// A lookup reads its data point and walks half a stride of packed second differences.
    fn lines(stride: u32, width: u32) -> f64 {
        1.0 + stride as f64 / 2.0 * width as f64 / 8.0 / crate::select::CACHE_LINE
    }

    fn pruned(shape: &dyn Shape) -> Option<&'static str> {
        (!shape.ascending()).then_some("not sorted")
    }

    /// As `delta`'s: second differences 0 but at a step's rare breaks, which a sample seldom holds.
    fn estimated_whole(shape: &dyn Shape) -> bool {
        shape.few_step_changes()
    }

    fn cost_width(shape: &dyn Shape) -> u32 {
        shape.delta_bits().max(1)
    }

    fn calibration_values(width: u32, n: usize, rng: &mut SplitMix) -> Vec<u64> {
        super::delta::running_sums(width, n, rng)
    }

    fn estimate<T: LwcInt>(values: &[T], stats: &Stats<T>, parameter: u32, children: &impl Children) -> Option<usize> {
        Self::estimate_with_seams(values, stats, parameter, children, &[])
    }

    /// Second differences within the sample's runs only: the two that reach across a seam, where runs
    /// from far-apart rows meet, are none of the stream's (see `delta`'s).
    fn estimate_with_seams<T: LwcInt>(
        values: &[T],
        _: &Stats<T>,
        parameter: u32,
        _children: &impl Children,
        seams: &[usize],
    ) -> Option<usize> {
        let stride = check_stride(parameter).ok()? as usize;
        let n = values.len();
        // Rows `s` and `s + 1` of a seam `s` reach across it; the rest hold second differences of the stream.
        let (mut widest, mut start) = (T::Unsigned::ZERO, 0);
        for end in seams.iter().copied().filter(|&s| s < n).chain([n]) {
            widest = (start..end.max(start)).fold(widest, |acc, i| acc | field(values, stride, i));
            start = end + 2;
        }
        let width = widest.bits_used();
        Some(16 + 2 * n.div_ceil(stride) * size_of::<T>() + kernel::packed_len(n, width))
    }

    fn encode<T: LwcInt>(values: &[T], _: &Stats<T>, parameter: u32, _children: &impl Children, out: &mut Writer) -> Result<()> {
        let stride = check_stride(parameter)? as usize;
        out.u32(stride as u32);
        let points: Vec<T::Unsigned> = (0..values.len())
            .step_by(stride)
            .flat_map(|p| {
                let delta = values.get(p + 1).map_or(T::Unsigned::ZERO, |next| next.offset_from(values[p]));
                [values[p].to_bits(), delta]
            })
            .collect();
        out.array(&points);
        let fields: Vec<T::Unsigned> = (0..values.len()).map(|i| field(values, stride, i)).collect();
        let width = fields.iter().fold(T::Unsigned::ZERO, |acc, &f| acc | f).bits_used();
        out.u8(width as u8);
        out.packed(|buf| kernel::pack(&fields, width, buf));
        Ok(())
    }
}

/// Where a walk stands: the value of `row`, and the delta to the next row before that row's second
/// difference is added.
#[derive(Clone, Copy)]
struct Cursor<U> {
    row: usize,
    value: U,
    delta: U,
}

pub(crate) struct Delta2View<'a, T: LwcInt> {
    shift: u32,
    /// Per block: the value at its first row and the delta to the next row.
    points: &'a [T::Unsigned],
    fields: Packed<'a, T::Unsigned>,
}

impl<'a, T: LwcInt> OpenStream<'a, T> for Delta2View<'a, T> {
    fn open(r: &mut Reader<'a>, n: usize, _: usize) -> Result<Self> {
        let stride = check_stride(r.u32("delta2 stride")?).map_err(|e| Error::Corrupt(e.to_string()))?;
        let points = r.array("delta2 data points", 2 * n.div_ceil(stride as usize))?;
        Ok(Delta2View { shift: stride.trailing_zeros(), points, fields: Packed::open::<T>(r, n)? })
    }

    fn parameter(&self) -> Option<u32> {
        Some(self.stride())
    }
}

impl<'a, T: LwcInt> Delta2View<'a, T> {
    /// Rows per data point.
    pub fn stride(&self) -> u32 {
        1 << self.shift
    }

    /// The cursor at the data point of `row`'s block.
    fn point(&self, row: usize) -> Cursor<T::Unsigned> {
        let block = row >> self.shift;
        Cursor { row: block << self.shift, value: self.points[2 * block], delta: self.points[2 * block + 1] }
    }

    /// Row `row` of a perfectly regular series (fields of width 0): its data point's value plus the
    /// delta times its offset from there, without a walk.
    fn regular(&self, row: usize) -> T::Unsigned {
        let at = self.point(row);
        at.value.wrapping_add(wrapping_times(at.delta, row - at.row))
    }

    /// Moves `at` forward `count` rows inside its block, writing their values into `out` when given
    /// (`out.len() == count`).
    fn walk(&self, at: &mut Cursor<T::Unsigned>, count: usize, mut out: Option<&mut [T::Unsigned]>) {
        if self.fields.width() == 0 {
            // Every second difference is 0: the values step by `delta`.
            if let Some(out) = out {
                fill_arithmetic(at.value.wrapping_add(at.delta), at.delta, out);
            }
            at.value = at.value.wrapping_add(wrapping_times(at.delta, count));
            at.row += count;
            return;
        }
        let mut buf = [T::Unsigned::ZERO; BLOCK];
        let (mut value, mut delta) = (at.value, at.delta);
        for done in (0..count).step_by(BLOCK) {
            let len = (count - done).min(BLOCK);
            match out.as_deref_mut() {
                // Two vector scans: the second differences into differences, those into values. A loop of
                // both adds waited on the one before at every value: 11.5x a plain copy to decode 65,535
                // values (AMD EPYC Zen 5).
                Some(out) => {
                    let out = &mut out[done..done + len];
                    self.fields.decode_into(at.row + 1 + done, T::Unsigned::ZERO, out);
                    delta = prefix::prefix_sum(delta, out, true);
                    value = prefix::prefix_sum(value, out, false);
                }
                None => {
                    let fields = &mut buf[..len];
                    self.fields.decode_into(at.row + 1 + done, T::Unsigned::ZERO, fields);
                    for &f in fields.iter() {
                        delta = delta.wrapping_add(unzigzag(f));
                        value = value.wrapping_add(delta);
                    }
                }
            }
        }
        *at = Cursor { row: at.row + count, value, delta };
    }

    /// The cursor at `row`: walked on from `at` when that lies at or before `row` in the same block,
    /// otherwise from the data point.
    fn seek(&self, at: Option<Cursor<T::Unsigned>>, row: usize) -> Cursor<T::Unsigned> {
        let mut at = match at {
            Some(at) if at.row <= row && at.row >> self.shift == row >> self.shift => at,
            _ => self.point(row),
        };
        let count = row - at.row;
        self.walk(&mut at, count, None);
        at
    }

    /// Decodes rows `start .. start + out.len()`, walking on from `at` where it can; returns the cursor at
    /// the last row decoded (`at` if none).
    fn decode_from(
        &self,
        mut at: Option<Cursor<T::Unsigned>>,
        start: usize,
        out: &mut [T],
    ) -> Option<Cursor<T::Unsigned>> {
        let (mut row, mut rest) = (start, bytemuck::cast_slice_mut::<T, T::Unsigned>(out));
        while !rest.is_empty() {
            // One block at a time: past the first, each piece starts at a data point.
            let mut cursor = self.seek(at, row);
            let block_end = ((row >> self.shift) + 1) << self.shift;
            let (piece, tail) = rest.split_at_mut((block_end - row).min(rest.len()));
            piece[0] = cursor.value;
            self.walk(&mut cursor, piece.len() - 1, Some(&mut piece[1..]));
            at = Some(cursor);
            row += piece.len();
            rest = tail;
        }
        at
    }
}

impl<T: LwcInt> StreamOps<T> for Delta2View<'_, T> {
    fn len(&self) -> usize {
        self.fields.len()
    }

    fn decode_into(&self, start: usize, out: &mut [T]) {
        self.decode_from(None, start, out);
    }

    fn get(&self, i: usize) -> T {
        if self.fields.width() == 0 {
            return T::from_bits(self.regular(i));
        }
        T::from_bits(self.seek(None, i).value)
    }

    fn get_cost(&self) -> usize {
        if self.fields.width() == 0 {
            // A data point read and a multiply, as a packed field's get costs a load and a shift. Priced as
            // the walk below, 10^3 random positions of an arithmetic series went to a decode of the whole
            // stream and took 1.5-1.9x that decode and a gather (AMD EPYC, Zen 3).
            return 2;
        }
        // Half a stride of second differences walked on average, from a data point.
        ((1usize << self.shift) / 2).max(1)
    }

    fn take_into(&self, positions: &[u32], out: &mut [T]) {
        if self.fields.width() == 0 {
            for (o, &p) in out.iter_mut().zip(positions) {
                *o = T::from_bits(self.regular(p as usize));
            }
            return;
        }
        // Positions later in the same block walk on from the previous one, so sorted lists never restart.
        let mut at = None;
        for (o, &p) in out.iter_mut().zip(positions) {
            let cursor = self.seek(at, p as usize);
            *o = T::from_bits(cursor.value);
            at = Some(cursor);
        }
    }

    fn take_sorted_into(&self, positions: &[u32], out: &mut [T]) {
        self.take_into(positions, out)
    }

    fn for_each_block(&self, mut f: impl FnMut(usize, &[T])) {
        // One walk over the whole stream, instead of one from a data point per block.
        let mut buf = [T::default(); BLOCK];
        let mut at = None;
        for start in (0..self.len()).step_by(BLOCK) {
            let block = &mut buf[..(self.len() - start).min(BLOCK)];
            at = self.decode_from(at, start, block);
            f(start, block);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bitmap::Bitmap;
    use crate::bytes::AlignedBytes;
    use crate::encodings::stream::TakePlan;
    use crate::encodings::{encode_stream, Encoding, SumMinMax, StreamView};
    use crate::selection::Selection;

    fn encoded<T: LwcInt>(values: &[T], stride: u32) -> AlignedBytes {
        let mut w = Writer::new();
        encode_stream(values, &Encoding::Delta2 { stride }.into(), Default::default(), &mut w).unwrap();
        w.into_aligned()
    }

    /// Every operation against the values themselves, at several strides.
    fn check<T: LwcInt>(values: &[T]) {
        for stride in [1, 2, 4, 64, 1024, 1 << 20] {
            let bytes = encoded(values, stride);
            let view = StreamView::<T>::open(&mut Reader::new(&bytes), values.len()).unwrap();
            assert_eq!(view.cascade().to_string(), Encoding::Delta2 { stride }.to_string());
            let n = values.len();
            for (start, len) in [(0, n), (n / 3, n / 2), (n.saturating_sub(1), n.min(1)), (n / 2, 0)] {
                let mut out = vec![T::default(); len];
                view.decode_into(start, &mut out);
                assert_eq!(out, &values[start..start + len], "stride {stride}, {start}+{len}");
            }
            for (i, &v) in values.iter().enumerate().step_by(7) {
                assert_eq!(view.get(i), v, "stride {stride}, row {i}");
            }
            let mut positions: Vec<u32> = (0..n as u32).rev().step_by(3).collect();
            if n > 0 {
                positions.extend([0, 0, n as u32 / 2]);
            }
            for sorted in [false, true] {
                if sorted {
                    positions.sort_unstable();
                }
                let mut out = vec![T::default(); positions.len()];
                view.take_into(&positions, &mut out);
                assert!(positions.iter().zip(&out).all(|(&p, &v)| values[p as usize] == v), "stride {stride}");
            }
            assert_eq!(view.sum(), values.iter().map(|v| v.to_i128()).sum::<i128>(), "stride {stride}");
            let all = Selection::Bitmap(Bitmap::new_set(n));
            assert_eq!(view.aggregate(&all), SumMinMax::of(values), "stride {stride}");
        }
    }

    #[test]
    fn extremes_wrap_exactly() {
        check(&[i64::MIN, i64::MAX, i64::MIN, 0, -1, i64::MAX, i64::MAX, i64::MIN + 1, 5]);
        check(&[u8::MAX, 0, u8::MAX, 1, 128, 127]);
        check(&[u64::MAX, 0, u64::MAX / 2]);
        check(&[i16::MIN]);
        check::<u32>(&[]);
    }

    #[test]
    fn series_across_many_blocks() {
        let mut x = 1u64;
        let mut noise = || {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (x >> 60) as i64 - 8
        };
        let jittered: Vec<i64> = (0..5000).map(|i| 1_700_000_000_000 + 1000 * i + noise()).collect();
        check(&jittered);
        let accelerating: Vec<u32> = (0..3000u32).map(|i| i * i / 3).collect();
        check(&accelerating);
    }

    #[test]
    fn regular_series_store_only_data_points() {
        let timestamps: Vec<i64> = (0..65_536).map(|i| 1_700_000_000 + 60 * i).collect();
        let bytes = encoded(&timestamps, 1024);
        // Id, stride and padding, 64 data points of 16 bytes, a width byte, no fields.
        assert_eq!(bytes.len(), 8 + 64 * 16 + 1);
        // Their gets cost a multiply each, so a thousand random ones are taken one by one; with second
        // differences to walk, the same take decodes the stream.
        let view = StreamView::<i64>::open(&mut Reader::new(&bytes), timestamps.len()).unwrap();
        assert_eq!(view.take_plan(1000), TakePlan::Gets);
        let jittered: Vec<i64> = timestamps.iter().map(|&t| t + t % 7).collect();
        let bytes = encoded(&jittered, 1024);
        let view = StreamView::<i64>::open(&mut Reader::new(&bytes), jittered.len()).unwrap();
        assert_eq!(view.take_plan(1000), TakePlan::Decode);
        check(&timestamps[..5000]);
        let descending: Vec<i16> = (0..2000).map(|i| 30_000 - 15 * i).collect();
        check(&descending);
    }

    #[test]
    fn strides_must_be_powers_of_two() {
        let mut w = Writer::new();
        let result = encode_stream(&[1u32, 2, 3], &Encoding::Delta2 { stride: 3 }.into(), Default::default(), &mut w);
        assert!(matches!(result, Err(Error::InvalidArgument(_))));
        let mut bad = encoded(&[1u32, 2, 3], 4).to_vec();
        bad[1..5].copy_from_slice(&0u32.to_le_bytes());
        let bad = AlignedBytes::copy_from(&bad);
        assert!(matches!(StreamView::<u32>::open(&mut Reader::new(&bad), 3), Err(Error::Corrupt(_))));
        assert_eq!(Encoding::from_name("delta2:16"), Some(Encoding::Delta2 { stride: 16 }));
        assert_eq!(Encoding::from_name("delta2"), Some(Encoding::DELTA2));
    }
}
