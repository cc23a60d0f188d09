//! `constant`: one value repeated (Umbra's Single). Every operation is O(1) or O(output).

use super::{read_value, value_bits, Codec, EncodingId, Params, Partial, Stats, StreamOps};
use crate::bitmap::Bitmap;
use crate::bytes::{Reader, Writer};
use crate::error::{Error, Result};
use crate::selection::Selection;
use crate::types::LwcInt;

pub(crate) struct Constant;

impl Codec for Constant {
    const ID: EncodingId = EncodingId::Constant;

    fn estimate<T: LwcInt>(_: &[T], stats: &Stats<T>, _: &Params) -> Option<usize> {
        (stats.min == stats.max).then_some(8)
    }

    fn encode<T: LwcInt>(values: &[T], stats: &Stats<T>, _: &Params, out: &mut Writer) -> Result<()> {
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

impl<T: LwcInt> ConstantView<T> {
    pub fn open(r: &mut Reader<'_>, n: usize) -> Result<Self> {
        Ok(ConstantView { value: read_value(r, "constant value")?, n })
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

    fn aggregate(&self, selection: &Selection) -> Partial<T> {
        match selection.count() {
            0 => Partial::EMPTY,
            k => Partial { sum: self.value.to_i128() * k as i128, min: Some(self.value), max: Some(self.value) },
        }
    }
}
