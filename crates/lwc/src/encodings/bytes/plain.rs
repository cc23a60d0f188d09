//! `plain` byte strings: every row's bytes back to back, and the end offset of every row as a child
//! stream of `u64` (ascending, so delta or frame of reference per block make them small). A row is
//! `data[end(i - 1) .. end(i)]`: any row is two offset reads away. Null rows take no bytes.
//!
//! Body: data length (u64), the ends stream (encoding id, body), the data (8-aligned).
//!
//! Opening reads no offset, so a lookup costs two gets however many rows there are; an offset that a
//! damaged stream puts past the data or before the previous one reads as an empty string rather than out
//! of bounds (the file layer's checksums catch damage).

use std::borrow::Cow;

use super::byte_strings::{row_bounds, row_span, row_spans, ByteProfile, BytesEncoder, BytesOps, OpenBytes, ENDS};
use super::{Cascade, Children, StreamOps, StreamView};
use crate::bytes::{Reader, Writer};
use crate::error::Result;

pub(crate) struct BytesPlain;

impl BytesEncoder for BytesPlain {
    const CHILDREN: &'static [&'static str] = &["ends"];

    fn estimate(profile: &ByteProfile<'_>, children: &impl Children) -> Option<usize> {
        Some(8 + children.estimate(0, &profile.row_ends(), ENDS)? + profile.total_bytes.next_multiple_of(8))
    }

    fn encode(profile: &ByteProfile<'_>, children: &impl Children, out: &mut Writer) -> Result<()> {
        out.u64(profile.total_bytes as u64);
        children.encode(0, &profile.row_ends(), ENDS, out)?;
        out.align();
        out.packed(|buf| profile.valid_rows().for_each(|row| buf.extend_from_slice(row)));
        Ok(())
    }
}

pub(crate) struct BytesPlainView<'a> {
    ends: StreamView<'a, u64>,
    data: &'a [u8],
}

impl<'a> OpenBytes<'a> for BytesPlainView<'a> {
    fn open(r: &mut Reader<'a>, n: usize, depth: usize) -> Result<Self> {
        let len = r.u64("plain bytes length")?;
        let ends = StreamView::open_nested(r, n, depth + 1)?;
        r.align("plain bytes")?;
        let data = r.take("plain bytes", usize::try_from(len).unwrap_or(usize::MAX))?;
        Ok(BytesPlainView { ends, data })
    }

    fn child_cascades(&self) -> Vec<Cascade> {
        vec![self.ends.cascade()]
    }
}

impl<'a> BytesOps<'a> for BytesPlainView<'a> {
    fn len(&self) -> usize {
        self.ends.len()
    }

    #[inline]
    fn get(&self, i: usize) -> Cow<'a, [u8]> {
        Cow::Borrowed(self.data.get(row_span(&self.ends, i)).unwrap_or(&[]))
    }

    fn decode_into(&self, range: std::ops::Range<usize>, out: &mut super::ByteArray) {
        if range.is_empty() {
            return;
        }
        // One decode of the ends (and the one before the range), then one copy of the bytes between.
        let ends = row_bounds(&self.ends, range.clone());
        let (first, last) = (ends[0] as usize, ends[range.len()] as usize);
        let whole = self.data.get(first..last).filter(|_| ends.windows(2).all(|w| w[0] <= w[1]));
        match whole {
            Some(bytes) => {
                let base = out.data.len() as u64;
                out.data.extend_from_slice(bytes);
                out.offsets.extend(ends[1..].iter().map(|&e| base + e - first as u64));
            }
            // Damaged offsets: row by row, each one clamped.
            None => range.for_each(|i| self.push_row(i, out)),
        }
    }

    fn take_into(&self, positions: &[u32], out: &mut super::ByteArray) {
        for span in row_spans(&self.ends, positions) {
            out.push(self.data.get(span).unwrap_or(&[]));
        }
    }
}
