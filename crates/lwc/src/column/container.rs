//! The in-memory column container: a column's segments laid out in one byte string that can be stored and
//! opened again ([`EncodedColumn`]), and the builder that cuts values into segments and encodes each as it
//! fills ([`ColumnBuilder`]). The view over it is [`super::Column`].
//!
//! Bytes (little-endian): magic `LWC1`, type id (1 byte), 3 reserved zero bytes, rows (u64), segment count
//! (u32), nominal rows per segment (u32), then one entry per segment (offset u64, length u64, both from
//! the column's start), then the segments, each starting 8-aligned.

use std::ops::Range;

use crate::bitmap::Bitmap;
use crate::bytes::{AlignedBytes, Reader, Writer};
use crate::error::{Error, Result};
use crate::segment::{read_magic_and_type, segment_room, write_segment_after, EncodeOptions, Segment, SegmentChoice};
use crate::select::SegmentExplain;
use crate::types::{Value, ValueType};

use super::Column;

const MAGIC: &[u8; 4] = b"LWC1";

/// Bytes before the segment table: magic, type id, reserved, rows, segment count, rows per segment.
const HEADER: usize = 24;

/// Bytes of a segment table entry (offset and length).
const ENTRY: usize = 16;

/// Builds a column from values pushed in order, encoding each segment as soon as it is full.
pub struct ColumnBuilder<T: Value> {
    options: EncodeOptions,
    values: Vec<T>,
    /// Validity of the pending values; materialized at the first null.
    validity: Option<Vec<bool>>,
    /// The column's bytes: room for the header and a table of `reserved` segments, then the segments
    /// written so far, each where it will stay when the table has room for them all.
    out: Writer,
    reserved: usize,
    /// Where each segment lies in `out`.
    segments: Vec<Range<usize>>,
    rows: u64,
    /// How each segment's encoding was chosen, when the options ask for it.
    explains: Vec<SegmentExplain>,
    /// The choice the next segment may keep.
    previous: Option<SegmentChoice>,
}

impl<T: Value> ColumnBuilder<T> {
    /// A builder; fails if `segment_rows` is zero or above `u32::MAX`.
    pub fn new(options: EncodeOptions) -> Result<Self> {
        Self::expecting(options, 0)
    }

    /// A builder told it will be given `rows` rows: it reserves the bytes they take at most, and the
    /// segment table's room, so each segment is written once, where it stays. More or fewer rows are
    /// still encoded; their column is laid out again at [`ColumnBuilder::finish`].
    pub(crate) fn expecting(options: EncodeOptions, rows: usize) -> Result<Self> {
        if options.segment_rows == 0 || options.segment_rows > u32::MAX as usize {
            return Err(Error::InvalidArgument(format!("segment_rows {} is not in 1..=2^32-1", options.segment_rows)));
        }
        options.cascade.check()?;
        let reserved = rows.div_ceil(options.segment_rows);
        let table = HEADER + ENTRY * reserved;
        let mut out = Writer::with_capacity(table + reserved * segment_room::<T>(options.segment_rows.min(rows)));
        out.zeros(table);
        Ok(ColumnBuilder {
            options,
            values: Vec::new(),
            validity: None,
            out,
            reserved,
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
            let whole = self.options.segment_rows;
            if self.values.is_empty() && self.validity.is_none() && rest.len() >= whole {
                // A whole segment with nothing pending: encoded where it lies, not copied first.
                let (now, later) = rest.split_at(whole);
                self.write(now, None)?;
                rest = later;
                continue;
            }
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
        let values = std::mem::take(&mut self.values);
        let written = self.write(&values, validity.as_ref());
        self.values = values;
        self.values.clear();
        written
    }

    /// Encodes `values` as the next segment, after those written.
    fn write(&mut self, values: &[T], validity: Option<&Bitmap>) -> Result<()> {
        let previous = self.previous.take();
        let before = self.out.len();
        self.out.align();
        let written = write_segment_after(values, validity, &self.options, previous.as_ref(), &mut self.out);
        // A segment that failed leaves nothing behind: the next one is written where it would have been.
        let mut encoded = written.inspect_err(|_| self.out.truncate(before))?;
        self.previous = encoded.choice.take();
        if let Some(explain) = encoded.explain.take() {
            self.explains.push(explain);
        }
        self.segments.push(encoded.bytes);
        self.rows += values.len() as u64;
        Ok(())
    }

    /// Encodes what is pending and lays the column out as bytes.
    pub fn finish(mut self) -> Result<EncodedColumn> {
        self.flush()?;
        // The segments move by the table's difference from the room reserved for it (8-aligned both).
        let (table, body) = (HEADER + ENTRY * self.segments.len(), HEADER + ENTRY * self.reserved);
        let mut head = Writer::with_capacity(table);
        head.array(MAGIC);
        head.u8(T::TYPE as u8);
        head.zeros(3);
        head.u64(self.rows);
        head.u32(self.segments.len() as u32);
        head.u32(self.options.segment_rows as u32);
        for s in &self.segments {
            head.u64((s.start - body + table) as u64);
            head.u64(s.len() as u64);
        }
        let bytes = if table == body {
            self.out.write_at(0, head.as_bytes());
            self.out.into_aligned()
        } else {
            // Told too few or too many rows, or none: the segments are copied after the table once.
            let segments = &self.out.as_bytes()[body..];
            head.reserve(segments.len());
            head.packed(|buf| buf.extend_from_slice(segments));
            head.into_aligned()
        };
        Ok(EncodedColumn { bytes, explains: self.explains })
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
    /// [`Cascade`](crate::Cascade), an [`Objective`](crate::Objective)).
    pub fn encode<T: Value>(
        values: &[T],
        validity: Option<&Bitmap>,
        options: impl Into<EncodeOptions>,
    ) -> Result<Self> {
        let mut options = options.into();
        // Lookups go to any of the column's rows: its bytes are the working set the cost model prices.
        options.working_set_rows = options.working_set_rows.or(Some(values.len() as u64));
        Self::fill(values, validity, ColumnBuilder::expecting(options, values.len())?)?.finish()
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::segment::encode_segment_after;

    /// The layout of a column of `segments`, each encoded on its own: what the builder must write.
    fn laid_out<T: Value>(segments: &[crate::segment::EncodedSegment<T>], rows: u64, segment_rows: usize) -> Vec<u8> {
        let mut w = Writer::new();
        w.array(MAGIC);
        w.u8(T::TYPE as u8);
        w.zeros(3);
        w.u64(rows);
        w.u32(segments.len() as u32);
        w.u32(segment_rows as u32);
        let mut offset = HEADER + ENTRY * segments.len();
        for s in segments {
            w.u64(offset as u64);
            w.u64(s.len() as u64);
            offset = (offset + s.len()).next_multiple_of(8);
        }
        for s in segments {
            w.array(s.as_bytes());
        }
        w.as_bytes().to_vec()
    }

    /// A segment that fails to encode (a forced encoding that does not apply) leaves no bytes behind: the
    /// builder's next segment lands where a builder that never saw the failed one puts it.
    #[test]
    fn a_failed_segment_leaves_nothing_behind() {
        let options = EncodeOptions { segment_rows: 64, ..EncodeOptions::from(crate::Encoding::Constant) };
        let varied: Vec<u32> = (0..64).collect();
        let same = vec![5u32; 64];
        let mut builder = ColumnBuilder::<u32>::expecting(options.clone(), 128).unwrap();
        assert!(matches!(builder.extend_from_slice(&varied), Err(Error::NotApplicable { .. })));
        builder.extend_from_slice(&same).unwrap();
        let mut clean = ColumnBuilder::<u32>::new(options).unwrap();
        clean.extend_from_slice(&same).unwrap();
        assert_eq!(builder.finish().unwrap(), clean.finish().unwrap());
    }

    /// A builder writes each segment where it stays when told its rows, and lays the column out again
    /// when told too few or too many, or none; values given whole, in pieces across segments, or one by
    /// one with nulls: the bytes are those of its segments encoded one by one, under a forced encoding
    /// and under `auto` (where each segment may keep the choice of the one before).
    #[test]
    fn segments_written_in_place_lay_out_as_segments_encoded_alone() {
        let segment_rows = 64;
        for rows in [0usize, 1, 63, 64, 65, 200] {
            let values: Vec<u32> = (0..rows as u32).map(|i| (i * 37) % 1_000 + (i >> 5)).collect();
            let valid: Vec<bool> = (0..rows).map(|i| i % 7 != 3).collect();
            for cascade in [crate::Encoding::Bitpack, crate::Encoding::Auto] {
                let options = EncodeOptions { segment_rows, ..EncodeOptions::from(cascade) };
                for nulls in [false, true] {
                    let mut expected = Vec::new();
                    for (k, chunk) in values.chunks(segment_rows).enumerate() {
                        let bits = nulls.then(|| Bitmap::from_bools(&valid[k * segment_rows..][..chunk.len()]));
                        let previous = expected.last().and_then(|s: &crate::segment::EncodedSegment<u32>| s.choice());
                        expected.push(encode_segment_after(chunk, bits.as_ref(), &options, previous).unwrap());
                    }
                    let expected = laid_out(&expected, rows as u64, segment_rows);
                    for told in [0, rows / 2, rows, rows * 2 + 100] {
                        let mut builder = ColumnBuilder::<u32>::expecting(options.clone(), told).unwrap();
                        if nulls {
                            for (&v, &ok) in values.iter().zip(&valid) {
                                builder.push(ok.then_some(v)).unwrap();
                            }
                        } else {
                            // Pieces that leave values pending across segments, then whole segments.
                            let (first, rest) = values.split_at(rows.min(10));
                            builder.extend_from_slice(first).unwrap();
                            for piece in rest.chunks(segment_rows + 3) {
                                builder.extend_from_slice(piece).unwrap();
                            }
                        }
                        let column = builder.finish().unwrap();
                        assert_eq!(
                            column.as_bytes(),
                            &expected[..],
                            "{rows} rows told {told}, {cascade:?}, nulls {nulls}"
                        );
                        let opened = column.open::<u32>().unwrap();
                        for (row, (&v, &ok)) in values.iter().zip(&valid).enumerate() {
                            assert_eq!(opened.get(row as u64).unwrap(), (ok || !nulls).then_some(v));
                        }
                    }
                }
            }
        }
    }
}
