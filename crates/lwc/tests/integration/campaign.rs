//! A bounded corruption campaign, run by `cargo test` on stable Rust: real segments and columns of every
//! encoding (with and without nulls, several types) are damaged by `lwc_testdata::mutate` (flipped bits,
//! boundary bytes, overwritten and spliced ranges, tweaked length fields, truncation, ...), then opened,
//! and whatever opens answers every operation. The outcome must be a typed error or a view that answers
//! every operation: never a panic (a bounds check in safe code; the unsafe kernels are covered by the
//! cargo-fuzz targets under AddressSanitizer, see `fuzz/`).
//!
//! Segment bytes carry no checksum (the file layer's job), so a view over damaged bytes that pass
//! validation may hold other values than were written, and its answers may even disagree with each other:
//! `delta` and `varint` keep redundant data points for random access, and checking them against the deltas
//! would cost a full decode on every open. The campaign counts such views and prints the count.
//!
//! `LWC_CAMPAIGN_INPUTS` sets the mutated inputs per decoder (100,000 by default); the summary prints with
//! `--nocapture`.

use std::collections::BTreeMap;
use std::time::Instant;

use lwc::types::Word;
use lwc::{
    encode_segment, AlignedBytes, Bitmap, Cascade, Column, EncodeOptions, EncodedColumn, Encoding, LwcInt, Segment,
};
use lwc_testdata::exercise::{exercise_column, exercise_segment};
use lwc_testdata::mutate::Mutator;
use lwc_testdata::panics;

/// Opened views up to this many rows are exercised and cross-checked over every row.
const FULL_UP_TO: usize = 1_024;

fn inputs_per_decoder() -> usize {
    std::env::var("LWC_CAMPAIGN_INPUTS").ok().and_then(|v| v.parse().ok()).unwrap_or(100_000)
}

/// Values `cascade` applies to, `n` of them: shaped as its encoding needs (a constant, a line, runs,
/// multiples), otherwise a small range with an outlier, sorted half the time.
fn values<T: LwcInt>(cascade: &str, n: usize, seed: u64) -> Vec<T> {
    let word = |v: u64| T::from_bits(T::Unsigned::from_u64(v));
    let mut x = seed | 1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut v: Vec<T> = match cascade {
        "constant" => vec![word(seed % 100); n],
        "sequence" => (0..n as u64).map(|i| word(3 + 2 * i)).collect(),
        "rle(sequence, sequence)" => (0..n as u64).map(|i| word(1 + i / 4)).collect(),
        "rle(delta(dict), delta)" => (0..n as u64).map(|i| word(1 + (i / 3) * 32 + (i / 3) % 8)).collect(),
        // Prices as float latents (`f32` for 32-bit words), a few of them not decimals.
        c if c.starts_with("alp") => (0..n)
            .map(|i| {
                let x = if i % 17 == 5 { (next() % 1000) as f64 / 7.0 } else { (next() % 100_000) as f64 / 100.0 };
                match size_of::<T>() {
                    4 => word(lwc::Value::to_latent(x as f32) as u64),
                    _ => word(lwc::Value::to_latent(x)),
                }
            })
            .collect(),
        // Singles widened to doubles, a few of them not singles.
        "narrow" => (0..n)
            .map(|i| match i % 13 {
                4 => word(lwc::Value::to_latent(0.1f64)),
                _ => word(lwc::Value::to_latent((next() % 1_000_000) as f32 / 1024.0) as u64),
            })
            .collect(),
        c if c.starts_with("gcd") => (0..n).map(|_| word(6 * (next() % 40))).collect(),
        c if c.starts_with("rle") => (0..n as u64).map(|i| word((i / 7) % 9)).collect(),
        _ => (0..n).map(|i| if i == n / 3 { T::MAX } else { word(next() % 60) }).collect(),
    };
    if cascade.starts_with("delta") && seed.is_multiple_of(2) {
        v.sort_unstable();
    }
    v
}

fn validity(n: usize, seed: u64) -> Option<Bitmap> {
    let keep = |i: usize| !(i as u64 * 7 + seed).is_multiple_of(11);
    seed.is_multiple_of(3).then(|| Bitmap::from_bools(&(0..n).map(keep).collect::<Vec<_>>()))
}

/// The values a null-aware cascade may hold: a sequence is one no longer with a null in it.
fn nulls_allowed(cascade: &str) -> bool {
    !cascade.contains("sequence")
}

/// A stored type, so one campaign covers several.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Type {
    U8,
    I16,
    U32,
    I64,
    /// `f64` latents: what the float encodings store.
    U64,
}

const TYPES: [Type; 5] = [Type::U8, Type::I16, Type::U32, Type::I64, Type::U64];

macro_rules! with_type {
    ($t:expr, $T:ident => $body:expr) => {
        match $t {
            Type::U8 => {
                type $T = u8;
                $body
            }
            Type::I16 => {
                type $T = i16;
                $body
            }
            Type::U32 => {
                type $T = u32;
                $body
            }
            Type::I64 => {
                type $T = i64;
                $body
            }
            Type::U64 => {
                type $T = u64;
                $body
            }
        }
    };
}

/// Checks that a view's per-row answers agree: `decode`, `get`, `take` sorted and not, count and sum.
fn consistent_segment<T: LwcInt>(s: &Segment<'_, T>) -> Result<(), String> {
    let rows = s.rows();
    if rows > FULL_UP_TO {
        return Ok(());
    }
    let all = s.decode_all().to_options();
    for (i, want) in all.iter().enumerate() {
        let got = s.get(i).map_err(|e| format!("get({i}) failed after decode: {e}"))?;
        if got != *want {
            return Err(format!("get({i}) = {got:?}, decode says {want:?}"));
        }
    }
    let backwards: Vec<u32> = (0..rows as u32).rev().step_by(3).collect();
    let mut forwards = backwards.clone();
    forwards.reverse();
    for positions in [backwards, forwards] {
        let taken = s.take(&positions).map_err(|e| format!("take failed after decode: {e}"))?.to_options();
        if let Some(k) = (0..positions.len()).find(|&k| taken[k] != all[positions[k] as usize]) {
            return Err(format!(
                "take gave {:?} at row {}, decode {:?}",
                taken[k], positions[k], all[positions[k] as usize]
            ));
        }
    }
    let aggregate = s.aggregate(None).map_err(|e| format!("aggregate failed after decode: {e}"))?;
    let present: Vec<i128> = all.iter().flatten().map(|v| v.to_i128()).collect();
    if aggregate.count as usize != present.len() || aggregate.sum != present.iter().sum::<i128>() {
        return Err(format!(
            "aggregate count {} sum {}, decode gives {} and {}",
            aggregate.count,
            aggregate.sum,
            present.len(),
            present.iter().sum::<i128>()
        ));
    }
    Ok(())
}

/// What became of the mutated inputs.
#[derive(Default)]
struct Tally {
    inputs: usize,
    opened: usize,
    /// Views whose answers disagree with each other (damage that validation cannot see cheaply).
    inconsistent: BTreeMap<String, usize>,
    errors: BTreeMap<String, usize>,
    failures: Vec<String>,
}

impl Tally {
    fn error(&mut self, e: &lwc::Error) {
        let kind = format!("{e:?}").split(['(', ' ', '{']).next().unwrap_or("?").to_string();
        *self.errors.entry(kind).or_default() += 1;
    }

    fn report(&self, what: &str, seconds: f64) {
        println!(
            "{what}: {} mutated inputs in {seconds:.1} s; {} opened and answered every operation; rejected: {:?}; \
             views whose answers disagree: {:?}",
            self.inputs, self.opened, self.errors, self.inconsistent
        );
        assert!(
            self.failures.is_empty(),
            "{what}: {} failures, first: {:#?}",
            self.failures.len(),
            &self.failures[..self.failures.len().min(5)]
        );
    }
}

/// Runs `body` on one mutated input; a panic becomes a failure naming the input, disagreeing answers are
/// counted under `cascade`.
fn run_one(
    tally: &mut Tally,
    cascade: &str,
    what: impl Fn() -> String,
    body: impl FnOnce(&mut Tally) -> Result<(), String>,
) {
    tally.inputs += 1;
    match panics::catch(|| body(tally)) {
        Ok(Ok(())) => {}
        Ok(Err(_)) => *tally.inconsistent.entry(cascade.to_string()).or_default() += 1,
        Err(message) => tally.failures.push(format!("{}: panicked: {message}", what())),
    }
}

#[test]
fn mutated_segments_give_errors_or_answering_views() {
    let mut bases: Vec<(Type, String, Vec<u8>)> = Vec::new();
    for (k, cascade) in lwc_testdata::cascades().iter().enumerate() {
        for (j, &t) in TYPES.iter().enumerate() {
            let seed = (k * 7 + j) as u64;
            let n = [1, 37, 300, 700][(k + j) % 4];
            let parsed: Cascade = cascade.parse().unwrap();
            let bytes = with_type!(t, T => {
                let v = values::<T>(cascade, n, seed);
                let validity = validity(n, seed).filter(|_| nulls_allowed(cascade));
                encode_segment(&v, validity.as_ref(), parsed).map(|b| b.to_vec())
            });
            if let Ok(bytes) = bytes {
                bases.push((t, cascade.to_string(), bytes));
            }
        }
    }
    assert!(bases.len() > 90, "{} base segments", bases.len());
    let donors: Vec<Vec<u8>> = bases.iter().map(|(_, _, b)| b.clone()).collect();
    let mut mutator = Mutator::new(0x5e6);
    let mut tally = Tally::default();
    let start = Instant::now();
    for round in 0..inputs_per_decoder() {
        let (t, cascade, base) = &bases[mutator.below(bases.len())];
        let (bytes, how) = mutator.mutate(base, &donors);
        let aligned = AlignedBytes::copy_from(&bytes);
        run_one(
            &mut tally,
            cascade,
            || format!("round {round}: {t:?} {cascade} segment, {how}"),
            |tally| {
                with_type!(*t, T => match Segment::<T>::open(&aligned) {
                    Err(e) => {
                        tally.error(&e);
                        Ok(())
                    }
                    Ok(segment) => {
                        tally.opened += 1;
                        exercise_segment(&segment, FULL_UP_TO);
                        consistent_segment(&segment)
                    }
                })
            },
        );
    }
    tally.report("segments", start.elapsed().as_secs_f64());
}

#[test]
fn mutated_columns_give_errors_or_answering_views() {
    let mut bases: Vec<(Type, String, Vec<u8>)> = Vec::new();
    for (k, cascade) in
        ["auto", "for", "dict", "rle", "delta:16", "pfor", "varint", "rle(sequence, sequence)"].iter().enumerate()
    {
        for (j, &t) in TYPES.iter().enumerate() {
            let seed = (k * 5 + j) as u64;
            let n = [90, 400, 777][(k + j) % 3];
            let options = EncodeOptions {
                segment_rows: 128,
                ..EncodeOptions::with_encoding(cascade.parse::<Cascade>().unwrap())
            };
            let bytes = with_type!(t, T => {
                let v = values::<T>(cascade, n, seed);
                let validity = validity(n, seed).filter(|_| nulls_allowed(cascade));
                EncodedColumn::encode(&v, validity.as_ref(), options).map(|c| c.as_bytes().to_vec())
            });
            if let Ok(bytes) = bytes {
                bases.push((t, cascade.to_string(), bytes));
            }
        }
    }
    assert!(bases.len() > 25, "{} base columns", bases.len());
    let donors: Vec<Vec<u8>> = bases.iter().map(|(_, _, b)| b.clone()).collect();
    let mut mutator = Mutator::new(0xc01);
    let mut tally = Tally::default();
    let start = Instant::now();
    for round in 0..inputs_per_decoder() {
        let (t, cascade, base) = &bases[mutator.below(bases.len())];
        let (bytes, how) = mutator.mutate(base, &donors);
        let aligned = AlignedBytes::copy_from(&bytes);
        run_one(
            &mut tally,
            cascade,
            || format!("round {round}: {t:?} {cascade} column, {how}"),
            |tally| {
                with_type!(*t, T => match Column::<T>::open(&aligned) {
                    Err(e) => {
                        tally.error(&e);
                        Ok(())
                    }
                    Ok(column) => {
                        tally.opened += 1;
                        exercise_column(&column, FULL_UP_TO);
                        let mut first = 0u64;
                        for segment in column.segments() {
                            consistent_segment(segment)?;
                            let rows: Vec<u64> = (first..first + segment.rows() as u64).step_by(5).collect();
                            let via_column = column.take(&rows).map_err(|e| e.to_string())?.to_options();
                            let direct: Vec<Option<T>> = rows.iter().map(|&r| segment.get((r - first) as usize).unwrap()).collect();
                            if via_column != direct {
                                return Err("column take disagrees with its segment".into());
                            }
                            first += segment.rows() as u64;
                        }
                        Ok(())
                    }
                })
            },
        );
    }
    tally.report("columns", start.elapsed().as_secs_f64());
}

/// Byte-string segments (every byte-string encoding, their integer child streams chosen or forced) damaged the same way: opened, then every operation.
#[test]
fn mutated_byte_string_segments_give_errors_or_answering_views() {
    use lwc::strings::{encode_bytes_segment, BytesPredicate, BytesSegment, BytesType};
    use lwc::Predicate;
    let shapes: [fn(usize) -> Vec<u8>; 4] = [
        |i| ["MAIL", "SHIP", "AIR", "TRUCK"][i % 4].as_bytes().to_vec(),
        |i| format!("Customer#{:09}", i * 7).into_bytes(),
        |i| if i % 5 == 0 { Vec::new() } else { "x".repeat(i % 90).into_bytes() },
        |i| (0..(i % 13) as u8).map(|b| b.wrapping_mul(37) ^ i as u8).collect(),
    ];
    let mut bases: Vec<(String, Vec<u8>)> = Vec::new();
    let cascades: Vec<Cascade> = vec![
        Encoding::Auto.into(),
        Encoding::BytesDict.into(),
        Encoding::BytesPlain.into(),
        Cascade::with_children(Encoding::BytesDict, [Encoding::DELTA, Encoding::Bitpack]).unwrap(),
        Cascade::with_children(Encoding::BytesDict, [Encoding::Plain, Encoding::Rle]).unwrap(),
        Cascade::with_children(Encoding::BytesPlain, [Encoding::For]).unwrap(),
        Encoding::BytesFsst.into(),
        Cascade::with_children(Encoding::BytesFsst, [Encoding::Varint]).unwrap(),
        Encoding::BytesZstd.into(),
        Encoding::BytesDictFsst.into(),
        Cascade::with_children(Encoding::BytesLz4, [Encoding::DELTA]).unwrap(),
    ];
    for (k, cascade) in cascades.iter().enumerate() {
        for (j, shape) in shapes.iter().enumerate() {
            let n = [1, 40, 300, 900][(k + j) % 4];
            let rows: Vec<Vec<u8>> = (0..n).map(shape).collect();
            let refs: Vec<&[u8]> = rows.iter().map(Vec::as_slice).collect();
            let validity = validity(n, (k * 4 + j) as u64);
            let kind = if j == 3 { BytesType::Binary } else { BytesType::Utf8 };
            let options = EncodeOptions::with_encoding(cascade.clone());
            if let Ok(encoded) = encode_bytes_segment(&refs, validity.as_ref(), kind, options) {
                bases.push((cascade.to_string(), encoded.to_vec()));
            }
        }
    }
    assert!(bases.len() >= 20, "{} base segments", bases.len());
    let donors: Vec<Vec<u8>> = bases.iter().map(|(_, b)| b.clone()).collect();
    let predicates: Vec<BytesPredicate> = vec![
        Predicate::Eq(b"SHIP".to_vec()).into(),
        Predicate::Lt(b"M".to_vec()).into(),
        Predicate::Between(b"A".to_vec(), b"T".to_vec()).into(),
        Predicate::In(vec![b"AIR".to_vec(), Vec::new()]).into(),
        Predicate::IsNull.into(),
        BytesPredicate::StartsWith(b"Cus".to_vec()),
    ];
    let mut mutator = Mutator::new(0xb17e5);
    let mut tally = Tally::default();
    let start = Instant::now();
    for round in 0..inputs_per_decoder() {
        let (cascade, base) = &bases[mutator.below(bases.len())];
        let (bytes, how) = mutator.mutate(base, &donors);
        let aligned = AlignedBytes::copy_from(&bytes);
        run_one(
            &mut tally,
            cascade,
            || format!("round {round}: {cascade} byte-string segment, {how}"),
            |tally| match BytesSegment::open(&aligned) {
                Err(e) => {
                    tally.error(&e);
                    Ok(())
                }
                Ok(segment) => {
                    tally.opened += 1;
                    let rows = segment.rows();
                    let shown = rows.min(FULL_UP_TO);
                    let got: Vec<_> = (0..shown).map(|i| segment.get(i).ok().flatten()).collect();
                    let _ = segment.get(rows);
                    let _ = segment.decode(0..shown);
                    let _ = segment.decode(rows..rows + 1);
                    let positions: Vec<u32> = (0..shown as u32).rev().step_by(3).chain([rows as u32]).collect();
                    let _ = segment.take(&positions);
                    // A header may claim 2^32 - 1 rows that a constant child holds in a few bytes: valid
                    // data, so operations linear in the rows run on views of up to 65,536 rows only.
                    if rows <= 1 << 16 {
                        for p in &predicates {
                            let selection = segment.filter(p);
                            let _ = segment.aggregate(Some(&selection));
                        }
                        let _ = segment.aggregate(None);
                    }
                    let decoded = segment.decode(0..shown).map_err(|e| e.to_string())?;
                    match (0..shown).all(|i| decoded.get(i) == got[i].as_deref()) {
                        true => Ok(()),
                        false => Err("get and decode disagree".into()),
                    }
                }
            },
        );
    }
    tally.report("byte-string segments", start.elapsed().as_secs_f64());
}
