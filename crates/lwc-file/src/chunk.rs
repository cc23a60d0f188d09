//! One segment as the readers see it: where it sits (for errors and row-count checks), and the Arrow
//! arrays every decoder builds (null buffers, strings and binaries from offsets). Below both the decoder
//! of this version's segments and that of version 1's.

use arrow_array::{make_array, ArrayRef};
use arrow_buffer::{BooleanBuffer, Buffer, NullBuffer};
use arrow_data::ArrayData;
use arrow_schema::DataType;
use lwc::strings::BytesSegment;
use lwc::{Bitmap, Segment, Value};

use crate::encode::offset_width;
use crate::error::{Error, Result};

/// An lwc bitmap as an Arrow null buffer (same bit order: bit `i` of little-endian words).
pub(crate) fn nulls_of(validity: Option<Bitmap>) -> Option<NullBuffer> {
    let v = validity?;
    let len = v.len();
    Some(NullBuffer::new(BooleanBuffer::new(Buffer::from_vec(v.words().to_vec()), 0, len)))
}

/// Where a segment sits, for error messages and row-count checks.
pub(crate) struct ChunkRef<'a> {
    /// The segment's bytes (8-aligned in memory).
    pub(crate) bytes: &'a [u8],
    /// Rows and nulls the footer says it holds.
    pub(crate) rows: usize,
    pub(crate) nulls: usize,
    /// The column's name and the segment's number, for error messages.
    pub(crate) column: &'a str,
    pub(crate) segment: usize,
}

impl ChunkRef<'_> {
    /// `column 'C', segment N`.
    pub(crate) fn what(&self) -> String {
        format!("column '{}', segment {}", self.column, self.segment)
    }

    pub(crate) fn corrupt(&self, m: impl std::fmt::Display) -> Error {
        Error::Corrupt(format!("{}: {m}", self.what()))
    }

    /// An error of the core in this segment, its kind kept.
    pub(crate) fn core_error(&self, source: lwc::Error) -> Error {
        Error::InColumn { column: self.column.to_string(), segment: Some(self.segment), error: source }
    }

    /// Opens an lwc segment part and checks its row count (and null count, when given).
    pub(crate) fn open_values<'b, T: Value>(
        &self,
        bytes: &'b [u8],
        rows: usize,
        nulls: Option<usize>,
    ) -> Result<Segment<'b, T>> {
        let segment = Segment::<T>::open(bytes).map_err(|e| self.core_error(e))?;
        if segment.rows() != rows || nulls.is_some_and(|n| n != segment.null_count()) {
            return Err(self.corrupt(format!(
                "holds {} rows ({} null), the index says {rows} ({nulls:?})",
                segment.rows(),
                segment.null_count()
            )));
        }
        Ok(segment)
    }

    /// Opens an lwc segment of byte strings and checks its row and null counts.
    pub(crate) fn open_bytes<'b>(&self, bytes: &'b [u8]) -> Result<BytesSegment<'b>> {
        let segment = BytesSegment::open(bytes).map_err(|e| self.core_error(e))?;
        if segment.rows() != self.rows || segment.null_count() != self.nulls {
            return Err(self.corrupt(format!(
                "holds {} rows ({} null), the index says {} ({})",
                segment.rows(),
                segment.null_count(),
                self.rows,
                self.nulls
            )));
        }
        Ok(segment)
    }
}

/// Builds a string or binary array from offsets starting at 0.
pub(crate) fn bytes_array(
    data_type: &DataType,
    offsets: Vec<u64>,
    values: Vec<u8>,
    nulls: Option<NullBuffer>,
) -> Result<ArrayRef> {
    let len = offsets.len() - 1;
    let offsets = if offset_width(data_type) == 8 {
        Buffer::from_vec(offsets.into_iter().map(|o| o as i64).collect::<Vec<i64>>())
    } else {
        if values.len() > i32::MAX as usize {
            return Err(Error::InvalidArgument(format!(
                "{} bytes do not fit {data_type}'s 32-bit offsets; read fewer rows at a time",
                values.len()
            )));
        }
        Buffer::from_vec(offsets.into_iter().map(|o| o as i32).collect::<Vec<i32>>())
    };
    let data = ArrayData::builder(data_type.clone())
        .len(len)
        .add_buffer(offsets)
        .add_buffer(Buffer::from_vec(values))
        .nulls(nulls)
        .build()?;
    Ok(make_array(data))
}
