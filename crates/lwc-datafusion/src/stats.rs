//! Statistics from the files' footers, for the table and for its scans.

use std::sync::Arc;

use datafusion::arrow::array::ArrayRef;
use datafusion::arrow::datatypes::DataType;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::common::stats::Precision;
use datafusion::common::{ColumnStatistics, ScalarValue, Statistics};
use lwc_file::{LwcFile, Storage};

/// The files' statistics from their footers, merged: exact rows, bytes and null counts, and each column's
/// min and max (see [`column_range`]).
pub(crate) fn table_statistics(files: &[Arc<LwcFile>], schema: &SchemaRef) -> Statistics {
    let each: Vec<Statistics> = files.iter().map(|f| file_statistics(f)).collect();
    Statistics::try_merge_iter(&each, schema).unwrap_or_else(|_| Statistics::new_unknown(schema))
}

/// One file's statistics.
fn file_statistics(file: &LwcFile) -> Statistics {
    let columns = file.columns();
    let mut stats = Statistics::new_unknown(&file.schema())
        .with_num_rows(Precision::Exact(file.num_rows() as usize))
        .with_total_byte_size(Precision::Exact(columns.iter().map(|c| c.plain_bytes as usize).sum()));
    stats.column_statistics = columns
        .iter()
        .enumerate()
        .map(|(k, c)| {
            let (min_value, max_value) = column_range(file, k);
            ColumnStatistics {
                null_count: Precision::Exact(c.nulls as usize),
                byte_size: Precision::Exact(c.plain_bytes as usize),
                min_value,
                max_value,
                ..ColumnStatistics::new_unknown()
            }
        })
        .collect();
    stats
}

/// Column `k`'s min and max from the footer. Exact, so DataFusion may answer `min`/`max` from them without
/// a scan, except for floats (lwc orders NaN above every number, and DataFusion's float min and max do not
/// promise one order for NaN) and for strings whose zone maps keep a prefix ([`bytes_range`]).
fn column_range(file: &LwcFile, k: usize) -> (Precision<ScalarValue>, Precision<ScalarValue>) {
    if matches!(file.columns()[k].storage, Storage::Bytes(_)) {
        return bytes_range(file, k);
    }
    let Ok(Some((lo, hi))) = file.column_range(k) else { return (Precision::Absent, Precision::Absent) };
    let scalar = |a: &ArrayRef| ScalarValue::try_from_array(a, 0).ok();
    let (Some(lo), Some(hi)) = (scalar(&lo), scalar(&hi)) else { return (Precision::Absent, Precision::Absent) };
    match lo.data_type().is_floating() {
        true => (Precision::Inexact(lo), Precision::Inexact(hi)),
        false => (Precision::Exact(lo), Precision::Exact(hi)),
    }
}

/// A string or binary column's min and max from the segments' zone maps: exact when every bound is whole,
/// inexact when one may be a prefix, so the planner can estimate with them but never answers from them.
fn bytes_range(file: &LwcFile, k: usize) -> (Precision<ScalarValue>, Precision<ScalarValue>) {
    let absent = (Precision::Absent, Precision::Absent);
    let info = &file.columns()[k];
    let (mut lo, mut hi, mut exact): (Option<&[u8]>, Option<&[u8]>, bool) = (None, None, true);
    for s in info.segments.iter().filter(|s| s.nulls < s.rows) {
        let Some(zone) = &s.bytes_zone else { return absent };
        exact &= zone.is_exact();
        lo = Some(lo.map_or(&zone.min[..], |l| l.min(&zone.min[..])));
        hi = Some(hi.map_or(&zone.max[..], |h| h.max(&zone.max[..])));
    }
    let scalar = |bytes: &[u8]| -> Option<ScalarValue> {
        let text = || std::str::from_utf8(bytes).ok().map(str::to_string);
        Some(match &info.data_type {
            DataType::Utf8 => ScalarValue::Utf8(Some(text()?)),
            DataType::LargeUtf8 => ScalarValue::LargeUtf8(Some(text()?)),
            DataType::Binary => ScalarValue::Binary(Some(bytes.to_vec())),
            DataType::LargeBinary => ScalarValue::LargeBinary(Some(bytes.to_vec())),
            _ => return None,
        })
    };
    let (Some(lo), Some(hi)) = (lo.and_then(scalar), hi.and_then(scalar)) else { return absent };
    match exact {
        true => (Precision::Exact(lo), Precision::Exact(hi)),
        false => (Precision::Inexact(lo), Precision::Inexact(hi)),
    }
}
