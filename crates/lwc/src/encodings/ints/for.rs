//! `for`: frame of reference. One reference (the minimum) per stream, residuals `value - min` bit-packed
//! at the width of `max - min`. Residuals are computed in the unsigned domain, so `i64::MIN..=i64::MAX`
//! needs no special case. Filters compare residuals against the constant rewritten into residual space;
//! the sum is `n * reference + sum of residuals`.

use super::bitpack::{Frame, Packed};
use super::{Children, Encoder, OpenStream, StreamOps, SumMinMax, read_value, value_bits};
use crate::stats::{Stats};
use crate::bitmap::Bitmap;
use crate::bytes::{Reader, Writer};
use crate::error::Result;
use crate::kernels::bitpack as kernel;
use crate::selection::Selection;
use crate::types::{LwcInt, Word};

pub(crate) struct For;

impl Encoder for For {
    const SIZED_BY_STATS: bool = true;

    /// Packed fields and their base: summed where they lie.
    fn sums_in_place(_: u32) -> bool {
        true
    }

    fn estimate<T: LwcInt>(values: &[T], stats: &Stats<T>, _: u32, _: &impl Children) -> Option<usize> {
        Some(9 + kernel::packed_len(values.len(), stats.range_bits()))
    }

    fn encode<T: LwcInt>(values: &[T], stats: &Stats<T>, _: u32, _: &impl Children, out: &mut Writer) -> Result<()> {
        out.u64(value_bits(stats.min));
        let w = stats.range_bits();
        out.u8(w as u8);
        // Residuals `value - min` are the wrapping difference of the values' bits.
        let bits: &[T::Unsigned] = bytemuck::cast_slice(values);
        out.packed(|buf| kernel::pack_offsets(bits, stats.min.to_bits(), w, buf));
        Ok(())
    }
}

pub(crate) struct ForView<'a, T: LwcInt> {
    reference: T,
    residuals: Packed<'a, T::Unsigned>,
}

impl<'a, T: LwcInt> OpenStream<'a, T> for ForView<'a, T> {
    fn open(r: &mut Reader<'a>, n: usize, _: usize) -> Result<Self> {
        let reference = read_value(r, "for reference")?;
        Ok(ForView { reference, residuals: Packed::open::<T>(r, n)? })
    }

    fn frame(&self) -> Option<Frame<'a, T>> {
        Some(Frame { base: self.reference, fields: self.residuals })
    }
}

impl<'a, T: LwcInt> ForView<'a, T> {
    /// `[lo, hi]` clipped to values the stream can hold, as residuals; `None` if nothing can match.
    fn residual_range(&self, lo: T, hi: T) -> Option<(T::Unsigned, T::Unsigned)> {
        let lo = lo.max(self.reference);
        (lo <= hi).then(|| (lo.offset_from(self.reference), hi.offset_from(lo)))
    }
}

impl<T: LwcInt> StreamOps<T> for ForView<'_, T> {
    fn len(&self) -> usize {
        self.residuals.len()
    }

    fn decode_into(&self, start: usize, out: &mut [T]) {
        self.residuals.decode_into(start, self.reference.to_bits(), bytemuck::cast_slice_mut(out));
    }

    fn get(&self, i: usize) -> T {
        T::add_offset(self.reference, self.residuals.get(i))
    }

    fn take_into(&self, positions: &[u32], out: &mut [T]) {
        self.residuals.take_into(positions, self.reference.to_bits(), bytemuck::cast_slice_mut(out));
    }

    fn wrapping_sum(&self, start: usize, len: usize) -> T {
        T::from_bits(self.residuals.wrapping_sum(start, len, self.reference.to_bits()))
    }

    fn sums_in_place(&self) -> bool {
        true
    }

    fn filter_range(&self, lo: T, hi: T, out: &mut Bitmap) {
        if let Some((lo, span)) = self.residual_range(lo, hi) {
            self.residuals.filter(lo, span, out);
        }
    }

    fn sum(&self) -> i128 {
        self.reference.to_i128() * self.len() as i128 + self.residuals.sum() as i128
    }

    fn aggregate(&self, selection: &Selection) -> SumMinMax<T> {
        // Residuals are unsigned offsets from the reference: aggregate them, then shift once.
        let mut sum = 0u128;
        let (mut min, mut max) = (<T::Unsigned as Word>::MAX, T::Unsigned::ZERO);
        let mut buf = [T::Unsigned::ZERO; kernel::BLOCK];
        let positions = selection.to_positions();
        for chunk in positions.chunks(kernel::BLOCK) {
            let residuals = &mut buf[..chunk.len()];
            self.residuals.take_into(chunk, T::Unsigned::ZERO, residuals);
            sum += crate::kernels::scan::sum_words(residuals);
            min = residuals.iter().copied().fold(min, Ord::min);
            max = residuals.iter().copied().fold(max, Ord::max);
        }
        if positions.is_empty() {
            return SumMinMax::EMPTY;
        }
        SumMinMax {
            sum: self.reference.to_i128() * positions.len() as i128 + sum as i128,
            min: Some(T::add_offset(self.reference, min)),
            max: Some(T::add_offset(self.reference, max)),
        }
    }
}
