//! adaptive: let the data choose (seed 003).
//!
//! Seed 003's two data sets: the sorted integers 0 … n − 1 as `u64`, through lwc's automatic choice, every forced
//! lwc encoding and the peers that take `u64`; and low-cardinality strings `Key_` + (random % 10) as an Arrow
//! `StringArray` through lwc's string path (a one-column `.lwc` file written in memory by `lwc-file`, which stores
//! each segment as a dictionary and codes, or plain, whichever the data call for) on one thread and on all, next to
//! the byte compressors and a hand-made dictionary form that decodes to codes only. Measured: encoded size, encode
//! time and full-decode time (as ratios to a plain copy, then absolute), which encodings the automatic choice picked
//! on how many segments, and for the integers the share of the encode spent choosing.

use std::collections::HashMap;
use std::hint::black_box;
use std::sync::Arc;

use arrow_array::{Array, RecordBatch, StringArray};
use lwc::{EncodeOptions, EncodedColumn, LwcInt, SegmentExplain};
use lwc_file::LwcFile;

use super::Config;
use crate::codecs::{self, Lwc};
use crate::data::{self, Strings};
use crate::measure::{race, race_codecs, Candidate, Timing};
use crate::peers::{self, Peer, PeerEncoded};
use crate::report::{ratio, time, Progress, Record, Report, Table};

/// Rows of each data set at scale 1 (seed 003 used 10^8).
const FULL: usize = 100_000_000;
/// The default scale: 10^7 rows.
const DEFAULT_SCALE: f64 = 0.1;

/// One candidate's figures.
struct Measured {
    name: String,
    bytes: usize,
    encode: Timing,
    decode: Timing,
}

pub fn run(cfg: &Config) -> Report {
    let progress = Progress::new("adaptive");
    let n = cfg.scaled(FULL, DEFAULT_SCALE, 1 << 10);
    let mut report = Report::default();

    let values: Vec<u64> = (0..n as u64).collect();
    let (rows, left_out) = sorted(cfg, &values, &progress);
    let [mut ratios, absolute] =
        tables(&mut report.records, &format!("sorted integers 0 … {} as u64", n - 1), &rows, n);
    let (chosen, explains) = explain(&values);
    let sum = |f: fn(&SegmentExplain) -> u64| explains.iter().map(f).sum::<u64>() as f64;
    let (choose_ns, encode_ns) = (sum(|e| e.choose_ns), sum(|e| e.encode_ns));
    ratios.note(format!(
        "lwc auto chose {chosen}. Selection overhead: choosing took {:.1} % of auto's encode ({} of {}, from one encode's explain records: stats, sampling and estimates, child streams included).",
        100.0 * choose_ns / encode_ns.max(1.0),
        time(choose_ns),
        time(encode_ns)
    ));
    ratios.note(format!("Does not apply (left out): {}.", left_out.join(", ")));
    ratios.note("Published (seed 003, ClickHouse, 10^8 rows): ZSTD 195.11 MiB, adaptive 2.02 MiB (DoubleDelta + LZ4); ingest 2.57 s adaptive vs 5.59 s ZSTD; full read 1.81 (adaptive) vs 1.07 (ZSTD) billion rows/s.");
    report.tables.extend([ratios, absolute]);

    let keys = data::low_cardinality_keys(n, cfg.seed);
    let (rows, file) = strings(cfg, &keys, &progress);
    let [mut ratios, absolute] =
        tables(&mut report.records, "low-cardinality strings 'Key_' + (random % 10)", &rows, n);
    let column = &file.columns()[0];
    ratios.note(format!(
        "lwc-file rows: the keys as an Arrow `StringArray`, written with `lwc_file::write_to_bytes` (default `WriteOptions`: the selector's `balanced` objective, {}-row segments; encode includes opening the bytes with `LwcFile::from_bytes`) and read back whole with `read_column` into a fresh `StringArray`. Bytes are the whole in-memory file: the column's segments take {} bytes, header and footer {}. Chosen: {}.",
        EncodeOptions::default().segment_rows,
        column.encoded_bytes,
        file.file_bytes() - column.encoded_bytes,
        codecs::explain_file(column),
    ));
    ratios.note(format!("lwc-file encodes and decodes segments in parallel on rayon's pool: the 1-thread row runs in a one-thread pool, like the peers, which all run on one thread; the {}-thread row in a pool of {}.", cfg.threads, cfg.threads));
    let (_, codes) = dictionary(&keys);
    ratios.note(format!("The hand-made dictionary rows: 10 distinct strings (bytes + 4-byte offsets) and u32 codes; their decode yields the codes only, not strings. lwc auto chose, for the codes, {}. The byte compressors see one line a row (`Key_3\\n`) and decode to that text; plain is the strings' bytes + a 4-byte offset each.", explain(&codes).0));
    let published = |name: &str| {
        rows.iter().find(|r| r.name == name).map(|r| r.bytes as f64 * FULL as f64 / n as f64 / (1 << 20) as f64)
    };
    ratios.note(format!(
        "Published (seed 003, ClickHouse, 10^8 rows): ZSTD 97.67 MiB, adaptive 43.66 MiB. Ours at {n} rows, scaled linearly to 10^8 (the rows are independent draws; dictionaries and footers are fixed costs, so this slightly overstates): lwc-file {:.2} MiB, zstd one line a row {:.2} MiB.",
        published(&file_name(1)).unwrap_or(f64::NAN),
        published("zstd, one line a row").unwrap_or(f64::NAN),
    ));
    report.tables.extend([ratios, absolute]);
    progress.done();
    report
}

/// What lwc's automatic choice picks for `values`, and its explain record of each segment.
fn explain<T: LwcInt>(values: &[T]) -> (String, Vec<SegmentExplain>) {
    let encoded =
        EncodedColumn::encode(values, None, EncodeOptions::default().explained()).expect("auto encodes anything");
    let column = encoded.open::<T>().expect("opens what it encoded");
    (codecs::explain(&column), encoded.explains().to_vec())
}

/// The sorted integers through every lwc encoding and the `u64` peers; also the codecs that did not apply.
fn sorted(cfg: &Config, values: &[u64], progress: &Progress) -> (Vec<Measured>, Vec<&'static str>) {
    let mut codecs: Vec<Box<dyn Peer<u64>>> =
        codecs::all().into_iter().map(|c| Box::new(c) as Box<dyn Peer<u64>>).collect();
    codecs.extend(peers::wide());
    progress.say(format!("sorted: encoding {} u64", values.len()));
    let encoded: Vec<Option<Box<dyn PeerEncoded<u64>>>> =
        codecs.iter().map(|c| c.encode(values).filter(|e| peers::decodes_back(e.as_ref(), values))).collect();
    let present: Vec<&dyn Peer<u64>> =
        codecs.iter().zip(&encoded).filter(|(_, e)| e.is_some()).map(|(c, _)| c.as_ref()).collect();
    progress.say("sorted: encode times");
    let mut candidates = vec![Candidate::new(|| {
        black_box(black_box(values).to_vec());
    })];
    for c in &present {
        candidates.push(Candidate::new(|| {
            black_box(c.encode(black_box(values)));
        }));
    }
    let encode = race(cfg.settings, &mut candidates);
    progress.say("sorted: decode times");
    let decode: Vec<Timing> = race_codecs(cfg.settings, values, None, &encoded).into_iter().flatten().collect();
    let mut rows = vec![Measured {
        name: "plain Vec<u64>".into(),
        bytes: size_of_val(values),
        encode: encode[0],
        decode: decode[0],
    }];
    let encoded = encoded.iter().flatten();
    for (((c, e), &encode), &decode) in present.iter().zip(encoded).zip(&encode[1..]).zip(&decode[1..]) {
        rows.push(Measured { name: c.name().into(), bytes: e.bytes(), encode, decode });
    }
    let left_out = codecs.iter().map(|c| c.name()).filter(|name| !present.iter().any(|p| p.name() == *name)).collect();
    (rows, left_out)
}

/// How the strings are stored: as text through a byte compressor, as a dictionary and codes, or as an lwc-file
/// string column written and read on a thread pool.
enum StringCodec {
    Lines(Box<dyn Peer<u8>>),
    Dictionary(Box<dyn Peer<u32>>),
    File(Arc<rayon::ThreadPool>),
}

/// Strings encoded by a [`StringCodec`].
enum Form {
    Lines(Box<dyn PeerEncoded<u8>>),
    Codes { dictionary: Vec<String>, codes: Box<dyn PeerEncoded<u32>> },
    File { file: Box<LwcFile>, pool: Arc<rayon::ThreadPool> },
}

/// The strings as each codec takes them: the plain layout, and for lwc-file an Arrow batch of one column.
struct Input<'a> {
    strings: &'a Strings,
    batch: RecordBatch,
}

impl<'a> Input<'a> {
    fn new(strings: &'a Strings) -> Self {
        let batch = codecs::one_column("key", Arc::new(StringArray::from_iter_values(strings.iter())));
        Input { strings, batch }
    }
}

/// The name of the lwc-file row on `threads` threads.
fn file_name(threads: usize) -> String {
    format!("lwc-file string column, {threads} thread{}", if threads == 1 { "" } else { "s" })
}

/// A pool of `threads` threads.
fn pool(threads: usize) -> Arc<rayon::ThreadPool> {
    Arc::new(rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("thread pool"))
}

impl StringCodec {
    fn name(&self) -> String {
        match self {
            StringCodec::Lines(p) => format!("{}, one line a row", p.name()),
            StringCodec::Dictionary(p) => format!("dictionary + {} codes", p.name()),
            StringCodec::File(pool) => file_name(pool.current_num_threads()),
        }
    }

    fn encode(&self, input: &Input) -> Option<Form> {
        Some(match self {
            StringCodec::Lines(p) => Form::Lines(p.encode(&lines(input.strings))?),
            StringCodec::Dictionary(p) => {
                let (dictionary, codes) = dictionary(input.strings);
                Form::Codes { dictionary, codes: p.encode(&codes)? }
            }
            StringCodec::File(pool) => Form::File {
                file: Box::new(pool.install(|| codecs::write_file(&input.batch)).ok()?),
                pool: pool.clone(),
            },
        })
    }
}

impl Form {
    /// Encoded bytes; a dictionary costs its strings' bytes and a 4-byte offset each, a file all its bytes.
    fn bytes(&self) -> usize {
        match self {
            Form::Lines(e) => e.bytes(),
            Form::Codes { dictionary, codes } => {
                dictionary.iter().map(|s| s.len() + size_of::<u32>()).sum::<usize>() + codes.bytes()
            }
            Form::File { file, .. } => file.file_bytes() as usize,
        }
    }

    /// Decodes into `text` (one line a row) or `codes`, whichever this form holds; a file decodes to a fresh
    /// Arrow array, returned.
    fn decode(&self, text: &mut [u8], codes: &mut [u32]) -> Option<Arc<dyn Array>> {
        match self {
            Form::Lines(e) => e.decode_into(text),
            Form::Codes { codes: e, .. } => e.decode_into(codes),
            Form::File { file, pool } => {
                return Some(pool.install(|| file.read_column(0)).expect("reads what it wrote"))
            }
        }
        None
    }

    /// Whether the form decodes back to `strings`.
    fn decodes_back(&self, strings: &Strings) -> bool {
        let (mut text, mut codes) = (vec![0u8; strings.bytes.len() + strings.len()], vec![0u32; strings.len()]);
        let array = self.decode(&mut text, &mut codes);
        match self {
            Form::Lines(_) => text == lines(strings),
            Form::Codes { dictionary, .. } => strings.iter().zip(&codes).all(|(s, &c)| dictionary[c as usize] == s),
            Form::File { .. } => {
                array.as_ref().and_then(|a| a.as_any().downcast_ref::<StringArray>()).is_some_and(|a| {
                    a.len() == strings.len()
                        && a.null_count() == 0
                        && a.iter().zip(strings.iter()).all(|(a, s)| a == Some(s))
                })
            }
        }
    }
}

/// The strings as text, each followed by a newline.
fn lines(strings: &Strings) -> Vec<u8> {
    let mut text = Vec::with_capacity(strings.bytes.len() + strings.len());
    for s in strings.iter() {
        text.extend_from_slice(s.as_bytes());
        text.push(b'\n');
    }
    text
}

/// The distinct strings in order of first appearance, and each row's index into them.
fn dictionary(strings: &Strings) -> (Vec<String>, Vec<u32>) {
    let mut index: HashMap<&str, u32> = HashMap::new();
    let mut dictionary = Vec::new();
    let codes = strings
        .iter()
        .map(|s| {
            *index.entry(s).or_insert_with(|| {
                dictionary.push(s.to_string());
                (dictionary.len() - 1) as u32
            })
        })
        .collect();
    (dictionary, codes)
}

/// The strings in plain layout, through the byte compressors, dictionary-coded, and as lwc-file string columns on
/// one thread and on `cfg.threads`; also the one-thread file, for its explain.
fn strings(cfg: &Config, strings: &Strings, progress: &Progress) -> (Vec<Measured>, LwcFile) {
    let mut codecs: Vec<StringCodec> = vec![StringCodec::File(pool(1))];
    if cfg.threads > 1 {
        codecs.push(StringCodec::File(pool(cfg.threads)));
    }
    codecs.extend(peers::bytes().into_iter().map(StringCodec::Lines));
    codecs.push(StringCodec::Dictionary(Box::new(Lwc::new("lwc auto", "auto"))));
    codecs.extend(peers::all().into_iter().filter(|p| p.name() == "zstd").map(StringCodec::Dictionary));
    progress.say(format!("strings: encoding {} rows", strings.len()));
    let input = Input::new(strings);
    let forms: Vec<Form> = codecs
        .iter()
        .map(|c| c.encode(&input).filter(|f| f.decodes_back(strings)).expect("string codecs encode any strings"))
        .collect();
    progress.say("strings: encode times");
    let mut candidates = vec![Candidate::new(|| {
        black_box(black_box(strings).clone());
    })];
    for c in &codecs {
        candidates.push(Candidate::new(|| {
            black_box(c.encode(black_box(&input)));
        }));
    }
    let encode = race(cfg.settings, &mut candidates);
    progress.say("strings: decode times");
    let mut plain = (vec![0u8; strings.bytes.len()], vec![0u32; strings.len()]);
    let mut candidates = vec![Candidate::new(|| {
        plain.0.copy_from_slice(black_box(strings.bytes.as_bytes()));
        plain.1.copy_from_slice(black_box(&strings.ends));
    })];
    for f in &forms {
        let (mut text, mut codes) = (vec![0u8; strings.bytes.len() + strings.len()], vec![0u32; strings.len()]);
        candidates.push(Candidate::new(move || {
            black_box(f.decode(black_box(&mut text), &mut codes));
        }));
    }
    let decode = race(cfg.settings, &mut candidates);
    drop(candidates);
    let mut rows = vec![Measured {
        name: "plain (bytes + 4-byte offsets)".into(),
        bytes: strings.plain_bytes(),
        encode: encode[0],
        decode: decode[0],
    }];
    for (k, (c, f)) in codecs.iter().zip(&forms).enumerate() {
        rows.push(Measured { name: c.name(), bytes: f.bytes(), encode: encode[k + 1], decode: decode[k + 1] });
    }
    let Some(Form::File { file, .. }) = forms.into_iter().next() else { unreachable!("the first codec is lwc-file") };
    (rows, *file)
}

/// Bytes in MiB, to two decimals or three significant digits below one MiB (pco stores a sequence in bytes).
fn mib(bytes: usize) -> String {
    let m = bytes as f64 / (1 << 20) as f64;
    let decimals = if m >= 1.0 || m == 0.0 { 2 } else { (2 - m.log10().floor() as i32) as usize };
    format!("{m:.decimals$}")
}

/// A data set's figures: sizes and times as ratios to plain, then absolute; `rows[0]` is plain.
fn tables(records: &mut Vec<Record>, data: &str, rows: &[Measured], n: usize) -> [Table; 2] {
    let plain = rows[0].bytes;
    let mut ratios = Table::new(
        format!("adaptive: {data}, {n} rows ({} MiB plain): size, and time as a ratio to plain, same run", mib(plain)),
        &["codec", "MiB", "plain / encoded", "encode / plain copy", "decode / plain copy"],
    );
    let mut absolute = Table::new(
        format!("adaptive: {data}, median times"),
        &["codec", "bytes", "encode", "decode", "decode, million rows/s"],
    );
    for row in rows {
        ratios.row(vec![
            row.name.clone(),
            mib(row.bytes),
            format!("{:.1}", plain as f64 / row.bytes as f64),
            ratio(row.encode.ratio),
            ratio(row.decode.ratio),
        ]);
        let rows_per_s = n as f64 / row.decode.median_ns * 1e3;
        absolute.row(vec![
            row.name.clone(),
            row.bytes.to_string(),
            time(row.encode.median_ns),
            time(row.decode.median_ns),
            format!("{rows_per_s:.0}"),
        ]);
        let record = |measure: &str, value: f64, unit: &'static str, r: Option<f64>| Record {
            experiment: "adaptive",
            data: data.to_string(),
            codec: row.name.clone(),
            measure: measure.into(),
            value,
            unit,
            ratio_to_plain: r,
        };
        records.push(record("encoded size", row.bytes as f64, "bytes", None));
        records.push(record("encode", row.encode.median_ns, "ns", Some(row.encode.ratio)));
        records.push(record("decode all", row.decode.median_ns, "ns", Some(row.decode.ratio)));
    }
    ratios.note("Plain is a copy of the values (encode: a fresh copy; decode: into a reused buffer). Lower time ratios are faster.");
    [ratios, absolute]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_keep_three_digits() {
        assert_eq!(mib(3 << 20), "3.00");
        assert_eq!(mib(988), "0.000942");
        assert_eq!(mib(0), "0.00");
    }

    #[test]
    fn string_forms_decode_back() {
        let keys = data::low_cardinality_keys(1000, 3);
        let (dictionary, codes) = dictionary(&keys);
        assert_eq!(dictionary.len(), 10);
        assert!(keys.iter().zip(&codes).all(|(k, &c)| dictionary[c as usize] == k));
        assert_eq!(lines(&keys).len(), 6000);
        let lwc = StringCodec::Dictionary(Box::new(Lwc::new("lwc auto", "auto")));
        let input = Input::new(&keys);
        for codec in peers::bytes().into_iter().map(StringCodec::Lines).chain([lwc, StringCodec::File(pool(2))]) {
            let form = codec.encode(&input).expect("encodes");
            assert!(form.decodes_back(&keys), "{}", codec.name());
            assert!(form.bytes() < keys.plain_bytes(), "{}", codec.name());
        }
        assert_eq!(StringCodec::File(pool(1)).name(), "lwc-file string column, 1 thread");
        let Some(Form::File { file, .. }) = StringCodec::File(pool(1)).encode(&input) else { panic!("a file") };
        let chosen = &file.columns()[0].cascades;
        assert!(chosen.len() == 1 && chosen[0].0.starts_with("dict("), "{chosen:?}");
    }
}
