//! database: whole-table sizes and load cost on TPC-H (seed 004, Westmann et al., §5).
//!
//! Every TPC-H table as columns: its plain bytes (fixed-width arrays, strings as bytes + offsets), its bytes with
//! lwc's automatic choice on every integer-like column (ints, dates, decimals) and every string column through
//! `lwc-file` (a one-column `.lwc` file in memory: each segment a dictionary + codes, or plain), and the load
//! (encode) time against a plain copy of the same columns.

use std::hint::black_box;
use std::sync::Arc;

use lwc::{EncodeOptions, EncodedColumn, LwcInt, Objective, SegmentExplain};
use lwc_file::LwcFile;

use super::Config;
use crate::codecs;
use crate::measure::{median, race, Candidate};
use crate::report::{ratio, time, Progress, Record, Report, Table};
use crate::tpch::{Column, Data, Tpch};

/// The TPC-H scale factor by default: seed 004's, about a minute and a half on 2 cores.
const DEFAULT_SCALE: f64 = 1.0;

/// Seed 004's Table (TPC-D SF 1, KB): plain and compressed sizes of the tables it reports, and the total.
const PUBLISHED: [(&str, f64, f64); 4] = [
    ("lineitem", 758_540.0, 427_360.0),
    ("orders", 177_900.0, 132_164.0),
    ("partsupp", 124_600.0, 112_588.0),
    ("total", 1_120_634.0, 720_568.0),
];

/// A column as lwc holds it: integer-like columns encoded by the automatic choice, strings as a one-column
/// `.lwc` file written by `lwc-file` in memory.
enum Loaded {
    Encoded(EncodedColumn),
    File(LwcFile),
}

impl Loaded {
    /// Encodes `column`; strings go through `lwc-file` on the current rayon pool (the Arrow array's buffers are
    /// shared, not copied).
    fn new(column: &Column) -> Loaded {
        match &column.data {
            Data::Int(v) | Data::Date(v) => Loaded::Encoded(encode(v)),
            Data::Decimal(v) => Loaded::Encoded(encode(v)),
            Data::Text(s) => Loaded::File(
                codecs::write_file(&codecs::one_column(column.name, Arc::new(s.clone())))
                    .expect("lwc-file writes any strings"),
            ),
        }
    }

    /// Encoded bytes: an integer column's whole encoding, a string column's segments (the file's header and
    /// footer left out, see [`Loaded::file_overhead`]).
    fn bytes(&self) -> usize {
        match self {
            Loaded::Encoded(e) => e.as_bytes().len(),
            Loaded::File(f) => f.columns()[0].encoded_bytes as usize,
        }
    }

    /// The bytes of a string column's file beyond its segments: header, footer and padding.
    fn file_overhead(&self) -> usize {
        match self {
            Loaded::Encoded(_) => 0,
            Loaded::File(f) => (f.file_bytes() - f.columns()[0].encoded_bytes) as usize,
        }
    }

    /// What the automatic choice picked, on how many segments.
    fn explain(&self, data: &Data) -> String {
        match (self, data) {
            (Loaded::File(f), _) => codecs::explain_file(&f.columns()[0]),
            (Loaded::Encoded(e), Data::Decimal(_)) => codecs::explain(&e.open::<i64>().expect("opens what it encoded")),
            (Loaded::Encoded(e), _) => codecs::explain(&e.open::<i32>().expect("opens what it encoded")),
        }
    }
}

/// A plain copy of a column's values into fresh memory (a string column's bytes and offsets).
fn copy(data: &Data) -> (Vec<u8>, Vec<i32>, Vec<i64>) {
    match data {
        Data::Int(v) | Data::Date(v) => (Vec::new(), v.to_vec(), Vec::new()),
        Data::Decimal(v) => (Vec::new(), Vec::new(), v.to_vec()),
        Data::Text(s) => (s.values().to_vec(), s.offsets().to_vec(), Vec::new()),
    }
}

/// Every column of `columns` loaded, strings encoded on `pool`.
fn load(columns: &[Column], pool: &rayon::ThreadPool) -> Vec<Loaded> {
    pool.install(|| columns.iter().map(Loaded::new).collect())
}

fn encode<T: LwcInt>(values: &[T]) -> EncodedColumn {
    EncodedColumn::encode(values, None, EncodeOptions::default()).expect("auto encodes anything")
}

/// Nanoseconds the selector spent choosing, and the whole encode took, for an integer-like column (the
/// medians of `rounds` encodes: one encode's choosing is a few hundred microseconds, and the host's
/// noise moved a single one's share by a fifth), and its bytes under the `size` objective (`None` for
/// strings).
fn selection(data: &Data, rounds: usize) -> Option<(u64, u64, usize)> {
    fn run<T: LwcInt>(values: &[T], rounds: usize) -> (u64, u64, usize) {
        let (mut choose, mut encode) = (Vec::new(), Vec::new());
        for _ in 0..rounds.max(1) {
            let encoded = EncodedColumn::encode(values, None, EncodeOptions::default().explained()).expect("encodes");
            let explains = encoded.explains();
            let sum = |f: fn(&SegmentExplain) -> u64| explains.iter().map(f).sum::<u64>() as f64;
            choose.push(sum(|e| e.choose_ns));
            encode.push(sum(|e| e.encode_ns));
        }
        let size =
            EncodedColumn::encode(values, None, EncodeOptions::with_objective(Objective::Size)).expect("encodes");
        (median(choose) as u64, median(encode) as u64, size.as_bytes().len())
    }
    match data {
        Data::Int(v) | Data::Date(v) => Some(run(v, rounds)),
        Data::Decimal(v) => Some(run(v, rounds)),
        Data::Text(_) => None,
    }
}

/// One table's (or the total's) figures.
#[derive(Default)]
struct Sizes {
    plain: usize,
    lwc: usize,
    /// The integer-like columns' share.
    int_plain: usize,
    int_lwc: usize,
    /// The string columns' share.
    text_plain: usize,
    text_lwc: usize,
    copy_ns: f64,
    load_ns: f64,
}

impl Sizes {
    fn add(&mut self, other: &Sizes) {
        self.plain += other.plain;
        self.lwc += other.lwc;
        self.int_plain += other.int_plain;
        self.int_lwc += other.int_lwc;
        self.text_plain += other.text_plain;
        self.text_lwc += other.text_lwc;
        self.copy_ns += other.copy_ns;
        self.load_ns += other.load_ns;
    }
}

pub fn run(cfg: &Config) -> Report {
    let progress = Progress::new("database");
    let sf = cfg.scale.unwrap_or(DEFAULT_SCALE);
    progress.say(format!("generating TPC-H at scale factor {sf}"));
    let tables = Tpch::new(sf).tables();
    let mut report = Report::default();
    let mut sizes = Table::new(
        format!(
            "database: TPC-H SF {sf}, sizes in KB (1,024 bytes) and load time as a ratio to a plain copy, same run"
        ),
        &[
            "table",
            "rows",
            "plain KB",
            "lwc KB",
            "lwc / plain",
            "integer-like columns: plain → lwc KB",
            "string columns: plain → lwc KB",
            "load / plain copy",
            "published (SF 1): plain → compressed KB",
        ],
    );
    let mut times = Table::new("database: median load times", &["table", "plain copy", "lwc load"]);
    let mut columns = Table::new(
        "database: lwc's automatic choice per column (explain)",
        &["column", "type", "plain KB", "lwc KB", "lwc / plain", "choose / encode ms", "chosen"],
    );
    let mut total = Sizes::default();
    let (mut choose_ns, mut encode_ns, mut size_objective_bytes, mut balanced_bytes) = (0u64, 0u64, 0usize, 0usize);
    let mut file_overhead = 0;
    // lwc-file encodes segments in parallel on rayon's pool; one thread, like the plain copy and the integers.
    let one_thread = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("thread pool");
    for (t, table) in tables.iter().enumerate() {
        progress.say(format!("{}: {} rows, loading ({}/{})", table.name, table.rows, t + 1, tables.len()));
        let loaded = load(&table.columns, &one_thread);
        let mut s = Sizes::default();
        for (column, l) in table.columns.iter().zip(&loaded) {
            let (plain, lwc) = (column.data.plain_bytes(), l.bytes());
            s.plain += plain;
            s.lwc += lwc;
            file_overhead += l.file_overhead();
            let selected = selection(&column.data, cfg.settings.rounds);
            if let Some((choose, encode, size_bytes)) = selected {
                (choose_ns, encode_ns) = (choose_ns + choose, encode_ns + encode);
                (size_objective_bytes, balanced_bytes) = (size_objective_bytes + size_bytes, balanced_bytes + lwc);
            }
            if let Data::Text(_) = column.data {
                s.text_plain += plain;
                s.text_lwc += lwc;
            } else {
                s.int_plain += plain;
                s.int_lwc += lwc;
            }
            columns.row(vec![
                format!("{}.{}", table.name, column.name),
                column.data.kind().into(),
                kib(plain),
                kib(lwc),
                format!("{:.2}", lwc as f64 / plain as f64),
                selected.map_or("-".into(), |(choose, encode, _)| {
                    format!("{:.2} / {:.2}", choose as f64 / 1e6, encode as f64 / 1e6)
                }),
                l.explain(&column.data),
            ]);
        }
        drop(loaded);
        let mut candidates = [
            Candidate::new(|| {
                black_box(black_box(&table.columns).iter().map(|c| copy(&c.data)).collect::<Vec<_>>());
            }),
            Candidate::new(|| {
                black_box(load(black_box(&table.columns), &one_thread));
            }),
        ];
        let t = race(cfg.settings, &mut candidates);
        (s.copy_ns, s.load_ns) = (t[0].median_ns, t[1].median_ns);
        sizes.row(size_row(table.name, table.rows, &s, ratio(t[1].ratio)));
        times.row(vec![table.name.into(), time(s.copy_ns), time(s.load_ns)]);
        let record = |measure: &str, value: f64, unit: &'static str, r: Option<f64>| Record {
            experiment: "database",
            data: format!("TPC-H SF {sf} {}", table.name),
            codec: "lwc auto".into(),
            measure: measure.into(),
            value,
            unit,
            ratio_to_plain: r,
        };
        report.records.push(record("plain size", s.plain as f64, "bytes", None));
        report.records.push(record("encoded size", s.lwc as f64, "bytes", None));
        report.records.push(record("load", s.load_ns, "ns", Some(t[1].ratio)));
        total.add(&s);
    }
    progress.done();
    let rows: usize = tables.iter().map(|t| t.rows).sum();
    // The total's load ratio is that of the summed medians.
    sizes.row(size_row("total", rows, &total, ratio(total.load_ns / total.copy_ns)));
    times.row(vec!["total".into(), time(total.copy_ns), time(total.load_ns)]);
    sizes.note(format!("Plain: the columns as fixed-width arrays (ints and dates 4 bytes, decimals 8 bytes in hundredths) and strings as their bytes + a 4-byte offset (Arrow's layout). lwc: integer-like columns (ints, dates, decimals) encoded with its automatic choice; each string column, an Arrow `StringArray`, written by `lwc_file::write_to_bytes` (default `WriteOptions`: `balanced`, {}-row segments, each a dictionary + codes or plain ends + bytes) and counted by its segments' bytes (`encoded_bytes`); the one-column files' headers and footers ({} KB over all string columns) are left out, as a file per table would share them. TPC-H has no floats.", EncodeOptions::default().segment_rows, kib(file_overhead)));
    sizes.note("Load: building every column from the generated arrays (lwc: encoding the integer-like ones and writing each string column to an in-memory file, opened with `LwcFile::from_bytes`, in a one-thread rayon pool) against copying every column's values (strings: bytes and offsets); both allocate their output.");
    sizes.note(format!("Published (seed 004, TPC-D SF 1, byte-aligned null suppression + dictionary for flags): bulk load 20-50 % slower. Ours is at SF {sf}: compare the ratios."));
    columns.note("choose / encode ms: integer-like columns, the medians of the rounds' encodes on one thread; the time the selector took choosing (sampling and estimating, segments that keep an earlier choice take none) and the whole encode's time, choosing included.");
    columns.note("chosen: each encoding lwc's automatic choice used, and on how many of the column's segments. String columns: `dict(codes: …)` is a segment of distinct strings and codes through the automatic choice, `plain(ends: …)` the bytes as they are and end offsets through it; lwc-file picks dictionary when at most half the rows are distinct or it estimates fewer bytes.");
    columns.note(format!(
        "Objectives: integer-like columns take {} KB with `balanced` (the default, above) and {} KB with `size`. Selection overhead: choosing took {:.1} % of the encode time (stats, sampling and estimates of every stream, child streams included; {:.0} ms of {:.0} ms).",
        balanced_bytes / 1024,
        size_objective_bytes / 1024,
        100.0 * choose_ns as f64 / encode_ns.max(1) as f64,
        choose_ns as f64 / 1e6,
        encode_ns as f64 / 1e6
    ));
    report.tables.extend([sizes, times, columns]);
    report
}

/// Bytes in KB of 1,024.
fn kib(bytes: usize) -> String {
    thousands((bytes as f64 / 1024.0).round() as u64)
}

/// `1234567` as `1,234,567`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut s = String::new();
    for (k, c) in digits.chars().enumerate() {
        if k > 0 && (digits.len() - k).is_multiple_of(3) {
            s.push(',');
        }
        s.push(c);
    }
    s
}

/// A row of the sizes table.
fn size_row(name: &str, rows: usize, s: &Sizes, load: String) -> Vec<String> {
    let published = PUBLISHED.iter().find(|(t, _, _)| *t == name).map_or("-".into(), |(_, plain, packed)| {
        format!("{} → {} ({:.2})", thousands(*plain as u64), thousands(*packed as u64), packed / plain)
    });
    vec![
        name.into(),
        thousands(rows as u64),
        kib(s.plain),
        kib(s.lwc),
        format!("{:.2}", s.lwc as f64 / s.plain as f64),
        format!("{} → {}", kib(s.int_plain), kib(s.int_lwc)),
        format!("{} → {}", kib(s.text_plain), kib(s.text_lwc)),
        load,
        published,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::StringArray;

    #[test]
    fn numbers_have_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_120_634), "1,120,634");
        assert_eq!(kib(2048), "2");
    }

    #[test]
    fn strings_and_integers_shrink() {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("pool");
        let flags = StringArray::from_iter_values((0..100_000).map(|k| ["A", "N", "R"][k % 3]));
        let comments = StringArray::from_iter_values((0..1000).map(|k| format!("comment {k:03}")));
        let columns = [
            Column { name: "l_returnflag", data: Data::Text(flags) },
            Column { name: "c_comment", data: Data::Text(comments) },
            Column { name: "o_orderdate", data: Data::Date((8035..8035 + 100_000).map(|d| d % 2557).collect()) },
        ];
        let loaded = load(&columns, &pool);
        let explain: Vec<String> = loaded.iter().zip(&columns).map(|(l, c)| l.explain(&c.data)).collect();
        // Flags: a dictionary of three and 2-bit codes, well under the plain 5 bytes a row.
        assert!(loaded[0].bytes() < columns[0].data.plain_bytes() / 4, "{}", loaded[0].bytes());
        assert!(explain[0].starts_with("dict(") && explain[0].ends_with("on 2 of 2 segments"), "{}", explain[0]);
        assert!(loaded[0].file_overhead() > 0);
        // Distinct comments sharing their words: FSST, under their 11 bytes each.
        assert!(explain[1].starts_with("fsst(") && explain[1].ends_with("of 1 segments"), "{}", explain[1]);
        assert!(loaded[1].bytes() < 11_000, "{}", loaded[1].bytes());
        assert!(loaded[2].bytes() < columns[2].data.plain_bytes() / 2);
        assert!(explain[2].ends_with("of 2 segments"), "{}", explain[2]);
        assert_eq!(loaded[2].file_overhead(), 0);
    }
}
