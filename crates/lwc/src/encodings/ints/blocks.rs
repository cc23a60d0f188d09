//! What `lz4` and `zstd` share: the values cut into blocks of [`BLOCK`] values, each block's bytes
//! compressed on its own by a general-purpose byte compressor, so random access decompresses one block
//! (4 KiB of `u32`) rather than the segment. They are the heavyweight baselines of seeds 000 and 002, and
//! the last step of a cascade (`delta(zstd)`).
//!
//! Bytes: `u32` count of blocks, then (8-aligned) one `u32` end offset per block into the compressed
//! data, then the compressed blocks back to back.
//!
//! Validation at open checks the block table, not the compressed bytes: decompressing everything would
//! make opening as slow as a full decode. A block that fails to decompress, or decompresses short, reads
//! as zeros: answers on corrupt data may be wrong (the file layer's checksums catch that), but reading
//! never panics and never leaves the block.

use std::marker::PhantomData;

use super::{Children, Encoder, OpenStream, StreamOps};
use crate::bytes::{Reader, Writer};
use crate::error::{Error, Result};
use crate::kernels::bitpack::BLOCK;
use crate::stats::{Shape, Stats};
use crate::types::LwcInt;

/// A byte compressor that works one block at a time.
pub(crate) trait ByteCompressor {
    /// Its name, for messages.
    const NAME: &'static str;
    /// The level blocks of values are compressed at: the compressor's usual trade of speed for size.
    const VALUES_LEVEL: i32;
    /// The level blocks of text are compressed at. Only the `size` objective picks block-compressed text,
    /// so it may cost more time: zstd's level 9 stores TPC-H comments 12 % smaller than its level 3.
    const TEXT_LEVEL: i32;
    /// Appends the compressed form of `raw` to `out`, at `level` (where the compressor has levels).
    fn compress(raw: &[u8], level: i32, out: &mut Vec<u8>) -> Result<()>;
    /// Fills `raw` from `compressed`; false if the bytes do not decompress to exactly `raw.len()` bytes.
    fn decompress(compressed: &[u8], raw: &mut [u8]) -> bool;
    /// Whether this build can decompress (the compressor is a cargo feature of lwc).
    fn available() -> Result<()>;
    /// The width (bits) the cost model prices blocks of values of this shape at: the values' own width
    /// unless the compressor's work follows something else.
    fn cost_width(shape: &dyn Shape) -> u32 {
        shape.range_bits().max(1)
    }
}

/// Compressed blocks as stored: the count (u32), then (8-aligned) one `u32` end offset per block into the
/// compressed data, then the blocks back to back. What the integer and byte-string block encodings share.
pub(crate) struct BlockTable<'a> {
    ends: &'a [u32],
    data: &'a [u8],
}

impl<'a> BlockTable<'a> {
    /// Writes the table of compressed blocks ending at `ends` in `data`.
    pub fn write(ends: &[u32], data: &[u8], out: &mut Writer) {
        out.u32(ends.len() as u32);
        out.array(ends);
        out.packed(|buf| buf.extend_from_slice(data));
    }

    /// Reads a table that must hold `blocks` blocks (`of` says of what, for the message).
    pub fn read<C: ByteCompressor>(r: &mut Reader<'a>, blocks: usize, of: impl std::fmt::Display) -> Result<Self> {
        let count = r.u32("compressed block count")? as usize;
        if count != blocks {
            return Err(Error::Corrupt(format!("{}: {count} blocks for {of}", C::NAME)));
        }
        let ends: &[u32] = r.array("compressed block ends", count)?;
        if ends.windows(2).any(|w| w[0] > w[1]) {
            return Err(Error::Corrupt(format!("{}: block ends are not ascending", C::NAME)));
        }
        let data = r.take("compressed blocks", ends.last().map_or(0, |&e| e as usize))?;
        Ok(BlockTable { ends, data })
    }

    /// Blocks in the table.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Fills `raw` with block `k` decompressed (zeros if the block is damaged or decompresses short).
    pub fn decompress<C: ByteCompressor>(&self, k: usize, raw: &mut [u8]) {
        let start = if k == 0 { 0 } else { self.ends[k - 1] as usize };
        if !C::decompress(&self.data[start..self.ends[k] as usize], raw) {
            raw.fill(0);
        }
    }
}

/// The encoder of a [`ByteCompressor`]'s blocks.
pub(crate) struct Blocks<C>(PhantomData<C>);

impl<C: ByteCompressor> Encoder for Blocks<C> {
    fn cost_width(shape: &dyn Shape) -> u32 {
        C::cost_width(shape)
    }

    /// A lookup decompresses a whole block.
    fn lines(_: u32, _: u32) -> f64 {
        (BLOCK * 8) as f64 / crate::select::CACHE_LINE
    }

    /// A take decompresses each block once for all of its positions: at one row in `TAKE_SPACING`,
    /// `BLOCK / TAKE_SPACING` of them share the block's lines. Charged a block's lines each, takes were
    /// priced at up to 3.6x what they took, by how a calibration happened to measure the latency of
    /// reads just past L1 (`lwc-bench costs`, AMD EPYC Zen 5).
    fn take_lines(parameter: u32, width: u32) -> f64 {
        Self::lines(parameter, width) * crate::select::TAKE_SPACING as f64 / BLOCK as f64
    }

    /// Every lookup decompresses a block.
    const RANDOM_ACCESS: bool = false;

    /// Compresses for real: there is no cheaper honest estimate of a general-purpose compressor. `Auto`
    /// runs it (on a sample) only for objectives without lookups.
    fn estimate<T: LwcInt>(values: &[T], stats: &Stats<T>, parameter: u32, children: &impl Children) -> Option<usize> {
        let mut out = Writer::new();
        Self::encode(values, stats, parameter, children, &mut out).ok()?;
        Some(out.len())
    }

    fn encode<T: LwcInt>(values: &[T], _: &Stats<T>, _: u32, _: &impl Children, out: &mut Writer) -> Result<()> {
        let mut ends = Vec::with_capacity(values.len().div_ceil(BLOCK));
        let mut data = Vec::new();
        for block in values.chunks(BLOCK) {
            C::compress(bytemuck::cast_slice(block), C::VALUES_LEVEL, &mut data)?;
            let end = u32::try_from(data.len())
                .map_err(|_| Error::InvalidArgument(format!("{}: over 4 GiB compressed", C::NAME)))?;
            ends.push(end);
        }
        BlockTable::write(&ends, &data, out);
        Ok(())
    }
}

/// A validated view over compressed blocks.
pub(crate) struct BlocksView<'a, T, C> {
    n: usize,
    table: BlockTable<'a>,
    values: PhantomData<(T, C)>,
}

impl<'a, T: LwcInt, C: ByteCompressor> OpenStream<'a, T> for BlocksView<'a, T, C> {
    fn open(r: &mut Reader<'a>, n: usize, _: usize) -> Result<Self> {
        C::available()?;
        let table = BlockTable::read::<C>(r, n.div_ceil(BLOCK), format_args!("{n} values"))?;
        Ok(BlocksView { n, table, values: PhantomData })
    }
}

impl<'a, T: LwcInt, C: ByteCompressor> BlocksView<'a, T, C> {
    /// Decompresses block `b` into `out` (the block's length; zeros if the block is corrupt).
    fn decode_block(&self, b: usize, out: &mut [T]) {
        self.table.decompress::<C>(b, bytemuck::cast_slice_mut(out));
    }

    /// Values in block `b`.
    fn block_len(&self, b: usize) -> usize {
        (self.n - b * BLOCK).min(BLOCK)
    }

    /// Reads each position from its block, keeping the last block decompressed, so positions that stay in a
    /// block decompress it once.
    fn take_by_block(&self, positions: &[u32], out: &mut [T]) {
        let mut buf = [T::default(); BLOCK];
        let mut current = usize::MAX;
        for (o, &p) in out.iter_mut().zip(positions) {
            let b = p as usize / BLOCK;
            if b != current {
                self.decode_block(b, &mut buf[..self.block_len(b)]);
                current = b;
            }
            *o = buf[p as usize % BLOCK];
        }
    }
}

impl<T: LwcInt, C: ByteCompressor> StreamOps<T> for BlocksView<'_, T, C> {
    fn len(&self) -> usize {
        self.n
    }

    fn decode_into(&self, start: usize, out: &mut [T]) {
        let (mut at, mut rest) = (start, out);
        while !rest.is_empty() {
            let (b, offset) = (at / BLOCK, at % BLOCK);
            let len = self.block_len(b);
            let take = (len - offset).min(rest.len());
            let (head, tail) = rest.split_at_mut(take);
            if offset == 0 && take == len {
                self.decode_block(b, head); // a whole block goes straight to the output
            } else {
                // Made here, not before the loop: zeroing it cost each decode of whole blocks (a take's
                // windows) a 4 KiB fill for nothing.
                let mut buf = [T::default(); BLOCK];
                self.decode_block(b, &mut buf[..len]);
                head.copy_from_slice(&buf[offset..offset + take]);
            }
            at += take;
            rest = tail;
        }
    }

    // Out of line: the block buffer would otherwise give every dispatched `get` (a lone row of any
    // encoding) a stack frame of pages to probe.
    #[inline(never)]
    fn get(&self, i: usize) -> T {
        let mut buf = [T::default(); BLOCK];
        let b = i / BLOCK;
        self.decode_block(b, &mut buf[..self.block_len(b)]);
        buf[i % BLOCK]
    }

    fn get_cost(&self) -> usize {
        BLOCK // a block decompressed
    }

    /// A list longer than the stream has blocks decompresses everything once and gathers: read block by
    /// block, an unsorted list would decompress about one block per position.
    fn take_into(&self, positions: &[u32], out: &mut [T]) {
        if positions.len() <= self.table.len() {
            return self.take_by_block(positions, out);
        }
        let mut all = vec![T::default(); self.n];
        self.decode_into(0, &mut all);
        for (o, &p) in out.iter_mut().zip(positions) {
            *o = all[p as usize];
        }
    }

    /// Sorted, each block is decompressed at most once whatever the list's length.
    fn take_sorted_into(&self, positions: &[u32], out: &mut [T]) {
        self.take_by_block(positions, out)
    }
}

#[cfg(all(test, feature = "lz4", feature = "zstd"))]
mod tests {
    use crate::bytes::{Reader, Writer};
    use crate::encodings::{encode_stream, Encoding, StreamOps, StreamView};

    /// A repetitive series compresses far below its plain size, and reads back block by block.
    #[test]
    fn repetitive_data_compresses_and_reads_back() {
        let values: Vec<u64> = (0..10_000u64).map(|i| 1_700_000_000 + (i % 7) * 1000).collect();
        for encoding in [Encoding::Lz4, Encoding::Zstd] {
            let mut w = Writer::new();
            encode_stream(&values, &encoding.into(), Default::default(), &mut w).unwrap();
            let bytes = w.into_aligned();
            assert!(bytes.len() * 10 < values.len() * 8, "{encoding}: {} bytes", bytes.len());
            let view = StreamView::<u64>::open(&mut Reader::new(&bytes), values.len()).unwrap();
            assert_eq!(view.get(9_999), values[9_999]);
            let mut out = vec![0; 3000];
            view.decode_into(1000, &mut out);
            assert_eq!(out, values[1000..4000]);
            let positions = [9_999u32, 0, 5_000, 5_001];
            let mut taken = [0; 4];
            view.take_into(&positions, &mut taken);
            assert_eq!(taken, positions.map(|p| values[p as usize]));
        }
    }
}
