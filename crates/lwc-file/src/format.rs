//! The byte layout of a `.lwc` file (see `docs/FORMAT.md`): header and tail constants, the
//! little-endian footer codec, the layout of multi-part segments, and the footer with its segment index.

use arrow_schema::{Field, Schema};
use lwc::{Bitmap, EncodeOptions, EncodedColumn, LwcInt, ValueType};

use crate::error::{Error, Result};
use crate::info::{ColumnInfo, SegmentInfo};
use crate::schema::{read_schema, readable_as, write_schema, Physical, Storage};

/// First and last four bytes of every `.lwc` file.
pub(crate) const MAGIC: &[u8; 4] = b"LWCF";
/// The format version this crate writes. Version 2 checksums every byte: a segment's CRC-32C covers the
/// zero padding after it, and segments tile the file between the header and the footer.
pub(crate) const VERSION: u16 = 2;
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

/// Appends little-endian values to the footer.
#[derive(Default)]
pub(crate) struct ByteWriter {
    pub(crate) bytes: Vec<u8>,
}

impl ByteWriter {
    pub(crate) fn u8(&mut self, v: u8) {
        self.bytes.push(v);
    }
    pub(crate) fn u32(&mut self, v: u32) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }
    pub(crate) fn u64(&mut self, v: u64) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }
    /// A length-prefixed (u32) UTF-8 string.
    pub(crate) fn str(&mut self, s: &str) {
        self.u32(s.len() as u32);
        self.bytes.extend_from_slice(s.as_bytes());
    }
    /// A length-prefixed (u64) byte string.
    pub(crate) fn blob(&mut self, b: &[u8]) {
        self.u64(b.len() as u64);
        self.bytes.extend_from_slice(b);
    }
}

/// Reads little-endian values from the footer; running past the end is [`Error::Corrupt`].
pub(crate) struct ByteReader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> ByteReader<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        ByteReader { bytes, pos: 0 }
    }
    pub(crate) fn take(&mut self, what: &str, n: u64) -> Result<&'a [u8]> {
        let left = (self.bytes.len() - self.pos) as u64;
        if n > left {
            return Err(Error::Corrupt(format!(
                "footer truncated: {what} needs {n} bytes at footer offset {}, {left} remain",
                self.pos
            )));
        }
        let s = &self.bytes[self.pos..self.pos + n as usize];
        self.pos += n as usize;
        Ok(s)
    }
    pub(crate) fn u8(&mut self, what: &str) -> Result<u8> {
        Ok(self.take(what, 1)?[0])
    }
    pub(crate) fn u32(&mut self, what: &str) -> Result<u32> {
        Ok(u32::from_le_bytes(self.take(what, 4)?.try_into().expect("4 bytes")))
    }
    pub(crate) fn u64(&mut self, what: &str) -> Result<u64> {
        Ok(u64::from_le_bytes(self.take(what, 8)?.try_into().expect("8 bytes")))
    }
    pub(crate) fn str(&mut self, what: &str) -> Result<&'a str> {
        let n = self.u32(what)?;
        std::str::from_utf8(self.take(what, n as u64)?)
            .map_err(|_| Error::Corrupt(format!("footer: {what} is not valid UTF-8")))
    }
    pub(crate) fn blob(&mut self, what: &str) -> Result<&'a [u8]> {
        let n = self.u64(what)?;
        self.take(what, n)
    }
    pub(crate) fn finish(&self) -> Result<()> {
        if self.pos != self.bytes.len() {
            return Err(Error::Corrupt(format!("{} unexpected bytes after the footer", self.bytes.len() - self.pos)));
        }
        Ok(())
    }
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
    pub(crate) physical: Physical,
    pub(crate) plain_bytes: u64,
    pub(crate) segments: Vec<SegmentInfo>,
    /// Bytes columns: each segment's kind ([`KIND_DICT`] or [`KIND_PLAIN`]); empty otherwise.
    pub(crate) kinds: Vec<u8>,
    pub(crate) cascades: Vec<(String, usize)>,
}

impl ColumnFooter {
    /// The public description of this column.
    pub(crate) fn info(&self, field: &Field) -> ColumnInfo {
        let storage = match self.physical {
            Physical::Values(t) => Storage::Values(t),
            Physical::Bytes => {
                let dict = self.kinds.iter().filter(|&&k| k == KIND_DICT).count();
                Storage::Bytes { dict_segments: dict, plain_segments: self.kinds.len() - dict }
            }
            Physical::Fixed(16) => Storage::Decimal128Plain,
            Physical::Fixed(width) => Storage::Float { width },
        };
        ColumnInfo {
            name: field.name().clone(),
            data_type: field.data_type().clone(),
            storage,
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
            let (tag, param) = c.physical.tag();
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
            match c.physical {
                Physical::Values(t) => {
                    for values in [s.iter().map(|s| s.min).collect::<Vec<_>>(), s.iter().map(|s| s.max).collect()] {
                        if is_signed(t) {
                            write_min_max::<i64>(&mut w, &values)?;
                        } else {
                            write_min_max::<u64>(&mut w, &values)?;
                        }
                    }
                }
                Physical::Bytes => w.blob(&index_blob(&c.kinds, None)?),
                Physical::Fixed(_) => {}
            }
            w.u32(c.cascades.len() as u32);
            for (cascade, n) in &c.cascades {
                w.str(cascade);
                w.u64(*n as u64);
            }
        }
        Ok(w.bytes)
    }

    /// Parses a footer; `file_len` bounds the segment counts (every segment takes at least 8 bytes).
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
            let physical = Physical::from_tag(tag, param)
                .ok_or_else(|| Error::Corrupt(format!("column '{name}': unknown storage tag {tag}/{param}")))?;
            if !readable_as(physical, field.data_type()) {
                return Err(Error::Corrupt(format!(
                    "column '{name}': storage {physical:?} does not match its type {}",
                    field.data_type()
                )));
            }
            let plain_bytes = r.u64("plain bytes")?;
            let count = r.u64("segment count")?;
            if count > file_len / 8 {
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
            let mut kinds = Vec::new();
            match physical {
                Physical::Values(t) if is_signed(t) => {
                    mins = read_min_max::<i64>(&mut r, count, &what("minima"))?;
                    maxes = read_min_max::<i64>(&mut r, count, &what("maxima"))?;
                }
                Physical::Values(_) => {
                    mins = read_min_max::<u64>(&mut r, count, &what("minima"))?;
                    maxes = read_min_max::<u64>(&mut r, count, &what("maxima"))?;
                }
                Physical::Bytes => {
                    kinds = read_index::<u8>(&mut r, count, &what("kinds"))?.0;
                    if let Some(k) = kinds.iter().find(|&&k| k != KIND_DICT && k != KIND_PLAIN) {
                        return Err(Error::Corrupt(format!("column '{name}': unknown segment kind {k}")));
                    }
                }
                Physical::Fixed(_) => {}
            }
            let segments = (0..count)
                .map(|i| SegmentInfo {
                    offset: offsets[i],
                    len: lens[i],
                    rows: seg_rows[i],
                    nulls: nulls[i],
                    min: mins[i],
                    max: maxes[i],
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
            columns.push(ColumnFooter { physical, plain_bytes, segments, kinds, cascades });
        }
        r.finish()?;
        Ok(Footer { options, rows, segment_rows, schema, columns })
    }
}
