//! # lwc: lightweight columnar compression you can compute on
//!
//! lwc stores integer columns (`u8` … `u64`, `i8` … `i64`, with NULLs) in segments of up to 65,536 rows,
//! each compressed with a light encoding (`plain`, `constant`, `sequence`, `bitpack`, `bytepack`, `for`,
//! `for_n`, `pfor`, `delta`, `delta2`, `dict`, `rle`, `varint`, `gcd`; `lz4` and `zstd` as heavyweight
//! baselines, `radix`), floats (`f32`, `f64`) through their order-preserving integer latents and the float
//! encodings `alp` (decimals as integer digits), `alp_rd` and `narrow`, byte strings through `dict`,
//! `dict_fsst`, `fsst`, `plain` and `lz4`/`zstd` blocks ([`strings`]), child streams encoded in turn (cascades such as `rle(sequence, sequence)`), and kept
//! queryable as it is: a segment answers point lookups in O(1) where the encoding allows, gathers by position
//! lists, range decodes, predicate filters evaluated on the encoded form (min/max skipping, constants
//! rewritten into frame-of-reference or dictionary code space, packed blocks compared in L1), and
//! aggregates without materializing the column (for floats, filter and aggregate in one pass:
//! [`Column::filter_aggregate`]).
//!
//! ```
//! use lwc::{Column, EncodeOptions, EncodedColumn, Encoding, Predicate};
//!
//! // Encode 100,000 sensor readings with frame of reference.
//! let values: Vec<u32> = (0..100_000).map(|i| 1_000_000 + (i * 7919) % 4096).collect();
//! let encoded = EncodedColumn::encode(&values, None, EncodeOptions::with_encoding(Encoding::For))?;
//! assert!(encoded.as_bytes().len() < values.len() * 4 / 2); // 12-bit residuals instead of 32 bits
//!
//! // Bytes out, bytes in: opening validates once, reading then works in place.
//! let stored: Vec<u8> = encoded.as_bytes().to_vec();
//! let reopened = EncodedColumn::from_bytes(&stored);
//! let column: Column<u32> = reopened.open()?;
//!
//! assert_eq!(column.get(70_000)?, Some(values[70_000]));
//! let picked = column.take(&[5, 99_999, 17])?;
//! assert_eq!(picked.values, vec![values[5], values[99_999], values[17]]);
//!
//! // Filter and aggregate on the encoded data.
//! let hot = column.filter(&Predicate::Gt(1_004_000));
//! let stats = column.aggregate(Some(&hot))?;
//! assert_eq!(stats.count as usize, values.iter().filter(|&&v| v > 1_004_000).count());
//! assert_eq!(stats.sum, values.iter().filter(|&&v| v > 1_004_000).map(|&v| v as i128).sum::<i128>());
//! # Ok::<(), lwc::Error>(())
//! ```
//!
//! Layers, bottom up: [`kernels`] (pure functions over slices, the only `unsafe`), [`encodings`] (one
//! file each, same operation set), [`segment`] (header, validity, zone map, dispatch), [`column`](mod@column)
//! (segments behind global row ids).

#![warn(missing_docs)]
// `unsafe` lives in the kernels only (each block with a SAFETY comment and a test that hits its bounds).
#![deny(unsafe_code)]

pub mod bitmap;
pub mod bytes;
pub mod calibrate;
pub mod column;
pub mod encodings;
pub mod error;
mod hashing;
#[allow(unsafe_code)]
pub mod kernels;
pub mod predicate;
pub mod segment;
pub mod select;
pub mod selection;
pub(crate) mod stats;
pub mod strings;
pub mod types;

pub use bitmap::Bitmap;
pub use bytes::AlignedBytes;
pub use column::{Column, ColumnBuilder, ColumnSelection, EncodedColumn, SelectionPart};
pub use encodings::{
    ByteArray, Cascade, ChildReads, Encoding, EncodingId, Family, Parameter, Requirement, MAX_CASCADE_DEPTH,
};
pub use error::{Error, Result};
pub use predicate::{Predicate, ZoneVerdict};
pub use segment::{
    encode_segment, encode_segment_after, fill_nulls, sequence_segment, Aggregates, Array, EncodeOptions,
    EncodedSegment, Segment, SegmentChoice, DEFAULT_KEEP_CHOICE, DEFAULT_SEGMENT_ROWS, KEEP_DOUBLINGS,
};
pub use select::{fit_to_budget, AccessMix, BudgetOption, CostModel, Costs, Fallback, Objective, SegmentExplain};
pub use selection::Selection;
pub use types::{LwcInt, Value, ValueType};
