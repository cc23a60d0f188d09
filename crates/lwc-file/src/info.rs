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
    /// Smallest non-null value of a column of values, as stored: integers as they are (a decimal's unscaled
    /// value, a boolean's 0/1), floats as their order-preserving latent; `None` for other columns and for
    /// all-null segments.
    pub min: Option<i128>,
    /// Largest non-null value, like [`SegmentInfo::min`].
    pub max: Option<i128>,
    /// The zone map of a byte-string segment (`None` for other columns and for all-null segments).
    pub bytes_zone: Option<BytesZone>,
    /// CRC-32C (Castagnoli) of the segment's bytes.
    pub checksum: u32,
}

/// What a byte-string segment's footer entry says of its values: every value is at least `min` (the min,
/// or a prefix of it), and at most `max`, or, when `max_is_prefix`, at most a string that starts with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BytesZone {
    /// A lower bound of every value.
    pub min: Vec<u8>,
    /// The max, or its first bytes.
    pub max: Vec<u8>,
    /// Whether `max` is only the max's first [`lwc::strings::ZONE_BYTES`] bytes.
    pub max_is_prefix: bool,
}

impl BytesZone {
    /// Whether `min` and `max` are the segment's smallest and largest values themselves, not prefixes (a
    /// min of [`lwc::strings::ZONE_BYTES`] bytes may have been cut, so it does not count as whole).
    pub fn is_exact(&self) -> bool {
        self.min.len() < lwc::strings::ZONE_BYTES && !self.max_is_prefix
    }
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
    /// Each cascade used (as lwc prints it, e.g. `rle(delta(dict), delta)`) and on how many segments, in
    /// order of first use.
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
