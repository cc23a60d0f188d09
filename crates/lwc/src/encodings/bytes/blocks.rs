//! What byte-string `lz4` and `zstd` share: the non-null rows' bytes back to back, cut into blocks of
//! [`BLOCK_BYTES`] that are compressed each on its own by a general-purpose compressor, and the end offset
//! of every row as a child stream of `u64` (as `plain`'s). A row may straddle two blocks, a long one span
//! many; reading it decompresses the blocks it touches, so a lookup costs a block's decompression. These
//! are seed 003's heavyweight candidates: only the `size` objective picks them, for text that zstd stores
//! a quarter smaller than FSST does (TPC-H's comments), at the price of random access.
//!
//! Body: data length (u64), the ends stream (encoding id, body), then the block table as the integer block
//! encodings store it: block count (u32), then (8-aligned) one `u32` end offset per block into the
//! compressed data, then the compressed blocks back to back.
//!
//! Opening checks the block table against the data length. A block that fails to decompress reads as
//! zeros, and ends that a damaged stream puts past the data or before the previous end read as an empty
//! row: answers on damaged data may be wrong (the file layer's checksums catch that), but reading never
//! panics and never leaves the stream.

use std::borrow::Cow;
use std::marker::PhantomData;
use std::ops::Range;

use super::blocks::{BlockTable, ByteCompressor};
use super::byte_strings::{
    row_bounds, row_span, row_spans, ByteArray, ByteProfile, BytesEncoder, BytesOps, BytesTest, Extremes, OpenBytes,
    ENDS,
};
use super::{Cascade, Children, StreamOps, StreamView};
use crate::bitmap::Bitmap;
use crate::bytes::{Reader, Writer};
use crate::error::{Error, Result};
use crate::selection::Selection;

/// Uncompressed bytes per block: zstd at level 9 stores TPC-H comments within 2 % of what it does with
/// whole 1.7 MB segments, while a lookup decompresses 128 KiB rather than the segment.
pub(crate) const BLOCK_BYTES: usize = 128 << 10;

/// Blocks compressed for an estimate: one from a quarter and one from three quarters of the way.
const ESTIMATE_BLOCKS: usize = 2;

/// The encoder of byte strings in blocks compressed by `C`.
pub(crate) struct BytesBlocks<C>(PhantomData<C>);

/// Calls `f` with each block of the non-null rows' bytes back to back, in order.
fn for_each_block(profile: &ByteProfile<'_>, mut f: impl FnMut(&[u8]) -> Result<()>) -> Result<()> {
    let mut block = Vec::with_capacity(BLOCK_BYTES.min(profile.total_bytes));
    for mut row in profile.valid_rows() {
        while !row.is_empty() {
            let (head, tail) = row.split_at((BLOCK_BYTES - block.len()).min(row.len()));
            block.extend_from_slice(head);
            row = tail;
            if block.len() == BLOCK_BYTES {
                f(&block)?;
                block.clear();
            }
        }
    }
    if !block.is_empty() {
        f(&block)?;
    }
    Ok(())
}

/// Block `k` of the rows' bytes back to back (`ends` from [`ByteProfile::row_ends`]).
fn block_at(profile: &ByteProfile<'_>, ends: &[u64], k: usize) -> Vec<u8> {
    let span = k * BLOCK_BYTES..((k + 1) * BLOCK_BYTES).min(profile.total_bytes);
    let mut block = Vec::with_capacity(span.len());
    let first = ends.partition_point(|&end| end as usize <= span.start);
    for i in first..profile.rows.len() {
        let start = if i == 0 { 0 } else { ends[i - 1] as usize };
        if start >= span.end {
            break;
        }
        let row = &profile.rows[i][..(ends[i] as usize - start)];
        let (from, to) = (span.start.max(start) - start, span.end.min(ends[i] as usize) - start);
        block.extend_from_slice(&row[from..to]);
    }
    block
}

/// Bytes of a block table for `blocks` blocks: the count, then the 8-aligned ends.
fn table_bytes(blocks: usize) -> usize {
    (4 + 4 * blocks).next_multiple_of(8)
}

impl<C: ByteCompressor> BytesEncoder for BytesBlocks<C> {
    const CHILDREN: &'static [&'static str] = &["ends"];
    /// A lookup decompresses the row's block.
    const LINES: f64 = BLOCK_BYTES as f64 / crate::select::CACHE_LINE;
    const RANDOM_ACCESS: bool = false;

    /// Compresses for real, as the integer block compressors do, but at most [`ESTIMATE_BLOCKS`] blocks,
    /// scaled to the data.
    fn estimate(profile: &ByteProfile<'_>, children: &impl Children) -> Option<usize> {
        let ends = profile.row_ends();
        let blocks = profile.total_bytes.div_ceil(BLOCK_BYTES);
        let mut compressed = Vec::new();
        let data = if blocks <= ESTIMATE_BLOCKS {
            for_each_block(profile, |block| C::compress(block, C::TEXT_LEVEL, &mut compressed)).ok()?;
            compressed.len()
        } else {
            let mut raw = 0;
            for q in 0..ESTIMATE_BLOCKS {
                let block = block_at(profile, &ends, (2 * q + 1) * blocks / (2 * ESTIMATE_BLOCKS));
                raw += block.len();
                C::compress(&block, C::TEXT_LEVEL, &mut compressed).ok()?;
            }
            (compressed.len() as f64 / raw.max(1) as f64 * profile.total_bytes as f64) as usize
        };
        Some(8 + children.estimate(0, &ends, ENDS)? + table_bytes(blocks) + data.next_multiple_of(8))
    }

    fn encode(profile: &ByteProfile<'_>, children: &impl Children, out: &mut Writer) -> Result<()> {
        let (mut block_ends, mut data) = (Vec::new(), Vec::new());
        for_each_block(profile, |block| {
            C::compress(block, C::TEXT_LEVEL, &mut data)?;
            let end = u32::try_from(data.len())
                .map_err(|_| Error::InvalidArgument(format!("{}: over 4 GiB compressed", C::NAME)))?;
            block_ends.push(end);
            Ok(())
        })?;
        out.u64(profile.total_bytes as u64);
        children.encode(0, &profile.row_ends(), ENDS, out)?;
        BlockTable::write(&block_ends, &data, out);
        Ok(())
    }
}

/// A validated view over byte strings in compressed blocks.
pub(crate) struct BytesBlocksView<'a, C> {
    ends: StreamView<'a, u64>,
    /// Uncompressed bytes of all rows.
    len: usize,
    blocks: BlockTable<'a>,
    compressor: PhantomData<C>,
}

impl<'a, C: ByteCompressor> OpenBytes<'a> for BytesBlocksView<'a, C> {
    fn open(r: &mut Reader<'a>, n: usize, depth: usize) -> Result<Self> {
        C::available()?;
        let len = usize::try_from(r.u64("compressed bytes length")?).unwrap_or(usize::MAX);
        let ends = StreamView::open_nested(r, n, depth + 1)?;
        let blocks = BlockTable::read::<C>(r, len.div_ceil(BLOCK_BYTES), format_args!("{len} bytes"))?;
        Ok(BytesBlocksView { ends, len, blocks, compressor: PhantomData })
    }

    fn child_cascades(&self) -> Vec<Cascade> {
        vec![self.ends.cascade()]
    }
}

/// Decompressed blocks `first ..` of a view, kept while reads stay inside them: rows read in order
/// decompress each block once.
struct Window {
    first: usize,
    bytes: Vec<u8>,
}

impl Window {
    fn new() -> Window {
        Window { first: 0, bytes: Vec::new() }
    }

    /// The bytes at `span` of the rows back to back (inside the data: callers check).
    fn read<C: ByteCompressor>(&mut self, view: &BytesBlocksView<'_, C>, span: Range<usize>) -> &[u8] {
        if span.is_empty() {
            return &[];
        }
        let base = self.first * BLOCK_BYTES;
        if span.start < base || span.end > base + self.bytes.len() {
            // Blocks already decompressed from the new first on are kept (a row straddling two blocks).
            let (first, held) = (span.start / BLOCK_BYTES, self.bytes.len().div_ceil(BLOCK_BYTES));
            let mut next = first;
            if (self.first..self.first + held).contains(&first) {
                self.bytes.drain(..(first - self.first) * BLOCK_BYTES);
                next = self.first + held;
            } else {
                self.bytes.clear();
            }
            self.first = first;
            for k in next..=(span.end - 1) / BLOCK_BYTES {
                view.decompress_block(k, &mut self.bytes);
            }
        }
        let base = self.first * BLOCK_BYTES;
        &self.bytes[span.start - base..span.end - base]
    }
}

impl<C: ByteCompressor> BytesBlocksView<'_, C> {
    /// Appends block `k` decompressed to `out` (zeros if the block is damaged).
    fn decompress_block(&self, k: usize, out: &mut Vec<u8>) {
        let (raw, at) = ((self.len - k * BLOCK_BYTES).min(BLOCK_BYTES), out.len());
        out.resize(at + raw, 0);
        self.blocks.decompress::<C>(k, &mut out[at..]);
    }

    /// Row `i`'s span in the bytes back to back; empty where damaged ends leave the data.
    fn span(&self, i: usize) -> Range<usize> {
        self.inside(row_span(&self.ends, i))
    }

    /// `span`, or nothing where damaged ends leave the data.
    fn inside(&self, span: Range<usize>) -> Range<usize> {
        Some(span).filter(|s| s.start <= s.end && s.end <= self.len).unwrap_or(0..0)
    }

    /// Calls `f(i, bytes)` for every row in order, reading the ends a block at a time.
    fn for_each_row(&self, mut f: impl FnMut(usize, &[u8])) {
        let (mut window, mut ends, mut previous) = (Window::new(), vec![0u64; 1024], 0usize);
        for start in (0..self.len()).step_by(1024) {
            let ends = &mut ends[..(self.len() - start).min(1024)];
            self.ends.decode_into(start, ends);
            for (k, &end) in ends.iter().enumerate() {
                let end = end as usize;
                let span = if previous <= end && end <= self.len { previous..end } else { 0..0 };
                f(start + k, window.read(self, span));
                previous = end;
            }
        }
    }
}

impl<'a, C: ByteCompressor> BytesOps<'a> for BytesBlocksView<'a, C> {
    fn len(&self) -> usize {
        self.ends.len()
    }

    fn get(&self, i: usize) -> Cow<'a, [u8]> {
        Cow::Owned(Window::new().read(self, self.span(i)).to_vec())
    }

    fn decode_into(&self, range: Range<usize>, out: &mut ByteArray) {
        if range.is_empty() {
            return;
        }
        let ends = row_bounds(&self.ends, range.clone());
        let (first, last) = (ends[0] as usize, ends[range.len()] as usize);
        if last > self.len || ends.windows(2).any(|w| w[0] > w[1]) {
            return range.for_each(|i| self.push_row(i, out)); // damaged: row by row, each one clamped
        }
        let base = out.data.len() as u64;
        out.data.extend_from_slice(Window::new().read(self, first..last));
        out.offsets.extend(ends[1..].iter().map(|&e| base + e - first as u64));
    }

    /// Rows are read in the order of their bytes, so each block is decompressed once however the
    /// positions are ordered, then put in the order asked for.
    fn take_into(&self, positions: &[u32], out: &mut ByteArray) {
        let mut order: Vec<usize> = (0..positions.len()).collect();
        if !positions.is_sorted() {
            order.sort_unstable_by_key(|&k| positions[k]);
        }
        let spans = row_spans(&self.ends, positions);
        let mut window = Window::new();
        let mut sorted = ByteArray::with_capacity(positions.len());
        let mut at = vec![0usize; positions.len()];
        for (rank, &k) in order.iter().enumerate() {
            sorted.push(window.read(self, self.inside(spans[k].clone())));
            at[k] = rank;
        }
        for &rank in &at {
            out.push(sorted.get(rank).expect("no validity"));
        }
    }

    fn filter(&self, test: &BytesTest<'_>, out: &mut Bitmap) {
        self.for_each_row(|i, row| {
            if test.matches(row) {
                out.set(i);
            }
        });
    }

    fn min_max(&self, selection: &Selection) -> Option<Extremes<'a>> {
        let mut window = Window::new();
        let mut extremes: Option<(Vec<u8>, Vec<u8>)> = None;
        for i in selection.iter() {
            let row = window.read(self, self.span(i as usize));
            match &mut extremes {
                None => extremes = Some((row.to_vec(), row.to_vec())),
                Some((lo, _)) if row < lo.as_slice() => *lo = row.to_vec(),
                Some((_, hi)) if row > hi.as_slice() => *hi = row.to_vec(),
                Some(_) => {}
            }
        }
        extremes.map(|(lo, hi)| (Cow::Owned(lo), Cow::Owned(hi)))
    }
}

#[cfg(all(test, feature = "lz4", feature = "zstd"))]
mod tests {
    use super::BLOCK_BYTES;
    use crate::strings::{encode_bytes_segment, BytesPredicate, BytesSegment, BytesType};
    use crate::{Bitmap, Encoding, Predicate, Selection};

    /// Rows over several blocks, one of them longer than two blocks, with nulls: every read and filter
    /// agrees with the rows, whichever blocks a row straddles and in whatever order rows are asked for.
    #[test]
    fn rows_straddling_blocks_read_back() {
        let mut rows: Vec<Vec<u8>> =
            (0..9_000).map(|i| format!("comment {i} of {}", i * 7 % 1000).into_bytes()).collect();
        rows[4_000] = (0..2 * BLOCK_BYTES + 17).map(|i| (i % 251) as u8).collect();
        let valid: Vec<bool> = (0..rows.len()).map(|i| i % 97 != 5).collect();
        let refs: Vec<&[u8]> = rows.iter().map(|r| r.as_slice()).collect();
        let validity = Bitmap::from_bools(&valid);
        let want: Vec<Option<Vec<u8>>> = rows.iter().zip(&valid).map(|(r, &v)| v.then(|| r.clone())).collect();
        for encoding in [Encoding::BytesZstd, Encoding::BytesLz4] {
            let encoded = encode_bytes_segment(&refs, Some(&validity), BytesType::Binary, encoding).unwrap();
            assert!(encoded.len() < refs.iter().map(|r| r.len()).sum::<usize>() / 2, "{encoding}");
            let segment = BytesSegment::open(&encoded).unwrap();
            assert_eq!(segment.decode_all().to_options(), want, "{encoding}");
            for i in [0, 1, 3_999, 4_000, 4_001, 8_999] {
                assert_eq!(segment.get(i).unwrap().as_deref(), want[i].as_deref(), "{encoding} get({i})");
            }
            let positions: Vec<u32> = (0..9_000).rev().step_by(7).chain([4_000, 0, 4_000]).collect();
            let taken = segment.take(&positions).unwrap().to_options();
            assert!(positions.iter().zip(&taken).all(|(&p, t)| *t == want[p as usize]), "{encoding} take");
            let range = segment.decode(3_990..4_010).unwrap().to_options();
            assert_eq!(range, want[3_990..4_010], "{encoding} range");
            let prefix = segment.filter(&BytesPredicate::StartsWith(b"comment 12".to_vec()));
            let expected: Vec<u32> = (0..9_000u32)
                .filter(|&i| want[i as usize].as_ref().is_some_and(|r| r.starts_with(b"comment 12")))
                .collect();
            assert_eq!(prefix.iter().collect::<Vec<_>>(), expected, "{encoding} prefix");
            let equal = segment.filter(&Predicate::Eq(rows[8_000].clone()).into());
            assert_eq!(equal.iter().collect::<Vec<_>>(), vec![8_000], "{encoding} =");
            let some = Selection::Positions(vec![3, 4_000, 8_999]);
            let aggregates = segment.aggregate(Some(&some)).unwrap();
            let picked = [&rows[3], &rows[4_000], &rows[8_999]];
            assert_eq!(aggregates.min.as_ref(), picked.iter().min().copied(), "{encoding} min");
            assert_eq!(aggregates.max.as_ref(), picked.iter().max().copied(), "{encoding} max");
        }
    }
}
