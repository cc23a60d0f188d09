//! Segment bytes → Arrow arrays, one segment at a time, with the segment's place (column, index) for
//! errors: lwc segments of values and of byte strings, plain fixed-width segments, and (through
//! [`crate::legacy`]) the string segments of version 1 files.

use std::ops::Range;

use arrow_array::{make_array, ArrayRef, BooleanArray, Decimal128Array};
use arrow_buffer::{ArrowNativeType, BooleanBuffer, Buffer, NullBuffer, ScalarBuffer};
use arrow_data::ArrayData;
use arrow_schema::DataType;
use lwc::strings::BytesSegment;
use lwc::{Bitmap, ByteArray, Segment, Value};

use crate::chunk::{bytes_array, nulls_of, ChunkRef};
use crate::encode::index_value;
use crate::error::{Error, Result};
use crate::format::{read_parts, KIND_FIXED};
use crate::schema::Storage;

/// Opens an integer segment of a column whose storage is `T`, checking it against the index.
pub(crate) fn open_value_segment<'a, T: Value>(chunk: &ChunkRef<'a>) -> Result<Segment<'a, T>> {
    chunk.open_values::<T>(chunk.bytes, chunk.rows, Some(chunk.nulls))
}

/// Opens a byte-string segment of a column, checking it against the index.
pub(crate) fn open_bytes_segment<'a>(chunk: &ChunkRef<'a>) -> Result<BytesSegment<'a>> {
    chunk.open_bytes(chunk.bytes)
}

/// Byte strings as an Arrow array of `data_type` (32-bit offsets unless the type is large); UTF-8 is
/// checked where the type says text.
pub(crate) fn byte_array_to_arrow(chunk: &ChunkRef<'_>, data_type: &DataType, array: ByteArray) -> Result<ArrayRef> {
    bytes_to_arrow(data_type, array, || chunk.what())
}

/// [`byte_array_to_arrow`] of rows from anywhere: bytes Arrow rejects are corrupt at `what()`.
pub(crate) fn bytes_to_arrow(
    data_type: &DataType,
    array: ByteArray,
    what: impl FnOnce() -> String,
) -> Result<ArrayRef> {
    let ByteArray { offsets, data, validity } = array;
    bytes_array(data_type, offsets, data, nulls_of(validity)).map_err(|e| match e {
        Error::Arrow(e) => Error::Corrupt(format!("{}: {e}", what())),
        e => e,
    })
}

/// Values (and validity) as an Arrow array of `data_type`.
pub fn values_to_arrow<T: Value + ArrowNativeType>(
    data_type: &DataType,
    values: Vec<T>,
    validity: Option<Bitmap>,
) -> Result<ArrayRef> {
    let n = values.len();
    let nulls = nulls_of(validity);
    Ok(match data_type {
        DataType::Null => arrow_array::new_null_array(data_type, n),
        DataType::Boolean => std::sync::Arc::new(BooleanArray::new(
            BooleanBuffer::from_iter(values.iter().map(|v| index_value(*v) != 0)),
            nulls,
        )),
        DataType::Decimal128(p, s) => {
            let wide: Vec<i128> = values.iter().map(|&v| index_value(v)).collect();
            std::sync::Arc::new(
                Decimal128Array::try_new(ScalarBuffer::from(wide), nulls)?.with_precision_and_scale(*p, *s)?,
            )
        }
        _ => make_array(
            ArrayData::builder(data_type.clone()).len(n).add_buffer(Buffer::from_vec(values)).nulls(nulls).build()?,
        ),
    })
}

/// Decodes rows `range` of one segment as an Arrow array of `data_type`.
pub(crate) fn decode_chunk(
    chunk: &ChunkRef<'_>,
    data_type: &DataType,
    storage: Storage,
    range: Range<usize>,
) -> Result<ArrayRef> {
    match storage {
        Storage::Values(t) => value_dispatch!(t, T => {
            let segment = open_value_segment::<T>(chunk)?;
            let array = segment.decode(range).map_err(|e| chunk.core_error(e))?;
            values_to_arrow::<T>(data_type, array.values, array.validity)
        }),
        Storage::Plain(width) => decode_fixed(chunk, data_type, width as usize, range),
        Storage::Bytes(_) => {
            let segment = open_bytes_segment(chunk)?;
            let array = segment.decode(range).map_err(|e| chunk.core_error(e))?;
            byte_array_to_arrow(chunk, data_type, array)
        }
        Storage::LegacyBytes => crate::legacy::decode_bytes(chunk, data_type, range),
    }
}

/// The rows of `range` whose bit is set in `selected` (bit `i` for row `range.start + i`) of one segment as
/// an Arrow array of `data_type`: integer segments compact as they decode; the others are decoded and
/// filtered.
pub(crate) fn decode_selected_chunk(
    chunk: &ChunkRef<'_>,
    data_type: &DataType,
    storage: Storage,
    range: Range<usize>,
    selected: &lwc::Bitmap,
) -> Result<ArrayRef> {
    if let Storage::Values(t) = storage {
        return value_dispatch!(t, T => {
            let segment = open_value_segment::<T>(chunk)?;
            let array = segment.decode_selected(range, selected).map_err(|e| chunk.core_error(e))?;
            values_to_arrow::<T>(data_type, array.values, array.validity)
        });
    }
    let array = decode_chunk(chunk, data_type, storage, range)?;
    let mask = arrow_array::BooleanArray::new(
        arrow_buffer::BooleanBuffer::new(arrow_buffer::Buffer::from_slice_ref(selected.words()), 0, selected.len()),
        None,
    );
    Ok(arrow_select::filter::filter(array.as_ref(), &mask)?)
}

/// The rows at `positions` (within the segment, any order, repeats allowed) of one segment as an Arrow
/// array of `data_type`: gathered from the encoded form where there is one, else the rows they span
/// decoded and gathered.
pub(crate) fn take_chunk(
    chunk: &ChunkRef<'_>,
    data_type: &DataType,
    storage: Storage,
    positions: &[u32],
) -> Result<ArrayRef> {
    match storage {
        Storage::Values(t) => value_dispatch!(t, T => {
            let segment = open_value_segment::<T>(chunk)?;
            let array = segment.take(positions).map_err(|e| chunk.core_error(e))?;
            values_to_arrow::<T>(data_type, array.values, array.validity)
        }),
        Storage::Bytes(_) => {
            let segment = open_bytes_segment(chunk)?;
            let array = segment.take(positions).map_err(|e| chunk.core_error(e))?;
            byte_array_to_arrow(chunk, data_type, array)
        }
        Storage::Plain(_) | Storage::LegacyBytes => {
            let (Some(&first), Some(&last)) = (positions.iter().min(), positions.iter().max()) else {
                return Ok(arrow_array::new_empty_array(data_type));
            };
            let range = first as usize..last as usize + 1;
            let array = decode_chunk(chunk, data_type, storage, range)?;
            let indices = arrow_array::UInt32Array::from_iter_values(positions.iter().map(|p| p - first));
            Ok(arrow_select::take::take(array.as_ref(), &indices, None)?)
        }
    }
}

fn decode_fixed(chunk: &ChunkRef<'_>, data_type: &DataType, width: usize, range: Range<usize>) -> Result<ArrayRef> {
    let (kind, parts) = read_parts(chunk.bytes, &|| chunk.what())?;
    let [validity, values] = parts[..] else {
        return Err(chunk.corrupt(format!("{} parts, a plain segment has 2", parts.len())));
    };
    if kind != KIND_FIXED {
        return Err(chunk.corrupt(format!("segment kind {kind}, expected plain values")));
    }
    let validity_len = if chunk.nulls > 0 { chunk.rows.div_ceil(64) * 8 } else { 0 };
    if validity.len() != validity_len || values.len() != chunk.rows * width {
        return Err(chunk.corrupt(format!(
            "{} validity and {} value bytes for {} rows of {width} bytes",
            validity.len(),
            values.len(),
            chunk.rows
        )));
    }
    let nulls = if chunk.nulls > 0 {
        let buffer = Buffer::from_slice_ref(validity);
        let all = BooleanBuffer::new(buffer.clone(), 0, chunk.rows);
        if all.count_set_bits() != chunk.rows - chunk.nulls {
            return Err(chunk.corrupt("validity does not match the null count"));
        }
        Some(NullBuffer::new(BooleanBuffer::new(buffer, range.start, range.len())))
    } else {
        None
    };
    let values = Buffer::from_slice_ref(&values[range.start * width..range.end * width]);
    Ok(make_array(ArrayData::builder(data_type.clone()).len(range.len()).add_buffer(values).nulls(nulls).build()?))
}
