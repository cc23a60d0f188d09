//! `fsst` byte strings: every row compressed on its own with one FSST symbol table per segment
//! ([`crate::kernels::fsst`]; Boncz, Neumann, Leis, VLDB 2020), the codes of all rows back to back and the
//! end offset of each row's codes as a child stream of `u64`. Free text (comments, addresses, URLs)
//! takes a half to a third of its bytes, and any row is still two offset reads and one short decode away.
//!
//! Body: the symbol count (u32), the symbols (u64 each, little-endian, bytes above the length zero), their
//! lengths (one byte each), then (8-aligned) the codes' length (u64), the ends stream (`u64`), the codes
//! (8-aligned).
//!
//! Filters: compression is a deterministic function of the table, so `=` and `in` compress the constants
//! once and compare codes, never decoding a row; ranges and prefixes decode each row into one scratch
//! buffer and compare. Opening validates the table; ends that a damaged stream puts past the codes or
//! before the previous one read as an empty string, and any code bytes decode without error.

use std::borrow::Cow;
use std::cell::RefCell;
use std::sync::OnceLock;

use super::byte_strings::{
    row_bounds, row_span, row_spans, ByteArray, ByteProfile, BytesEncoder, BytesOps, BytesTest, OpenBytes, ENDS,
};
use super::{Cascade, Children, StreamOps, StreamView};
use crate::bitmap::Bitmap;
use crate::bytes::{Reader, Writer};
use crate::error::{Error, Result};
use crate::kernels::fsst::{Decoder, SymbolTable, MAX_SYMBOLS};

pub(crate) struct BytesFsst;

/// Rows compressed to estimate the ratio: spread over the segment, up to this many bytes.
const ESTIMATE_BYTES: usize = 64 << 10;

/// The codes of the non-null rows back to back, and each row's end in them.
fn compress(profile: &ByteProfile<'_>, rows: impl Iterator<Item = usize>) -> (Vec<u8>, Vec<u64>) {
    let (mut codes, mut ends) = (Vec::new(), Vec::new());
    let inputs = rows.map(|i| if profile.validity.is_none_or(|v| v.get(i)) { profile.rows[i] } else { &[] });
    profile.symbol_table().compress_all(inputs, &mut codes, |end| ends.push(end as u64));
    (codes, ends)
}

fn table_bytes(table: &SymbolTable) -> usize {
    4 + 9 * table.len()
}

impl BytesEncoder for BytesFsst {
    const CHILDREN: &'static [&'static str] = &["ends"];

    fn estimate(profile: &ByteProfile<'_>, children: &impl Children) -> Option<usize> {
        let n = profile.rows.len();
        if profile.total_bytes <= ESTIMATE_BYTES {
            let (codes, ends) = compress(profile, 0..n);
            return Some(table_bytes(profile.symbol_table()) + 8 + children.estimate(0, &ends, ENDS)? + codes.len());
        }
        // Every k-th row, as many as hold about ESTIMATE_BYTES, scaled by the bytes they stand for.
        let step = (profile.total_bytes / ESTIMATE_BYTES).clamp(1, n.max(1));
        let (codes, ends) = compress(profile, (0..n).step_by(step));
        let sampled: usize = (0..n).step_by(step).map(|i| profile.rows[i].len()).sum();
        let ratio = codes.len() as f64 / sampled.max(1) as f64;
        let ends = children.estimate(0, &ends, ENDS)? as f64 * step as f64;
        Some(table_bytes(profile.symbol_table()) + 8 + ends as usize + (ratio * profile.total_bytes as f64) as usize)
    }

    fn encode(profile: &ByteProfile<'_>, children: &impl Children, out: &mut Writer) -> Result<()> {
        let table = profile.symbol_table();
        let (codes, ends) = compress(profile, 0..profile.rows.len());
        write_table(table, out);
        out.u64(codes.len() as u64);
        children.encode(0, &ends, ENDS, out)?;
        out.align();
        out.packed(|buf| buf.extend_from_slice(&codes));
        Ok(())
    }
}

/// Writes a symbol table as the format stores it: the symbol count (u32), the symbols (u64 each), their
/// lengths (a byte each), zero padding to 8.
pub(crate) fn write_table(table: &SymbolTable, out: &mut Writer) {
    out.u32(table.len() as u32);
    table.symbols().iter().for_each(|&s| out.u64(s));
    out.packed(|buf| buf.extend_from_slice(table.lengths()));
    out.align();
}

/// Reads and validates what [`write_table`] wrote, as a decoder.
pub(crate) fn read_table(r: &mut Reader<'_>) -> Result<Box<Decoder>> {
    let count = r.u32("fsst symbol count")? as usize;
    if count > MAX_SYMBOLS {
        return Err(Error::Corrupt(format!("fsst: {count} symbols")));
    }
    let symbols = r.take("fsst symbols", 8 * count)?;
    let lengths = r.take("fsst symbol lengths", count)?;
    let decoder = Decoder::boxed_from_le_bytes(symbols, lengths)
        .ok_or_else(|| Error::Corrupt("fsst: a symbol's length or bytes are out of range".into()))?;
    r.align("fsst symbol table")?;
    Ok(decoder)
}

pub(crate) struct BytesFsstView<'a> {
    /// Boxed: 2.3 KiB of symbols would make every byte-string view that large.
    decoder: Box<Decoder>,
    ends: StreamView<'a, u64>,
    codes: &'a [u8],
    /// The table as a compressor, rebuilt on the first `=` or `in` filter.
    compressor: OnceLock<Box<SymbolTable>>,
}

impl<'a> OpenBytes<'a> for BytesFsstView<'a> {
    fn open(r: &mut Reader<'a>, n: usize, depth: usize) -> Result<Self> {
        let decoder = read_table(r)?;
        let len = r.u64("fsst codes length")?;
        let ends = StreamView::open_nested(r, n, depth + 1)?;
        r.align("fsst codes")?;
        let codes = r.take("fsst codes", usize::try_from(len).unwrap_or(usize::MAX))?;
        Ok(BytesFsstView { decoder, ends, codes, compressor: OnceLock::new() })
    }

    fn child_cascades(&self) -> Vec<Cascade> {
        vec![self.ends.cascade()]
    }
}

impl<'a> BytesFsstView<'a> {
    /// Row `i`'s codes (empty where damaged ends would reach outside the codes).
    #[inline]
    fn row_codes(&self, i: usize) -> &'a [u8] {
        self.codes.get(row_span(&self.ends, i)).unwrap_or(&[])
    }

    fn compressor(&self) -> &SymbolTable {
        self.compressor.get_or_init(|| {
            let table = SymbolTable::from_parts(self.decoder.symbols(), self.decoder.lengths());
            Box::new(table.expect("validated when opened"))
        })
    }

    /// Calls `f(i, codes)` for every row, reading the ends a block at a time.
    fn for_each_row(&self, mut f: impl FnMut(usize, &'a [u8])) {
        let mut ends = vec![0u64; 1024];
        let mut previous = 0u64;
        for start in (0..self.len()).step_by(1024) {
            let ends = &mut ends[..(self.len() - start).min(1024)];
            self.ends.decode_into(start, ends);
            for (k, &end) in ends.iter().enumerate() {
                f(start + k, self.codes.get(previous as usize..end as usize).unwrap_or(&[]));
                previous = end;
            }
        }
    }
}

impl<'a> BytesOps<'a> for BytesFsstView<'a> {
    fn len(&self) -> usize {
        self.ends.len()
    }

    fn get(&self, i: usize) -> Cow<'a, [u8]> {
        let mut out = Vec::new();
        self.decoder.decompress_into(self.row_codes(i), &mut out);
        Cow::Owned(out)
    }

    fn push_row(&self, i: usize, out: &mut ByteArray) {
        self.decoder.decompress_into(self.row_codes(i), &mut out.data);
        out.offsets.push(out.data.len() as u64);
    }

    fn decode_into(&self, range: std::ops::Range<usize>, out: &mut ByteArray) {
        if range.is_empty() {
            return;
        }
        let ends = row_bounds(&self.ends, range);
        // The codes of the whole range decode to at most 8 bytes each: reserve once.
        out.data.reserve(Decoder::decoded_len_bound(self.codes.get(ends[0] as usize..).unwrap_or(&[])).min(1 << 26));
        for w in ends.windows(2) {
            let codes = self.codes.get(w[0] as usize..w[1] as usize).unwrap_or(&[]);
            self.decoder.decompress_into(codes, &mut out.data);
            out.offsets.push(out.data.len() as u64);
        }
    }

    fn take_into(&self, positions: &[u32], out: &mut ByteArray) {
        for span in row_spans(&self.ends, positions) {
            self.decoder.decompress_into(self.codes.get(span).unwrap_or(&[]), &mut out.data);
            out.offsets.push(out.data.len() as u64);
        }
    }

    fn filter(&self, test: &BytesTest<'_>, out: &mut Bitmap) {
        // `x = v` arrives as the range `v ..= v`: compared compressed, as a set of one.
        if let BytesTest::Range { lo: Some((lo, true)), hi: Some((hi, true)) } = test {
            if lo == hi {
                return self.filter(&BytesTest::Set(&[lo.to_vec()]), out);
            }
        }
        match test {
            BytesTest::Set(set) => {
                let mut compressed: Vec<Vec<u8>> = set
                    .iter()
                    .map(|v| {
                        let mut codes = Vec::new();
                        self.compressor().compress_into(v, &mut codes);
                        codes
                    })
                    .collect();
                compressed.sort_unstable();
                self.for_each_row(|i, codes| {
                    if compressed.binary_search_by(|c| c.as_slice().cmp(codes)).is_ok() {
                        out.set(i);
                    }
                });
            }
            _ => {
                let scratch = RefCell::new(Vec::new());
                self.for_each_row(|i, codes| {
                    let mut row = scratch.borrow_mut();
                    row.clear();
                    self.decoder.decompress_into(codes, &mut row);
                    if test.matches(&row) {
                        out.set(i);
                    }
                });
            }
        }
    }
}
