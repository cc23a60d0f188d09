//! `constant`: one value repeated (Umbra's Single). Every operation is O(1) or O(output).

use super::bitpack::{Frame, Packed};
use super::{Children, Encoder, InPlace, OpenStream, Requirement, StreamOps, SumMinMax, read_value, value_bits};
use crate::stats::{Stats, Shape, SplitMix};
use crate::bitmap::Bitmap;
use crate::bytes::{Reader, Writer};
use crate::error::{Error, Result};
use crate::selection::Selection;
use crate::types::LwcInt;

pub(crate) struct Constant;

impl Encoder for Constant {
    /// The header holds every value: a lookup touches no data.
    fn lines(_: u32, _: u32) -> f64 {
        0.0
    }

    const REQUIRES: Requirement = Requirement::OneValue;
    const TAKEN_AT_ONCE: bool = true;
    const TAKEN_BECAUSE: &'static str = "every value is the same";

    fn pruned(shape: &dyn Shape) -> Option<&'static str> {
        (shape.range_bits() > 0).then_some("values differ")
    }

    fn calibration_values(_: u32, n: usize, _: &mut SplitMix) -> Vec<u64> {
        vec![42; n]
    }

    /// Eight bytes however many rows: no scaling.
    fn estimate_from_sample<T: LwcInt>(
        sample: &[T],
        stats: &Stats<T>,
        parameter: u32,
        children: &impl Children,
        _: &dyn Shape,
    ) -> Option<usize> {
        Self::estimate(sample, stats, parameter, children)
    }

    fn estimate<T: LwcInt>(_: &[T], stats: &Stats<T>, _: u32, _: &impl Children) -> Option<usize> {
        (stats.min == stats.max).then_some(8)
    }

    fn encode<T: LwcInt>(values: &[T], stats: &Stats<T>, _: u32, _: &impl Children, out: &mut Writer) -> Result<()> {
        if stats.min != stats.max {
            return Err(Error::NotApplicable {
                encoding: "constant",
                reason: format!("{} values range from {:?} to {:?}", values.len(), stats.min, stats.max),
            });
        }
        out.u64(value_bits(stats.min));
        Ok(())
    }
}

pub(crate) struct ConstantView<T> {
    value: T,
    n: usize,
}

impl<'a, T: LwcInt> OpenStream<'a, T> for ConstantView<T> {
    fn open(r: &mut Reader<'a>, n: usize, _: usize) -> Result<Self> {
        Ok(ConstantView { value: read_value(r, "constant value")?, n })
    }

    /// Fields of width 0 on the value, so a column's scattered rows read this segment in the same loop
    /// as its packed neighbours'.
    fn in_place(&self) -> Option<InPlace<'a, T>> {
        Some(InPlace::Frame(Frame { base: self.value, fields: Packed::zeros(self.n) }))
    }
}

impl<T: LwcInt> StreamOps<T> for ConstantView<T> {
    fn len(&self) -> usize {
        self.n
    }

    fn decode_into(&self, _: usize, out: &mut [T]) {
        out.fill(self.value);
    }

    fn get(&self, _: usize) -> T {
        self.value
    }

    fn take_into(&self, _: &[u32], out: &mut [T]) {
        out.fill(self.value);
    }

    fn take_sorted_into(&self, positions: &[u32], out: &mut [T]) {
        self.take_into(positions, out) // already a direct read per position
    }

    fn filter_range(&self, lo: T, hi: T, out: &mut Bitmap) {
        if lo <= self.value && self.value <= hi {
            *out = Bitmap::new_set(self.n);
        }
    }

    fn filter_in(&self, set: &[T], out: &mut Bitmap) {
        if set.binary_search(&self.value).is_ok() {
            *out = Bitmap::new_set(self.n);
        }
    }

    fn sum(&self) -> i128 {
        self.value.to_i128() * self.n as i128
    }

    fn aggregate(&self, selection: &Selection) -> SumMinMax<T> {
        match selection.count() {
            0 => SumMinMax::EMPTY,
            k => SumMinMax { sum: self.value.to_i128() * k as i128, min: Some(self.value), max: Some(self.value) },
        }
    }
}
