//! # lwc-file: the `.lwc` file
//!
//! Arrow tables stored as lwc segments that stay queryable: each column is cut into row groups of
//! `segment_rows` rows, and every column's share of a row group is one lwc segment: integer-backed
//! columns (integers, dates, times, timestamps, durations, decimals up to 18 digits, booleans) and
//! floats as value segments, strings and binaries as byte-string segments (a sorted dictionary or plain
//! bytes). A checksummed footer holds the schema and an index of every segment (offset, length, rows,
//! nulls, zone map, CRC-32C), itself stored as lwc integer columns so a regular index costs almost
//! nothing. Reading maps the file and views segments in place, opening each only when a read needs it.
//! The byte layout is specified in `docs/FORMAT.md`.
//!
//! ```
//! use std::sync::Arc;
//! use arrow_array::{Array, Float64Array, Int64Array, RecordBatch, StringArray};
//! use arrow_schema::{DataType, Field, Schema};
//! use lwc_file::{write_file, Filter, LwcFile, ScanOptions, Sum, WriteOptions};
//!
//! let schema = Arc::new(Schema::new(vec![
//!     Field::new("id", DataType::Int64, false),
//!     Field::new("city", DataType::Utf8, true),
//!     Field::new("price", DataType::Float64, false),
//! ]));
//! let ids = Int64Array::from_iter_values(0..100_000);
//! let cities = StringArray::from_iter((0..100_000).map(|i| (i % 7 != 0).then(|| ["Oslo", "Lima", "Pune"][i % 3])));
//! let prices = Float64Array::from_iter_values((0..100_000).map(|i| (i % 1_000) as f64 / 4.0));
//! let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(ids), Arc::new(cities), Arc::new(prices)])?;
//!
//! let dir = tempfile::tempdir().unwrap();
//! let path = dir.path().join("cities.lwc");
//! let summary = write_file(&path, schema, std::slice::from_ref(&batch), WriteOptions::default())?;
//! assert!(summary.file_bytes < 400_000); // 2.9 MB of Arrow arrays
//!
//! let file = LwcFile::open(&path)?;
//! assert_eq!(file.read_batch()?, batch);
//! let picked = file.take(file.column_index("city")?, &[3, 7, 99_999])?;
//! assert_eq!(picked.null_count(), 1); // row 7 is null
//!
//! // A filter runs on the encoded segments (city on dictionary codes, price on its latents); only the
//! // selected rows of the projected columns are decoded.
//! let filter = Filter::parse("city", "= 'Lima'")?.and(Filter::parse("price", "< 10.5")?);
//! let options = ScanOptions::default().with_columns(&file, &["id", "price"])?.with_filter(filter.clone());
//! let rows: usize = file.scan(options)?.map(|b| b.map(|b| b.num_rows())).sum::<Result<_, _>>()?;
//! let want = (0..100_000).filter(|i| i % 7 != 0 && i % 3 == 1 && ((i % 1_000) as f64) / 4.0 < 10.5).count();
//! assert_eq!(rows, want);
//!
//! // Aggregates of a column over the rows a filter selects, also on the encoded form.
//! let ids = file.aggregate(file.column_index("id")?, Some(&filter))?;
//! assert_eq!(ids.count as usize, want);
//! assert!(matches!(ids.sum, Some(Sum::Int(_))));
//! file.verify()?;
//! # Ok::<(), lwc_file::Error>(())
//! ```

#![warn(missing_docs)]
#![deny(unsafe_code)]

/// Runs `$body` with `$T` bound to the Rust type of an [`lwc::ValueType`] (integers and floats).
macro_rules! value_dispatch {
    ($t:expr, $T:ident => $body:expr) => {
        match $t {
            lwc::ValueType::U8 => {
                type $T = u8;
                $body
            }
            lwc::ValueType::U16 => {
                type $T = u16;
                $body
            }
            lwc::ValueType::U32 => {
                type $T = u32;
                $body
            }
            lwc::ValueType::U64 => {
                type $T = u64;
                $body
            }
            lwc::ValueType::I8 => {
                type $T = i8;
                $body
            }
            lwc::ValueType::I16 => {
                type $T = i16;
                $body
            }
            lwc::ValueType::I32 => {
                type $T = i32;
                $body
            }
            lwc::ValueType::I64 => {
                type $T = i64;
                $body
            }
            lwc::ValueType::F32 => {
                type $T = f32;
                $body
            }
            lwc::ValueType::F64 => {
                type $T = f64;
                $body
            }
        }
    };
}

/// The README's examples (they use `lwc` and `lwc-file`), compiled and run as doc tests.
#[doc = include_str!("../../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

mod budget;
mod chunk;
mod codec;
mod decode;
mod encode;
pub mod error;
mod filter;
mod format;
mod info;
mod int_column;
mod legacy;
mod mmap;
mod reader;
mod scan;
mod schema;
mod writer;

pub use budget::{plan_budget, BudgetPlan, ColumnPlan, PlannedOption, PLANNED_OBJECTIVES};
pub use decode::values_to_arrow;
pub use encode::{explain_array, explains_text, validity_of};
pub use error::{Error, Result};
pub use filter::{CompareOp, Filter, Literal, Test};
pub use info::{BytesZone, ColumnInfo, FileSummary, SegmentInfo};
pub use int_column::IntColumn;
pub use reader::{LwcFile, ReadOptions};
pub use scan::{ColumnAggregates, RowEstimate, Scan, ScanOptions, ScanStats, Sum, DEFAULT_BATCH_ROWS};
pub use schema::{cast_to_schema, storable_schema, storable_type, Storage};
pub use writer::{write_file, write_to_bytes, FileWriter, WriteOptions};
