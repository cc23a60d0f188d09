//! Measuring the cost model on this machine: every registered encoding at every width of the model's
//! table, on data shaped for it (each encoding's file says what), timing a full decode and random `get`s
//! in cache; a sequential read from memory for the bandwidth a scan pays per byte; and random reads at
//! growing working sets for what a lookup pays per cache line out of cache.
//!
//! This sits above segments (it encodes and reads them), so the model itself stays plain data that the
//! selector only reads. Front ends keep the result where they like (`lwc calibrate`) and pass it in
//! [`crate::EncodeOptions`]; the core does no I/O.
//!
//! ```
//! let model = lwc::calibrate::calibrate(); // a few hundred milliseconds
//! assert!(model.bandwidth > 0.0);
//! let text = model.to_text(); // store it anywhere, read it back with CostModel::from_text
//! assert_eq!(lwc::CostModel::from_text(&text)?.to_text(), text);
//! # Ok::<(), lwc::Error>(())
//! ```

use std::hint::black_box;
use std::time::Instant;

use crate::column::Column;
use crate::encodings::EncodingId;
use crate::segment::{encode_segment, Segment};
use crate::select::{CostModel, SCATTERED_PARTS, TAKE_SPACING, TEXT_ROW_BYTES, WIDTHS, WORKING_SETS_LOG2};
use crate::stats::SplitMix;
use crate::strings::{encode_bytes_segment, BytesSegment, BytesType};
use crate::types::{LwcInt, Value, Word};

const CALIBRATION_ROWS: usize = 65_536;
const CALIBRATION_GETS: usize = 1024;
const REPEATS: usize = 3;
/// Runs of a take within a repeat, kept to the fastest, while they take under [`SHORT_RUNS_NS`].
const SHORT_RUNS: usize = 8;
const SHORT_RUNS_NS: f64 = 50_000.0;

/// Measures every encoding at every width of [`WIDTHS`] on this machine, and the memory (about a second).
pub fn calibrate() -> CostModel {
    calibrate_passes(1)
}

/// [`calibrate`] `passes` times over (at least once), keeping each figure's fastest (the bandwidth's
/// highest): about a second a pass. A shared host can run at one speed for a few hundred milliseconds and half again slower
/// for the next (a 2-core cloud guest here did); passes a second apart each catch some figures in the
/// faster state, so the model is the machine's unloaded cost, not the load of the moment it was taken.
pub fn calibrate_passes(passes: usize) -> CostModel {
    let mut model = calibrate_once();
    for _ in 1..passes {
        model.keep_fastest(&calibrate_once());
    }
    model
}

fn calibrate_once() -> CostModel {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut model = CostModel::empty(format!("calibrated on this machine ({threads} threads)"), measure_bandwidth());
    model.latency_ns = measure_latencies();
    model.call_ns = measure_call();
    let mut rng = SplitMix(0x1c5_eed);
    for id in EncodingId::ALL {
        for (k, &width) in WIDTHS.iter().enumerate() {
            let values = id.calibration_values(width, CALIBRATION_ROWS, &mut rng);
            let measured = if width <= 32 {
                measure(id, &values.iter().map(|&v| v as u32).collect::<Vec<_>>(), &mut rng)
            } else {
                measure(id, &values, &mut rng)
            };
            let row = id as usize;
            model.decode_ns[row][k] = measured.decode;
            model.get_ns[row][k] = measured.get;
            model.take_ns[row][k] = measured.take;
            model.scattered_ns[row][k] = measured.scattered;
        }
    }
    let text = calibration_text(CALIBRATION_ROWS, &mut rng);
    let rows: Vec<&[u8]> = text.iter().map(|r| r.as_slice()).collect();
    for id in EncodingId::BYTES {
        (model.text_decode_ns[id as usize], model.text_get_ns[id as usize]) = measure_text(id, &rows, &mut rng);
    }
    model
}

/// Rows of words from a small vocabulary, [`TEXT_ROW_BYTES`] long on average: text that every byte-string
/// encoding compresses somewhat (a dictionary too, as a few rows repeat).
fn calibration_text(rows: usize, rng: &mut SplitMix) -> Vec<Vec<u8>> {
    const WORDS: [&str; 16] = [
        "the",
        "quickly",
        "final",
        "deposits",
        "sleep",
        "carefully",
        "among",
        "ironic",
        "packages",
        "pending",
        "requests",
        "haggle",
        "furiously",
        "regular",
        "accounts",
        "above",
    ];
    let mut out: Vec<Vec<u8>> = Vec::with_capacity(rows);
    for i in 0..rows {
        if i > 0 && rng.below(8) == 0 {
            let again = out[rng.below(i)].clone();
            out.push(again);
            continue;
        }
        let target = 16 + rng.below(2 * (TEXT_ROW_BYTES as usize - 16));
        let mut row = Vec::with_capacity(target + 16);
        while row.len() < target {
            row.extend_from_slice(WORDS[rng.below(WORDS.len())].as_bytes());
            row.push(b' ');
        }
        row.truncate(target);
        out.push(row);
    }
    out
}

/// Minimum over repeats of (ns per decoded byte, ns per get) of the byte-string encoding `id`.
fn measure_text(id: EncodingId, rows: &[&[u8]], rng: &mut SplitMix) -> (f64, f64) {
    let Ok(encoded) = encode_bytes_segment(rows, None, BytesType::Binary, id) else {
        return (f64::MAX / 4.0, f64::MAX / 4.0);
    };
    let segment = BytesSegment::open(encoded.as_bytes()).expect("a segment just written opens");
    let total: usize = rows.iter().map(|r| r.len()).sum();
    let positions: Vec<usize> = (0..CALIBRATION_GETS).map(|_| rng.below(rows.len())).collect();
    let (mut decode, mut get) = (f64::MAX, f64::MAX);
    for _ in 0..REPEATS {
        let start = Instant::now();
        black_box(segment.decode_all());
        decode = decode.min(start.elapsed().as_nanos() as f64 / total.max(1) as f64);
        let start = Instant::now();
        for &p in &positions {
            black_box(segment.get(p).expect("in range"));
        }
        get = get.min(start.elapsed().as_nanos() as f64 / positions.len() as f64);
    }
    (decode, get)
}

/// One encoding's figures at one width, in nanoseconds: the minimum over repeats.
struct Measured {
    /// Per decoded value.
    decode: f64,
    /// Per `get`.
    get: f64,
    /// Per position of a take of one row in [`TAKE_SPACING`] from one segment.
    take: f64,
    /// The same from a column of [`SCATTERED_PARTS`] segments.
    scattered: f64,
}

/// [`Measured`] of `id` on `values`; encodings that do not apply to the data cost "too much".
fn measure<T: Value>(id: EncodingId, values: &[T], rng: &mut SplitMix) -> Measured {
    let Ok(encoded) = encode_segment(values, None, id) else {
        let too_much = f64::MAX / 4.0;
        return Measured { decode: too_much, get: too_much, take: too_much, scattered: too_much };
    };
    // Read through a column, as users read (locating the segment included).
    let open = || Segment::<T>::open(&encoded).expect("a segment just written opens");
    let column = Column::from_segments(vec![open()]);
    // The same segment again and again: a column of many, as the take of one reads it, with no more
    // bytes to encode or to hold in the caches.
    let parts = Column::from_segments((0..SCATTERED_PARTS).map(|_| open()).collect());
    let mut out = vec![T::default(); values.len()];
    let positions: Vec<usize> = (0..CALIBRATION_GETS).map(|_| rng.below(values.len())).collect();
    let sparse: Vec<u32> = (0..values.len() / TAKE_SPACING).map(|_| rng.below(values.len()) as u32).collect();
    let all_rows = values.len() * SCATTERED_PARTS;
    let scattered: Vec<u32> = (0..all_rows / TAKE_SPACING).map(|_| rng.below(all_rows) as u32).collect();
    let mut scattered_out = vec![T::default(); scattered.len()];
    let (mut decode, mut get, mut take, mut scattered_take) = (f64::MAX, f64::MAX, f64::MAX, f64::MAX);
    for _ in 0..REPEATS {
        let start = Instant::now();
        column.decode_into(0, &mut out).expect("in range");
        black_box(&out);
        decode = decode.min(start.elapsed().as_nanos() as f64 / values.len() as f64);
        let latent = |p| column.get(p as u64).expect("in range").map_or(0, |v| v.to_latent().to_bits().to_u64());
        get = get.min(time_gets(&positions, latent));
        let one = fastest_run(|| column.take_into(&sparse, &mut out[..sparse.len()]).expect("in range"));
        take = take.min(one / sparse.len().max(1) as f64);
        let many = fastest_run(|| parts.take_into(&scattered, &mut scattered_out).expect("in range"));
        scattered_take = scattered_take.min(many / scattered.len().max(1) as f64);
    }
    Measured { decode, get, take, scattered: scattered_take }
}

/// Nanoseconds of the fastest of a few runs of `f` (a take of about a microsecond, which one run measures
/// with the noise of the first touch): [`SHORT_RUNS`] of them, or as many as fit [`SHORT_RUNS_NS`].
fn fastest_run(mut f: impl FnMut()) -> f64 {
    let (mut fastest, mut spent) = (f64::MAX, 0.0);
    for _ in 0..SHORT_RUNS {
        let start = Instant::now();
        f();
        let ns = start.elapsed().as_nanos() as f64;
        (fastest, spent) = (fastest.min(ns), spent + ns);
        if spent > SHORT_RUNS_NS {
            break;
        }
    }
    fastest
}

/// Nanoseconds per call of `get` at `positions`, the results summed rather than each passed through
/// `black_box`: on some CPUs that store costs more than a `get` (3 ns a call on an AMD EPYC under KVM).
fn time_gets(positions: &[usize], get: impl Fn(usize) -> u64) -> f64 {
    let start = Instant::now();
    let sum = positions.iter().fold(0u64, |a, &p| a.wrapping_add(get(p)));
    black_box(sum);
    start.elapsed().as_nanos() as f64 / positions.len().max(1) as f64
}

/// Random reads timed per working set: how many a gather makes of a buffer of that size.
const LATENCY_READS: usize = 1 << 16;

/// Nanoseconds per random read of an 8-byte word (one position of a gather: independent reads overlap,
/// as a take's do) from a buffer of each size of [`WORKING_SETS_LOG2`], minimum over repeats.
fn measure_latencies() -> [f64; WORKING_SETS_LOG2.len()] {
    let largest = 1usize << WORKING_SETS_LOG2[WORKING_SETS_LOG2.len() - 1];
    // Filled so that its pages are mapped: the first touch of a page is not what a lookup pays.
    let words: Vec<u64> = (0..largest / 8).map(|i| i as u64).collect();
    let mut rng = SplitMix(0x01a7_e4c7);
    let mut latencies = WORKING_SETS_LOG2.map(|log2| {
        let n = (1usize << log2) / 8;
        let positions: Vec<u32> = (0..LATENCY_READS).map(|_| rng.below(n) as u32).collect();
        let mut best = f64::MAX;
        for _ in 0..REPEATS + 1 {
            let start = Instant::now();
            let sum = positions.iter().fold(0u64, |a, &p| a.wrapping_add(words[p as usize]));
            black_box(sum);
            best = best.min(start.elapsed().as_nanos() as f64 / LATENCY_READS as f64);
        }
        best
    });
    // A larger working set never reads faster: what looks so is noise.
    for k in 1..latencies.len() {
        latencies[k] = latencies[k].max(latencies[k - 1]);
    }
    latencies
}

/// Nanoseconds a lone [`Column::get`] costs beyond a position of [`Column::take_into`] on `plain` values
/// in cache: the row check and dispatch a take pays once per list.
fn measure_call() -> f64 {
    let mut rng = SplitMix(0xca11);
    let values: Vec<u32> = (0..CALIBRATION_ROWS).map(|_| rng.next() as u32).collect();
    let encoded = encode_segment(&values, None, EncodingId::Plain).expect("plain applies to anything");
    let column = Column::from_segments(vec![Segment::<u32>::open(&encoded).expect("a segment just written opens")]);
    let positions: Vec<u32> = (0..CALIBRATION_GETS).map(|_| rng.below(values.len()) as u32).collect();
    let mut out = vec![0u32; positions.len()];
    let (mut get, mut take) = (f64::MAX, f64::MAX);
    for _ in 0..REPEATS {
        let at: Vec<usize> = positions.iter().map(|&p| p as usize).collect();
        get = get.min(time_gets(&at, |p| u64::from(column.get(p as u64).expect("in range").unwrap_or(0))));
        let start = Instant::now();
        column.take_into(&positions, &mut out).expect("in range");
        black_box(&out);
        take = take.min(start.elapsed().as_nanos() as f64 / positions.len() as f64);
    }
    (get - take).max(0.0)
}

/// Bytes per nanosecond of a sequential read of a buffer far larger than the caches.
fn measure_bandwidth() -> f64 {
    let words = vec![1u64; 8 << 20]; // 64 MiB
    let mut best = f64::MAX;
    for _ in 0..REPEATS {
        let start = Instant::now();
        black_box(words.iter().fold(0u64, |a, &w| a.wrapping_add(w)));
        best = best.min(start.elapsed().as_nanos() as f64);
    }
    (words.len() * 8) as f64 / best.max(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calibration_measures_every_encoding() {
        let model = calibrate();
        assert!(model.bandwidth > 0.0 && model.call_ns >= 0.0);
        // Reads from a buffer far past the caches cost more than reads from one inside L1.
        assert!(model.miss_ns(f64::from(1u32 << 28)) > 0.0, "{:?}", model.latency_ns);
        // Sequences answer a get without touching data.
        let sequence = model.costs(EncodingId::Sequence, 8, 0.0);
        assert!(sequence.get_ns.is_finite() && sequence.scan_ns.is_finite());
        // A row of text out of a 128 KiB zstd block costs more than one read in place.
        let text = |id, bytes_per_row| model.costs_at(model.text_price(id, TEXT_ROW_BYTES, bytes_per_row), 0.0, false);
        let (zstd, plain) = (text(EncodingId::BytesZstd, 10.0), text(EncodingId::BytesPlain, TEXT_ROW_BYTES + 4.0));
        assert!(zstd.get_ns > plain.get_ns && zstd.scan_ns.is_finite(), "{zstd:?} vs {plain:?}");
        assert_eq!(CostModel::from_text(&model.to_text()).unwrap().to_text(), model.to_text());
    }
}
