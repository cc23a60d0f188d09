//! `plain`: the values as they are, viewed in place. The baseline every other encoding is measured against.

use super::{Children, Encoder, InPlace, OpenStream, StreamOps};
use crate::stats::{Stats, Shape};
use crate::bitmap::Bitmap;
use crate::bytes::{Reader, Writer};
use crate::error::Result;
use crate::kernels::scan;
use crate::types::LwcInt;

pub(crate) struct Plain;

impl Encoder for Plain {
    const SIZED_BY_STATS: bool = true;

    fn cost_width(shape: &dyn Shape) -> u32 {
        shape.or_bits().max(1)
    }

    fn estimate<T: LwcInt>(values: &[T], _: &Stats<T>, _: u32, _: &impl Children) -> Option<usize> {
        Some(8 + size_of_val(values))
    }

    fn encode<T: LwcInt>(values: &[T], _: &Stats<T>, _: u32, _: &impl Children, out: &mut Writer) -> Result<()> {
        out.array(values);
        Ok(())
    }
}

pub(crate) struct PlainView<'a, T> {
    values: &'a [T],
}

impl<'a, T: LwcInt> OpenStream<'a, T> for PlainView<'a, T> {
    fn open(r: &mut Reader<'a>, n: usize, _: usize) -> Result<Self> {
        Ok(PlainView { values: r.array("plain values", n)? })
    }

    fn in_place(&self) -> Option<InPlace<'a, T>> {
        Some(InPlace::Values(self.values))
    }
}

impl<T: LwcInt> StreamOps<T> for PlainView<'_, T> {
    fn len(&self) -> usize {
        self.values.len()
    }

    fn decode_into(&self, start: usize, out: &mut [T]) {
        out.copy_from_slice(&self.values[start..start + out.len()]);
    }

    fn get(&self, i: usize) -> T {
        self.values[i]
    }

    fn take_into(&self, positions: &[u32], out: &mut [T]) {
        for (o, &p) in out.iter_mut().zip(positions) {
            *o = self.values[p as usize];
        }
    }

    fn take_sorted_into(&self, positions: &[u32], out: &mut [T]) {
        self.take_into(positions, out) // already a direct read per position
    }

    fn filter_range(&self, lo: T, hi: T, out: &mut Bitmap) {
        let bits: &[T::Unsigned] = bytemuck::cast_slice(self.values);
        scan::filter_range_plain(bits, lo.to_bits(), hi.offset_from(lo), out.words_mut());
    }

    fn sum(&self) -> i128 {
        T::sum(self.values)
    }

    fn for_each_block(&self, mut f: impl FnMut(usize, &[T])) {
        for (b, block) in self.values.chunks(crate::kernels::bitpack::BLOCK).enumerate() {
            f(b * crate::kernels::bitpack::BLOCK, block);
        }
    }
}
