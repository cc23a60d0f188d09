//! Byte-string `lz4`: the rows' bytes in blocks compressed by LZ4. The layout and operations are shared
//! with byte-string `zstd` (see `blocks.rs`).

use super::bytes_blocks::BytesBlocks;
use super::lz4::Lz4Compressor;

/// The byte-string `lz4` encoding.
pub(crate) type BytesLz4 = BytesBlocks<Lz4Compressor>;
