//! Corrupt input never panics. Real segment and column bytes of every encoding are truncated at every
//! length, have bits flipped and bytes set to 0x00 / 0xFF (every bit and byte of the headers, a sample of
//! the body), are opened misaligned, and are replaced by random bytes behind a valid header. Opening must
//! either fail or give a view on which every operation completes without panicking; answers may be wrong,
//! since checksums belong to the file layer. Each mutation runs under `panics::catch`, and the test names
//! every one that panicked.

use std::ops::Range;

use lwc::types::Word;
use lwc::{
    encode_segment, AlignedBytes, Bitmap, Cascade, Column, EncodeOptions, EncodedColumn, Encoding, EncodingId, Error,
    LwcInt, Segment, ValueType,
};
use lwc_testdata::exercise::{exercise_column, exercise_segment};
use lwc_testdata::panics;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Every registered encoding (from the registry, so a new one is covered without being named here), small
/// parameters, `auto`, and cascades that put encodings under the ones with child streams.
fn encodings() -> Vec<Cascade> {
    let leaves = EncodingId::ALL.into_iter().map(Cascade::from);
    let named = ["for_n:16", "delta2:4", "delta:16", "auto"].into_iter().chain([
        "dict(for_n:16)",
        "dict(lz4)",
        "gcd(pfor(plain, varint))",
        "delta:16(dict, delta:16)",
        "rle(sequence, sequence)",
        "rle(for_n:16, delta2:4)",
    ]);
    leaves.chain(named.map(|c| c.parse().unwrap())).collect()
}

/// Whether `cascade` stores `T`: the float encodings take float latents (`u32`, `u64`) only.
fn stores<T: LwcInt>(cascade: &Cascade) -> bool {
    match cascade.encoding() {
        Encoding::Alp | Encoding::AlpRd => matches!(T::TYPE, ValueType::U32 | ValueType::U64),
        Encoding::Narrow => T::TYPE == ValueType::U64,
        _ => true,
    }
}

/// Segment header bytes before the validity bitmap.
const SEGMENT_HEADER: usize = 40;

/// Opened views with at most this many rows are exercised over every row (a corrupt row count of a
/// constant stream can claim up to 2^32 - 1).
const FULL_UP_TO: usize = 4096;

fn offset<T: LwcInt>(base: T, by: u64) -> T {
    T::add_offset(base, T::Unsigned::from_u64(by))
}

/// `n` values the encoding applies to: constant for `constant`, a sequence for `sequence`, keys repeated
/// five times for `rle(sequence, sequence)` (5 divides every length and segment size used here),
/// multiples of 6 for `gcd`, otherwise a small range with an outlier, so bit widths and dictionaries are
/// neither trivial nor full (and `pfor` has an exception); half of the delta streams sorted, so their
/// monotone paths get corrupted too.
fn values<T: LwcInt>(cascade: &Cascade, n: usize, rng: &mut StdRng) -> Vec<T> {
    let base = offset(T::MIN, rng.gen_range(0..1 << 20));
    // Steps that stay inside the type from its minimum.
    let step = (T::MAX.offset_from(T::MIN).to_u64() / n as u64).min(3);
    match cascade.to_string().as_str() {
        "constant" => return vec![base; n],
        "sequence" => return (0..n as u64).map(|i| offset(T::MIN, i * step)).collect(),
        "rle(sequence, sequence)" => return (0..n as u64).map(|i| offset(T::MIN, i / 5 * step)).collect(),
        "gcd" | "gcd(pfor(plain, varint))" => {
            let top = T::MAX.offset_from(T::MIN).to_u64() / 6 * 6;
            return (0..n).map(|i| offset(T::MIN, if i == n / 3 { top } else { 6 * rng.gen_range(0..40) })).collect();
        }
        _ => {}
    }
    let mut values: Vec<T> =
        (0..n).map(|i| if i == n / 3 { T::MAX } else { offset(base, rng.gen_range(0..40)) }).collect();
    if cascade.encoding().id() == Some(EncodingId::Delta) && rng.gen_bool(0.5) {
        values.sort_unstable();
    }
    values
}

/// Whether the data of [`values`] stays encodable with nulls (a sequence with a null is one no longer when
/// the null breaks the line the segment fills it with).
fn takes_nulls(cascade: &Cascade) -> bool {
    !cascade.to_string().contains("sequence")
}

fn validity(n: usize, with_nulls: bool, rng: &mut StdRng) -> Option<Bitmap> {
    with_nulls.then(|| Bitmap::from_bools(&(0..n).map(|i| i == 0 || rng.gen_bool(0.85)).collect::<Vec<_>>()))
}

// ---------------------------------------------------------------------------------------------------------
// Mutations.

/// Calls `f(description, mutated bytes)` for every truncation, for every bit flip and 0x00 / 0xFF byte in
/// the `dense` ranges, for one bit flip and 0x00 / 0xFF on every `stride`-th byte elsewhere, and for
/// trailing garbage.
fn mutate(bytes: &[u8], dense: &[Range<usize>], stride: usize, mut f: impl FnMut(&str, &[u8])) {
    let mut m = bytes.to_vec();
    for len in 0..bytes.len() {
        f(&format!("truncated to {len} bytes"), &bytes[..len]);
    }
    let is_dense = |i: usize| dense.iter().any(|r| r.contains(&i));
    for i in (0..bytes.len()).filter(|&i| is_dense(i) || i % stride == 0) {
        let bits: Vec<u32> = if is_dense(i) { (0..8).collect() } else { vec![(i / stride % 8) as u32] };
        for bit in bits {
            m[i] ^= 1 << bit;
            f(&format!("bit {bit} of byte {i} flipped"), &m);
            m[i] = bytes[i];
        }
        for v in [0x00, 0xFF] {
            if bytes[i] != v {
                m[i] = v;
                f(&format!("byte {i} set to {v:#04x}"), &m);
                m[i] = bytes[i];
            }
        }
    }
    for extra in [1, 7, 8, 64] {
        m.resize(bytes.len() + extra, 0xA5);
        f(&format!("{extra} trailing bytes"), &m);
    }
}

/// Tallies what mutated inputs did, and which panicked.
#[derive(Default)]
struct Outcome {
    opened: usize,
    rejected: usize,
    panics: Vec<String>,
}

impl Outcome {
    /// Copies `bytes` into aligned storage, opens and exercises them under `panics::catch`.
    fn run(&mut self, what: &str, bytes: &[u8], open_and_exercise: impl Fn(&[u8]) -> bool) {
        let aligned = AlignedBytes::copy_from(bytes);
        match panics::catch(|| open_and_exercise(&aligned)) {
            Ok(true) => self.opened += 1,
            Ok(false) => self.rejected += 1,
            Err(message) => self.panics.push(format!("{what}: panicked: {message}")),
        }
    }

    fn assert_no_panics(&self, what: &str) {
        assert!(
            self.panics.is_empty(),
            "{what}: {} of {} mutations panicked (first 20):\n{}",
            self.panics.len(),
            self.opened + self.rejected + self.panics.len(),
            self.panics.iter().take(20).cloned().collect::<Vec<_>>().join("\n")
        );
    }
}

fn open_segment<T: LwcInt>(bytes: &[u8]) -> bool {
    match Segment::<T>::open(bytes) {
        Ok(s) => {
            exercise_segment(&s, FULL_UP_TO);
            true
        }
        Err(_) => false,
    }
}

fn open_column<T: LwcInt>(bytes: &[u8]) -> bool {
    // Reading the type of unknown bytes never panics either.
    let _ = lwc::EncodedColumn::from_bytes(bytes).value_type();
    match Column::<T>::open(bytes) {
        Ok(c) => {
            exercise_column(&c, FULL_UP_TO);
            true
        }
        Err(_) => false,
    }
}

/// Where a segment's stream starts (after the header and the validity bitmap).
fn stream_start(segment: &[u8]) -> usize {
    let rows = u32::from_le_bytes(segment[8..12].try_into().unwrap()) as usize;
    SEGMENT_HEADER + if segment[5] & 1 == 1 { 8 * rows.div_ceil(64) } else { 0 }
}

// ---------------------------------------------------------------------------------------------------------
// Segments.

fn corrupt_segments<T: LwcInt>() {
    let mut rng = StdRng::seed_from_u64(T::TYPE as u64);
    let mut outcome = Outcome::default();
    for (e, cascade) in encodings().into_iter().filter(stores::<T>).enumerate() {
        // 100 rows: two validity words, several for_n blocks and bit-packing groups; headers dense, body
        // every third byte. For a third of the encodings also 1,030 rows (past a 1,024-value scan block),
        // sparsely. Nulls every other time.
        let turn = e + T::TYPE as usize;
        let sizes: &[(usize, usize)] = if turn.is_multiple_of(3) { &[(100, 3), (1030, 61)] } else { &[(100, 3)] };
        let before = outcome.opened;
        for &(n, stride) in sizes {
            let with_nulls = (turn + n).is_multiple_of(2) && takes_nulls(&cascade);
            let values = values::<T>(&cascade, n, &mut rng);
            let validity = validity(n, with_nulls, &mut rng);
            let bytes = encode_segment(&values, validity.as_ref(), cascade.clone()).unwrap();
            assert!(open_segment::<T>(&bytes), "the original opens");
            let stream = stream_start(&bytes);
            let dense: Vec<Range<usize>> = if n <= 100 {
                vec![0..SEGMENT_HEADER, stream..stream + 24]
            } else {
                std::iter::once(stream..stream + 8).collect()
            };
            mutate(&bytes, &dense, stride, |m, b| {
                let what = format!("{} {cascade} segment of {n} rows (nulls: {with_nulls}), {m}", T::TYPE);
                outcome.run(&what, b, open_segment::<T>);
            });
            // Misaligned views of the same bytes.
            let mut shifted = vec![0u8; 8];
            shifted.extend_from_slice(&bytes);
            let aligned = AlignedBytes::copy_from(&shifted);
            for at in 1..8 {
                let what = format!("{} {cascade} segment of {n} rows at offset {at}", T::TYPE);
                if let Err(message) = panics::catch(|| open_segment::<T>(&aligned[at..at + bytes.len()])) {
                    outcome.panics.push(format!("{what}: panicked: {message}"));
                }
            }
        }
        assert!(outcome.opened > before, "{} {cascade}: no mutation opened, nothing exercised", T::TYPE);
    }
    outcome.assert_no_panics(&format!("{} segments", T::TYPE));
}

#[test]
fn corrupt_u8_segments_never_panic() {
    corrupt_segments::<u8>();
}

#[test]
fn corrupt_i16_segments_never_panic() {
    corrupt_segments::<i16>();
}

#[test]
fn corrupt_u32_segments_never_panic() {
    corrupt_segments::<u32>();
}

#[test]
fn corrupt_i64_segments_never_panic() {
    corrupt_segments::<i64>();
}

// ---------------------------------------------------------------------------------------------------------
// Columns.

fn corrupt_columns<T: LwcInt>() {
    let mut rng = StdRng::seed_from_u64(100 + T::TYPE as u64);
    let mut outcome = Outcome::default();
    for (e, cascade) in encodings().into_iter().filter(stores::<T>).enumerate() {
        // Segments of 40, 40 and 20 rows; nulls in every other column.
        let n = 100;
        let values = values::<T>(&cascade, n, &mut rng);
        let validity = validity(n, e % 2 == 0 && takes_nulls(&cascade), &mut rng);
        let options = EncodeOptions { cascade: cascade.clone(), segment_rows: 40, ..Default::default() };
        let encoded = EncodedColumn::encode(&values, validity.as_ref(), options).unwrap();
        let bytes = encoded.as_bytes();
        assert!(open_column::<T>(bytes), "the original opens");
        // The column header and segment table, and the start of each segment.
        let segments = u32::from_le_bytes(bytes[16..20].try_into().unwrap()) as usize;
        let table_end = 24 + 16 * segments;
        let mut dense: Vec<Range<usize>> = std::iter::once(0..table_end).collect();
        for entry in bytes[24..table_end].chunks(16) {
            let start = u64::from_le_bytes(entry[..8].try_into().unwrap()) as usize;
            dense.push(start..start + 16);
        }
        mutate(bytes, &dense, 7, |m, b| {
            let what = format!("{} {cascade} column, {m}", T::TYPE);
            outcome.run(&what, b, open_column::<T>);
        });
    }
    outcome.assert_no_panics(&format!("{} columns", T::TYPE));
}

#[test]
fn corrupt_u16_columns_never_panic() {
    corrupt_columns::<u16>();
}

#[test]
fn corrupt_i64_columns_never_panic() {
    corrupt_columns::<i64>();
}

// ---------------------------------------------------------------------------------------------------------
// Random bytes and hand-made streams.

/// A segment header for `rows` non-null `u32` rows with min 0 and max `max`.
fn u32_header(rows: u32, max: u64) -> Vec<u8> {
    let mut b = b"LWS1".to_vec();
    b.extend_from_slice(&[lwc::ValueType::U32 as u8, 0, 0, 0]);
    b.extend_from_slice(&rows.to_le_bytes());
    b.extend_from_slice(&0u32.to_le_bytes());
    b.extend_from_slice(&0u64.to_le_bytes());
    b.extend_from_slice(&max.to_le_bytes());
    b
}

/// Random streams behind a valid header, for each encoding id: most are rejected, none may panic.
#[test]
fn random_streams_never_panic() {
    let mut rng = StdRng::seed_from_u64(7);
    let mut outcome = Outcome::default();
    for k in 0..3000 {
        let rows = [0, 1, 7, 64, 100, 1025][k % 6];
        let mut b = u32_header(rows, rng.gen_range(0..1 << 20));
        b.push(EncodingId::ALL[k / 6 % EncodingId::ALL.len()] as u8);
        let len = rng.gen_range(0..600);
        b.extend((0..len).map(|_| if rng.gen_bool(0.5) { 0 } else { rng.gen::<u8>() % 8 }));
        outcome.run(&format!("random stream {k}"), &b, open_segment::<u32>);
    }
    outcome.assert_no_panics("random streams");
}

/// Regression: dictionaries whose codes are dictionaries, nested deeper than any writer goes, are
/// rejected instead of recursing until the stack overflows (which `catch_unwind` cannot catch).
#[test]
fn deeply_nested_dictionaries_are_rejected() {
    // One row of value 0: `depth` dictionaries `[0]`, each coding the next, then a constant code 0.
    let nested = |depth: usize| {
        let mut b = u32_header(1, 0);
        for _ in 0..depth {
            b.push(lwc::EncodingId::Dict as u8);
            b.extend_from_slice(&1u32.to_le_bytes());
            b.resize(b.len().next_multiple_of(8), 0);
            b.extend_from_slice(&0u32.to_le_bytes());
        }
        b.push(lwc::EncodingId::Constant as u8);
        b.extend_from_slice(&0u64.to_le_bytes());
        AlignedBytes::copy_from(&b)
    };
    let two = nested(2);
    let segment = Segment::<u32>::open(&two).expect("a cascade of two dictionaries opens");
    assert_eq!(segment.get(0), Ok(Some(0)));
    exercise_segment(&segment, FULL_UP_TO);
    let deep = nested(100_000);
    assert!(matches!(Segment::<u32>::open(&deep), Err(Error::Corrupt(_))));
}
