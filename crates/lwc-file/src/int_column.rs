//! Integer-backed columns of a file as lwc [`Column`] views: get, take, filter and aggregate on the
//! encoded segments, without going through Arrow.

use lwc::{Column, ValueType};

/// An integer-backed column (integers, dates, times, timestamps, durations, decimals up to precision
/// 18 as unscaled integers, booleans as `u8` 0/1) as a typed lwc [`Column`].
///
/// Use [`with_int_column!`](crate::with_int_column) to run the same code whatever the type:
///
/// ```
/// # use std::sync::Arc;
/// # use arrow_array::{Int32Array, RecordBatch};
/// # use arrow_schema::{DataType, Field, Schema};
/// # let schema = Arc::new(Schema::new(vec![Field::new("x", DataType::Int32, false)]));
/// # let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(Int32Array::from(vec![3, 1, 4]))])?;
/// # let bytes = lwc_file::write_to_bytes(schema, &[batch], Default::default())?;
/// let file = lwc_file::LwcFile::from_bytes(bytes)?;
/// let column = file.int_column(0)?;
/// let sum = lwc_file::with_int_column!(&column, c => c.aggregate(None)?.sum);
/// assert_eq!(sum, 8);
/// # Ok::<(), lwc_file::Error>(())
/// ```
pub enum IntColumn<'a> {
    /// `u8` (also booleans).
    U8(Column<'a, u8>),
    /// `u16`.
    U16(Column<'a, u16>),
    /// `u32`.
    U32(Column<'a, u32>),
    /// `u64`.
    U64(Column<'a, u64>),
    /// `i8`.
    I8(Column<'a, i8>),
    /// `i16`.
    I16(Column<'a, i16>),
    /// `i32` (also dates, `Time32`, `Decimal32`).
    I32(Column<'a, i32>),
    /// `i64` (also `Date64`, timestamps, `Time64`, durations, `Decimal64`, `Decimal128` up to precision 18).
    I64(Column<'a, i64>),
}

/// Runs an expression on the typed [`lwc::Column`] inside an [`IntColumn`] (or `&IntColumn`), whatever
/// its integer type: `with_int_column!(&column, c => c.rows())`.
#[macro_export]
macro_rules! with_int_column {
    ($column:expr, $c:ident => $body:expr) => {
        match $column {
            $crate::IntColumn::U8($c) => $body,
            $crate::IntColumn::U16($c) => $body,
            $crate::IntColumn::U32($c) => $body,
            $crate::IntColumn::U64($c) => $body,
            $crate::IntColumn::I8($c) => $body,
            $crate::IntColumn::I16($c) => $body,
            $crate::IntColumn::I32($c) => $body,
            $crate::IntColumn::I64($c) => $body,
        }
    };
}

impl IntColumn<'_> {
    /// The integer type the values are stored as.
    pub fn int_type(&self) -> ValueType {
        match self {
            IntColumn::U8(_) => ValueType::U8,
            IntColumn::U16(_) => ValueType::U16,
            IntColumn::U32(_) => ValueType::U32,
            IntColumn::U64(_) => ValueType::U64,
            IntColumn::I8(_) => ValueType::I8,
            IntColumn::I16(_) => ValueType::I16,
            IntColumn::I32(_) => ValueType::I32,
            IntColumn::I64(_) => ValueType::I64,
        }
    }

    /// Rows, nulls included.
    pub fn rows(&self) -> u64 {
        with_int_column!(self, c => c.rows())
    }

    /// Row `row` widened to `i128`; `Ok(None)` if it is null.
    pub fn get_i128(&self, row: u64) -> lwc::Result<Option<i128>> {
        use lwc::LwcInt;
        with_int_column!(self, c => Ok(c.get(row)?.map(LwcInt::to_i128)))
    }
}
