//! Measuring the cost model on this machine: every registered encoding at every width of the model's
//! table, on data shaped for it (each encoding's file says what), timing a full decode and random `get`s
//! in cache, and a sequential read from memory for the bandwidth a scan pays per byte.
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

use crate::encodings::EncodingId;
use crate::segment::{encode_segment, Segment};
use crate::select::{CostModel, TEXT_ROW_BYTES, WIDTHS};
use crate::stats::SplitMix;
use crate::strings::{encode_bytes_segment, BytesSegment, BytesType};
use crate::types::Value;

const CALIBRATION_ROWS: usize = 16_384;
const CALIBRATION_GETS: usize = 1024;
const REPEATS: usize = 3;

/// Measures every encoding at every width of [`WIDTHS`] on this machine (a few hundred milliseconds).
pub fn calibrate() -> CostModel {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut model = CostModel::empty(format!("calibrated on this machine ({threads} threads)"), measure_bandwidth());
    let mut rng = SplitMix(0x1c5_eed);
    for id in EncodingId::ALL {
        for (k, &width) in WIDTHS.iter().enumerate() {
            let values = id.calibration_values(width, CALIBRATION_ROWS, &mut rng);
            let (decode, get) = if width <= 32 {
                measure(id, &values.iter().map(|&v| v as u32).collect::<Vec<_>>(), &mut rng)
            } else {
                measure(id, &values, &mut rng)
            };
            model.decode_ns[id as usize][k] = decode;
            model.get_ns[id as usize][k] = get;
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

/// Minimum over repeats of (ns per decoded value, ns per get); encodings that do not apply to the data
/// cost "too much".
fn measure<T: Value>(id: EncodingId, values: &[T], rng: &mut SplitMix) -> (f64, f64) {
    let Ok(encoded) = encode_segment(values, None, id) else {
        return (f64::MAX / 4.0, f64::MAX / 4.0);
    };
    let segment = Segment::<T>::open(&encoded).expect("a segment just written opens");
    let mut out = vec![T::default(); values.len()];
    let positions: Vec<usize> = (0..CALIBRATION_GETS).map(|_| rng.below(values.len())).collect();
    let (mut decode, mut get) = (f64::MAX, f64::MAX);
    for _ in 0..REPEATS {
        let start = Instant::now();
        segment.decode_into(0, &mut out).expect("in range");
        black_box(&out);
        decode = decode.min(start.elapsed().as_nanos() as f64 / values.len() as f64);
        let start = Instant::now();
        for &p in &positions {
            black_box(segment.get(p).expect("in range"));
        }
        get = get.min(start.elapsed().as_nanos() as f64 / positions.len() as f64);
    }
    (decode, get)
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
        assert!(model.bandwidth > 0.0);
        // Sequences answer a get without touching data.
        let sequence = model.costs(EncodingId::Sequence, 8, 0.0);
        assert!(sequence.get_ns.is_finite() && sequence.scan_ns.is_finite());
        // A row of text out of a 128 KiB zstd block costs more than one read in place.
        let zstd = model.text_costs(EncodingId::BytesZstd, TEXT_ROW_BYTES, 10.0);
        let plain = model.text_costs(EncodingId::BytesPlain, TEXT_ROW_BYTES, TEXT_ROW_BYTES + 4.0);
        assert!(zstd.get_ns > plain.get_ns && zstd.scan_ns.is_finite(), "{zstd:?} vs {plain:?}");
        assert_eq!(CostModel::from_text(&model.to_text()).unwrap().to_text(), model.to_text());
    }
}
