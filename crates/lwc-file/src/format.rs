//! The byte layout of a `.lwc` file (see `docs/FORMAT.md`): header and tail constants, the
//! little-endian footer codec, the layout of multi-part segments, and the footer with its segment index.

use arrow_schema::{Field, Schema};
use lwc::{Bitmap, EncodeOptions, EncodedColumn, LwcInt, ValueType};

use crate::codec::{ByteReader, ByteWriter};

use crate::error::{Error, Result};
use crate::info::{BytesZone, ColumnInfo, SegmentInfo};
use crate::schema::{read_schema, readable_as, write_schema, Storage};

/// First and last four bytes of every `.lwc` file.
pub(crate) const MAGIC: &[u8; 4] = b"LWCF";
/// The format version this crate writes. Version 2 checksums every byte: a segment's CRC-32C covers the
/// zero padding after it, and segments tile the file between the header and the footer. Version 3 leaves
/// out the bytes of segments that their row count and zone map describe in full ([`implied_segment`]).
pub(crate) const VERSION: u16 = 3;
/// The first version with implied segments.
pub(crate) const IMPLIED_SINCE: u16 = 3;
/// Versions this crate reads (1: a segment's CRC-32C covers its `length` bytes only).
pub(crate) const READABLE: std::ops::RangeInclusive<u16> = 1..=VERSION;
/// Header: magic, version (u16), reserved (u16, zero).
pub(crate) const HEADER_LEN: usize = 8;
/// Tail: footer length (u64), footer CRC-32C (u32), magic.
pub(crate) const TAIL_LEN: usize = 16;

/// Chunk kinds of multi-part segments (first byte of their header).
pub(crate) const KIND_FIXED: u8 = 0;
/// A dictionary segment of a bytes column.
pub(crate) const KIND_DICT: u8 = 1;
/// A plain segment of a bytes column.
pub(crate) const KIND_PLAIN: u8 = 2;
/// Most parts a multi-part segment has.
const MAX_PARTS: usize = 8;

/// The bytes of an implied segment: one of integer values without nulls that rise in equal steps from
/// its zone map's min to its max, which the file stores as an index entry of length 0 (a `sequence`
/// segment, 48 bytes, is rebuilt exactly as it was written). `None` where the entry describes no such
/// segment.
pub(crate) fn implied_segment(
    storage: Storage,
    rows: u32,
    nulls: u32,
    min: Option<i128>,
    max: Option<i128>,
) -> Option<lwc::AlignedBytes> {
    let (Storage::Values(value_type), 0, Some(min), Some(max)) = (storage, nulls, min, max) else { return None };
    macro_rules! rebuild {
        ($T:ty) => {
            lwc::sequence_segment::<$T>(rows, <$T>::try_from(min).ok()?, <$T>::try_from(max).ok()?)
        };
    }
    use lwc::ValueType as V;
    match value_type {
        V::U8 => rebuild!(u8),
        V::U16 => rebuild!(u16),
        V::U32 => rebuild!(u32),
        V::U64 => rebuild!(u64),
        V::I8 => rebuild!(i8),
        V::I16 => rebuild!(i16),
        V::I32 => rebuild!(i32),
        V::I64 => rebuild!(i64),
        // Floats are stored through their latents; their sequences are not worth a special case.
        V::F32 | V::F64 => None,
    }
}

/// The file header.
pub(crate) fn header() -> [u8; HEADER_LEN] {
    let mut h = [0u8; HEADER_LEN];
    h[..4].copy_from_slice(MAGIC);
    h[4..6].copy_from_slice(&VERSION.to_le_bytes());
    h
}

/// The file tail for a footer.
pub(crate) fn tail(footer: &[u8]) -> [u8; TAIL_LEN] {
    let mut t = [0u8; TAIL_LEN];
    t[..8].copy_from_slice(&(footer.len() as u64).to_le_bytes());
    t[8..12].copy_from_slice(&crc32c::crc32c(footer).to_le_bytes());
    t[12..].copy_from_slice(MAGIC);
    t
}

/// The bytes a segment's checksum covers from its offset: its `len` bytes and, from version 2 on, the zero
/// padding to the next multiple of 8 (where the next segment or the footer starts).
pub(crate) fn checksummed_len(version: u16, len: u64) -> u64 {
    if version >= 2 {
        len.next_multiple_of(8)
    } else {
        len
    }
}

/// The CRC-32C of a segment as written by this version: its bytes, then its padding.
pub(crate) fn segment_checksum(bytes: &[u8]) -> u32 {
    let padding = [0u8; 8];
    crc32c::crc32c_append(crc32c::crc32c(bytes), &padding[..bytes.len().next_multiple_of(8) - bytes.len()])
}

/// Checks header and tail, and returns the format version and the footer's byte range (its checksum
/// verified when `verify_checksum`).
pub(crate) fn locate_footer(bytes: &[u8], verify_checksum: bool) -> Result<(u16, std::ops::Range<usize>)> {
    let len = bytes.len();
    if len < HEADER_LEN + TAIL_LEN {
        return Err(Error::Corrupt(format!("truncated: {len} bytes, a file has at least {}", HEADER_LEN + TAIL_LEN)));
    }
    if &bytes[..4] != MAGIC {
        return Err(Error::Corrupt("bad magic at the start (not an lwc file)".into()));
    }
    let version = u16::from_le_bytes([bytes[4], bytes[5]]);
    if !READABLE.contains(&version) {
        return Err(Error::Corrupt(format!(
            "unsupported format version {version} (this reader knows {} to {})",
            READABLE.start(),
            READABLE.end()
        )));
    }
    if bytes[6..8] != [0, 0] {
        return Err(Error::Corrupt("reserved header bytes are not zero".into()));
    }
    let t = &bytes[len - TAIL_LEN..];
    if &t[12..] != MAGIC {
        return Err(Error::Corrupt("bad magic at the end (truncated or not an lwc file)".into()));
    }
    let footer_len = u64::from_le_bytes(t[..8].try_into().expect("8 bytes"));
    let crc = u32::from_le_bytes(t[8..12].try_into().expect("4 bytes"));
    let room = (len - TAIL_LEN - HEADER_LEN) as u64;
    if footer_len > room {
        return Err(Error::Corrupt(format!("footer length {footer_len} exceeds the {room} bytes before the tail")));
    }
    let start = len - TAIL_LEN - footer_len as usize;
    if !start.is_multiple_of(8) {
        return Err(Error::Corrupt(format!("footer starts at {start}, not a multiple of 8")));
    }
    let footer = start..len - TAIL_LEN;
    let actual = crc32c::crc32c(&bytes[footer.clone()]);
    if verify_checksum && actual != crc {
        return Err(Error::Corrupt(format!("footer checksum mismatch (stored {crc:#010x}, computed {actual:#010x})")));
    }
    Ok((version, footer))
}

/// Lays out a multi-part segment: kind (u8), 3 zero bytes, part count (u32), one u64 length per part,
/// then the parts, each starting at a multiple of 8 from the segment's start (zero padding between).
pub(crate) fn write_parts(kind: u8, parts: &[&[u8]]) -> Vec<u8> {
    let mut out = Vec::with_capacity(8 + 8 * parts.len() + parts.iter().map(|p| p.len() + 7).sum::<usize>());
    out.extend_from_slice(&[kind, 0, 0, 0]);
    out.extend_from_slice(&(parts.len() as u32).to_le_bytes());
    for p in parts {
        out.extend_from_slice(&(p.len() as u64).to_le_bytes());
    }
    for p in parts {
        out.resize(out.len().next_multiple_of(8), 0);
        out.extend_from_slice(p);
    }
    out
}

/// Splits a multi-part segment written by [`write_parts`] into its kind and parts (each 8-aligned
/// relative to `bytes`, so aligned in memory when `bytes` is).
pub(crate) fn read_parts<'a>(bytes: &'a [u8], what: &dyn Fn() -> String) -> Result<(u8, Vec<&'a [u8]>)> {
    let corrupt = |m: String| Error::Corrupt(format!("{}: {m}", what()));
    if bytes.len() < 8 {
        return Err(corrupt(format!("{} bytes, too short for a segment header", bytes.len())));
    }
    let kind = bytes[0];
    if bytes[1..4] != [0, 0, 0] {
        return Err(corrupt("reserved segment bytes are not zero".into()));
    }
    let count = u32::from_le_bytes(bytes[4..8].try_into().expect("4 bytes")) as usize;
    if count > MAX_PARTS || bytes.len() < 8 + 8 * count {
        return Err(corrupt(format!("bad part count {count}")));
    }
    let mut pos = 8 + 8 * count;
    let mut parts = Vec::with_capacity(count);
    for i in 0..count {
        let at = 8 + 8 * i;
        let len = u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
        pos = pos.next_multiple_of(8);
        if len > (bytes.len().saturating_sub(pos)) as u64 {
            return Err(corrupt(format!("part {i} of {len} bytes runs past the segment's end")));
        }
        parts.push(&bytes[pos..pos + len as usize]);
        pos += len as usize;
    }
    if pos != bytes.len() {
        return Err(corrupt(format!("{} bytes after the last part", bytes.len() - pos)));
    }
    Ok((kind, parts))
}

/// One column's entry in the footer.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ColumnFooter {
    pub(crate) storage: Storage,
    pub(crate) plain_bytes: u64,
    pub(crate) segments: Vec<SegmentInfo>,
    /// Version 1 string columns: each segment's kind ([`KIND_DICT`] or [`KIND_PLAIN`]); empty otherwise.
    pub(crate) kinds: Vec<u8>,
    pub(crate) cascades: Vec<(String, usize)>,
}

impl ColumnFooter {
    /// The public description of this column.
    pub(crate) fn info(&self, field: &Field) -> ColumnInfo {
        ColumnInfo {
            name: field.name().clone(),
            data_type: field.data_type().clone(),
            storage: self.storage,
            rows: self.segments.iter().map(|s| s.rows as u64).sum(),
            nulls: self.segments.iter().map(|s| s.nulls as u64).sum(),
            plain_bytes: self.plain_bytes,
            encoded_bytes: self.segments.iter().map(|s| s.len).sum(),
            segments: self.segments.clone(),
            cascades: self.cascades.clone(),
        }
    }
}

/// The footer: everything needed to find and check every segment.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Footer {
    pub(crate) options: String,
    pub(crate) rows: u64,
    pub(crate) segment_rows: u64,
    pub(crate) schema: Schema,
    pub(crate) columns: Vec<ColumnFooter>,
}

/// An index array as an lwc column (so regular offsets, row counts and min/max sequences cost almost nothing).
fn index_blob<T: LwcInt>(values: &[T], validity: Option<&Bitmap>) -> Result<Vec<u8>> {
    Ok(EncodedColumn::encode(values, validity, EncodeOptions::default())?.as_bytes().to_vec())
}

/// Decodes an index array of `n` entries (`n` bounded by the caller), with its validity.
fn read_index<T: LwcInt>(r: &mut ByteReader<'_>, n: usize, what: &str) -> Result<(Vec<T>, Option<Bitmap>)> {
    let blob = r.blob(what)?;
    let encoded = EncodedColumn::from_bytes(blob);
    let column = encoded.open::<T>().map_err(|e| Error::Corrupt(format!("footer: {what}: {e}")))?;
    if column.rows() != n as u64 {
        return Err(Error::Corrupt(format!("footer: {what} has {} entries for {n} segments", column.rows())));
    }
    let array = column.decode(0..n as u64).map_err(|e| Error::Corrupt(format!("footer: {what}: {e}")))?;
    Ok((array.values, array.validity))
}

fn write_min_max<T: LwcInt + TryFrom<i128>>(w: &mut ByteWriter, values: &[Option<i128>]) -> Result<()> {
    let valid: Vec<bool> = values.iter().map(Option::is_some).collect();
    let validity = valid.contains(&false).then(|| Bitmap::from_bools(&valid));
    let raw: Vec<T> = values
        .iter()
        .map(|v| T::try_from(v.unwrap_or(0)).map_err(|_| Error::InvalidArgument(format!("min/max {v:?} out of range"))))
        .collect::<Result<_>>()?;
    w.blob(&index_blob(&raw, validity.as_ref())?);
    Ok(())
}

fn read_min_max<T: LwcInt>(r: &mut ByteReader<'_>, n: usize, what: &str) -> Result<Vec<Option<i128>>> {
    let (values, validity) = read_index::<T>(r, n, what)?;
    Ok(values
        .iter()
        .enumerate()
        .map(|(i, v)| validity.as_ref().is_none_or(|b| b.get(i)).then(|| v.to_i128()))
        .collect())
}

/// The zone maps of byte-string segments: per segment a flag byte (bit 0: it has a non-null value, bit 1:
/// the max is a prefix of the max), then the min and the max as `u32` length and bytes (at most
/// [`lwc::strings::ZONE_BYTES`] each).
fn write_bytes_zones(segments: &[SegmentInfo]) -> Vec<u8> {
    let mut w = ByteWriter::default();
    for s in segments {
        match &s.bytes_zone {
            None => w.u8(0),
            Some(z) => {
                w.u8(1 | if z.max_is_prefix { 2 } else { 0 });
                w.u32(z.min.len() as u32);
                w.bytes.extend_from_slice(&z.min);
                w.u32(z.max.len() as u32);
                w.bytes.extend_from_slice(&z.max);
            }
        }
    }
    w.bytes
}

fn read_bytes_zones(blob: &[u8], n: usize, what: &str) -> Result<Vec<Option<BytesZone>>> {
    let mut r = ByteReader::new(blob);
    let mut zones = Vec::with_capacity(n);
    for _ in 0..n {
        let flags = r.u8(what)?;
        if flags == 0 {
            zones.push(None);
            continue;
        }
        if flags & !3 != 0 {
            return Err(Error::Corrupt(format!("footer: {what}: unknown flags {flags:#x}")));
        }
        let mut bound = || -> Result<Vec<u8>> {
            let len = r.u32(what)? as usize;
            if len > lwc::strings::ZONE_BYTES {
                return Err(Error::Corrupt(format!("footer: {what}: a bound of {len} bytes")));
            }
            Ok(r.take(what, len as u64)?.to_vec())
        };
        let (min, max) = (bound()?, bound()?);
        zones.push(Some(BytesZone { min, max, max_is_prefix: flags & 2 != 0 }));
    }
    r.finish()?;
    Ok(zones)
}

/// Whether min and max are stored as `i64` (signed integers) rather than `u64` (unsigned integers, and the
/// latents of floats).
fn is_signed(t: ValueType) -> bool {
    matches!(t, ValueType::I8 | ValueType::I16 | ValueType::I32 | ValueType::I64)
}

impl Footer {
    /// The footer's bytes.
    pub(crate) fn encode(&self) -> Result<Vec<u8>> {
        let mut w = ByteWriter::default();
        w.str(&self.options);
        w.u64(self.rows);
        w.u64(self.segment_rows);
        write_schema(&mut w, &self.schema);
        w.u32(self.columns.len() as u32);
        for c in &self.columns {
            let (tag, param) = c.storage.tag();
            w.u8(tag);
            w.u8(param);
            w.u64(c.plain_bytes);
            w.u64(c.segments.len() as u64);
            let s = &c.segments;
            w.blob(&index_blob(&s.iter().map(|s| s.offset).collect::<Vec<u64>>(), None)?);
            w.blob(&index_blob(&s.iter().map(|s| s.len).collect::<Vec<u64>>(), None)?);
            w.blob(&index_blob(&s.iter().map(|s| s.rows).collect::<Vec<u32>>(), None)?);
            w.blob(&index_blob(&s.iter().map(|s| s.nulls).collect::<Vec<u32>>(), None)?);
            w.blob(&index_blob(&s.iter().map(|s| s.checksum).collect::<Vec<u32>>(), None)?);
            match c.storage {
                Storage::Values(t) => {
                    for values in [s.iter().map(|s| s.min).collect::<Vec<_>>(), s.iter().map(|s| s.max).collect()] {
                        if is_signed(t) {
                            write_min_max::<i64>(&mut w, &values)?;
                        } else {
                            write_min_max::<u64>(&mut w, &values)?;
                        }
                    }
                }
                Storage::Bytes(_) => w.blob(&write_bytes_zones(s)),
                Storage::LegacyBytes => w.blob(&index_blob(&c.kinds, None)?),
                Storage::Plain(_) => {}
            }
            w.u32(c.cascades.len() as u32);
            for (cascade, n) in &c.cascades {
                w.str(cascade);
                w.u64(*n as u64);
            }
        }
        Ok(w.bytes)
    }

    /// Parses a footer; `file_len` bounds the segment counts.
    /// Checks that the structure is well formed; [`crate::LwcFile`] checks offsets and row counts.
    pub(crate) fn decode(bytes: &[u8], file_len: u64) -> Result<Footer> {
        let mut r = ByteReader::new(bytes);
        let options = r.str("options")?.to_string();
        let rows = r.u64("rows")?;
        let segment_rows = r.u64("segment rows")?;
        let schema = read_schema(&mut r)?;
        let n = r.u32("column count")? as usize;
        if n != schema.fields().len() {
            return Err(Error::Corrupt(format!("footer has {n} columns for {} fields", schema.fields().len())));
        }
        let mut columns = Vec::with_capacity(n);
        for field in schema.fields() {
            let name = field.name();
            let (tag, param) = (r.u8("storage tag")?, r.u8("storage parameter")?);
            let storage = Storage::from_tag(tag, param)
                .ok_or_else(|| Error::Corrupt(format!("column '{name}': unknown storage tag {tag}/{param}")))?;
            if !readable_as(storage, field.data_type()) {
                return Err(Error::Corrupt(format!(
                    "column '{name}': storage {storage:?} does not match its type {}",
                    field.data_type()
                )));
            }
            let plain_bytes = r.u64("plain bytes")?;
            let count = r.u64("segment count")?;
            // A stored segment takes at least 8 bytes. Implied ones (version 3) take none, but then the count
            // is the row groups' and still bounded by the file's size, so a corrupt count cannot ask for
            // memory out of all proportion to the file.
            let row_groups = (segment_rows > 0).then(|| rows.div_ceil(segment_rows));
            let implied = row_groups == Some(count) && count <= file_len.saturating_mul(1024);
            if count > file_len / 8 && !implied {
                return Err(Error::Corrupt(format!("column '{name}': {count} segments cannot fit in the file")));
            }
            let count = count as usize;
            let what = |s: &str| format!("column '{name}' segment {s}");
            let (offsets, _) = read_index::<u64>(&mut r, count, &what("offsets"))?;
            let (lens, _) = read_index::<u64>(&mut r, count, &what("lengths"))?;
            let (seg_rows, _) = read_index::<u32>(&mut r, count, &what("rows"))?;
            let (nulls, _) = read_index::<u32>(&mut r, count, &what("null counts"))?;
            let (checksums, _) = read_index::<u32>(&mut r, count, &what("checksums"))?;
            let (mut mins, mut maxes) = (vec![None; count], vec![None; count]);
            let mut zones = vec![None; count];
            let mut kinds = Vec::new();
            match storage {
                Storage::Values(t) if is_signed(t) => {
                    mins = read_min_max::<i64>(&mut r, count, &what("minima"))?;
                    maxes = read_min_max::<i64>(&mut r, count, &what("maxima"))?;
                }
                Storage::Values(_) => {
                    mins = read_min_max::<u64>(&mut r, count, &what("minima"))?;
                    maxes = read_min_max::<u64>(&mut r, count, &what("maxima"))?;
                }
                Storage::Bytes(_) => zones = read_bytes_zones(r.blob(&what("zone maps"))?, count, &what("zone maps"))?,
                Storage::LegacyBytes => {
                    kinds = read_index::<u8>(&mut r, count, &what("kinds"))?.0;
                    if let Some(k) = kinds.iter().find(|&&k| k != KIND_DICT && k != KIND_PLAIN) {
                        return Err(Error::Corrupt(format!("column '{name}': unknown segment kind {k}")));
                    }
                }
                Storage::Plain(_) => {}
            }
            let segments = (0..count)
                .map(|i| SegmentInfo {
                    offset: offsets[i],
                    len: lens[i],
                    rows: seg_rows[i],
                    nulls: nulls[i],
                    min: mins[i],
                    max: maxes[i],
                    bytes_zone: zones[i].take(),
                    checksum: checksums[i],
                })
                .collect();
            let ncascades = r.u32("cascade count")?;
            let mut cascades = Vec::new();
            for _ in 0..ncascades {
                let text = r.str("cascade")?.to_string();
                let used = r.u64("cascade use count")?;
                cascades.push((text, usize::try_from(used).unwrap_or(usize::MAX)));
            }
            columns.push(ColumnFooter { storage, plain_bytes, segments, kinds, cascades });
        }
        r.finish()?;
        Ok(Footer { options, rows, segment_rows, schema, columns })
    }
}
