//! Arrow arrays ↔ segment bytes: one row group of one column at a time.
//!
//! Integer-backed types become one lwc segment; strings and binary a dictionary or plain multi-part
//! segment; floats and wide decimals plain values with a validity bitmap (see `docs/FORMAT.md`).

use std::collections::HashMap;
use std::ops::Range;

use arrow_array::cast::AsArray;
use arrow_array::types::Decimal128Type;
use arrow_array::{make_array, Array, ArrayRef, BooleanArray, Decimal128Array};
use arrow_buffer::{ArrowNativeType, BooleanBuffer, Buffer, NullBuffer, ScalarBuffer};
use arrow_data::ArrayData;
use arrow_schema::DataType;
use lwc::{Bitmap, EncodeOptions, LwcInt, Segment, Value};

use crate::error::{Error, Result};
use crate::format::{read_parts, write_parts, KIND_DICT, KIND_FIXED, KIND_PLAIN};
use crate::schema::Physical;

/// One column's share of one row group, encoded.
pub(crate) struct EncodedChunk {
    pub(crate) bytes: Vec<u8>,
    pub(crate) rows: u32,
    pub(crate) nulls: u32,
    pub(crate) min: Option<i128>,
    pub(crate) max: Option<i128>,
    /// The cascade text recorded in the footer.
    pub(crate) cascade: String,
    /// Bytes columns: [`KIND_DICT`] or [`KIND_PLAIN`].
    pub(crate) kind: u8,
    /// What Arrow holds for these rows (values + offsets, no validity).
    pub(crate) plain_bytes: u64,
    /// The cost model's price of reading the integer segment as chosen (per value), when the selector
    /// chose it.
    pub(crate) read_costs: Option<lwc::Costs>,
}

/// Every integer segment of a file is encoded here, and only here.
fn encode_value_segment<T: Value>(
    values: &[T],
    validity: Option<&Bitmap>,
    options: &EncodeOptions,
) -> Result<lwc::EncodedSegment<T>> {
    Ok(lwc::encode_segment(values, validity, options)?)
}

/// The validity of an array as an lwc bitmap, `None` when no row is null.
fn validity_of(array: &dyn Array) -> Option<Bitmap> {
    let nulls = array.nulls().filter(|n| n.null_count() > 0)?;
    Some(Bitmap::from_bools(&nulls.iter().collect::<Vec<bool>>()))
}

/// An lwc bitmap as an Arrow null buffer (same bit order: bit `i` of little-endian words).
fn nulls_of(validity: Option<Bitmap>) -> Option<NullBuffer> {
    let v = validity?;
    let len = v.len();
    Some(NullBuffer::new(BooleanBuffer::new(Buffer::from_vec(v.words().to_vec()), 0, len)))
}

fn rows_u32(n: usize) -> Result<u32> {
    u32::try_from(n).map_err(|_| Error::InvalidArgument(format!("{n} rows exceed a segment's u32 row count")))
}

/// A value as the footer's min/max index holds it: its latent (integers: the value itself).
pub(crate) fn index_value<T: Value>(v: T) -> i128 {
    v.to_latent().to_i128()
}

fn encode_values<T: Value>(values: &[T], validity: Option<&Bitmap>, options: &EncodeOptions) -> Result<EncodedChunk> {
    let encoded = encode_value_segment(values, validity, options)?;
    Ok(EncodedChunk {
        rows: rows_u32(encoded.rows())?,
        nulls: encoded.null_count() as u32,
        min: encoded.min().copied().map(index_value),
        max: encoded.max().copied().map(index_value),
        cascade: encoded.cascade().to_string(),
        kind: 0,
        plain_bytes: 0,
        read_costs: Some(encoded.read_costs()),
        bytes: encoded.into_bytes().to_vec(),
    })
}

/// The values of a primitive array whose native type is `T`.
fn primitive_values<T: ArrowNativeType>(data: &ArrayData) -> &[T] {
    &data.buffer::<T>(0)[..data.len()]
}

/// Encodes one row group of one column (`physical` must be the storage of the array's type).
pub(crate) fn encode_chunk(array: &dyn Array, physical: Physical, options: &EncodeOptions) -> Result<EncodedChunk> {
    let rows = array.len();
    let validity = validity_of(array);
    let mut chunk = match (physical, array.data_type()) {
        (Physical::Values(_), DataType::Null) => {
            let mut c = encode_values(&vec![0u8; rows], Some(&Bitmap::new_clear(rows)), options)?;
            c.plain_bytes = 0;
            c
        }
        (Physical::Values(_), DataType::Boolean) => {
            let values: Vec<u8> = array.as_boolean().values().iter().map(u8::from).collect();
            let mut c = encode_values(&values, validity.as_ref(), options)?;
            c.plain_bytes = rows.div_ceil(8) as u64;
            c
        }
        (Physical::Values(_), DataType::Decimal128(..)) => {
            let d = array.as_primitive::<Decimal128Type>();
            let values = d
                .iter()
                .map(|v| {
                    i64::try_from(v.unwrap_or(0)).map_err(|_| {
                        Error::InvalidArgument(format!("decimal value {v:?} does not fit its precision (≤ 18 digits)"))
                    })
                })
                .collect::<Result<Vec<i64>>>()?;
            let mut c = encode_values(&values, validity.as_ref(), options)?;
            c.plain_bytes = 16 * rows as u64;
            c
        }
        (Physical::Values(t), _) => {
            let data = array.to_data();
            let mut c =
                value_dispatch!(t, T => encode_values::<T>(primitive_values::<T>(&data), validity.as_ref(), options))?;
            c.plain_bytes = (t.byte_width() * rows) as u64;
            c
        }
        (Physical::Fixed(width), _) => encode_fixed(array, width as usize, validity.as_ref())?,
        (Physical::Bytes, _) => encode_bytes(array, validity.as_ref(), options)?,
    };
    chunk.rows = rows_u32(rows)?;
    Ok(chunk)
}

fn words_as_bytes(words: &[u64]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn encode_fixed(array: &dyn Array, width: usize, validity: Option<&Bitmap>) -> Result<EncodedChunk> {
    let data = array.to_data();
    let raw = data.buffers()[0].as_slice();
    let values = &raw[data.offset() * width..(data.offset() + data.len()) * width];
    let validity_bytes = validity.map(|v| words_as_bytes(v.words())).unwrap_or_default();
    Ok(EncodedChunk {
        bytes: write_parts(KIND_FIXED, &[&validity_bytes, values]),
        rows: rows_u32(array.len())?,
        nulls: array.null_count() as u32,
        min: None,
        max: None,
        cascade: "plain".into(),
        kind: KIND_FIXED,
        plain_bytes: values.len() as u64,
        read_costs: None,
    })
}

/// The rows of a string or binary array as byte slices.
fn byte_rows(array: &dyn Array) -> Result<Vec<Option<&[u8]>>> {
    Ok(match array.data_type() {
        DataType::Utf8 => array.as_string::<i32>().iter().map(|v| v.map(str::as_bytes)).collect(),
        DataType::LargeUtf8 => array.as_string::<i64>().iter().map(|v| v.map(str::as_bytes)).collect(),
        DataType::Binary => array.as_binary::<i32>().iter().collect(),
        DataType::LargeBinary => array.as_binary::<i64>().iter().collect(),
        other => return Err(Error::InvalidArgument(format!("{other} is not a string or binary type"))),
    })
}

fn offset_width(data_type: &DataType) -> u64 {
    match data_type {
        DataType::LargeUtf8 | DataType::LargeBinary => 8,
        _ => 4,
    }
}

/// Rows of a string segment probed before its dictionary is built (see [`all_distinct_in_probe`]).
const DICT_PROBE: usize = 1024;

/// Whether [`DICT_PROBE`] rows spread evenly over a segment of more than four times as many are all
/// distinct (nulls aside). Then nearly every row is (two sampled rows sharing a value are likely once a
/// few percent of rows repeat), a dictionary would be as large as the strings themselves, and hashing
/// every row to find that out would cost more than writing them.
fn all_distinct_in_probe(rows: &[Option<&[u8]>]) -> bool {
    let n = rows.len();
    if n <= 4 * DICT_PROBE {
        return false;
    }
    let mut seen = std::collections::HashSet::with_capacity(DICT_PROBE);
    (0..DICT_PROBE).filter_map(|k| rows[k * n / DICT_PROBE]).all(|v| seen.insert(v))
}

/// Strings and binary: a dictionary when at most half the non-null rows are distinct or the dictionary
/// is estimated smaller than plain storage, plain otherwise (at once when a probe finds no repeats).
fn encode_bytes(array: &dyn Array, validity: Option<&Bitmap>, options: &EncodeOptions) -> Result<EncodedChunk> {
    let rows = byte_rows(array)?;
    let n = rows.len();
    let (total, non_null) =
        rows.iter().flatten().fold((0u64, 0u64), |(bytes, count), v| (bytes + v.len() as u64, count + 1));
    let mut index: HashMap<&[u8], u32> = HashMap::new();
    let mut dict: Vec<&[u8]> = Vec::new();
    let mut codes = Vec::new();
    let use_dict = !all_distinct_in_probe(&rows) && {
        codes.reserve_exact(n);
        for row in &rows {
            codes.push(row.map_or(0, |v| {
                let next = dict.len() as u32;
                *index.entry(v).or_insert_with(|| {
                    dict.push(v);
                    next
                })
            }));
        }
        let dict_bytes: u64 = dict.iter().map(|v| v.len() as u64).sum();
        let code_bits = u64::from(32 - (dict.len() as u32).leading_zeros());
        let dict_estimate = dict_bytes + 4 * dict.len() as u64 + (n as u64 * code_bits).div_ceil(8);
        let plain_estimate = total + 2 * n as u64;
        (dict.len() as u64) * 2 <= non_null || dict_estimate < plain_estimate
    };
    let plain_bytes = total + offset_width(array.data_type()) * n as u64;

    // A row's read is priced as that of its code (dictionary) or its end offset (plain).
    let (bytes, cascade, kind, read_costs) = if use_dict {
        let codes_seg = encode_value_segment(&codes, validity, options)?;
        let read_costs = Some(codes_seg.read_costs());
        let mut end = 0u64;
        let ends: Vec<u64> = dict
            .iter()
            .map(|v| {
                end += v.len() as u64;
                end
            })
            .collect();
        let ends_seg = encode_value_segment(&ends, None, options)?;
        let values: Vec<u8> = dict.concat();
        let cascade = format!("dict(codes: {})", codes_seg.cascade());
        (write_parts(KIND_DICT, &[&codes_seg, &ends_seg, &values]), cascade, KIND_DICT, read_costs)
    } else {
        let mut end = 0u64;
        let ends: Vec<u64> = rows
            .iter()
            .map(|v| {
                end += v.map_or(0, |v| v.len() as u64);
                end
            })
            .collect();
        let ends_seg = encode_value_segment(&ends, validity, options)?;
        let read_costs = Some(ends_seg.read_costs());
        let values: Vec<u8> = rows.iter().flatten().copied().collect::<Vec<&[u8]>>().concat();
        let cascade = format!("plain(ends: {})", ends_seg.cascade());
        (write_parts(KIND_PLAIN, &[&ends_seg, &values]), cascade, KIND_PLAIN, read_costs)
    };
    Ok(EncodedChunk {
        bytes,
        rows: rows_u32(n)?,
        nulls: (n as u64 - non_null) as u32,
        min: None,
        max: None,
        cascade,
        kind,
        plain_bytes,
        read_costs,
    })
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

    fn corrupt(&self, m: impl std::fmt::Display) -> Error {
        Error::Corrupt(format!("{}: {m}", self.what()))
    }

    /// An error of the core in this segment, its kind kept.
    pub(crate) fn core_error(&self, source: lwc::Error) -> Error {
        Error::InColumn { column: self.column.to_string(), segment: Some(self.segment), source }
    }

    /// Opens an lwc segment part and checks its row count (and null count, when given).
    fn open_values<'b, T: Value>(&self, bytes: &'b [u8], rows: usize, nulls: Option<usize>) -> Result<Segment<'b, T>> {
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
}

/// Opens an integer segment of a column whose storage is `T`, checking it against the index.
pub(crate) fn open_value_segment<'a, T: Value>(chunk: &ChunkRef<'a>) -> Result<Segment<'a, T>> {
    chunk.open_values::<T>(chunk.bytes, chunk.rows, Some(chunk.nulls))
}

/// Values (and validity) as an Arrow array of `data_type`.
pub(crate) fn values_to_arrow<T: Value + ArrowNativeType>(
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
    physical: Physical,
    range: Range<usize>,
) -> Result<ArrayRef> {
    match physical {
        Physical::Values(t) => value_dispatch!(t, T => {
            let segment = open_value_segment::<T>(chunk)?;
            let array = segment.decode(range).map_err(|e| chunk.core_error(e))?;
            values_to_arrow::<T>(data_type, array.values, array.validity)
        }),
        Physical::Fixed(width) => decode_fixed(chunk, data_type, width as usize, range),
        Physical::Bytes => decode_bytes(chunk, data_type, range),
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

/// Builds a string or binary array from offsets starting at 0.
fn bytes_array(
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

/// Checks that `ends` never decrease and stay within `limit`.
fn check_ends(chunk: &ChunkRef<'_>, ends: &[u64], limit: usize) -> Result<()> {
    let mut prev = 0;
    for &e in ends {
        if e < prev || e > limit as u64 {
            return Err(chunk.corrupt(format!("offset {e} after {prev} (value bytes: {limit})")));
        }
        prev = e;
    }
    Ok(())
}

fn decode_bytes(chunk: &ChunkRef<'_>, data_type: &DataType, range: Range<usize>) -> Result<ArrayRef> {
    let (kind, parts) = read_parts(chunk.bytes, &|| chunk.what())?;
    let mut offsets = Vec::with_capacity(range.len() + 1);
    offsets.push(0u64);
    let mut out = Vec::new();
    match (kind, &parts[..]) {
        (KIND_DICT, &[codes, ends, dict]) => {
            let codes = chunk.open_values::<u32>(codes, chunk.rows, Some(chunk.nulls))?;
            let ends_seg = Segment::<u64>::open(ends).map_err(|e| chunk.core_error(e))?;
            // Entries are distinct, so all but one (the empty string) take a byte at least; and a writer
            // keeps only the entries its rows use. Checked before decoding, as a damaged count can claim
            // billions of entries that a few bytes of a constant stream would hold.
            let entries = ends_seg.rows();
            if entries > dict.len() + 1 || entries > chunk.rows {
                return Err(chunk.corrupt(format!(
                    "{entries} dictionary entries for {} rows and {} bytes of values",
                    chunk.rows,
                    dict.len()
                )));
            }
            let ends = ends_seg.decode_all().values;
            check_ends(chunk, &ends, dict.len())?;
            let picked = codes.decode(range).map_err(|e| chunk.core_error(e))?;
            let valid = |i: usize| picked.validity.as_ref().is_none_or(|v| v.get(i));
            // Entry `code` spans `dict[entry(code)]`; null rows take no bytes.
            let entry = |code: u32| -> Result<Range<usize>> {
                let code = code as usize;
                match ends.get(code) {
                    Some(&end) => Ok(if code == 0 { 0 } else { ends[code - 1] as usize }..end as usize),
                    None => Err(chunk.corrupt(format!("code {code} past the {}-entry dictionary", ends.len()))),
                }
            };
            // Sized first, so the bytes are copied once into a buffer that never grows.
            let mut total = 0;
            for (i, &code) in picked.values.iter().enumerate() {
                if valid(i) {
                    total += entry(code)?.len();
                }
            }
            out.reserve_exact(total);
            for (i, &code) in picked.values.iter().enumerate() {
                if valid(i) {
                    out.extend_from_slice(&dict[entry(code)?]);
                }
                offsets.push(out.len() as u64);
            }
            bytes_array(data_type, offsets, out, nulls_of(picked.validity))
        }
        (KIND_PLAIN, &[ends, values]) => {
            let ends = chunk.open_values::<u64>(ends, chunk.rows, Some(chunk.nulls))?;
            let all = ends.decode_all();
            let valid = |i: usize| all.validity.as_ref().is_none_or(|v| v.get(i));
            let mut prev = 0u64;
            let mut first = 0u64;
            for i in 0..range.end {
                if i == range.start {
                    first = prev;
                }
                if valid(i) {
                    let e = all.values[i];
                    if e < prev || e > values.len() as u64 {
                        return Err(chunk.corrupt(format!("offset {e} after {prev} (value bytes: {})", values.len())));
                    }
                    prev = e;
                }
                if i >= range.start {
                    offsets.push(prev - first);
                }
            }
            if range.is_empty() {
                first = prev;
            }
            let out = values[first as usize..prev as usize].to_vec();
            let validity =
                all.validity.map(|v| Bitmap::from_bools(&range.clone().map(|i| v.get(i)).collect::<Vec<_>>()));
            bytes_array(data_type, offsets, out, nulls_of(validity))
        }
        _ => Err(chunk.corrupt(format!("segment kind {kind} with {} parts is not a string segment", parts.len()))),
    }
}
