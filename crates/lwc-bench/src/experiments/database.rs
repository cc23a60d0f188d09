//! database: whole-table sizes and load cost on TPC-H (seed 004, Westmann et al., §5).
//!
//! Every TPC-H table as columns: its plain bytes (fixed-width arrays, strings as bytes + offsets), its bytes with
//! lwc's automatic choice on every integer-like column (ints, dates, decimals), and the load (encode) time against a
//! plain copy of the same columns. Strings stay plain until lwc has string columns.

use std::hint::black_box;

use lwc::{EncodeOptions, EncodedColumn, LwcInt, Objective, SegmentExplain};

use super::Config;
use crate::codecs;
use crate::measure::{race, Candidate};
use crate::report::{ratio, time, Progress, Record, Report, Table};
use crate::tpch::{Data, Tpch};

/// The TPC-H scale factor by default: seed 004's, about a minute and a half on 2 cores.
const DEFAULT_SCALE: f64 = 1.0;

/// Seed 004's Table (TPC-D SF 1, KB): plain and compressed sizes of the tables it reports, and the total.
const PUBLISHED: [(&str, f64, f64); 4] = [
    ("lineitem", 758_540.0, 427_360.0),
    ("orders", 177_900.0, 132_164.0),
    ("partsupp", 124_600.0, 112_588.0),
    ("total", 1_120_634.0, 720_568.0),
];

/// A column as lwc holds it today: integer-like columns encoded by the automatic choice, strings as they are.
enum Loaded {
    Encoded(EncodedColumn),
    Plain(Data),
}

impl Loaded {
    fn new(data: &Data) -> Loaded {
        match data {
            Data::Int(v) | Data::Date(v) => Loaded::Encoded(encode(v)),
            Data::Decimal(v) => Loaded::Encoded(encode(v)),
            Data::Text(_) => Loaded::Plain(data.clone()),
        }
    }

    fn bytes(&self) -> usize {
        match self {
            Loaded::Encoded(e) => e.as_bytes().len(),
            Loaded::Plain(data) => data.plain_bytes(),
        }
    }
}

fn encode<T: LwcInt>(values: &[T]) -> EncodedColumn {
    EncodedColumn::encode(values, None, EncodeOptions::default()).expect("auto encodes anything")
}

/// Nanoseconds the selector spent choosing, and the whole encode took, for an integer-like column, and
/// its bytes under the `size` objective (`None` for strings).
fn selection(data: &Data) -> Option<(u64, u64, usize)> {
    fn run<T: LwcInt>(values: &[T]) -> (u64, u64, usize) {
        let (_, explains) = EncodedColumn::encode_explained(values, None, EncodeOptions::default()).expect("encodes");
        let size =
            EncodedColumn::encode(values, None, EncodeOptions::with_objective(Objective::Size)).expect("encodes");
        let sum = |f: fn(&SegmentExplain) -> u64| explains.iter().map(f).sum::<u64>();
        (sum(|e| e.choose_ns), sum(|e| e.encode_ns), size.as_bytes().len())
    }
    match data {
        Data::Int(v) | Data::Date(v) => Some(run(v)),
        Data::Decimal(v) => Some(run(v)),
        Data::Text(_) => None,
    }
}

/// What the automatic choice picked for `data` (loaded as `loaded`); `None` for strings.
fn explain(data: &Data, loaded: &Loaded) -> Option<String> {
    let Loaded::Encoded(e) = loaded else { return None };
    Some(match data {
        Data::Decimal(_) => codecs::explain(&e.open::<i64>().expect("opens what it encoded")),
        _ => codecs::explain(&e.open::<i32>().expect("opens what it encoded")),
    })
}

/// One table's (or the total's) figures.
#[derive(Default)]
struct Sizes {
    plain: usize,
    lwc: usize,
    /// The integer-like columns' share.
    int_plain: usize,
    int_lwc: usize,
    copy_ns: f64,
    load_ns: f64,
}

impl Sizes {
    fn add(&mut self, other: &Sizes) {
        self.plain += other.plain;
        self.lwc += other.lwc;
        self.int_plain += other.int_plain;
        self.int_lwc += other.int_lwc;
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
            "load / plain copy",
            "published (SF 1): plain → compressed KB",
        ],
    );
    let mut times = Table::new("database: median load times", &["table", "plain copy", "lwc load"]);
    let mut columns = Table::new(
        "database: lwc's automatic choice per integer-like column (explain)",
        &["column", "type", "plain KB", "lwc KB", "lwc / plain", "chosen"],
    );
    let mut total = Sizes::default();
    let (mut choose_ns, mut encode_ns, mut size_objective_bytes, mut balanced_bytes) = (0u64, 0u64, 0usize, 0usize);
    for (t, table) in tables.iter().enumerate() {
        progress.say(format!("{}: {} rows, loading ({}/{})", table.name, table.rows, t + 1, tables.len()));
        let loaded: Vec<Loaded> = table.columns.iter().map(|c| Loaded::new(&c.data)).collect();
        let mut s = Sizes::default();
        for (column, l) in table.columns.iter().zip(&loaded) {
            let (plain, lwc) = (column.data.plain_bytes(), l.bytes());
            s.plain += plain;
            s.lwc += lwc;
            if let Some((choose, encode, size_bytes)) = selection(&column.data) {
                (choose_ns, encode_ns) = (choose_ns + choose, encode_ns + encode);
                (size_objective_bytes, balanced_bytes) = (size_objective_bytes + size_bytes, balanced_bytes + lwc);
            }
            if let Some(chosen) = explain(&column.data, l) {
                s.int_plain += plain;
                s.int_lwc += lwc;
                columns.row(vec![
                    format!("{}.{}", table.name, column.name),
                    column.data.kind().into(),
                    kib(plain),
                    kib(lwc),
                    format!("{:.2}", lwc as f64 / plain as f64),
                    chosen,
                ]);
            }
        }
        let mut candidates = [
            Candidate::new(|| {
                black_box(black_box(&table.columns).iter().map(|c| c.data.clone()).collect::<Vec<_>>());
            }),
            Candidate::new(|| {
                black_box(black_box(&table.columns).iter().map(|c| Loaded::new(&c.data)).collect::<Vec<_>>());
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
    sizes.note("Plain: the columns as fixed-width arrays (ints and dates 4 bytes, decimals 8 bytes in hundredths) and strings as their bytes + a 4-byte offset. lwc: integer-like columns (ints, dates, decimals) encoded with its automatic choice; strings counted at plain size until lwc has string columns (the file-format issue); TPC-H has no floats.");
    sizes.note("Load: building every column from the generated arrays (lwc: encoding the integer-like ones, copying the strings) against copying every column; both allocate their output.");
    sizes.note(format!("Published (seed 004, TPC-D SF 1, byte-aligned null suppression + dictionary for flags): bulk load 20-50 % slower. Ours is at SF {sf}: compare the ratios."));
    columns.note("chosen: each encoding lwc's automatic choice used, and on how many of the column's segments.");
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
        load,
        published,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::Strings;

    #[test]
    fn numbers_have_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_120_634), "1,120,634");
        assert_eq!(kib(2048), "2");
    }

    #[test]
    fn strings_stay_plain_and_integers_shrink() {
        let mut names = Strings::default();
        names.bytes.push_str("Supplier#000000001");
        names.end_string();
        let strings = Data::Text(names);
        let loaded = Loaded::new(&strings);
        assert_eq!(loaded.bytes(), strings.plain_bytes());
        assert!(explain(&strings, &loaded).is_none());
        let days = Data::Date((8035..8035 + 100_000).map(|d| d % 2557).collect());
        let loaded = Loaded::new(&days);
        assert!(loaded.bytes() < days.plain_bytes() / 2);
        assert!(explain(&days, &loaded).expect("dates are encoded").ends_with("of 2 segments"));
    }
}
