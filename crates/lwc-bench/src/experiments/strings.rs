//! strings: free text and low cardinality (seed 003, seed 004 §3; the fsst issue's goals).
//!
//! TPC-H free text (`l_comment`, `o_comment`, `ps_comment`, `p_name`, `c_address`) at the run's scale as the scale
//! factor, cut into blocks of [`lwc::DEFAULT_SEGMENT_ROWS`] rows: each block one lwc byte-string segment (`auto` for
//! the default objective and for `size`; `fsst`, `dict` and `plain` forced), and the same blocks through the peers:
//! zstd and lz4_flex over each block's strings and their lengths, fsst-rs (spiraldb) with one symbol table a block, and
//! Parquet-zstd (the whole column, one file). On `l_comment`: full decode into Arrow-layout buffers (GB/s of string
//! bytes), 10^4 random point gets, a take of 10^4 sorted positions, and an equality and a prefix filter, on the
//! encoded form against decode-then-compare. Then seed 003's low-cardinality strings `Key_` + (random % 10): bits a
//! row against their entropy and 4-bit codes. Last, the goals, met or not, computed from the figures above.

use std::borrow::Cow;
use std::collections::HashMap;
use std::hint::black_box;
use std::ops::Range;
use std::sync::Arc;

use arrow_array::{Array, StringArray};
use lwc::strings::{encode_bytes_segment, BytesPredicate, BytesSegment, BytesType};
use lwc::{ByteArray, EncodeOptions, EncodedSegment, Encoding, Objective, Predicate};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;

use super::{cliff, cliff_note, Config};
use crate::codecs;
use crate::data::{self, Strings};
use crate::measure::{race, Candidate, Settings, Timing};
use crate::peers::{ByteCompressor, Lz4, Zstd, ZSTD_LEVEL};
use crate::report::{ratio, time, Progress, Record, Report, Table};
use crate::tpch::Tpch;

/// The default scale: TPC-H scale factor 0.1 and 10^7 low-cardinality rows (about 20 s on 2 cores).
const DEFAULT_SCALE: f64 = 0.1;
/// Rows a block: an lwc segment, a zstd or lz4 block, an fsst-rs symbol table.
const BLOCK_ROWS: usize = lwc::DEFAULT_SEGMENT_ROWS;
/// Low-cardinality rows at scale 1 (seed 003 used 10^8).
const KEYS_FULL: usize = 100_000_000;
/// Random rows read by the point gets and by the take.
const LOOKUPS: usize = 10_000;
/// Point gets for the block compressors, which decompress a whole block for each (the first of each list).
const BLOCK_GETS: usize = 64;
/// Lists of random positions the gets and takes cycle through, one list a call: each call reads rows the last few did
/// not, so no reader finds its rows in the core's caches because it ran the same list just before.
const ROTATION: usize = 16;

/// Goal: `l_comment` at scale factor 1 in at most this many bytes (60 MB), every row readable alone.
const SIZE_GOAL: f64 = 60e6;
/// Goal: FSST decodes at least this many bytes of strings a second on one core.
const DECODE_GOAL: f64 = 1e9;
/// Goal: low-cardinality strings in at most this many bits a row, every row readable alone.
const BITS_GOAL: f64 = 3.4;
/// Published: FSST on `l_comment` (Boncz et al. 2020) and Parquet-zstd on it, plain / encoded.
const PUBLISHED_FSST: f64 = 3.01;
const PUBLISHED_PARQUET: f64 = 3.21;

/// How a codec stores a column.
#[derive(Clone)]
enum Kind {
    /// One lwc segment a block.
    Lwc(EncodeOptions),
    /// A byte compressor over each block's strings back to back, then their lengths (`u32`, little-endian; lengths
    /// rather than ends: small repeating numbers, which the compressors take far better).
    Block { compress: fn(&[u8]) -> Option<Vec<u8>>, decompress: fn(&[u8], &mut [u8]) },
    /// fsst-rs: a symbol table trained on each block, each row's codes, and their ends as `u32`.
    FsstRs,
    /// Parquet with zstd: size only.
    Parquet,
}

/// A codec, by name.
#[derive(Clone)]
struct Codec {
    name: &'static str,
    kind: Kind,
}

/// Every codec, in table order.
fn codecs() -> Vec<Codec> {
    let lwc = |name, options| Codec { name, kind: Kind::Lwc(options) };
    vec![
        lwc("lwc auto", EncodeOptions::default()),
        lwc("lwc auto, size", EncodeOptions::with_objective(Objective::Size)),
        lwc("lwc fsst", EncodeOptions::with_encoding(Encoding::BytesFsst)),
        lwc("lwc dict", EncodeOptions::with_encoding(Encoding::BytesDict)),
        lwc("lwc plain", EncodeOptions::with_encoding(Encoding::BytesPlain)),
        Codec { name: "zstd", kind: Kind::Block { compress: Zstd::compress, decompress: Zstd::decompress } },
        Codec { name: "lz4_flex", kind: Kind::Block { compress: Lz4::compress, decompress: Lz4::decompress } },
        Codec { name: "fsst-rs", kind: Kind::FsstRs },
        Codec { name: "Parquet-zstd", kind: Kind::Parquet },
    ]
}

/// One block of a byte compressor: the compressed bytes of the strings followed by their lengths.
struct RawBlock {
    compressed: Vec<u8>,
    rows: usize,
    /// Bytes of the strings.
    text: usize,
}

impl RawBlock {
    fn raw_len(&self) -> usize {
        self.text + size_of::<u32>() * self.rows
    }
}

/// One block of fsst-rs.
struct FsstBlock {
    compressor: fsst::Compressor,
    codes: Vec<u8>,
    ends: Vec<u32>,
}

impl FsstBlock {
    fn encode(rows: &[&[u8]]) -> FsstBlock {
        let compressor = fsst::Compressor::train(&rows.to_vec());
        let (mut codes, mut ends) = (Vec::new(), Vec::new());
        compressor.compress_bulk_into::<{ fsst::Compressor::DEFAULT_BULK_LANES }>(rows, &mut codes, &mut ends);
        let ends = ends.into_iter().map(|e| u32::try_from(e).expect("a block's codes under 4 GiB")).collect();
        FsstBlock { compressor, codes, ends }
    }

    /// Symbols (8 bytes each), their lengths (1 each) and the count, the codes and a 4-byte end a row.
    fn bytes(&self) -> usize {
        1 + 9 * self.compressor.n_symbols() + self.codes.len() + size_of_val(self.ends.as_slice())
    }

    fn row_codes(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.codes[start..self.ends[i] as usize]
    }

    /// Appends row `i`'s bytes to `out`.
    fn append_row(&self, i: usize, out: &mut Vec<u8>) {
        append_fsst(&self.compressor.decompressor(), self.row_codes(i), out);
    }

    fn decode(&self) -> ByteArray {
        let decompressor = self.compressor.decompressor();
        let mut out = ByteArray::with_capacity(self.ends.len());
        // fsst-rs writes 8 bytes a code: room for the whole block up front, as lwc's fsst reserves it.
        out.data.reserve(decompressor.max_decompression_capacity(&self.codes));
        let mut start = 0;
        for &end in &self.ends {
            append_fsst(&decompressor, &self.codes[start..end as usize], &mut out.data);
            out.offsets.push(out.data.len() as u64);
            start = end as usize;
        }
        out
    }
}

/// Decompresses `codes` onto the end of `out` with fsst-rs.
fn append_fsst(decompressor: &fsst::Decompressor<'_>, codes: &[u8], out: &mut Vec<u8>) {
    out.reserve(decompressor.max_decompression_capacity(codes));
    let written = decompressor.decompress_into(codes, out.spare_capacity_mut());
    // SAFETY: `decompress_into` initialized the first `written` bytes of the spare capacity.
    unsafe { out.set_len(out.len() + written) };
}

/// A column as a codec stored it.
enum Stored {
    Lwc(Vec<EncodedSegment<Vec<u8>>>),
    Block { blocks: Vec<RawBlock>, decompress: fn(&[u8], &mut [u8]) },
    FsstRs(Vec<FsstBlock>),
    Parquet(Vec<u8>),
}

impl Stored {
    /// Encoded bytes: lwc's segments whole (headers and zone maps included); a byte compressor's blocks and, a block,
    /// 4 bytes of raw length and 4 of where it ends; fsst-rs's tables, codes and ends, and 4 bytes a block; the whole
    /// Parquet file.
    fn bytes(&self) -> usize {
        match self {
            Stored::Lwc(segments) => segments.iter().map(|s| s.as_bytes().len()).sum(),
            Stored::Block { blocks, .. } => blocks.iter().map(|b| b.compressed.len() + 8).sum(),
            Stored::FsstRs(blocks) => blocks.iter().map(|b| b.bytes() + 4).sum(),
            Stored::Parquet(file) => file.len(),
        }
    }

    /// Bytes of uncompressed 4-byte ends within [`Stored::bytes`] (fsst-rs's), `None` where there are none.
    fn plain_ends(&self) -> Option<usize> {
        match self {
            Stored::FsstRs(blocks) => Some(blocks.iter().map(|b| size_of_val(b.ends.as_slice())).sum()),
            _ => None,
        }
    }

    /// A reader over the stored form; `None` for Parquet (size only).
    fn reader(&self) -> Option<Reader<'_>> {
        Some(match self {
            Stored::Lwc(segments) => Reader::Lwc(
                segments.iter().map(|s| BytesSegment::open(s.as_bytes()).expect("opens what it encoded")).collect(),
            ),
            Stored::Block { blocks, decompress } => Reader::Block { blocks, decompress: *decompress },
            Stored::FsstRs(blocks) => Reader::FsstRs(blocks),
            Stored::Parquet(_) => return None,
        })
    }

    /// What lwc chose, as `fsst(for_n) on 10 of 10 segments`; empty for the peers.
    fn chosen(&self) -> String {
        let Stored::Lwc(segments) = self else { return String::new() };
        let mut counts: Vec<(String, usize)> = Vec::new();
        for s in segments {
            let cascade = s.cascade().to_string();
            match counts.iter_mut().find(|(c, _)| *c == cascade) {
                Some((_, n)) => *n += 1,
                None => counts.push((cascade, 1)),
            }
        }
        let used: Vec<String> = counts.iter().map(|(c, n)| format!("{c} on {n}")).collect();
        format!("{} of {} segments", used.join(", "), segments.len())
    }
}

/// [`ROTATION`] lists of [`LOOKUPS`] random rows in `[0, n)`, ascending if `sorted`.
fn position_lists(n: usize, sorted: bool, seed: u64) -> Vec<Vec<u32>> {
    (0..ROTATION as u64).map(|k| data::positions(LOOKUPS, n, sorted, seed ^ (k << 32))).collect()
}

/// The rows of each block.
fn blocks(rows: usize) -> impl Iterator<Item = Range<usize>> {
    (0..rows).step_by(BLOCK_ROWS).map(move |start| start..(start + BLOCK_ROWS).min(rows))
}

/// Row `i` of `strings`.
fn row(strings: &Strings, i: usize) -> &[u8] {
    let start = if i == 0 { 0 } else { strings.ends[i - 1] as usize };
    &strings.bytes.as_bytes()[start..strings.ends[i] as usize]
}

/// Every row of `strings`.
fn rows(strings: &Strings) -> Vec<&[u8]> {
    strings.iter().map(str::as_bytes).collect()
}

/// `strings` as an Arrow array.
fn string_array(strings: &Strings) -> StringArray {
    StringArray::from_iter_values(strings.iter())
}

/// An Arrow string array (no nulls) in the plain layout.
fn from_array(array: &StringArray) -> Strings {
    assert_eq!(array.null_count(), 0, "TPC-H text has no nulls");
    let mut strings = Strings { bytes: String::with_capacity(array.values().len()), ends: Vec::new() };
    for s in array.iter().flatten() {
        strings.bytes.push_str(s);
        strings.end_string();
    }
    strings
}

/// The column in one Parquet file, written as lwc-cli writes Parquet (zstd at its default level, otherwise the
/// writer's defaults: dictionary pages while they stay small, 1 MiB data pages, statistics).
fn parquet_file(strings: &Strings) -> Vec<u8> {
    let batch = codecs::one_column("s", Arc::new(string_array(strings)));
    let properties = WriterProperties::builder().set_compression(Compression::ZSTD(ZstdLevel::default())).build();
    let mut file = Vec::new();
    let mut writer = ArrowWriter::try_new(&mut file, batch.schema(), Some(properties)).expect("a Parquet writer");
    writer.write(&batch).expect("Parquet takes a string column");
    writer.close().expect("Parquet closes");
    file
}

impl Codec {
    /// `strings` (whose rows are `rows`) stored by this codec; `None` where it does not apply.
    fn encode(&self, strings: &Strings, rows: &[&[u8]]) -> Option<Stored> {
        Some(match &self.kind {
            Kind::Lwc(options) => Stored::Lwc(
                blocks(rows.len())
                    .map(|r| encode_bytes_segment(&rows[r], None, BytesType::Utf8, options.clone()).ok())
                    .collect::<Option<_>>()?,
            ),
            Kind::Block { compress, decompress } => {
                let mut raw = Vec::new();
                let blocks = blocks(rows.len())
                    .map(|r| {
                        raw.clear();
                        let mut lengths = Vec::with_capacity(r.len());
                        for s in &rows[r.clone()] {
                            raw.extend_from_slice(s);
                            lengths.push(u32::try_from(s.len()).expect("a string under 4 GiB"));
                        }
                        let text = raw.len();
                        raw.extend(lengths.iter().flat_map(|l| l.to_le_bytes()));
                        Some(RawBlock { compressed: compress(&raw)?, rows: r.len(), text })
                    })
                    .collect::<Option<_>>()?;
                Stored::Block { blocks, decompress: *decompress }
            }
            Kind::FsstRs => Stored::FsstRs(blocks(rows.len()).map(|r| FsstBlock::encode(&rows[r])).collect()),
            Kind::Parquet => Stored::Parquet(parquet_file(strings)),
        })
    }
}

/// Reads a stored column (or the plain one) block by block.
enum Reader<'a> {
    Plain(&'a Strings),
    Lwc(Vec<BytesSegment<'a>>),
    Block { blocks: &'a [RawBlock], decompress: fn(&[u8], &mut [u8]) },
    FsstRs(&'a [FsstBlock]),
}

/// The row lengths of a decompressed raw block.
fn lengths<'r>(raw: &'r [u8], block: &RawBlock) -> impl Iterator<Item = usize> + 'r {
    raw[block.text..block.raw_len()]
        .chunks_exact(4)
        .map(|l| u32::from_le_bytes(l.try_into().expect("4 bytes")) as usize)
}

/// Where each row of a decompressed raw block starts, and where the last ends, into `starts`.
fn raw_starts(raw: &[u8], block: &RawBlock, starts: &mut Vec<usize>) {
    starts.clear();
    starts.push(0);
    let mut end = 0;
    for len in lengths(raw, block) {
        end += len;
        starts.push(end);
    }
}

/// Positions grouped by block: each block's own positions, ascending.
type ByBlock = Vec<(usize, Vec<u32>)>;

fn by_block(sorted: &[u32]) -> ByBlock {
    let mut out: ByBlock = Vec::new();
    for &p in sorted {
        let (block, local) = (p as usize / BLOCK_ROWS, (p as usize % BLOCK_ROWS) as u32);
        match out.last_mut() {
            Some((b, positions)) if *b == block => positions.push(local),
            _ => out.push((block, vec![local])),
        }
    }
    out
}

impl Reader<'_> {
    /// Blocks of rows.
    fn blocks(&self) -> usize {
        match self {
            Reader::Plain(strings) => strings.len().div_ceil(BLOCK_ROWS),
            Reader::Lwc(segments) => segments.len(),
            Reader::Block { blocks, .. } => blocks.len(),
            Reader::FsstRs(blocks) => blocks.len(),
        }
    }

    /// Every row of block `k`, into a fresh Arrow-layout array (as lwc's `decode` returns them).
    fn decode_block(&self, k: usize) -> ByteArray {
        match self {
            Reader::Plain(strings) => {
                let r = blocks(strings.len()).nth(k).expect("a block in range");
                let first = if r.start == 0 { 0 } else { strings.ends[r.start - 1] };
                let data = strings.bytes.as_bytes()[first as usize..strings.ends[r.end - 1] as usize].to_vec();
                let offsets = std::iter::once(0).chain(strings.ends[r].iter().map(|&e| u64::from(e - first))).collect();
                ByteArray { offsets, data, validity: None }
            }
            Reader::Lwc(segments) => segments[k].decode_all(),
            Reader::Block { blocks, decompress } => {
                let b = &blocks[k];
                let mut data = vec![0u8; b.raw_len()];
                decompress(&b.compressed, &mut data);
                let mut end = 0u64;
                let offsets = std::iter::once(0)
                    .chain(lengths(&data, b).map(|len| {
                        end += len as u64;
                        end
                    }))
                    .collect();
                data.truncate(b.text);
                ByteArray { offsets, data, validity: None }
            }
            Reader::FsstRs(blocks) => blocks[k].decode(),
        }
    }

    /// Every row, block by block, each block's array handed to `f` (and dropped after it, as a scan moves on).
    fn decode_each(&self, mut f: impl FnMut(ByteArray)) {
        for k in 0..self.blocks() {
            f(self.decode_block(k));
        }
    }

    /// Row `row` alone: nothing is kept between calls but `scratch`'s allocation.
    fn get<'s>(&'s self, row: usize, scratch: &'s mut Vec<u8>) -> Cow<'s, [u8]> {
        let (b, i) = (row / BLOCK_ROWS, row % BLOCK_ROWS);
        match self {
            Reader::Plain(strings) => Cow::Borrowed(self::row(strings, row)),
            Reader::Lwc(segments) => segments[b].get(i).expect("a row in range").expect("no nulls"),
            Reader::Block { blocks, decompress } => {
                scratch.resize(blocks[b].raw_len(), 0);
                decompress(&blocks[b].compressed, scratch);
                let start = lengths(scratch, &blocks[b]).take(i).sum::<usize>();
                let len = lengths(scratch, &blocks[b]).nth(i).expect("a row in range");
                Cow::Borrowed(&scratch[start..start + len])
            }
            Reader::FsstRs(blocks) => {
                scratch.clear();
                blocks[b].append_row(i, scratch);
                Cow::Borrowed(scratch)
            }
        }
    }

    /// The rows at `positions`, a fresh array a block; a block compressor decompresses each block it reads once.
    fn take(&self, positions: &ByBlock) -> Vec<ByteArray> {
        let (mut scratch, mut starts) = (Vec::new(), Vec::new());
        positions
            .iter()
            .map(|(b, local)| {
                let mut out = ByteArray::with_capacity(local.len());
                let mut push = |bytes: &[u8]| {
                    out.data.extend_from_slice(bytes);
                    out.offsets.push(out.data.len() as u64);
                };
                match self {
                    Reader::Plain(strings) => {
                        local.iter().for_each(|&p| push(row(strings, b * BLOCK_ROWS + p as usize)))
                    }
                    Reader::Lwc(segments) => return segments[*b].take(local).expect("positions in range"),
                    Reader::Block { blocks, decompress } => {
                        scratch.resize(blocks[*b].raw_len(), 0);
                        decompress(&blocks[*b].compressed, &mut scratch);
                        raw_starts(&scratch, &blocks[*b], &mut starts);
                        local.iter().for_each(|&p| push(&scratch[starts[p as usize]..starts[p as usize + 1]]));
                    }
                    Reader::FsstRs(blocks) => {
                        for &p in local {
                            blocks[*b].append_row(p as usize, &mut out.data);
                            out.offsets.push(out.data.len() as u64);
                        }
                    }
                }
                out
            })
            .collect()
    }

    /// Rows matching `predicate`: lwc filters its segments; the others decompress (a block, or a row of fsst-rs into
    /// one scratch buffer) and compare each row.
    fn count(&self, predicate: &BytesPredicate) -> usize {
        let matches = |bytes: &[u8]| usize::from(predicate.matches(Some(bytes)));
        match self {
            Reader::Plain(strings) => strings.iter().map(|s| matches(s.as_bytes())).sum(),
            Reader::Lwc(segments) => segments.iter().map(|s| s.filter(predicate).count()).sum(),
            Reader::Block { blocks, decompress } => {
                let mut raw = Vec::new();
                blocks
                    .iter()
                    .map(|b| {
                        raw.resize(b.raw_len(), 0);
                        decompress(&b.compressed, &mut raw);
                        let mut start = 0;
                        lengths(&raw, b)
                            .map(|len| {
                                start += len;
                                matches(&raw[start - len..start])
                            })
                            .sum::<usize>()
                    })
                    .sum()
            }
            Reader::FsstRs(blocks) => {
                let mut scratch = Vec::new();
                blocks
                    .iter()
                    .map(|b| {
                        (0..b.ends.len())
                            .map(|i| {
                                scratch.clear();
                                b.append_row(i, &mut scratch);
                                matches(&scratch)
                            })
                            .sum::<usize>()
                    })
                    .sum()
            }
        }
    }
}

/// Rows of a decoded block matching `predicate`.
fn count_decoded(a: &ByteArray, predicate: &BytesPredicate) -> usize {
    a.offsets.windows(2).filter(|w| predicate.matches(Some(&a.data[w[0] as usize..w[1] as usize]))).count()
}

/// Rows matching `predicate`, decoding each block first.
fn count_decoding(reader: &Reader<'_>, predicate: &BytesPredicate) -> usize {
    let mut count = 0;
    reader.decode_each(|a| count += count_decoded(&a, predicate));
    count
}

/// Panics unless `reader` reads back `strings` whole, by get and by take, and filters as the plain rows do.
fn check(name: &str, reader: &Reader<'_>, strings: &Strings, sorted: &[u32], predicates: &[BytesPredicate]) {
    let mut k = 0;
    reader.decode_each(|a| {
        for i in 0..a.len() {
            assert_eq!(a.get(i), Some(row(strings, k)), "{name}: decode, row {k}");
            k += 1;
        }
    });
    assert_eq!(k, strings.len(), "{name}: decoded rows");
    let mut scratch = Vec::new();
    for &p in sorted.iter().take(1000) {
        assert_eq!(&*reader.get(p as usize, &mut scratch), row(strings, p as usize), "{name}: get({p})");
    }
    let taken = reader.take(&by_block(sorted));
    let mut picked = taken.iter().flat_map(|a| (0..a.len()).map(move |i| a.get(i).expect("no nulls")));
    for &p in sorted {
        assert_eq!(picked.next(), Some(row(strings, p as usize)), "{name}: take({p})");
    }
    for predicate in predicates {
        let plain = Reader::Plain(strings).count(predicate);
        assert_eq!(reader.count(predicate), plain, "{name}: filter {predicate:?}");
        assert_eq!(count_decoding(reader, predicate), plain, "{name}: filter {predicate:?} on the decoded rows");
    }
}

/// One codec's figures on one column.
struct Measured {
    name: &'static str,
    bytes: Option<usize>,
    /// Of `bytes`, uncompressed 4-byte ends.
    plain_ends: Option<usize>,
    chosen: String,
}

/// A text column and what every codec made of it.
struct Column {
    name: &'static str,
    strings: Strings,
    measured: Vec<Measured>,
}

/// The speeds measured on one column: per candidate name, a median time and its per-round ratio to plain.
#[derive(Default)]
struct Speeds {
    decode: Vec<(String, Timing)>,
    /// Nanoseconds a row and the ratio to plain's, per row.
    get: Vec<(String, f64, f64)>,
    take: Vec<(String, Timing)>,
    filters: Vec<(String, Vec<Timing>)>,
    predicates: Vec<(String, usize)>,
    /// The value `v` of `= v` and `IN (v)`.
    value: String,
}

impl Speeds {
    fn decode_of(&self, name: &str) -> Option<Timing> {
        self.decode.iter().find(|(n, _)| n == name).map(|(_, t)| *t)
    }

    fn get_of(&self, name: &str) -> Option<f64> {
        self.get.iter().find(|(n, ..)| n == name).map(|(_, ns, _)| *ns)
    }
}

pub fn run(cfg: &Config) -> Report {
    let progress = Progress::new("strings");
    let sf = cfg.scale.unwrap_or(DEFAULT_SCALE);
    let mut report = Report::default();

    progress.say(format!("generating TPC-H text at scale factor {sf}"));
    let texts = Tpch::new(sf).texts();
    let mut columns = Vec::new();
    let mut comment_speeds = None;
    for (name, array) in texts {
        let strings = from_array(&array);
        drop(array);
        progress.say(format!("{name}: encoding {} rows", strings.len()));
        let rows = rows(&strings);
        let stored: Vec<(Codec, Option<Stored>)> = codecs()
            .into_iter()
            .map(|c| {
                let s = c.encode(&strings, &rows);
                (c, s)
            })
            .collect();
        drop(rows);
        let measured = stored
            .iter()
            .map(|(c, s)| Measured {
                name: c.name,
                bytes: s.as_ref().map(Stored::bytes),
                plain_ends: s.as_ref().and_then(Stored::plain_ends),
                chosen: s.as_ref().map_or_else(String::new, Stored::chosen),
            })
            .collect();
        if name == "l_comment" {
            comment_speeds = Some(speeds(cfg, &strings, &stored, &progress));
        }
        columns.push(Column { name, strings, measured });
    }
    let speeds = comment_speeds.expect("l_comment is generated");
    let comment = columns.iter().find(|c| c.name == "l_comment").expect("l_comment is generated");
    report.tables.push(ratios_table(&columns, sf, &mut report.records));
    report.tables.push(comment_table(comment, sf, &mut report.records));
    report.tables.extend(speed_tables(comment, &speeds, &mut report.records));

    let n = cfg.scaled(KEYS_FULL, DEFAULT_SCALE, 1 << 10);
    progress.say(format!("low cardinality: {n} rows"));
    let keys = data::low_cardinality_keys(n, cfg.seed);
    let low = low_cardinality(cfg, &keys, &progress, &mut report.records);
    report.tables.push(low.table);

    report.tables.push(goals(sf, comment, &speeds, &low.bits, &mut report.records));
    progress.done();
    report
}

/// Times everything on `strings` (`l_comment`) through every stored form that has a reader.
fn speeds(cfg: &Config, strings: &Strings, stored: &[(Codec, Option<Stored>)], progress: &Progress) -> Speeds {
    let n = strings.len();
    let unsorted = position_lists(n, false, cfg.seed);
    let sorted = position_lists(n, true, cfg.seed ^ 1);
    let equal = row(strings, n / 2).to_vec();
    // A prefix of a common first word; the table says how many rows it selects.
    let prefix = b"the".to_vec();
    // `=` and `IN` of the one value: lwc plans them apart (a range test and a set test).
    let predicates = [
        BytesPredicate::Compare(Predicate::Eq(equal.clone())),
        BytesPredicate::Compare(Predicate::In(vec![equal.clone()])),
        BytesPredicate::StartsWith(prefix.clone()),
    ];
    let mut readers = vec![("plain".to_string(), Reader::Plain(strings))];
    for (c, s) in stored {
        if let Some(reader) = s.as_ref().and_then(Stored::reader) {
            progress.say(format!("l_comment: checking {}", c.name));
            check(c.name, &reader, strings, &sorted[0], &predicates);
            readers.push((c.name.to_string(), reader));
        }
    }
    let names: Vec<String> = readers.iter().map(|(n, _)| n.clone()).collect();
    let mut out = Speeds::default();

    progress.say("l_comment: decode");
    let mut candidates: Vec<Candidate> =
        readers.iter().map(|(_, r)| Candidate::new(move || r.decode_each(|a| drop(black_box(a))))).collect();
    out.decode = names.iter().cloned().zip(race(cfg.settings, &mut candidates)).collect();
    drop(candidates);

    progress.say("l_comment: point gets");
    out.get = names
        .iter()
        .cloned()
        .zip(timed_gets(cfg.settings, &readers, &unsorted))
        .map(|(n, (ns, r))| (n, ns, r))
        .collect();

    progress.say("l_comment: take");
    let grouped: Vec<ByBlock> = sorted.iter().map(|s| by_block(s)).collect();
    let takes = race_apart(cfg.settings, &readers, |r| {
        let (grouped, mut next) = (&grouped, 0);
        Candidate::new(move || {
            black_box(r.take(black_box(&grouped[next % ROTATION])));
            next += 1;
        })
    });
    out.take = names.iter().cloned().zip(takes).collect();

    // Filters: every reader as it filters, then lwc fsst decoding first (the same format, compared after decode).
    let mut filter_timings: Vec<Vec<Timing>> = vec![Vec::new(); readers.len() + 1];
    for (k, predicate) in predicates.iter().enumerate() {
        progress.say(format!("l_comment: filter {}", k + 1));
        let fsst = readers.iter().find(|(n, _)| n == "lwc fsst").map(|(_, r)| r);
        let mut candidates: Vec<Candidate> = readers
            .iter()
            .map(|(_, r)| {
                Candidate::new(move || {
                    black_box(r.count(black_box(predicate)));
                })
            })
            .collect();
        if let Some(fsst) = fsst {
            candidates.push(Candidate::new(move || {
                black_box(count_decoding(fsst, black_box(predicate)));
            }));
        }
        for (all, t) in filter_timings.iter_mut().zip(race(cfg.settings, &mut candidates)) {
            all.push(t);
        }
    }
    let mut filter_names = names.clone();
    filter_names.push("lwc fsst, decode then compare".into());
    out.filters = filter_names.into_iter().zip(filter_timings).filter(|(_, t)| !t.is_empty()).collect();
    let plain = Reader::Plain(strings);
    out.predicates = vec![
        ("= v".into(), plain.count(&predicates[0])),
        ("IN (v)".into(), plain.count(&predicates[1])),
        (format!("LIKE '{}%'", String::from_utf8_lossy(&prefix)), plain.count(&predicates[2])),
    ];
    out.value = String::from_utf8_lossy(&equal).into_owned();
    out
}

/// Races `readers` (plain first) in two groups, each led by plain: the readers that read rows in place, then the
/// block compressors, which decompress whole blocks for a few rows and would evict the others' rows from the caches
/// between rounds. Timings in reader order, ratios to plain in the same race.
fn race_apart<'r>(
    settings: Settings,
    readers: &'r [(String, Reader<'r>)],
    mut candidate: impl FnMut(&'r Reader<'r>) -> Candidate<'r>,
) -> Vec<Timing> {
    let mut timings: Vec<Option<Timing>> = vec![None; readers.len()];
    for blocks in [false, true] {
        let members: Vec<usize> =
            (0..readers.len()).filter(|&k| k == 0 || matches!(readers[k].1, Reader::Block { .. }) == blocks).collect();
        if members.len() < 2 && blocks {
            continue;
        }
        let mut candidates: Vec<Candidate> = members.iter().map(|&k| candidate(&readers[k].1)).collect();
        for (&k, t) in members.iter().zip(race(settings, &mut candidates)) {
            timings[k].get_or_insert(t);
        }
    }
    timings.into_iter().map(|t| t.expect("every reader is raced")).collect()
}

/// Point gets at one list of `lists` a call, in turn ([`BLOCK_GETS`] of each for the block compressors), each row
/// appended to one reused buffer: nanoseconds a row and the ratio to plain's, a row.
fn timed_gets(settings: Settings, readers: &[(String, Reader<'_>)], lists: &[Vec<u32>]) -> Vec<(f64, f64)> {
    let count = |r: &Reader| if matches!(r, Reader::Block { .. }) { BLOCK_GETS.min(LOOKUPS) } else { LOOKUPS };
    let timings = race_apart(settings, readers, |r| {
        let k = count(r);
        let (mut scratch, mut sink, mut next) = (Vec::new(), Vec::new(), 0);
        Candidate::new(move || {
            sink.clear();
            for &p in black_box(&lists[next % lists.len()][..k]) {
                sink.extend_from_slice(&r.get(p as usize, &mut scratch));
            }
            black_box(&sink);
            next += 1;
        })
    });
    readers
        .iter()
        .zip(timings)
        .map(|((_, r), t)| {
            let k = count(r) as f64;
            (t.median_ns / k, t.ratio * LOOKUPS as f64 / k)
        })
        .collect()
}

/// Bytes in MiB, two decimals.
fn mib(bytes: usize) -> String {
    format!("{:.2}", bytes as f64 / (1 << 20) as f64)
}

fn record(data: &str, codec: &str, measure: &str, value: f64, unit: &'static str, r: Option<f64>) -> Record {
    Record {
        experiment: "strings",
        data: data.into(),
        codec: codec.into(),
        measure: measure.into(),
        value,
        unit,
        ratio_to_plain: r,
    }
}

/// plain / encoded for every column and codec.
fn ratios_table(columns: &[Column], sf: f64, records: &mut Vec<Record>) -> Table {
    let mut header = vec!["codec"];
    header.extend(columns.iter().map(|c| c.name));
    let mut table =
        Table::new(format!("strings: TPC-H text at scale factor {sf}, compression ratio (plain / encoded)"), &header);
    let mut plain = vec!["plain MiB (bytes + 4-byte offsets)".to_string()];
    plain.extend(columns.iter().map(|c| mib(c.strings.plain_bytes())));
    table.row(plain);
    for (k, codec) in codecs().iter().enumerate() {
        let mut cells = vec![codec.name.to_string()];
        for c in columns {
            let m = &c.measured[k];
            let r = m.bytes.map_or(f64::NAN, |b| c.strings.plain_bytes() as f64 / b as f64);
            cells.push(ratio(r));
            if let Some(b) = m.bytes {
                records.push(record(c.name, m.name, "encoded size", b as f64, "bytes", None));
                records.push(record(c.name, m.name, "compression ratio", r, "ratio", None));
            }
        }
        table.row(cells);
    }
    let rows: Vec<String> = columns.iter().map(|c| format!("{} {}", c.name, c.strings.len())).collect();
    table.note(format!("Rows: {}. Blocks of {BLOCK_ROWS} rows: an lwc segment each (its header, zone map and stream all counted); zstd (level {ZSTD_LEVEL}) and lz4_flex compress each block's strings back to back followed by their lengths (`u32`), 8 bytes of framing a block; fsst-rs (0.7) trains a symbol table a block and keeps a 4-byte end a row (uncompressed, as an Arrow array would; lwc's fsst bit-packs its ends). Parquet-zstd: the whole column as one file from the arrow writer (zstd at its default level, as `lwc-cli demo` writes it). `-`: the codec does not apply (`lwc dict` forced on nearly distinct rows).", rows.join(", ")));
    table.note(format!("Published: FSST {PUBLISHED_FSST}x on l_comment and 3.38x on ps_comment (Boncz et al. 2020, their FSST with its compressed offsets); Parquet-zstd about {PUBLISHED_PARQUET}x on l_comment."));
    table
}

/// `l_comment` in detail: bytes, projected to scale factor 1, and what lwc chose.
fn comment_table(comment: &Column, sf: f64, records: &mut Vec<Record>) -> Table {
    let plain = comment.strings.plain_bytes();
    let mut table = Table::new(
        format!("strings: l_comment at scale factor {sf}, {} rows ({} MiB plain)", comment.strings.len(), mib(plain)),
        &["codec", "bytes", "plain / encoded", "bits a row", "MB at SF 1", "lwc chose"],
    );
    table.row(vec![
        "plain (bytes + 4-byte offsets)".into(),
        plain.to_string(),
        ratio(1.0),
        format!("{:.1}", 8.0 * plain as f64 / comment.strings.len() as f64),
        format!("{:.1}", plain as f64 / sf / 1e6),
        String::new(),
    ]);
    for m in &comment.measured {
        let Some(bytes) = m.bytes else { continue };
        let at_sf1 = bytes as f64 / sf;
        records.push(record("l_comment", m.name, "bytes at scale factor 1", at_sf1, "bytes", None));
        table.row(vec![
            m.name.into(),
            bytes.to_string(),
            ratio(plain as f64 / bytes as f64),
            format!("{:.1}", 8.0 * bytes as f64 / comment.strings.len() as f64),
            format!("{:.1}", at_sf1 / 1e6),
            m.chosen.clone(),
        ]);
    }
    for m in &comment.measured {
        if let (Some(bytes), Some(ends)) = (m.bytes, m.plain_ends) {
            table.note(format!(
                "{} without its 4-byte ends (symbol tables and codes only): {} bytes, {} of plain.",
                m.name,
                bytes - ends,
                ratio(plain as f64 / (bytes - ends) as f64)
            ));
        }
    }
    table.note(if sf == 1.0 {
        "MB at SF 1: measured (this run is at scale factor 1); MB = 10^6 bytes.".to_string()
    } else {
        format!("MB at SF 1: this run's bytes scaled by 1 / {sf} (rows grow linearly with the scale factor; a segment's table and header are per 64Ki rows, so the scaling holds to a fraction of a percent); `--scale 1` measures it. MB = 10^6 bytes.")
    });
    table
}

/// Decode, get/take and filter tables on `l_comment`.
fn speed_tables(comment: &Column, speeds: &Speeds, records: &mut Vec<Record>) -> [Table; 3] {
    let (n, text) = (comment.strings.len(), comment.strings.bytes.len());
    let mut decode = Table::new(
        format!("strings: l_comment, full decode on one thread ({n} rows, {} MiB of string bytes)", mib(text)),
        &["codec", "GB/s of strings", "time", "time / plain copy"],
    );
    for (name, t) in &speeds.decode {
        let gbs = text as f64 / t.median_ns;
        decode.row(vec![name.clone(), format!("{gbs:.2}"), time(t.median_ns), ratio(t.ratio)]);
        records.push(record("l_comment", name, "decode all", t.median_ns, "ns", Some(t.ratio)));
        records.push(record("l_comment", name, "decode throughput", gbs * 1e9, "bytes/s", None));
    }
    decode.note("Every codec decodes block by block into fresh Arrow-layout buffers (bytes + `u64` offsets), one array a block of 64Ki rows as lwc's `BytesSegment::decode` returns them, each dropped before the next block (as a scan hands batches on; the allocator reuses the memory, so no page is faulted in anew); plain copies its bytes and offsets the same way. GB/s counts the strings' bytes (10^9 a second), offsets not included. Candidates run in rotation; the ratio is the median of per-round ratios to plain.");

    let mut access = Table::new(
        format!("strings: l_comment, random access ({LOOKUPS} rows)"),
        &["codec", "get, ns a row", "get / plain", "take, ns a row", "take / plain"],
    );
    // Issue 16's bound: a take against the codec's decode of everything plus plain's take of the list.
    let plain_take = speeds.take.first().map_or(f64::NAN, |(_, t)| t.median_ns);
    let mut cliffs = Vec::new();
    for (((name, ns, r), (_, take)), (_, decode)) in speeds.get.iter().zip(&speeds.take).zip(&speeds.decode) {
        let take_ns = take.median_ns / LOOKUPS as f64;
        let mark = match cliff(&[take.median_ns], &[decode.median_ns], &[plain_take]) {
            Some((_, factor)) => {
                cliffs.push(format!("{name} take, {factor:.1}x"));
                " !"
            }
            None => "",
        };
        let take_ratio = format!("{}{mark}", ratio(take.ratio));
        access.row(vec![name.clone(), format!("{ns:.1}"), ratio(*r), format!("{take_ns:.1}"), take_ratio]);
        records.push(record("l_comment", name, "get a row", *ns, "ns", Some(*r)));
        records.push(record("l_comment", name, "take a row", take_ns, "ns", Some(take.ratio)));
    }
    access.note(format!("get: {LOOKUPS} independent point lookups at uniform random rows (a new list of rows each call, {ROTATION} in turn, so that no reader finds its rows cached by the call before), each row appended to one reused result buffer (lwc: `BytesSegment::get`, which returns a `Cow`: borrowed for plain bytes and dictionaries, a fresh `Vec` for fsst); zstd and lz4_flex decompress the row's whole block for each get (into one reused buffer), timed on the first {BLOCK_GETS} positions, in a race of their own with plain (their block decompressions would evict the other readers' rows from the caches between rounds; so for take); fsst-rs decodes the row into one reused buffer. take: {LOOKUPS} sorted random positions (also {ROTATION} lists in turn), each block's through `BytesSegment::take` (the compressors decompress each block they read once), into fresh arrays."));
    access.note(cliff_note(&cliffs));

    let mut header = vec!["codec".to_string()];
    for (p, _) in &speeds.predicates {
        header.push(format!("{p}, ns a row"));
        header.push("/ plain".into());
    }
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut filter = Table::new("strings: l_comment, filters on one thread", &header);
    for (name, timings) in &speeds.filters {
        let mut cells = vec![name.clone()];
        for ((p, _), t) in speeds.predicates.iter().zip(timings) {
            cells.push(format!("{:.2}", t.median_ns / n as f64));
            cells.push(ratio(t.ratio));
            records.push(record("l_comment", name, &format!("filter {p}"), t.median_ns, "ns", Some(t.ratio)));
        }
        filter.row(cells);
    }
    let selected: Vec<String> = speeds.predicates.iter().map(|(p, k)| format!("`{p}` selects {k}")).collect();
    filter.note(format!("Counting the rows that match, over all {n} rows, v = '{}' (the middle row's value): {}. plain compares each row of the Arrow layout; lwc filters each segment on its encoded form (`BytesSegment::filter`, zone maps first; fsst compresses the constants of `=` and `IN` once and compares codes, and decodes each row into one scratch buffer for a prefix; plain compares bytes in place); zstd and lz4_flex decompress each block then compare; fsst-rs decodes each row into one buffer then compares; `lwc fsst, decode then compare` decodes each segment whole, then compares its rows. Counts were checked against plain first.", speeds.value, selected.join(", ")));
    [decode, access, filter]
}

/// What the low-cardinality part hands on: its table and bits a row by codec.
struct LowCardinality {
    table: Table,
    bits: Vec<(&'static str, f64, Option<f64>)>,
}

/// Seed 003's low-cardinality strings through every codec: bits a row, and a point get where it is timed.
fn low_cardinality(cfg: &Config, keys: &Strings, progress: &Progress, records: &mut Vec<Record>) -> LowCardinality {
    let n = keys.len();
    let data = "low-cardinality 'Key_' + (random % 10)";
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for k in keys.iter() {
        *counts.entry(k).or_default() += 1;
    }
    let entropy: f64 = counts.values().map(|&c| c as f64 / n as f64).map(|p| -p * p.log2()).sum();
    let width = (counts.len() as f64).log2().ceil();
    let rows = rows(keys);
    let mut stored = Vec::new();
    for c in codecs() {
        progress.say(format!("low cardinality: {}", c.name));
        let s = c.encode(keys, &rows);
        stored.push((c, s));
    }
    drop(rows);

    // Point gets: plain and every form with a reader, checked first.
    let positions = position_lists(n, false, cfg.seed ^ 2);
    let sorted = data::positions(LOOKUPS, n, true, cfg.seed ^ 3);
    let mut readers = vec![("plain".to_string(), Reader::Plain(keys))];
    for (c, s) in &stored {
        if let Some(reader) = s.as_ref().and_then(Stored::reader) {
            check(c.name, &reader, keys, &sorted, &[BytesPredicate::StartsWith(b"Key_3".to_vec())]);
            readers.push((c.name.to_string(), reader));
        }
    }
    progress.say("low cardinality: point gets");
    let timings = timed_gets(cfg.settings, &readers, &positions);
    let get_ns: HashMap<&str, f64> =
        readers.iter().zip(&timings).map(|((name, _), &(ns, _))| (name.as_str(), ns)).collect();

    let mut table = Table::new(
        format!("strings: {data}, {n} rows"),
        &["codec", "bytes", "bits a row", "/ entropy", "get, ns a row", "lwc chose"],
    );
    let bits_of = |bytes: f64| 8.0 * bytes / n as f64;
    let mut reference = |name: &str, bits: f64, get: String| {
        table.row(vec![
            name.into(),
            format!("{:.0}", bits * n as f64 / 8.0),
            format!("{bits:.3}"),
            ratio(bits / entropy),
            get,
            String::new(),
        ]);
    };
    reference("plain (bytes + 4-byte offsets)", bits_of(keys.plain_bytes() as f64), format!("{:.1}", get_ns["plain"]));
    reference("entropy of the data (bound)", entropy, String::new());
    reference(&format!("codes bit-packed at {width} bits (no dictionary)"), width, String::new());
    let mut bits = Vec::new();
    for (c, s) in &stored {
        let Some(s) = s else { continue };
        let b = bits_of(s.bytes() as f64);
        let get = get_ns.get(c.name).copied();
        bits.push((c.name, b, get));
        records.push(record(data, c.name, "encoded size", s.bytes() as f64, "bytes", None));
        records.push(record(data, c.name, "bits a row", b, "bits", None));
        if let Some(g) = get {
            records.push(record(data, c.name, "get a row", g, "ns", None));
        }
        table.row(vec![
            c.name.into(),
            s.bytes().to_string(),
            format!("{b:.3}"),
            ratio(b / entropy),
            get.map_or_else(|| "-".into(), |g| format!("{g:.1}")),
            s.chosen(),
        ]);
    }
    let published = |name: &str| {
        bits.iter().find(|b| b.0 == name).map_or(f64::NAN, |b| b.1 * KEYS_FULL as f64 / 8.0 / (1 << 20) as f64)
    };
    table.note(format!("{} distinct values; entropy from their counts in this data. Blocks of {BLOCK_ROWS} rows as above; get: {LOOKUPS} random point lookups ({BLOCK_GETS} for zstd and lz4_flex, which decompress a block each).", counts.len()));
    table.note(format!("Published (seed 003, ClickHouse, 10^8 rows): ZSTD 97.67 MiB, adaptive (RawTree) 43.66 MiB. Ours scaled to 10^8 rows: lwc auto {:.2} MiB, lwc auto, size {:.2} MiB, zstd {:.2} MiB.", published("lwc auto"), published("lwc auto, size"), published("zstd")));
    LowCardinality { table, bits }
}

/// The goals, each computed from this run's figures.
fn goals(
    sf: f64,
    comment: &Column,
    speeds: &Speeds,
    bits: &[(&'static str, f64, Option<f64>)],
    records: &mut Vec<Record>,
) -> Table {
    let mut table =
        Table::new("strings: the goals of the fsst issue, as measured in this run", &["goal", "measured", "met"]);
    let mut goal = |name: &str, measured: String, value: f64, unit: &'static str, met: bool| {
        table.row(vec![name.into(), measured, if met { "met" } else { "not met" }.into()]);
        records.push(record("goals", "lwc", name, value, unit, None));
    };
    const OBJECTIVES: [&str; 2] = ["lwc auto", "lwc auto, size"];

    // l_comment at scale factor 1: the best lwc objective's bytes, projected unless measured there.
    let at_sf1: Vec<(&str, f64)> = comment
        .measured
        .iter()
        .filter(|m| OBJECTIVES.contains(&m.name) || m.name == "lwc fsst")
        .map(|m| (m.name, m.bytes.map_or(f64::NAN, |b| b as f64 / sf)))
        .collect();
    let best = at_sf1
        .iter()
        .filter(|(name, _)| OBJECTIVES.contains(name))
        .copied()
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .unwrap_or(("-", f64::NAN));
    let get = speeds.get_of(best.0).unwrap_or(f64::NAN);
    let each: Vec<String> = at_sf1.iter().map(|(name, b)| format!("{name} {:.1} MB", b / 1e6)).collect();
    goal(
        &format!(
            "l_comment at SF 1 in at most {:.0} MB with per-row get (lwc, default or size objective)",
            SIZE_GOAL / 1e6
        ),
        format!(
            "{} {:.1} MB{}, get {get:.0} ns a row ({})",
            best.0,
            best.1 / 1e6,
            if sf == 1.0 { "" } else { " projected from this scale" },
            each.join(", ")
        ),
        best.1,
        "bytes",
        best.1 <= SIZE_GOAL && get.is_finite(),
    );

    // FSST decode on one core, l_comment.
    let text = comment.strings.bytes.len() as f64;
    let fsst = speeds.decode_of("lwc fsst");
    let rate = fsst.map_or(f64::NAN, |t| text / t.median_ns * 1e9);
    let peer = speeds.decode_of("fsst-rs").map_or(f64::NAN, |t| text / t.median_ns);
    goal(
        &format!("FSST decodes at least {:.0} GB/s per core (lwc fsst, full decode of l_comment)", DECODE_GOAL / 1e9),
        format!(
            "{:.2} GB/s, {} the time of a plain copy (fsst-rs: {peer:.2} GB/s)",
            rate / 1e9,
            fsst.map_or_else(|| "-".into(), |t| ratio(t.ratio))
        ),
        rate,
        "bytes/s",
        rate >= DECODE_GOAL,
    );

    // Low cardinality: the best lwc objective's bits a row, with its point get.
    let best = bits
        .iter()
        .filter(|(name, ..)| OBJECTIVES.contains(name))
        .copied()
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .unwrap_or(("-", f64::NAN, None));
    let each: Vec<String> = bits
        .iter()
        .filter(|(name, ..)| OBJECTIVES.contains(name))
        .map(|(name, b, _)| format!("{name} {b:.3}"))
        .collect();
    goal(
        &format!("low-cardinality strings in at most {BITS_GOAL} bits a row with O(1) access (lwc, default or size objective)"),
        format!(
            "{} {:.3} bits a row, get {:.0} ns a row ({})",
            best.0,
            best.1,
            best.2.unwrap_or(f64::NAN),
            each.join(", ")
        ),
        best.1,
        "bits",
        best.1 <= BITS_GOAL && best.2.is_some(),
    );
    let fsst_ratio = comment
        .measured
        .iter()
        .find(|m| m.name == "lwc fsst")
        .and_then(|m| m.bytes)
        .map_or(f64::NAN, |b| comment.strings.plain_bytes() as f64 / b as f64);
    table.note(format!("Computed from the tables above: sizes from the l_comment table (the smaller of lwc's default objective and `size`; O(1) access: every lwc segment answers `get` for one row without decoding others, timed above), the decode rate from the decode table's `lwc fsst` row on one thread, bits a row from the low-cardinality table. For reference, lwc fsst compresses l_comment {} against the FSST paper's {PUBLISHED_FSST}x. Absolute speeds depend on the machine (its line is at the top).", ratio(fsst_ratio)));
    table
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::measure::Settings;

    #[test]
    fn blocks_and_positions_split_at_segment_bounds() {
        let r: Vec<_> = blocks(2 * BLOCK_ROWS + 5).collect();
        assert_eq!(r, [0..BLOCK_ROWS, BLOCK_ROWS..2 * BLOCK_ROWS, 2 * BLOCK_ROWS..2 * BLOCK_ROWS + 5]);
        let p = [3, 7, BLOCK_ROWS as u32 + 1, 2 * BLOCK_ROWS as u32];
        assert_eq!(by_block(&p), vec![(0, vec![3, 7]), (1, vec![1]), (2, vec![0])]);
    }

    #[test]
    fn a_tiny_run_has_every_table_and_goal() {
        let cfg = Config {
            scale: Some(0.0002),
            settings: Settings { rounds: 1, min_batch: Duration::from_micros(10) },
            explicit_rounds: None,
            threads: 1,
            seed: 7,
        };
        // `run` checks that every form decodes, gets, takes and filters as the plain rows.
        let report = run(&cfg);
        let text: Vec<String> = report.tables.iter().map(Table::render).collect();
        assert_eq!(text.len(), 7);
        for codec in ["lwc auto", "lwc fsst", "zstd", "lz4_flex", "fsst-rs", "Parquet-zstd"] {
            assert!(text[0].contains(&format!("| {codec} |")), "{codec}");
        }
        for t in &text[2..5] {
            assert!(["lwc fsst", "fsst-rs", "zstd", "plain"].iter().all(|c| t.contains(&format!("| {c} |"))), "{t}");
        }
        let verdicts = text[6]
            .lines()
            .filter(|l| !l.starts_with("| goal |") && (l.ends_with("| met |") || l.ends_with("| not met |")))
            .count();
        assert_eq!(verdicts, 3, "{}", text[6]);
        assert_eq!(report.records.iter().filter(|r| r.data == "goals").count(), 3);
    }
}
