//! adaptive: let the data choose (seed 003).
//!
//! Seed 003's two data sets: the sorted integers 0 … n − 1 as `u64`, through lwc's automatic choice, every forced
//! lwc encoding and the peers that take `u64`; and low-cardinality strings `Key_` + (random % 10), which lwc cannot
//! hold yet, through the byte compressors and in the dictionary-coded form lwc's string columns will use. Measured:
//! encoded size, encode time and full-decode time (as ratios to a plain copy, then absolute), and which encodings
//! the automatic choice picked on how many segments (its explain record, for now).

use std::collections::HashMap;
use std::hint::black_box;

use lwc::{EncodeOptions, EncodedColumn, LwcInt};

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
    ratios.note(format!("lwc auto chose {}.", explain(&values)));
    ratios.note(format!("Does not apply (left out): {}.", left_out.join(", ")));
    ratios.note("Published (seed 003, ClickHouse, 10^8 rows): ZSTD 195.11 MiB, adaptive 2.02 MiB (DoubleDelta + LZ4); ingest 2.57 s adaptive vs 5.59 s ZSTD; full read 1.81 (adaptive) vs 1.07 (ZSTD) billion rows/s.");
    report.tables.extend([ratios, absolute]);

    let keys = data::low_cardinality_keys(n, cfg.seed);
    let rows = strings(cfg, &keys, &progress);
    let [mut ratios, absolute] =
        tables(&mut report.records, "low-cardinality strings 'Key_' + (random % 10)", &rows, n);
    let (_, codes) = dictionary(&keys);
    ratios.note(format!("lwc auto chose, for the dictionary codes, {}.", explain(&codes)));
    ratios.note("lwc has no string columns yet (they come with the file-format issue): the dictionary rows are what they will do, 10 distinct strings (bytes + 4-byte offsets) and u32 codes; their decode yields the codes. The byte compressors see one line a row (`Key_3\\n`) and decode to that text; plain is the strings' bytes + a 4-byte offset each.");
    ratios.note("Published (seed 003, ClickHouse, 10^8 rows): ZSTD 97.67 MiB, adaptive 43.66 MiB.");
    report.tables.extend([ratios, absolute]);
    progress.done();
    report
}

/// What lwc's automatic choice picks for `values`.
fn explain<T: LwcInt>(values: &[T]) -> String {
    let encoded = EncodedColumn::encode(values, None, EncodeOptions::default()).expect("auto encodes anything");
    let column = encoded.open::<T>().expect("opens what it encoded");
    codecs::explain(&column)
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

/// How the strings are stored: as text through a byte compressor, or as a dictionary and codes.
enum StringCodec {
    Lines(Box<dyn Peer<u8>>),
    Dictionary(Box<dyn Peer<u32>>),
}

/// Strings encoded by a [`StringCodec`].
enum Form {
    Lines(Box<dyn PeerEncoded<u8>>),
    Codes { dictionary: Vec<String>, codes: Box<dyn PeerEncoded<u32>> },
}

impl StringCodec {
    fn name(&self) -> String {
        match self {
            StringCodec::Lines(p) => format!("{}, one line a row", p.name()),
            StringCodec::Dictionary(p) => format!("dictionary + {} codes", p.name()),
        }
    }

    fn encode(&self, strings: &Strings) -> Option<Form> {
        Some(match self {
            StringCodec::Lines(p) => Form::Lines(p.encode(&lines(strings))?),
            StringCodec::Dictionary(p) => {
                let (dictionary, codes) = dictionary(strings);
                Form::Codes { dictionary, codes: p.encode(&codes)? }
            }
        })
    }
}

impl Form {
    /// Encoded bytes; a dictionary costs its strings' bytes and a 4-byte offset each.
    fn bytes(&self) -> usize {
        match self {
            Form::Lines(e) => e.bytes(),
            Form::Codes { dictionary, codes } => {
                dictionary.iter().map(|s| s.len() + size_of::<u32>()).sum::<usize>() + codes.bytes()
            }
        }
    }

    /// Decodes into `text` (one line a row) or `codes`, whichever this form holds.
    fn decode(&self, text: &mut [u8], codes: &mut [u32]) {
        match self {
            Form::Lines(e) => e.decode_into(text),
            Form::Codes { codes: e, .. } => e.decode_into(codes),
        }
    }

    /// Whether the form decodes back to `strings`.
    fn decodes_back(&self, strings: &Strings) -> bool {
        let (mut text, mut codes) = (vec![0u8; strings.bytes.len() + strings.len()], vec![0u32; strings.len()]);
        self.decode(&mut text, &mut codes);
        match self {
            Form::Lines(_) => text == lines(strings),
            Form::Codes { dictionary, .. } => strings.iter().zip(&codes).all(|(s, &c)| dictionary[c as usize] == s),
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

/// The strings in plain layout, through the byte compressors, and dictionary-coded.
fn strings(cfg: &Config, strings: &Strings, progress: &Progress) -> Vec<Measured> {
    let mut codecs: Vec<StringCodec> = peers::bytes().into_iter().map(StringCodec::Lines).collect();
    codecs.push(StringCodec::Dictionary(Box::new(Lwc::new("lwc auto", "auto"))));
    codecs.extend(peers::all().into_iter().filter(|p| p.name() == "zstd").map(StringCodec::Dictionary));
    progress.say(format!("strings: encoding {} rows", strings.len()));
    let forms: Vec<Form> = codecs
        .iter()
        .map(|c| c.encode(strings).filter(|f| f.decodes_back(strings)).expect("string codecs encode any strings"))
        .collect();
    progress.say("strings: encode times");
    let mut candidates = vec![Candidate::new(|| {
        black_box(black_box(strings).clone());
    })];
    for c in &codecs {
        candidates.push(Candidate::new(|| {
            black_box(c.encode(black_box(strings)));
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
        candidates.push(Candidate::new(move || f.decode(black_box(&mut text), &mut codes)));
    }
    let decode = race(cfg.settings, &mut candidates);
    let mut rows = vec![Measured {
        name: "plain (bytes + 4-byte offsets)".into(),
        bytes: strings.plain_bytes(),
        encode: encode[0],
        decode: decode[0],
    }];
    for (k, (c, f)) in codecs.iter().zip(&forms).enumerate() {
        rows.push(Measured { name: c.name(), bytes: f.bytes(), encode: encode[k + 1], decode: decode[k + 1] });
    }
    rows
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
        for codec in peers::bytes().into_iter().map(StringCodec::Lines).chain([lwc]) {
            let form = codec.encode(&keys).expect("encodes");
            assert!(form.decodes_back(&keys), "{}", codec.name());
            assert!(form.bytes() < keys.plain_bytes());
        }
    }
}
