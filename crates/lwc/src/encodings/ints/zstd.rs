//! `zstd`: blocks of 1,024 values compressed by Zstandard at level 3 (its default), the compact
//! heavyweight baseline. The block layout and operations are shared with `lz4` (see `blocks.rs`).
//!
//! Compression and decompression contexts are costly to create (hundreds of KiB each), and one block is
//! only a few KiB: each thread keeps one of each.

use super::blocks::{Blocks, ByteCompressor};
use crate::error::Result;

/// The `zstd` encoding: blocks of values, each compressed by [`ZstdCompressor`].
pub(crate) type Zstd = Blocks<ZstdCompressor>;

pub(crate) struct ZstdCompressor;

#[cfg(feature = "zstd")]
thread_local! {
    static COMPRESSOR: std::cell::RefCell<Option<zstd::bulk::Compressor<'static>>> = const { std::cell::RefCell::new(None) };
    static DECOMPRESSOR: std::cell::RefCell<Option<zstd::bulk::Decompressor<'static>>> = const { std::cell::RefCell::new(None) };
}

impl ByteCompressor for ZstdCompressor {
    const NAME: &'static str = "zstd";
    // zstd's default.
    const VALUES_LEVEL: i32 = 3;
    const TEXT_LEVEL: i32 = 9;

    #[cfg(feature = "zstd")]
    fn compress(raw: &[u8], level: i32, out: &mut Vec<u8>) -> Result<()> {
        let failed = |e: std::io::Error| crate::error::Error::InvalidArgument(format!("zstd: {e}"));
        COMPRESSOR.with_borrow_mut(|slot| {
            let compressor = match slot {
                Some(c) => c,
                None => slot.insert(zstd::bulk::Compressor::new(level).map_err(failed)?),
            };
            compressor.set_compression_level(level).map_err(failed)?;
            out.extend_from_slice(&compressor.compress(raw).map_err(failed)?);
            Ok(())
        })
    }

    #[cfg(feature = "zstd")]
    fn decompress(compressed: &[u8], raw: &mut [u8]) -> bool {
        DECOMPRESSOR.with_borrow_mut(|slot| {
            let decompressor = match slot {
                Some(d) => d,
                None => match zstd::bulk::Decompressor::new() {
                    Ok(d) => slot.insert(d),
                    Err(_) => return false,
                },
            };
            decompressor.decompress_to_buffer(compressed, raw).is_ok_and(|n| n == raw.len())
        })
    }

    #[cfg(feature = "zstd")]
    fn available() -> Result<()> {
        Ok(())
    }

    #[cfg(not(feature = "zstd"))]
    fn compress(_: &[u8], _: i32, _: &mut Vec<u8>) -> Result<()> {
        Self::available()
    }

    #[cfg(not(feature = "zstd"))]
    fn decompress(_: &[u8], _: &mut [u8]) -> bool {
        false
    }

    #[cfg(not(feature = "zstd"))]
    fn available() -> Result<()> {
        Err(crate::error::Error::Unsupported("zstd: lwc was built without its `zstd` feature".into()))
    }
}
