//! The in-memory column container: a column's segments laid out in one byte string that can be stored and
//! opened again ([`EncodedColumn`]), and the builder that cuts values into segments and encodes each as it
//! fills ([`ColumnBuilder`]). The view over it is [`super::Column`].
//!
//! Bytes (little-endian): magic `LWC1`, type id (1 byte), 3 reserved zero bytes, rows (u64), segment count
//! (u32), nominal rows per segment (u32), then one entry per segment (offset u64, length u64, both from
//! the column's start), then the segments, each starting 8-aligned.

use crate::bitmap::Bitmap;
use crate::bytes::{AlignedBytes, Reader, Writer};
use crate::error::{Error, Result};
use crate::segment::{encode_segment_after, read_magic_and_type, EncodeOptions, Segment, SegmentChoice};
use crate::select::SegmentExplain;
use crate::types::{Value, ValueType};

use super::Column;

const MAGIC: &[u8; 4] = b"LWC1";

/// Builds a column from values pushed in order, encoding each segment as soon as it is full.
pub struct ColumnBuilder<T: Value> {
    options: EncodeOptions,
    values: Vec<T>,
    /// Validity of the pending values; materialized at the first null.
    validity: Option<Vec<bool>>,
    segments: Vec<AlignedBytes>,
    rows: u64,
    /// How each segment's encoding was chosen, when the options ask for it.
    explains: Vec<SegmentExplain>,
    /// The choice the next segment may keep.
    previous: Option<SegmentChoice>,
}

impl<T: Value> ColumnBuilder<T> {
    /// A builder; fails if `segment_rows` is zero or above `u32::MAX`.
    pub fn new(options: EncodeOptions) -> Result<Self> {
        if options.segment_rows == 0 || options.segment_rows > u32::MAX as usize {
            return Err(Error::InvalidArgument(format!("segment_rows {} is not in 1..=2^32-1", options.segment_rows)));
        }
        options.cascade.check()?;
        Ok(ColumnBuilder {
            options,
            values: Vec::new(),
            validity: None,
            segments: Vec::new(),
            rows: 0,
            explains: Vec::new(),
            previous: None,
        })
    }

    /// Appends non-null values.
    pub fn extend_from_slice(&mut self, values: &[T]) -> Result<()> {
        let mut rest = values;
        while !rest.is_empty() {
            let room = self.options.segment_rows - self.values.len();
            let (now, later) = rest.split_at(room.min(rest.len()));
            self.values.extend_from_slice(now);
            if let Some(v) = &mut self.validity {
                v.resize(self.values.len(), true);
            }
            self.flush_if_full()?;
            rest = later;
        }
        Ok(())
    }

    /// Appends one value or a null.
    pub fn push(&mut self, value: Option<T>) -> Result<()> {
        if value.is_none() && self.validity.is_none() {
            self.validity = Some(vec![true; self.values.len()]);
        }
        self.values.push(value.unwrap_or_default());
        if let Some(v) = &mut self.validity {
            v.push(value.is_some());
        }
        self.flush_if_full()
    }

    fn flush_if_full(&mut self) -> Result<()> {
        if self.values.len() == self.options.segment_rows {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        if self.values.is_empty() {
            return Ok(());
        }
        let validity = self.validity.take().map(|v| Bitmap::from_bools(&v));
        let previous = self.previous.take();
        let mut encoded = encode_segment_after(&self.values, validity.as_ref(), &self.options, previous.as_ref())?;
        self.previous = encoded.choice.take();
        if let Some(explain) = encoded.explain.take() {
            self.explains.push(explain);
        }
        let bytes = encoded.into_bytes();
        self.segments.push(bytes);
        self.rows += self.values.len() as u64;
        self.values.clear();
        Ok(())
    }

    /// Encodes what is pending and lays the column out as bytes.
    pub fn finish(mut self) -> Result<EncodedColumn> {
        self.flush()?;
        let segment_bytes: usize = self.segments.iter().map(|s| s.len().next_multiple_of(8)).sum();
        let mut w = Writer::with_capacity(64 + 16 * self.segments.len() + segment_bytes);
        w.array(MAGIC);
        w.u8(T::TYPE as u8);
        w.zeros(3);
        w.u64(self.rows);
        w.u32(self.segments.len() as u32);
        w.u32(self.options.segment_rows as u32);
        let mut offset = (w.len() + 16 * self.segments.len()).next_multiple_of(8);
        for s in &self.segments {
            w.u64(offset as u64);
            w.u64(s.len() as u64);
            offset = (offset + s.len()).next_multiple_of(8);
        }
        for s in &self.segments {
            w.array(s.as_bytes());
        }
        Ok(EncodedColumn { bytes: w.into_aligned(), explains: self.explains })
    }
}

/// An encoded column held in memory (aligned bytes you can store and open again), with the record of each
/// segment's choice when the options asked for it.
#[derive(Clone, Debug)]
pub struct EncodedColumn {
    bytes: AlignedBytes,
    explains: Vec<SegmentExplain>,
}

/// Columns are equal when their bytes are.
impl PartialEq for EncodedColumn {
    fn eq(&self, other: &Self) -> bool {
        self.bytes == other.bytes
    }
}

impl Eq for EncodedColumn {}

impl EncodedColumn {
    /// Encodes `values` (with optional validity, bit set = not null) into segments; `options` is an
    /// [`EncodeOptions`] or anything that converts into one (an [`Encoding`](crate::Encoding), a
    /// [`Cascade`], an [`Objective`](crate::Objective)).
    pub fn encode<T: Value>(
        values: &[T],
        validity: Option<&Bitmap>,
        options: impl Into<EncodeOptions>,
    ) -> Result<Self> {
        let mut options = options.into();
        // Lookups go to any of the column's rows: its bytes are the working set the cost model prices.
        options.working_set_rows = options.working_set_rows.or(Some(values.len() as u64));
        Self::fill(values, validity, ColumnBuilder::new(options)?)?.finish()
    }

    /// How each segment's encoding was chosen, in order, when [`EncodeOptions::explain`] asked for it
    /// (empty otherwise, and for columns read from bytes).
    pub fn explains(&self) -> &[SegmentExplain] {
        &self.explains
    }

    fn fill<T: Value>(values: &[T], validity: Option<&Bitmap>, mut b: ColumnBuilder<T>) -> Result<ColumnBuilder<T>> {
        if let Some(v) = validity {
            if v.len() != values.len() {
                return Err(Error::InvalidArgument(format!(
                    "validity has {} bits for {} values",
                    v.len(),
                    values.len()
                )));
            }
        }
        match validity {
            None => b.extend_from_slice(values)?,
            Some(v) => {
                for (i, &x) in values.iter().enumerate() {
                    b.push(v.get(i).then_some(x))?;
                }
            }
        }
        Ok(b)
    }

    /// Copies bytes (from a file, the network, ...) into aligned storage; [`EncodedColumn::open`] validates.
    pub fn from_bytes(bytes: &[u8]) -> Self {
        EncodedColumn { bytes: AlignedBytes::copy_from(bytes), explains: Vec::new() }
    }

    /// The encoded bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The value type the column holds, read from its header, so a caller can pick the `T` of
    /// [`EncodedColumn::open`] for bytes of unknown origin (the rest is validated by `open`).
    pub fn value_type(&self) -> Result<ValueType> {
        let mut r = Reader::new(&self.bytes);
        if r.take("column", 4)? != MAGIC {
            return Err(Error::Corrupt("not an lwc column (bad magic)".into()));
        }
        let id = r.u8("column")?;
        ValueType::from_id(id).ok_or_else(|| Error::Corrupt(format!("column: unknown type id {id}")))
    }

    /// Validates and opens a view.
    pub fn open<T: Value>(&self) -> Result<Column<'_, T>> {
        Column::open(&self.bytes)
    }
}

/// Reads the layout: the header, the segment table, and every segment opened (and so validated).
pub(super) fn open_segments<T: Value>(bytes: &[u8]) -> Result<(u64, Vec<Segment<'_, T>>)> {
    let mut r = Reader::new(bytes);
    read_magic_and_type::<T>(&mut r, MAGIC, "column")?;
    r.take("column reserved", 3)?;
    let rows = r.u64("column rows")?;
    let count = r.u32("segment count")? as usize;
    r.u32("segment rows")?;
    let table: &[u64] =
        r.array("segment table", count.checked_mul(2).ok_or_else(|| Error::Corrupt("segment count".into()))?)?;
    let mut segments = Vec::with_capacity(count);
    for entry in table.chunks_exact(2) {
        let (offset, len) = (entry[0] as usize, entry[1] as usize);
        let end = offset.checked_add(len).filter(|&e| e <= bytes.len());
        let Some(end) = end else {
            return Err(Error::Truncated {
                what: "segment",
                offset,
                needed: len,
                available: bytes.len().saturating_sub(offset),
            });
        };
        segments.push(Segment::open(&bytes[offset..end])?);
    }
    Ok((rows, segments))
}
