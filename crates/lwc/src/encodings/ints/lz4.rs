//! `lz4`: blocks of 1,024 values compressed by LZ4 (the `lz4_flex` block format), the fast
//! heavyweight baseline. The block layout and operations are shared with `zstd` (see `blocks.rs`).

use super::blocks::{Blocks, ByteCompressor};
use crate::error::Result;
use crate::stats::Shape;

/// The calibration width whose values compress as runs of repeated values do (see
/// [`Lz4Compressor::cost_width`]).
const REPEATS_WIDTH: u32 = 4;

/// The `lz4` encoding: blocks of values, each compressed by [`Lz4Compressor`].
pub(crate) type Lz4 = Blocks<Lz4Compressor>;

pub(crate) struct Lz4Compressor;

impl ByteCompressor for Lz4Compressor {
    const NAME: &'static str = "lz4";
    // LZ4's block format has one level.
    const VALUES_LEVEL: i32 = 0;
    const TEXT_LEVEL: i32 = 0;

    /// LZ4 decodes at the speed of the matches it copies. Values repeated in runs (two rows a run and
    /// more) compress into many short ones, as the calibration's 4-bit values do: priced at their width
    /// (l_orderkey, runs of 1-7 rows of 23-bit keys, was priced at 0.06 ns a value and decoded at 4.2).
    fn cost_width(shape: &dyn Shape) -> u32 {
        let width = shape.range_bits().max(1);
        if shape.repeats() {
            width.min(REPEATS_WIDTH)
        } else {
            width
        }
    }

    #[cfg(feature = "lz4")]
    fn compress(raw: &[u8], _: i32, out: &mut Vec<u8>) -> Result<()> {
        out.extend_from_slice(&lz4_flex::block::compress(raw));
        Ok(())
    }

    #[cfg(feature = "lz4")]
    fn decompress(compressed: &[u8], raw: &mut [u8]) -> bool {
        lz4_flex::block::decompress_into(compressed, raw).is_ok_and(|n| n == raw.len())
    }

    #[cfg(feature = "lz4")]
    fn available() -> Result<()> {
        Ok(())
    }

    #[cfg(not(feature = "lz4"))]
    fn compress(_: &[u8], _: i32, _: &mut Vec<u8>) -> Result<()> {
        Self::available()
    }

    #[cfg(not(feature = "lz4"))]
    fn decompress(_: &[u8], _: &mut [u8]) -> bool {
        false
    }

    #[cfg(not(feature = "lz4"))]
    fn available() -> Result<()> {
        Err(crate::error::Error::Unsupported("lz4: lwc was built without its `lz4` feature".into()))
    }
}
