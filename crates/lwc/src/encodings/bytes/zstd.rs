//! Byte-string `zstd`: the rows' bytes in blocks compressed by Zstandard at level 9. The layout and
//! operations are shared with byte-string `lz4` (see `blocks.rs`).

use super::bytes_blocks::BytesBlocks;
use super::zstd::ZstdCompressor;

/// The byte-string `zstd` encoding.
pub(crate) type BytesZstd = BytesBlocks<ZstdCompressor>;
