//! `bytepack`: frame of reference truncated to whole bytes: `value - min` stored as `u8`, `u16`, `u32` or
//! `u64`, whichever is the smallest that holds `max - min` (Umbra's truncation; Hyrise's fsba plus a
//! reference). Byte-aligned, so get is one plain load and decode is a widening add.

use super::{Children, Encoder, OpenStream, StreamOps, read_value, value_bits};
use crate::stats::Stats;
use crate::bitmap::Bitmap;
use crate::bytes::{Reader, Writer};
use crate::error::{Error, Result};
use crate::kernels::{bitpack, scan};
use crate::types::{LwcInt, Word};

pub(crate) struct Bytepack;

/// Bytes per residual for a range of `bits` bits.
fn byte_width(bits: u32) -> usize {
    match bits {
        0..=8 => 1,
        9..=16 => 2,
        17..=32 => 4,
        _ => 8,
    }
}

impl Encoder for Bytepack {
    const SIZED_BY_STATS: bool = true;

    fn estimate<T: LwcInt>(values: &[T], stats: &Stats<T>, _: u32, _: &impl Children) -> Option<usize> {
        Some(16 + values.len() * byte_width(stats.range_bits()))
    }

    fn encode<T: LwcInt>(values: &[T], stats: &Stats<T>, _: u32, _: &impl Children, out: &mut Writer) -> Result<()> {
        let width = byte_width(stats.range_bits());
        out.u64(value_bits(stats.min));
        out.u8(width as u8);
        let residual = |v: &T| v.offset_from(stats.min).to_u64();
        match width {
            1 => out.array(&values.iter().map(|v| residual(v) as u8).collect::<Vec<_>>()),
            2 => out.array(&values.iter().map(|v| residual(v) as u16).collect::<Vec<_>>()),
            4 => out.array(&values.iter().map(|v| residual(v) as u32).collect::<Vec<_>>()),
            _ => out.array(&values.iter().map(residual).collect::<Vec<_>>()),
        }
        Ok(())
    }
}

/// `$body` with `$s` the view's residuals as a slice of their stored width.
macro_rules! with_residuals {
    ($view:expr, |$s:ident| $body:expr) => {{
        let bytes = $view.bytes;
        // The bytes are a slice of that width, so the casts keep its alignment and length.
        match $view.byte_shift {
            0 => {
                let $s: &[u8] = bytes;
                $body
            }
            1 => {
                let $s: &[u16] = bytemuck::cast_slice(bytes);
                $body
            }
            2 => {
                let $s: &[u32] = bytemuck::cast_slice(bytes);
                $body
            }
            _ => {
                let $s: &[u64] = bytemuck::cast_slice(bytes);
                $body
            }
        }
    }};
}

pub(crate) struct BytepackView<'a, T: LwcInt> {
    reference: T,
    /// The residuals' bytes, `log2` of the bytes of one and the mask of its bits: a lone read is one load
    /// whatever the width (see [`StreamOps::get`]). As small as the view was with a slice of each width.
    bytes: &'a [u8],
    byte_shift: u32,
    mask: u64,
}

impl<'a, T: LwcInt> OpenStream<'a, T> for BytepackView<'a, T> {
    fn open(r: &mut Reader<'a>, n: usize, _: usize) -> Result<Self> {
        let reference = read_value(r, "bytepack reference")?;
        let width = r.u8("bytepack byte width")? as usize;
        if width > size_of::<T>() {
            return Err(Error::Corrupt(format!("bytepack width {width} bytes exceeds the {}", T::TYPE)));
        }
        // Read at their width, so that they are checked as an array of it (length, alignment).
        let bytes: &[u8] = match width {
            1 => r.array::<u8>("bytepack residuals", n)?,
            2 => bytemuck::cast_slice(r.array::<u16>("bytepack residuals", n)?),
            4 => bytemuck::cast_slice(r.array::<u32>("bytepack residuals", n)?),
            8 => bytemuck::cast_slice(r.array::<u64>("bytepack residuals", n)?),
            _ => return Err(Error::Corrupt(format!("bytepack width {width} is not 1, 2, 4 or 8"))),
        };
        let mask = u64::MAX >> (64 - 8 * width);
        Ok(BytepackView { reference, bytes, byte_shift: width.trailing_zeros(), mask })
    }
}

impl<'a, T: LwcInt> BytepackView<'a, T> {
    #[inline(always)]
    fn value(&self, residual: u64) -> T {
        T::add_offset(self.reference, T::Unsigned::from_u64(residual))
    }

    /// The bytes from `at` on, fewer than 8 (the last residuals), and zeros. Cold and out of line: only
    /// the last few residuals need it, and `get` stays a load and a mask.
    #[cold]
    #[inline(never)]
    fn last_word(&self, at: usize) -> u64 {
        let rest = self.bytes.get(at..).unwrap_or_default();
        let (mut word, len) = ([0u8; 8], rest.len().min(8));
        word[..len].copy_from_slice(&rest[..len]);
        u64::from_le_bytes(word)
    }
}

impl<T: LwcInt> StreamOps<T> for BytepackView<'_, T> {
    fn len(&self) -> usize {
        self.bytes.len() >> self.byte_shift
    }

    fn decode_into(&self, start: usize, out: &mut [T]) {
        let end = start + out.len();
        let (base, out) = (self.reference.to_bits(), bytemuck::cast_slice_mut::<T, T::Unsigned>(out));
        with_residuals!(self, |s| bitpack::widen_offsets(&s[start..end], base, out))
    }

    /// One 8-byte load and a mask, not a match on the width: the segments of one column may store
    /// different widths, and the match, mispredicted from one get to the next, cost 7.5 ns a get where
    /// one width costs 2.5 (AMD EPYC Zen 5).
    fn get(&self, i: usize) -> T {
        let at = i << self.byte_shift;
        let word = match self.bytes.get(at..at + 8) {
            Some(word) => u64::from_le_bytes(word.try_into().expect("8 bytes")),
            None => self.last_word(at),
        };
        self.value(word & self.mask)
    }

    fn take_into(&self, positions: &[u32], out: &mut [T]) {
        with_residuals!(self, |s| {
            for (o, &p) in out.iter_mut().zip(positions) {
                *o = self.value(Word::to_u64(s[p as usize]));
            }
        })
    }

    fn filter_range(&self, lo: T, hi: T, out: &mut Bitmap) {
        // Rewrite into residual space, clipped to what the stored width can hold.
        let lo = lo.max(self.reference);
        if lo > hi {
            return;
        }
        let (lo, span) = (lo.offset_from(self.reference).to_u64(), hi.offset_from(lo).to_u64());
        with_residuals!(self, |s| {
            let max = low_mask_of(s);
            if lo <= max {
                let span = span.min(max - lo);
                scan::filter_range_plain(s, Word::from_u64(lo), Word::from_u64(span), out.words_mut());
            }
        })
    }

    fn sum(&self) -> i128 {
        let residuals = with_residuals!(self, |s| scan::sum_words(s));
        self.reference.to_i128() * self.len() as i128 + residuals as i128
    }
}

/// All bits of the residual word type of `s`.
fn low_mask_of<W: Word>(_: &[W]) -> u64 {
    W::MAX.to_u64()
}
