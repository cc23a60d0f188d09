//! `for_n`: frame of reference with one reference per block of `N` values (a power of two; 64 by default,
//! seed 001's FOR64), residuals bit-packed at one width for the stream: the largest `max - min` of any
//! block. Sorted and locally clustered data (keys) get much narrower residuals than with one reference.

use super::bitpack::Packed;
use super::{Children, Encoder, InPlace, OpenStream, Parameter, StreamOps};
use crate::stats::{Stats, Shape, SplitMix};
use crate::bytes::{Reader, Writer};
use crate::error::{Error, Result};
use crate::kernels::bitpack as kernel;
use crate::kernels::extremes as kernel_extremes;
use crate::types::LwcInt;

pub(crate) struct ForN;

fn check_block(block: u32) -> Result<u32> {
    if block == 0 || !block.is_power_of_two() {
        return Err(Error::InvalidArgument(format!("for_n block size {block} is not a power of two")));
    }
    Ok(block)
}

/// Per-block minima and the residual width they leave.
fn references<T: LwcInt>(values: &[T], block: usize) -> (Vec<T>, u32) {
    kernel_extremes::block_minima(values, block)
}

impl Encoder for ForN {
    /// The block's reference and the field, apart.
    fn lines(_: u32, _: u32) -> f64 {
        2.0
    }

    const PARAMETER: Option<Parameter> = Some(Parameter { name: "block", default: 64 });

    fn pruned(shape: &dyn Shape) -> Option<&'static str> {
        (shape.range_bits() <= 8).then_some("values already fit 8 bits")
    }

    fn calibration_values(width: u32, n: usize, rng: &mut SplitMix) -> Vec<u64> {
        let limit = if width <= 32 { u32::MAX as u64 } else { u64::MAX };
        let mask = if width >= 64 { u64::MAX } else { (1u64 << width) - 1 };
        (0..n)
            .map(|i| ((i as u64 / 64).wrapping_mul(0x9e37_79b9) & (limit >> 1)).saturating_add(rng.next() & mask) & limit)
            .collect()
    }

    /// One block holding an extreme the sample missed widens every block's residuals. A sorted stream's
    /// widest block is read off its blocks' ends (the sample of l_orderkey, missing both extremes, priced
    /// its segments at 2.2x the bytes written); any other stream missing an extreme in its sample is
    /// assumed at the worst, every block as wide as the stream's range.
    fn estimate_from_sample<T: LwcInt>(
        sample: &[T],
        stats: &Stats<T>,
        parameter: u32,
        children: &impl Children,
        shape: &dyn Shape,
    ) -> Option<usize> {
        if shape.sample_has_extremes() {
            return Some((Self::estimate(sample, stats, parameter, children)? as f64 * shape.scale()) as usize);
        }
        let block = check_block(parameter).ok()? as usize;
        let n = shape.rows();
        let width = shape.sorted_block_range_bits(block).unwrap_or(stats.range_bits());
        Some(16 + n.div_ceil(block) * size_of::<T>() + kernel::packed_len(n, width))
    }

    fn estimate<T: LwcInt>(values: &[T], _: &Stats<T>, parameter: u32, _children: &impl Children) -> Option<usize> {
        let block = check_block(parameter).ok()? as usize;
        let (refs, w) = references(values, block);
        Some(16 + size_of_val(refs.as_slice()) + kernel::packed_len(values.len(), w))
    }

    fn encode<T: LwcInt>(values: &[T], _: &Stats<T>, parameter: u32, _children: &impl Children, out: &mut Writer) -> Result<()> {
        let block = check_block(parameter)? as usize;
        let (refs, w) = references(values, block);
        out.u32(block as u32);
        out.array(&refs);
        out.u8(w as u8);
        let (bits, ref_bits): (&[T::Unsigned], &[T::Unsigned]) =
            (bytemuck::cast_slice(values), bytemuck::cast_slice(&refs));
        out.packed(|buf| kernel::pack_block_offsets(bits, ref_bits, block, w, buf));
        Ok(())
    }
}

pub(crate) struct ForNView<'a, T: LwcInt> {
    shift: u32,
    refs: &'a [T],
    residuals: Packed<'a, T::Unsigned>,
}

impl<'a, T: LwcInt> OpenStream<'a, T> for ForNView<'a, T> {
    fn open(r: &mut Reader<'a>, n: usize, _: usize) -> Result<Self> {
        let block = check_block(r.u32("for_n block size")?).map_err(|e| Error::Corrupt(e.to_string()))?;
        let refs = r.array("for_n references", n.div_ceil(block as usize))?;
        Ok(ForNView { shift: block.trailing_zeros(), refs, residuals: Packed::open::<T>(r, n)? })
    }

    fn parameter(&self) -> Option<u32> {
        Some(self.block())
    }

    /// A reference and a field, each where it lies.
    fn in_place(&self) -> Option<InPlace<'a, T>> {
        Some(InPlace::Blocks { residuals: self.residuals, references: self.refs, shift: self.shift })
    }
}

impl<'a, T: LwcInt> ForNView<'a, T> {
    /// Values per reference.
    pub fn block(&self) -> u32 {
        1 << self.shift
    }

    #[inline(always)]
    fn reference(&self, i: usize) -> T {
        self.refs[i >> self.shift]
    }
}

impl<T: LwcInt> StreamOps<T> for ForNView<'_, T> {
    fn len(&self) -> usize {
        self.residuals.len()
    }

    fn decode_into(&self, start: usize, out: &mut [T]) {
        let references: &[T::Unsigned] = bytemuck::cast_slice(self.refs);
        self.residuals.decode_from_references(start, references, self.shift, bytemuck::cast_slice_mut(out));
    }

    fn get(&self, i: usize) -> T {
        T::add_offset(self.reference(i), self.residuals.get(i))
    }

    fn take_into(&self, positions: &[u32], out: &mut [T]) {
        let references: &[T::Unsigned] = bytemuck::cast_slice(self.refs);
        self.residuals.take_from_references(positions, references, self.shift, bytemuck::cast_slice_mut(out));
    }

    fn sum(&self) -> i128 {
        let block = 1usize << self.shift;
        let n = self.len();
        let refs: i128 =
            self.refs.iter().enumerate().map(|(b, r)| r.to_i128() * (n - b * block).min(block) as i128).sum();
        refs + self.residuals.sum() as i128
    }
}
