//! `bitpack`: every value's bits at one fixed width, the width of the largest value (bit-aligned null
//! suppression). Negative values need the full width: frame of reference is the encoding for them.

use super::{Children, Encoder, OpenStream, StreamOps, read_width};
use crate::stats::{Stats, Shape};
use crate::bitmap::Bitmap;
use crate::bytes::{Reader, Writer};
use crate::error::Result;
use crate::kernels::{bitpack as kernel, scan};
use crate::types::{LwcInt, Word};

pub(crate) struct Bitpack;

impl Encoder for Bitpack {
    const SIZED_BY_STATS: bool = true;

    fn cost_width(shape: &dyn Shape) -> u32 {
        shape.or_bits().max(1)
    }

    /// Packed fields and their base: summed where they lie.
    fn sums_in_place(_: u32) -> bool {
        true
    }

    fn estimate<T: LwcInt>(values: &[T], stats: &Stats<T>, _: u32, _: &impl Children) -> Option<usize> {
        Some(1 + kernel::packed_len(values.len(), stats.or_bits.bits_used()))
    }

    fn encode<T: LwcInt>(values: &[T], stats: &Stats<T>, _: u32, _: &impl Children, out: &mut Writer) -> Result<()> {
        let w = stats.or_bits.bits_used();
        out.u8(w as u8);
        let bits: &[T::Unsigned] = bytemuck::cast_slice(values);
        out.packed(|buf| kernel::pack(bits, w, buf));
        Ok(())
    }
}

/// A view over `n` values packed at width `w`, shared by the encodings that bit-pack a stream of fields
/// (bitpack, and the residuals of for and for_n).
#[derive(Clone, Copy)]
pub(crate) struct Packed<'a, U: Word> {
    fields: kernel::PackedRef<'a, U>,
}

impl<'a, U: Word> Packed<'a, U> {
    /// Reads a width byte and the packed bytes, checking their length.
    pub fn open<T: LwcInt<Unsigned = U>>(r: &mut Reader<'a>, n: usize) -> Result<Self> {
        let w = read_width::<T>(r)?;
        let bytes = r.take("packed values", kernel::packed_len(n, w))?;
        let fields = kernel::PackedRef::new(bytes, n, w).expect("width and length checked above");
        Ok(Packed { fields })
    }

    /// The fields, `n` of them at one width (padding checked).
    pub fn fields(&self) -> kernel::PackedRef<'a, U> {
        self.fields
    }

    /// A stream of `n` fields of width 0 (all zero), which takes no bytes.
    pub fn zeros(n: usize) -> Self {
        Packed { fields: kernel::PackedRef::new(&[], n, 0).expect("zero-width fields take no bytes") }
    }

    /// Fields in the stream.
    pub fn len(&self) -> usize {
        self.fields.len()
    }

    /// Bits per field.
    pub fn width(&self) -> u32 {
        self.fields.width()
    }

    #[inline(always)]
    pub fn get(&self, i: usize) -> U {
        self.fields.get(i)
    }

    /// `out[k] = field(start + k) + base`.
    pub fn decode_into(&self, start: usize, base: U, out: &mut [U]) {
        kernel::unpack_range(self.fields.bytes(), self.fields.len(), self.fields.width(), base, start, out);
    }

    /// `out[k] = field(positions[k]) + base`; long lists decode everything once and gather from that.
    pub fn take_into(&self, positions: &[u32], base: U, out: &mut [U]) {
        if self.fields.width() == 0 {
            out.fill(base);
        } else if kernel::decode_first_pays(self.fields.len(), positions.len()) {
            kernel::gather_via_decode(
                self.fields.bytes(),
                self.fields.len(),
                self.fields.width(),
                base,
                positions,
                out,
                &mut Vec::new(),
            );
        } else {
            kernel::gather(self.fields.bytes(), self.fields.len(), self.fields.width(), base, positions, out);
        }
    }

    /// `out[k] = field(start + k) + references[(start + k) >> shift]` (for_n's values).
    pub fn decode_from_references(&self, start: usize, references: &[U], shift: u32, out: &mut [U]) {
        let (bytes, n, w) = (self.fields.bytes(), self.fields.len(), self.fields.width());
        kernel::unpack_range_block_offsets(bytes, n, w, references, shift, start, out);
    }

    /// `out[k] = field(positions[k]) + references[positions[k] >> shift]` (for_n's values): field and
    /// reference read together; long lists decode everything once and gather from that.
    pub fn take_from_references(&self, positions: &[u32], references: &[U], shift: u32, out: &mut [U]) {
        let reference = |p: u32| references[(p >> shift) as usize];
        if self.fields.width() == 0 {
            for (o, &p) in out.iter_mut().zip(positions) {
                *o = reference(p);
            }
        } else if kernel::decode_first_pays(self.fields.len(), positions.len()) {
            self.take_into(positions, U::ZERO, out);
            for (o, &p) in out.iter_mut().zip(positions) {
                *o = o.wrapping_add(reference(p));
            }
        } else {
            let (bytes, n, w) = (self.fields.bytes(), self.fields.len(), self.fields.width());
            kernel::gather_block_offsets(bytes, n, w, references, 1 << shift, positions, out);
        }
    }

    /// Bits for fields `f` with `lo <= f <= lo + span` (unsigned).
    pub fn filter(&self, lo: U, span: U, out: &mut Bitmap) {
        if self.fields.width() == 0 {
            if lo == U::ZERO {
                *out = Bitmap::new_set(self.fields.len());
            }
            return;
        }
        scan::filter_range_packed(
            self.fields.bytes(),
            self.fields.len(),
            self.fields.width(),
            lo,
            span,
            out.words_mut(),
        );
    }

    /// Sums of fields plus a `base` each (see [`FrameSums`]).
    pub fn sums(&self, base: U) -> FrameSums<'a, U> {
        FrameSums { base, fields: scan::RangeSums::new(self.fields) }
    }

    /// Sum of fields `start .. start + len` plus `len` times `base`, wrapping in the word: values of a
    /// stream with this base (see [`StreamOps::wrapping_sum`]).
    pub fn wrapping_sum(&self, start: usize, len: usize, base: U) -> U {
        self.sums(base).wrapping_sum(start, len)
    }

    /// Sum of the fields.
    pub fn sum(&self) -> u128 {
        if self.fields.width() == 0 {
            return 0;
        }
        scan::sum_packed::<U>(self.fields.bytes(), self.fields.len(), self.fields.width())
    }
}

/// A stream read as packed fields plus a base (`for`, and `bitpack` with base 0; see
/// [`StreamOps::frame`]): what a walk that reads a few values at a time (delta's data points and deltas)
/// reads in place, without a dispatch per read.
#[derive(Clone, Copy)]
pub(crate) struct Frame<'a, T: LwcInt> {
    pub base: T,
    pub fields: Packed<'a, T::Unsigned>,
}

impl<'a, T: LwcInt> Frame<'a, T> {
    #[inline(always)]
    pub fn get(&self, i: usize) -> T {
        T::add_offset(self.base, self.fields.get(i))
    }

    /// Sums of ranges of the values, wrapping in the word.
    pub fn sums(&self) -> FrameSums<'a, T::Unsigned> {
        self.fields.sums(self.base.to_bits())
    }
}

/// Sums of ranges of packed fields plus a base each, wrapping in the word ([`StreamOps::wrapping_sum`]),
/// with the summing masks worked out once for a caller that asks for many.
#[derive(Clone, Copy)]
pub(crate) struct FrameSums<'a, U: Word> {
    base: U,
    fields: scan::RangeSums<'a, U>,
}

impl<'a, U: Word> FrameSums<'a, U> {
    /// The base and the packed fields summed.
    pub fn parts(&self) -> (U, kernel::PackedRef<'a, U>) {
        (self.base, self.fields.fields())
    }

    #[inline(always)]
    pub fn wrapping_sum(&self, start: usize, len: usize) -> U {
        // Cut to the word: 2^BITS divides 2^64.
        U::from_u64(self.sum_u64(start, len))
    }

    /// The base, and [`scan::RangeSums::bit_counts`] of the fields.
    pub fn bit_counts(&self, start: usize, len: usize) -> Option<(U, [u64; 3])> {
        Some((self.base, self.fields.bit_counts(start, len)?))
    }

    /// The sum of the values `start .. start + len` modulo 2^64, whatever the word.
    #[inline(always)]
    pub fn sum_u64(&self, start: usize, len: usize) -> u64 {
        let fields = self.fields.sum(start, len) as u64;
        self.base.to_u64().wrapping_mul(len as u64).wrapping_add(fields)
    }
}

pub(crate) struct BitpackView<'a, T: LwcInt> {
    packed: Packed<'a, T::Unsigned>,
}

impl<'a, T: LwcInt> OpenStream<'a, T> for BitpackView<'a, T> {
    fn open(r: &mut Reader<'a>, n: usize, _: usize) -> Result<Self> {
        Ok(BitpackView { packed: Packed::open::<T>(r, n)? })
    }

    fn frame(&self) -> Option<Frame<'a, T>> {
        Some(Frame { base: T::default(), fields: self.packed })
    }
}

impl<T: LwcInt> StreamOps<T> for BitpackView<'_, T> {
    fn len(&self) -> usize {
        self.packed.len()
    }

    fn decode_into(&self, start: usize, out: &mut [T]) {
        self.packed.decode_into(start, T::Unsigned::ZERO, bytemuck::cast_slice_mut(out));
    }

    fn get(&self, i: usize) -> T {
        T::from_bits(self.packed.get(i))
    }

    fn wrapping_sum(&self, start: usize, len: usize) -> T {
        T::from_bits(self.packed.wrapping_sum(start, len, T::Unsigned::ZERO))
    }

    fn sums_in_place(&self) -> bool {
        true
    }

    fn take_into(&self, positions: &[u32], out: &mut [T]) {
        self.packed.take_into(positions, T::Unsigned::ZERO, bytemuck::cast_slice_mut(out));
    }

    fn filter_range(&self, lo: T, hi: T, out: &mut Bitmap) {
        // Fields are the values' own bits, and the wrapping range compare holds on bits (types.rs).
        self.packed.filter(lo.to_bits(), hi.offset_from(lo), out);
    }

    fn sum(&self) -> i128 {
        if self.packed.width() < T::Unsigned::BITS || T::MIN == T::from_bits(T::Unsigned::ZERO) {
            // No sign bit among the fields: they sum as unsigned.
            self.packed.sum() as i128
        } else {
            let mut sum = 0;
            self.for_each_block(|_, block| sum += T::sum(block));
            sum
        }
    }
}
