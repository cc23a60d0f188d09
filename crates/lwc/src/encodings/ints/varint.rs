//! `varint`: byte-aligned null suppression per value (VByte, seeds 000 and 004): each residual
//! `value - min` in LEB128 bytes, 7 bits a byte, so small values take one byte and outliers only the
//! bytes they need. The residual is taken in the unsigned domain, so signed types need no zigzag.
//!
//! Bytes: the reference (8, zero-extended bits), the length of the value bytes (u32), the byte offset of
//! every [`GROUP`]-th value (u32 each, 8-aligned), then the value bytes. `get` decodes forward from its
//! group's offset, O([`GROUP`]); 4 bytes per 128 values is 1/4 bit a value. Sorted `take` walks forward
//! through a group instead of starting over for each position.
//!
//! Filters and aggregates use the block-at-a-time defaults: the values have no fixed width to compare on.

use super::{Children, Encoder, OpenStream, StreamOps, read_value, value_bits};
use crate::stats::{Stats, Shape};
use crate::bytes::{Reader, Writer};
use crate::error::{Error, Result};
use crate::kernels::varint as kernel;
use crate::types::{LwcInt, Word};

/// Values per stored byte offset.
pub(crate) const GROUP: usize = 128;

/// What decoding a value costs in values a `get` skips over (see [`StreamOps::decode_cost`]).
const DECODE_COST: usize = 4;

pub(crate) struct Varint;

impl Encoder for Varint {
    fn pruned(shape: &dyn Shape) -> Option<&'static str> {
        (shape.range_bits() <= 8).then_some("values already fit 8 bits")
    }

    fn estimate<T: LwcInt>(values: &[T], stats: &Stats<T>, _: u32, _: &impl Children) -> Option<usize> {
        let bytes: usize = values.iter().map(|v| kernel::encoded_len(v.offset_from(stats.min).to_u64())).sum();
        // Reference, length, padding to the offsets, the offsets, the bytes.
        Some(8 + 4 + 4 + 4 * values.len().div_ceil(GROUP) + bytes)
    }

    fn encode<T: LwcInt>(values: &[T], stats: &Stats<T>, _: u32, _: &impl Children, out: &mut Writer) -> Result<()> {
        let mut bytes = Vec::new();
        let mut offsets = Vec::with_capacity(values.len().div_ceil(GROUP));
        for (i, v) in values.iter().enumerate() {
            if i % GROUP == 0 {
                offsets.push(u32::try_from(bytes.len()).map_err(|_| too_long(bytes.len()))?);
            }
            kernel::encode(v.offset_from(stats.min).to_u64(), &mut bytes);
        }
        out.u64(value_bits(stats.min));
        out.u32(u32::try_from(bytes.len()).map_err(|_| too_long(bytes.len()))?);
        out.array(&offsets);
        out.packed(|buf| buf.extend_from_slice(&bytes));
        Ok(())
    }
}

fn too_long(len: usize) -> Error {
    Error::InvalidArgument(format!("varint: {len} bytes of values exceed the 32-bit offsets"))
}

pub(crate) struct VarintView<'a, T: LwcInt> {
    reference: T,
    /// Byte offset of values `GROUP * g`, each within `bytes`.
    offsets: &'a [u32],
    bytes: &'a [u8],
    n: usize,
}

impl<'a, T: LwcInt> OpenStream<'a, T> for VarintView<'a, T> {
    fn open(r: &mut Reader<'a>, n: usize, _: usize) -> Result<Self> {
        let reference = read_value(r, "varint reference")?;
        let len = r.u32("varint byte length")? as usize;
        let offsets: &[u32] = r.array("varint group offsets", n.div_ceil(GROUP))?;
        let bytes = r.take("varint bytes", len)?;
        // Every value takes at least a byte: the bytes must hold each group's values.
        let ends = offsets.iter().skip(1).map(|&o| o as usize).chain(std::iter::once(len));
        for (g, (&start, end)) in offsets.iter().zip(ends).enumerate() {
            let count = (n - g * GROUP).min(GROUP);
            if (start as usize).checked_add(count).is_none_or(|need| need > end) {
                return Err(Error::Corrupt(format!("varint: group {g} at byte {start} cannot hold {count} values")));
            }
        }
        Ok(VarintView { reference, offsets, bytes, n })
    }
}

impl<'a, T: LwcInt> VarintView<'a, T> {
    /// Byte position of value `i`.
    #[inline(always)]
    fn position(&self, i: usize) -> usize {
        kernel::skip(self.bytes, self.offsets[i / GROUP] as usize, i % GROUP)
    }

    #[inline(always)]
    fn value_at(&self, pos: usize) -> T {
        T::add_offset(self.reference, T::Unsigned::from_u64(kernel::decode_one(self.bytes, pos).0))
    }
}

impl<T: LwcInt> StreamOps<T> for VarintView<'_, T> {
    fn len(&self) -> usize {
        self.n
    }

    fn decode_into(&self, start: usize, out: &mut [T]) {
        if out.is_empty() {
            return;
        }
        // Groups follow one another: one walk from the first value on.
        let out: &mut [T::Unsigned] = bytemuck::cast_slice_mut(out);
        kernel::decode(self.bytes, self.position(start), self.reference.to_bits(), out);
    }

    fn get(&self, i: usize) -> T {
        self.value_at(self.position(i))
    }

    fn get_cost(&self) -> usize {
        // Half a group's values skipped on average, from its byte offset.
        GROUP / 2
    }

    fn decode_cost(&self, rows: usize) -> usize {
        // A value decoded costs about four skipped: a take of 256 random values of 16,384 decoded them
        // all (240 ns a position) where their gets cost 60 ns each.
        rows.saturating_mul(DECODE_COST)
    }

    fn take_sorted_into(&self, positions: &[u32], out: &mut [T]) {
        // A cursor on value `at`, at byte `pos`: a later position in the same group skips forward from it.
        let (mut at, mut pos) = (usize::MAX, 0);
        for (o, &p) in out.iter_mut().zip(positions) {
            let p = p as usize;
            if at / GROUP == p / GROUP && at <= p {
                pos = kernel::skip(self.bytes, pos, p - at);
            } else {
                pos = self.position(p);
            }
            at = p;
            *o = self.value_at(pos);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encodings::{encode_stream, Encoding, StreamView};

    fn open<T: LwcInt>(bytes: &[u8], n: usize) -> Result<StreamView<'_, T>> {
        StreamView::open(&mut Reader::new(bytes), n)
    }

    fn encoded<T: LwcInt>(values: &[T]) -> crate::bytes::AlignedBytes {
        let mut w = Writer::new();
        encode_stream(values, &Encoding::Varint.into(), Default::default(), &mut w).unwrap();
        w.into_aligned()
    }

    #[test]
    fn extremes_and_group_edges() {
        let values: Vec<i64> = (0..700)
            .map(|i| {
                if i % 129 == 5 {
                    i64::MAX
                } else if i % 77 == 0 {
                    i64::MIN
                } else {
                    i * 1000
                }
            })
            .collect();
        let bytes = encoded(&values);
        let view = open::<i64>(&bytes, values.len()).unwrap();
        for (i, &v) in values.iter().enumerate() {
            assert_eq!(view.get(i), v, "get {i}");
        }
        let mut out = vec![0; 300];
        view.decode_into(127, &mut out);
        assert_eq!(out, values[127..427]);
        let positions: Vec<u32> = vec![0, 0, 5, 127, 128, 128, 129, 300, 301, 699, 699];
        let mut taken = vec![0; positions.len()];
        view.take_sorted_into(&positions, &mut taken);
        assert_eq!(taken, positions.iter().map(|&p| values[p as usize]).collect::<Vec<_>>());
        assert_eq!(view.sum(), values.iter().map(|&v| v as i128).sum::<i128>());
    }

    #[test]
    fn small_residuals_take_a_byte_each() {
        let values: Vec<u32> = (0..1024).map(|i| 1_000_000 + i % 100).collect();
        let bytes = encoded(&values);
        assert!(bytes.len() < 1024 + 64, "{} bytes", bytes.len());
        // A stream of values with residuals of one and of five bytes.
        let mixed: Vec<u64> = (0..1024).map(|i| if i % 10 == 0 { 1 << 34 } else { i % 100 }).collect();
        let view_bytes = encoded(&mixed);
        let view = open::<u64>(&view_bytes, mixed.len()).unwrap();
        let mut out = vec![0; mixed.len()];
        view.decode_into(0, &mut out);
        assert_eq!(out, mixed);
    }

    #[test]
    fn offsets_that_cannot_hold_their_group_are_corrupt() {
        let values: Vec<u16> = (0..300).collect();
        let bytes = encoded(&values);
        // id, reference (8), length (4), padding to 16, then the three offsets.
        let mut bad = bytes.to_vec();
        bad[20..24].copy_from_slice(&(u32::MAX - 3).to_le_bytes());
        let bad = crate::bytes::AlignedBytes::copy_from(&bad);
        assert!(matches!(open::<u16>(&bad, values.len()), Err(Error::Corrupt(_))));
        let mut short = bytes.to_vec();
        short[9..13].copy_from_slice(&200u32.to_le_bytes());
        let short = crate::bytes::AlignedBytes::copy_from(&short);
        assert!(open::<u16>(&short, values.len()).is_err());
    }
}
