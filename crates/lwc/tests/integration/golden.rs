//! Golden files: segments and columns written by earlier versions of lwc, with their expected contents,
//! read back by this one. A change that breaks one of them breaks every stored file of that version: it
//! must bump the format and keep reading the old bytes instead.
//!
//! `tests/golden/v1/` holds one `.bin` (the bytes) and one `.txt` (the type, the cascade the bytes say, then
//! one value or `null` per row) per case. They were written once by `LWC_WRITE_GOLDEN=1 cargo test -p lwc
//! --test integration -- golden::`, which only ever adds the files of cases that have none (into the folder of the format
//! this build writes, [`CURRENT`]), and are never rewritten.

use std::path::{Path, PathBuf};

use lwc::{
    encode_segment, Bitmap, Cascade, Column, EncodeOptions, EncodedColumn, LwcInt, Predicate, Segment, ValueType,
};

const ROWS: usize = 200;

fn dir(version: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden").join(version)
}

/// A small deterministic generator, so the written files never depend on a crate's version.
struct Mix(u64);

impl Mix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// Values shaped for `shape`, as `i128` (converted to the case's type by wrapping).
fn shaped(shape: &str, rows: usize, seed: u64) -> Vec<i128> {
    let mut rng = Mix(seed);
    (0..rows as i128)
        .map(|i| match shape {
            "constant" => 42,
            "sequence" => 1_000 + 7 * i,
            "small" => (rng.next() % 100) as i128,
            "wide" => rng.next() as i128,
            "signed" => (rng.next() % 2_000) as i128 - 1_000,
            "sorted" => 10 * i + (rng.next() % 10) as i128,
            "runs" => ((i / 9) * 31) % 500,
            "few" => [3, 1_000, 77, 512][(rng.next() % 4) as usize],
            "multiples" => 5_000 + 12 * (rng.next() % 300) as i128,
            "outliers" => match rng.next() % 16 {
                0 => 1 << 30,
                _ => (rng.next() % 50) as i128,
            },
            "orderkey" => (i / 3) * 32 + (i / 3) % 8 + 1,
            "partkey" => i / 4 + 1,
            _ => panic!("unknown shape {shape}"),
        })
        .collect()
}

/// One golden case: a name, a type, a cascade, a data shape, and whether every seventh row is null.
struct Case {
    name: &'static str,
    int_type: ValueType,
    cascade: &'static str,
    shape: &'static str,
    nulls: bool,
}

const fn case(
    name: &'static str,
    int_type: ValueType,
    cascade: &'static str,
    shape: &'static str,
    nulls: bool,
) -> Case {
    Case { name, int_type, cascade, shape, nulls }
}

/// Every encoding at least once (most with nulls), several integer types, and the cascades the selector
/// writes on TPC-H; `auto` cases pin whatever the selector chose when the file was written.
const CASES: &[Case] = &[
    case("plain_u32", ValueType::U32, "plain", "wide", true),
    case("plain_i8", ValueType::I8, "plain", "signed", false),
    case("constant_i64", ValueType::I64, "constant", "constant", true),
    case("sequence_u64", ValueType::U64, "sequence", "sequence", false),
    case("bitpack_u16", ValueType::U16, "bitpack", "small", true),
    case("bytepack_i32", ValueType::I32, "bytepack", "signed", true),
    case("for_i16", ValueType::I16, "for", "signed", true),
    case("for_n_u32", ValueType::U32, "for_n", "sorted", false),
    case("for_n16_i64", ValueType::I64, "for_n:16", "signed", true),
    case("dict_u32", ValueType::U32, "dict", "few", true),
    case("dict_for_u8", ValueType::U8, "dict(for)", "few", false),
    case("pfor_u32", ValueType::U32, "pfor", "outliers", true),
    case("pfor_for_bitpack_u64", ValueType::U64, "pfor(for, bitpack)", "outliers", false),
    case("delta_u32", ValueType::U32, "delta", "sorted", true),
    case("delta16_i32", ValueType::I32, "delta:16(bitpack, plain)", "signed", false),
    case("delta2_u64", ValueType::U64, "delta2", "sorted", false),
    case("delta2_8_i64", ValueType::I64, "delta2:8", "sorted", true),
    case("rle_u16", ValueType::U16, "rle", "runs", true),
    case("rle_seq_u32", ValueType::U32, "rle(sequence, sequence)", "partkey", false),
    case("rle_delta_dict_u32", ValueType::U32, "rle(delta(dict), delta)", "orderkey", false),
    case("varint_i64", ValueType::I64, "varint", "wide", true),
    case("gcd_u32", ValueType::U32, "gcd", "multiples", true),
    case("gcd_pfor_i32", ValueType::I32, "gcd(pfor)", "multiples", false),
    case("lz4_u32", ValueType::U32, "lz4", "small", true),
    case("zstd_i16", ValueType::I16, "zstd", "signed", true),
    case("auto_sorted_u32", ValueType::U32, "auto", "sorted", true),
    case("auto_runs_i64", ValueType::I64, "auto", "runs", false),
    case("auto_orderkey_u64", ValueType::U64, "auto", "orderkey", false),
];

/// The column cases: several segments of one type (the last shorter), auto-chosen per segment.
const COLUMN_CASES: &[Case] = &[
    case("column_sorted_u32", ValueType::U32, "auto", "sorted", true),
    case("column_signed_i16", ValueType::I16, "auto", "signed", false),
];

fn validity(case: &Case, rows: usize) -> Option<Bitmap> {
    case.nulls.then(|| Bitmap::from_bools(&(0..rows).map(|i| i % 7 != 3).collect::<Vec<_>>()))
}

fn seed(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3))
}

/// Runs `$body` with `$T` bound to the Rust type of an [`ValueType`].
macro_rules! with_type {
    ($t:expr, $T:ident => $body:expr) => {
        match $t {
            ValueType::U8 => {
                type $T = u8;
                $body
            }
            ValueType::U16 => {
                type $T = u16;
                $body
            }
            ValueType::U32 => {
                type $T = u32;
                $body
            }
            ValueType::U64 => {
                type $T = u64;
                $body
            }
            ValueType::I8 => {
                type $T = i8;
                $body
            }
            ValueType::I16 => {
                type $T = i16;
                $body
            }
            ValueType::I32 => {
                type $T = i32;
                $body
            }
            ValueType::I64 => {
                type $T = i64;
                $body
            }
            ValueType::F32 | ValueType::F64 => unreachable!("no float cases among these golden files"),
        }
    };
}

/// Narrows by wrapping, as `as` does.
fn narrow<T: LwcInt>(v: i128) -> T {
    let bits = v as u128 as u64;
    T::from_bits(<T::Unsigned as lwc::types::Word>::from_u64(bits))
}

/// The expected-contents text: type, cascade, then one value (or `null`) per row.
fn expected_text<T: LwcInt>(int_type: ValueType, cascade: &Cascade, rows: &[Option<T>]) -> String {
    let mut text = format!("type {int_type}\ncascade {cascade}\nrows {}\n", rows.len());
    for row in rows {
        match row {
            Some(v) => text += &format!("{}\n", v.to_i128()),
            None => text += "null\n",
        }
    }
    text
}

/// Parses [`expected_text`]: the type, the cascade text, and the rows.
fn parse_expected(text: &str) -> (String, String, Vec<Option<i128>>) {
    let mut lines = text.lines();
    let mut field = |key: &str| {
        let line = lines.next().unwrap_or_else(|| panic!("missing {key}"));
        line.strip_prefix(key)
            .and_then(|l| l.strip_prefix(' '))
            .unwrap_or_else(|| panic!("bad {key}: {line}"))
            .to_string()
    };
    let (int_type, cascade, rows) = (field("type"), field("cascade"), field("rows"));
    let values: Vec<Option<i128>> =
        lines.map(|l| if l == "null" { None } else { Some(l.parse().expect("a value")) }).collect();
    assert_eq!(values.len(), rows.parse::<usize>().unwrap());
    (int_type, cascade, values)
}

fn write_if_absent(path: &Path, bytes: &[u8]) {
    if !path.exists() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
}

/// Writes the files of cases that have none (only with `LWC_WRITE_GOLDEN=1`).
fn write_missing(version: &str) {
    if std::env::var_os("LWC_WRITE_GOLDEN").is_none() {
        return;
    }
    let dir = dir(version);
    for case in CASES {
        with_type!(case.int_type, T => {
            let values: Vec<T> = shaped(case.shape, ROWS, seed(case.name)).into_iter().map(narrow).collect();
            let validity = validity(case, ROWS);
            let cascade: Cascade = case.cascade.parse().unwrap();
            let bytes = encode_segment(&values, validity.as_ref(), cascade).unwrap();
            let segment = Segment::<T>::open(&bytes).unwrap();
            let rows = segment.decode_all().to_options();
            write_if_absent(&dir.join(format!("{}.bin", case.name)), &bytes);
            write_if_absent(&dir.join(format!("{}.txt", case.name)), expected_text(case.int_type, &segment.cascade(), &rows).as_bytes());
        });
    }
    for case in COLUMN_CASES {
        with_type!(case.int_type, T => {
            let rows = 2 * ROWS + 37;
            let values: Vec<T> = shaped(case.shape, rows, seed(case.name)).into_iter().map(narrow).collect();
            let options = EncodeOptions { segment_rows: ROWS, ..EncodeOptions::with_encoding(case.cascade.parse::<Cascade>().unwrap()) };
            let encoded = EncodedColumn::encode(&values, validity(case, rows).as_ref(), options).unwrap();
            let column = encoded.open::<T>().unwrap();
            let decoded = column.decode(0..column.rows()).unwrap().to_options();
            let cascades: Vec<String> = column.segments().iter().map(|s| s.cascade().to_string()).collect();
            let cascade = Cascade::from(lwc::Encoding::Auto);
            let text = expected_text(case.int_type, &cascade, &decoded).replacen("cascade auto", &format!("cascade {}", cascades.join(" | ")), 1);
            write_if_absent(&dir.join(format!("{}.bin", case.name)), encoded.as_bytes());
            write_if_absent(&dir.join(format!("{}.txt", case.name)), text.as_bytes());
        });
    }
}

/// Every answer a view gives agrees with the expected rows.
fn check_segment<T: LwcInt>(name: &str, segment: &Segment<'_, T>, expected: &[Option<i128>]) {
    let decoded: Vec<Option<i128>> = segment.decode_all().to_options().iter().map(|v| v.map(LwcInt::to_i128)).collect();
    assert_eq!(decoded, expected, "{name}: decode");
    for (i, want) in expected.iter().enumerate() {
        assert_eq!(segment.get(i).unwrap().map(LwcInt::to_i128), *want, "{name}: get({i})");
    }
    let positions: Vec<u32> = (0..expected.len() as u32).rev().step_by(3).collect();
    let taken = segment.take(&positions).unwrap().to_options();
    for (p, v) in positions.iter().zip(taken) {
        assert_eq!(v.map(LwcInt::to_i128), expected[*p as usize], "{name}: take({p})");
    }
    let present: Vec<i128> = expected.iter().flatten().copied().collect();
    let all = segment.aggregate(None).unwrap();
    assert_eq!(all.count as usize, present.len(), "{name}: count");
    assert_eq!(all.sum, present.iter().sum::<i128>(), "{name}: sum");
    assert_eq!(all.min.map(LwcInt::to_i128), present.iter().min().copied(), "{name}: min");
    assert_eq!(all.max.map(LwcInt::to_i128), present.iter().max().copied(), "{name}: max");
    if let Some(&pivot) = present.get(present.len() / 2) {
        let pivot_t: T = narrow(pivot);
        let matched = segment.filter(&Predicate::LtEq(pivot_t)).to_positions();
        let want: Vec<u32> =
            (0..expected.len() as u32).filter(|&i| expected[i as usize].is_some_and(|v| v <= pivot)).collect();
        assert_eq!(matched, want, "{name}: filter <= {pivot}");
    }
}

fn check_version(version: &str) -> usize {
    let dir = dir(version);
    let mut checked = 0;
    let mut names: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "bin"))
        .collect();
    names.sort();
    for bin in names {
        let name = bin.file_stem().unwrap().to_string_lossy().into_owned();
        let bytes = lwc::AlignedBytes::copy_from(&std::fs::read(&bin).unwrap());
        let (int_type, cascade, expected) =
            parse_expected(&std::fs::read_to_string(bin.with_extension("txt")).unwrap());
        let int_type = (0..8).filter_map(ValueType::from_id).find(|t| t.name() == int_type).expect("a type");
        with_type!(int_type, T => {
            if name.starts_with("column_") {
                let column = Column::<T>::open(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
                let cascades: Vec<String> = column.segments().iter().map(|s| s.cascade().to_string()).collect();
                assert_eq!(cascades.join(" | "), cascade, "{name}: cascades");
                let mut first = 0;
                for segment in column.segments() {
                    check_segment(&name, segment, &expected[first..first + segment.rows()]);
                    first += segment.rows();
                }
                assert_eq!(first, expected.len());
                let rows: Vec<u64> = (0..expected.len() as u64).step_by(5).collect();
                let taken = column.take(&rows).unwrap().to_options();
                for (r, v) in rows.iter().zip(taken) {
                    assert_eq!(v.map(LwcInt::to_i128), expected[*r as usize], "{name}: column take({r})");
                }
            } else {
                let segment = Segment::<T>::open(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
                assert_eq!(segment.cascade().to_string(), cascade, "{name}: cascade");
                check_segment(&name, &segment, &expected);
            }
        });
        checked += 1;
    }
    checked
}

/// The version new golden files are written as: the format this build writes.
const CURRENT: &str = "v1";

/// Every version with golden files, and its number of cases when it was frozen.
const VERSIONS: &[(&str, usize)] = &[("v1", 30)];

#[test]
fn golden_files_of_every_version_read_back_exactly() {
    write_missing(CURRENT);
    for &(version, cases) in VERSIONS {
        assert_eq!(check_version(version), cases, "{version}: every case has its golden files");
    }
}
