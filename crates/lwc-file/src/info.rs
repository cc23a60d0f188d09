//! What a file says about its columns and segments: the footer index as public structs.

use std::path::PathBuf;

use arrow_schema::DataType;

use crate::schema::Storage;

/// One segment of a column (the column's rows of one row group), as the footer indexes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SegmentInfo {
    /// Byte offset of the segment in the file (a multiple of 8).
    pub offset: u64,
    /// Length of the segment in bytes.
    pub len: u64,
    /// Rows in the segment.
    pub rows: u32,
    /// Null rows in the segment.
    pub nulls: u32,
    /// Smallest non-null value (integer-backed columns: the stored integer, e.g. a decimal's unscaled
    /// value, a boolean's 0/1); `None` for other columns and for all-null segments.
    pub min: Option<i128>,
    /// Largest non-null value, like [`SegmentInfo::min`].
    pub max: Option<i128>,
    /// CRC-32C (Castagnoli) of the segment's bytes.
    pub checksum: u32,
}

/// One column of a file: its type, storage and segment index.
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnInfo {
    /// Column name.
    pub name: String,
    /// Arrow type.
    pub data_type: DataType,
    /// How the values are stored.
    pub storage: Storage,
    /// Rows (equal to the table's).
    pub rows: u64,
    /// Null rows.
    pub nulls: u64,
    /// Bytes Arrow would hold for the column: values plus offsets, not counting validity.
    pub plain_bytes: u64,
    /// Bytes of the column's segments in the file.
    pub encoded_bytes: u64,
    /// The segments, in row order.
    pub segments: Vec<SegmentInfo>,
    /// Each cascade used (as lwc prints it, e.g. `rle(delta(dict), delta)`; for strings prefixed by
    /// the layout, e.g. `dict(codes: bitpack)`) and on how many segments, in order of first use.
    pub cascades: Vec<(String, usize)>,
}

/// What [`crate::FileWriter::finish`] wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct FileSummary {
    /// The file written (empty for [`crate::write_to_bytes`]).
    pub path: PathBuf,
    /// Rows written.
    pub rows: u64,
    /// Size of the file in bytes.
    pub file_bytes: u64,
    /// The columns, as the footer describes them.
    pub columns: Vec<ColumnInfo>,
}
