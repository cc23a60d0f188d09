//! Arrow arrays → segment bytes: one row group of one column at a time. Values (integer-backed types and
//! floats) and byte strings become lwc segments; `f16` and wide decimals plain values with a validity
//! bitmap (see `docs/FORMAT.md`).

use arrow_array::cast::AsArray;
use arrow_array::types::Decimal128Type;
use arrow_array::Array;
use arrow_buffer::ArrowNativeType;
use arrow_data::ArrayData;
use arrow_schema::DataType;
use lwc::strings::{BytesType, ZONE_BYTES};
use lwc::{Bitmap, EncodeOptions, LwcInt, SegmentChoice, Value};

use crate::error::{Error, Result};
use crate::format::{write_parts, KIND_FIXED};
use crate::info::BytesZone;
use crate::schema::Storage;

/// One column's share of one row group, encoded.
#[derive(Clone)]
pub(crate) struct EncodedChunk {
    pub(crate) bytes: Vec<u8>,
    pub(crate) rows: u32,
    pub(crate) nulls: u32,
    pub(crate) min: Option<i128>,
    pub(crate) max: Option<i128>,
    /// Byte-string segments: the zone map the footer keeps.
    pub(crate) bytes_zone: Option<BytesZone>,
    /// The cascade text recorded in the footer.
    pub(crate) cascade: String,
    /// What Arrow holds for these rows (values + offsets, no validity).
    pub(crate) plain_bytes: u64,
    /// The cost model's price of reading the integer segment as chosen (per value), when the selector
    /// chose it.
    pub(crate) read_costs: Option<lwc::Costs>,
    /// How the selector chose, when the options asked for it.
    pub(crate) explain: Option<lwc::SegmentExplain>,
    /// Whether the footer entry rebuilds the segment byte for byte, so the file stores none of it
    /// (format version 3, [`crate::format::implied_segment`]).
    pub(crate) implied: bool,
    /// The choice the column's next segment may keep (values and byte strings).
    pub(crate) choice: Option<SegmentChoice>,
}

impl EncodedChunk {
    /// The bytes the file stores: none for an implied segment.
    pub(crate) fn stored(&self) -> &[u8] {
        if self.implied {
            &[]
        } else {
            &self.bytes
        }
    }
}

/// How a column's segments hand on the selector's choice ([`SegmentChoice`]) in a file, whatever the
/// writer's threads: segment 0 chooses, then blocks of segments each keep the choice of the segment
/// before their block (the last of a block, its choice expired, chooses for the next). Blocks are as
/// long as the choices they keep are kept, one more than [`SegmentChoice::kept_for`]: `keep_choice + 1`
/// segments, then twice and four times `keep_choice`, plus one (see [`lwc::KEEP_DOUBLINGS`]).
/// Segments of one block need nothing from each other, so a writer encodes them at once, and a file's
/// bytes do not depend on how many threads wrote it. Where the last of a block hands on no choice (it
/// was written `constant` or `sequence`, which are taken at once), the next block keeps the choice before
/// it, on that block's schedule.
#[derive(Clone)]
pub(crate) struct ChoiceChain {
    keep_choice: usize,
    before_block: Option<SegmentChoice>,
}

impl ChoiceChain {
    /// A chain for a column encoded with `options`.
    pub(crate) fn new(options: &EncodeOptions) -> Self {
        ChoiceChain { keep_choice: options.keep_choice, before_block: None }
    }

    /// Segment `k`'s place in its block: segment 0 alone, then the blocks of the column's choices.
    pub(crate) fn place(k: usize, keep_choice: usize) -> usize {
        Self::renewals_and_place(k, keep_choice).1
    }

    /// The renewals of the choice that segment `k`'s block keeps (see [`SegmentChoice::renewals`]), and
    /// `k`'s place in the block.
    fn renewals_and_place(k: usize, keep_choice: usize) -> (u32, usize) {
        let block = |renewals| SegmentChoice::kept_for(keep_choice, renewals).saturating_add(1);
        let mut rest = k.saturating_sub(1);
        for renewals in 0..lwc::KEEP_DOUBLINGS {
            if rest < block(renewals) {
                return (renewals, rest);
            }
            rest -= block(renewals);
        }
        (lwc::KEEP_DOUBLINGS, rest % block(lwc::KEEP_DOUBLINGS))
    }

    /// The choice segment `k` may keep: the one before its block, aged by `k`'s place in it.
    pub(crate) fn previous(&self, k: usize) -> Option<SegmentChoice> {
        let (renewals, place) = Self::renewals_and_place(k, self.keep_choice);
        self.before_block.as_ref().map(|c| c.aged(place).renewed(renewals))
    }

    /// Segment `k` was written with `choice`.
    pub(crate) fn written(&mut self, k: usize, choice: Option<SegmentChoice>) {
        if Self::place(k + 1, self.keep_choice) == 0 && choice.is_some() {
            self.before_block = choice;
        }
    }
}

/// Every integer segment of a file is encoded here, and only here.
fn encode_value_segment<T: Value>(
    values: &[T],
    validity: Option<&Bitmap>,
    options: &EncodeOptions,
    previous: Option<&SegmentChoice>,
) -> Result<lwc::EncodedSegment<T>> {
    Ok(lwc::encode_segment_after(values, validity, options, previous)?)
}

/// The validity of an array as an lwc bitmap, `None` when no row is null.
/// An Arrow array's validity as an lwc bitmap (bit set = not null); `None` when no row is null.
pub fn validity_of(array: &dyn Array) -> Option<Bitmap> {
    let nulls = array.nulls().filter(|n| n.null_count() > 0)?;
    Some(Bitmap::from_bools(&nulls.iter().collect::<Vec<bool>>()))
}

fn rows_u32(n: usize) -> Result<u32> {
    u32::try_from(n).map_err(|_| Error::InvalidArgument(format!("{n} rows exceed a segment's u32 row count")))
}

/// A value as the footer's min/max index holds it: its latent (integers: the value itself).
pub(crate) fn index_value<T: Value>(v: T) -> i128 {
    v.to_latent().to_i128()
}

fn encode_values<T: Value>(
    values: &[T],
    validity: Option<&Bitmap>,
    options: &EncodeOptions,
    previous: Option<&SegmentChoice>,
) -> Result<EncodedChunk> {
    let encoded = encode_value_segment(values, validity, options, previous)?;
    Ok(EncodedChunk {
        rows: rows_u32(encoded.rows())?,
        nulls: encoded.null_count() as u32,
        min: encoded.min().copied().map(index_value),
        max: encoded.max().copied().map(index_value),
        bytes_zone: None,
        cascade: encoded.cascade().to_string(),
        plain_bytes: 0,
        read_costs: Some(encoded.read_costs()),
        explain: encoded.explain().cloned(),
        choice: encoded.choice().cloned(),
        bytes: encoded.into_bytes().to_vec(),
        implied: false,
    })
}

/// The values of a primitive array whose native type is `T`.
fn primitive_values<T: ArrowNativeType>(data: &ArrayData) -> &[T] {
    &data.buffer::<T>(0)[..data.len()]
}

/// Encodes one row group of one column (`storage` must be what this version writes for the array's type);
/// `previous` is the choice of the column's segment before, which values and byte strings may keep.
pub(crate) fn encode_chunk(
    array: &dyn Array,
    storage: Storage,
    options: &EncodeOptions,
    previous: Option<&SegmentChoice>,
) -> Result<EncodedChunk> {
    let rows = array.len();
    let validity = validity_of(array);
    let mut chunk = match (storage, array.data_type()) {
        (Storage::Values(_), DataType::Null) => {
            let mut c = encode_values(&vec![0u8; rows], Some(&Bitmap::new_clear(rows)), options, previous)?;
            c.plain_bytes = 0;
            c
        }
        (Storage::Values(_), DataType::Boolean) => {
            let values: Vec<u8> = array.as_boolean().values().iter().map(u8::from).collect();
            let mut c = encode_values(&values, validity.as_ref(), options, previous)?;
            c.plain_bytes = rows.div_ceil(8) as u64;
            c
        }
        (Storage::Values(_), DataType::Decimal128(..)) => {
            let d = array.as_primitive::<Decimal128Type>();
            let values = d
                .iter()
                .map(|v| {
                    i64::try_from(v.unwrap_or(0)).map_err(|_| {
                        Error::InvalidArgument(format!("decimal value {v:?} does not fit its precision (≤ 18 digits)"))
                    })
                })
                .collect::<Result<Vec<i64>>>()?;
            let mut c = encode_values(&values, validity.as_ref(), options, previous)?;
            c.plain_bytes = 16 * rows as u64;
            c
        }
        (Storage::Values(t), _) => {
            let data = array.to_data();
            let mut c = value_dispatch!(t, T => encode_values::<T>(primitive_values::<T>(&data), validity.as_ref(), options, previous))?;
            c.plain_bytes = (t.byte_width() * rows) as u64;
            c
        }
        (Storage::Plain(width), _) => encode_fixed(array, width as usize, validity.as_ref())?,
        (Storage::Bytes(kind), _) => encode_bytes(array, kind, validity.as_ref(), options, previous)?,
        (Storage::LegacyBytes, _) => {
            return Err(Error::InvalidArgument("version 1 string segments are read, not written".into()));
        }
    };
    chunk.rows = rows_u32(rows)?;
    chunk.implied = chunk.cascade == "sequence"
        && crate::format::implied_segment(storage, chunk.rows, chunk.nulls, chunk.min, chunk.max)
            .is_some_and(|rebuilt| *rebuilt == *chunk.bytes);
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
        bytes_zone: None,
        cascade: "plain".into(),
        plain_bytes: values.len() as u64,
        read_costs: None,
        explain: None,
        implied: false,
        choice: None,
    })
}

/// The rows of a string or binary array as byte slices (null rows: whatever the array holds there).
fn byte_rows(array: &dyn Array) -> Result<Vec<&[u8]>> {
    fn rows(v: Option<&[u8]>) -> &[u8] {
        v.unwrap_or_default()
    }
    Ok(match array.data_type() {
        DataType::Utf8 => array.as_string::<i32>().iter().map(|v| rows(v.map(str::as_bytes))).collect(),
        DataType::LargeUtf8 => array.as_string::<i64>().iter().map(|v| rows(v.map(str::as_bytes))).collect(),
        DataType::Binary => array.as_binary::<i32>().iter().map(rows).collect(),
        DataType::LargeBinary => array.as_binary::<i64>().iter().map(rows).collect(),
        other => return Err(Error::InvalidArgument(format!("{other} is not a string or binary type"))),
    })
}

/// Bytes of an offset of `data_type`.
pub(crate) fn offset_width(data_type: &DataType) -> u64 {
    match data_type {
        DataType::LargeUtf8 | DataType::LargeBinary => 8,
        _ => 4,
    }
}

/// Strings and binaries: an lwc byte-string segment (a sorted dictionary or plain bytes, as the selector
/// chooses), with the zone map the footer keeps.
fn encode_bytes(
    array: &dyn Array,
    kind: BytesType,
    validity: Option<&Bitmap>,
    options: &EncodeOptions,
    previous: Option<&SegmentChoice>,
) -> Result<EncodedChunk> {
    let rows = byte_rows(array)?;
    // A cascade of integer encodings is for the integer columns: strings choose their own.
    let auto;
    let options = match options.cascade.encoding().id().map(lwc::EncodingId::family) {
        Some(lwc::Family::Integers) => {
            auto = EncodeOptions { cascade: lwc::Encoding::Auto.into(), ..options.clone() };
            &auto
        }
        _ => options,
    };
    let encoded = lwc::strings::encode_bytes_segment_after(&rows, validity, kind, options, previous)?;
    let bytes_zone = match (encoded.min(), encoded.max()) {
        (Some(min), Some(max)) => Some(BytesZone {
            min: min[..min.len().min(ZONE_BYTES)].to_vec(),
            max: max[..max.len().min(ZONE_BYTES)].to_vec(),
            max_is_prefix: max.len() > ZONE_BYTES,
        }),
        _ => None,
    };
    let total: usize =
        rows.iter().enumerate().filter(|&(i, _)| validity.is_none_or(|v| v.get(i))).map(|(_, r)| r.len()).sum();
    Ok(EncodedChunk {
        rows: rows_u32(rows.len())?,
        nulls: encoded.null_count() as u32,
        min: None,
        max: None,
        bytes_zone,
        cascade: encoded.cascade().to_string(),
        plain_bytes: total as u64 + offset_width(array.data_type()) * rows.len() as u64,
        read_costs: Some(encoded.read_costs()),
        explain: encoded.explain().cloned(),
        choice: encoded.choice().cloned(),
        bytes: encoded.into_bytes().to_vec(),
        implied: false,
    })
}

/// Explain records of consecutive segments as text, one block per segment headed by its rows
/// (`segment 1 (rows 65536..100000): ...`), as the `lwc` command and the Python package print them.
pub fn explains_text(explains: &[lwc::SegmentExplain]) -> String {
    let mut text = String::new();
    let mut first = 0u64;
    for (k, e) in explains.iter().enumerate() {
        text.push_str(&format!("segment {k} (rows {first}..{}): {e}", first + e.rows as u64));
        first += e.rows as u64;
    }
    text
}

/// How the selector would encode `array` as a column of `.lwc` segments of `options.segment_rows` rows:
/// one explain record per segment (candidates, estimates, costs, why the winner won), for every type whose
/// segments lwc chooses (integers, floats, dates, decimals, strings, binaries).
///
/// ```
/// use arrow_array::Float64Array;
/// let prices = Float64Array::from_iter_values((0..100_000).map(|i| (i % 5_000) as f64 / 100.0));
/// let explains = lwc_file::explain_array(&prices, &lwc::EncodeOptions::default())?;
/// assert_eq!(explains.len(), 2); // 65,536 rows a segment
/// assert_eq!(explains[0].chosen.to_string().split('(').next(), Some("alp"));
/// # Ok::<(), lwc_file::Error>(())
/// ```
pub fn explain_array(array: &dyn Array, options: &EncodeOptions) -> Result<Vec<lwc::SegmentExplain>> {
    let storage =
        crate::schema::storage_for(array.data_type()).filter(|s| !matches!(s, Storage::Plain(_))).ok_or_else(|| {
            Error::InvalidArgument(format!("{} is stored as it is: no encoding is chosen", array.data_type()))
        })?;
    let options = EncodeOptions { explain: true, ..options.clone() };
    let step = options.segment_rows.max(1);
    let mut chain = ChoiceChain::new(&options);
    (0..array.len())
        .step_by(step)
        .enumerate()
        .map(|(k, start)| {
            let part = array.slice(start, step.min(array.len() - start));
            let chunk = encode_chunk(part.as_ref(), storage, &options, chain.previous(k).as_ref())?;
            chain.written(k, chunk.choice);
            chunk.explain.ok_or_else(|| Error::InvalidArgument("no explain record was kept".into()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::ChoiceChain;

    /// Segment 0 chooses alone, then blocks of 16, 31 and 61 segments at `keep_choice` 15, each ended by
    /// the segment that chooses for the next: where a column written one segment after another chooses.
    #[test]
    fn blocks_grow_as_kept_choices_do() {
        let choosers: Vec<usize> = (0..300).filter(|&k| ChoiceChain::place(k + 1, 15) == 0).collect();
        assert_eq!(choosers, [0, 16, 47, 108, 169, 230, 291]);
        assert!((0..100).all(|k| ChoiceChain::place(k, 0) == 0), "0 chooses for every segment");
        assert_eq!(ChoiceChain::place(1_000, usize::MAX), 999);
    }
}
