//! The cost model: how fast each encoding decodes and looks up values, per bit width, measured.
//!
//! Speeds are not guessed: [`CostModel::calibrate`] encodes synthetic data shaped for each encoding at
//! each width of [`WIDTHS`], times a full decode and random `get`s in cache, and times a sequential read
//! from memory for the bandwidth a scan pays per byte. It takes well under a second; tools cache the
//! result ([`CostModel::load_or_calibrate`]). Without a calibration the built-in table measured on the
//! development machine (`builtin_costs.txt`) is used.
//!
//! A candidate's cost is that of its top encoding at the width of its data, with child streams as that
//! encoding's defaults would have them: the model does not add up cascades node by node.

use std::hint::black_box;
use std::path::Path;
use std::sync::{Arc, RwLock};
use std::time::Instant;

use crate::encodings::{Cascade, EncodingId};
use crate::error::{Error, Result};
use crate::segment::{encode_segment, Segment};
use crate::types::LwcInt;

/// The widths (bits) the model is measured at; costs between them are interpolated.
pub const WIDTHS: [u32; 8] = [1, 4, 8, 16, 24, 32, 48, 64];

/// What reading one segment with one encoding costs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Costs {
    /// Nanoseconds per value of a full decode from memory: decode work plus the bytes streamed in.
    pub scan_ns: f64,
    /// Nanoseconds per point lookup.
    pub get_ns: f64,
}

/// Measured decode and lookup speeds per encoding and width, and the memory bandwidth.
#[derive(Debug, Clone, PartialEq)]
pub struct CostModel {
    /// Where the numbers come from (machine, date or "built-in").
    pub source: String,
    /// Bytes per nanosecond a sequential read streams from memory.
    pub bandwidth: f64,
    /// Nanoseconds per value of an in-cache decode, `[encoding id][width index]`.
    decode_ns: [[f64; WIDTHS.len()]; EncodingId::ALL.len()],
    /// Nanoseconds per in-cache `get`, `[encoding id][width index]`.
    get_ns: [[f64; WIDTHS.len()]; EncodingId::ALL.len()],
}

const HEADER: &str = "# lwc cost model v1";

static CURRENT: RwLock<Option<Arc<CostModel>>> = RwLock::new(None);

impl CostModel {
    /// The table measured on the development machine (2-core Intel Xeon, 2026-11; see `builtin_costs.txt`).
    pub fn builtin() -> CostModel {
        CostModel::from_text(include_str!("builtin_costs.txt")).expect("the built-in cost table parses")
    }

    /// The model the selector uses: the one [`CostModel::install`]ed, else the built-in one.
    pub fn current() -> Arc<CostModel> {
        if let Some(model) = CURRENT.read().unwrap_or_else(|e| e.into_inner()).as_ref() {
            return model.clone();
        }
        let mut slot = CURRENT.write().unwrap_or_else(|e| e.into_inner());
        slot.get_or_insert_with(|| Arc::new(CostModel::builtin())).clone()
    }

    /// Makes `model` the one every later selection in this process uses.
    pub fn install(model: CostModel) {
        *CURRENT.write().unwrap_or_else(|e| e.into_inner()) = Some(Arc::new(model));
    }

    /// Reads the model cached at `path`, or calibrates on this machine and caches it there.
    pub fn load_or_calibrate(path: &Path) -> Result<CostModel> {
        if let Ok(text) = std::fs::read_to_string(path) {
            if let Ok(model) = CostModel::from_text(&text) {
                return Ok(model);
            }
        }
        let model = CostModel::calibrate();
        let io = |e: std::io::Error| {
            Error::InvalidArgument(format!("cannot cache the cost model at {}: {e}", path.display()))
        };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        std::fs::write(path, model.to_text()).map_err(io)?;
        Ok(model)
    }

    /// The costs of `encoding` on values of `width` bits stored in `bytes_per_value`.
    pub fn costs(&self, encoding: EncodingId, width: u32, bytes_per_value: f64) -> Costs {
        let row = encoding as usize;
        Costs {
            scan_ns: interpolate(&self.decode_ns[row], width) + bytes_per_value / self.bandwidth,
            get_ns: interpolate(&self.get_ns[row], width),
        }
    }

    /// Measures every encoding at every width of [`WIDTHS`] on this machine (a few hundred milliseconds).
    pub fn calibrate() -> CostModel {
        let mut model = CostModel {
            source: format!(
                "calibrated on this machine ({} threads)",
                std::thread::available_parallelism().map_or(1, |n| n.get())
            ),
            bandwidth: measure_bandwidth(),
            decode_ns: [[0.0; WIDTHS.len()]; EncodingId::ALL.len()],
            get_ns: [[0.0; WIDTHS.len()]; EncodingId::ALL.len()],
        };
        let mut rng = SplitMix(0x1c5_eed);
        for id in EncodingId::ALL {
            for (k, &width) in WIDTHS.iter().enumerate() {
                let values = calibration_data(id, width, CALIBRATION_ROWS, &mut rng);
                let (decode, get) = if width <= 32 {
                    measure(id, &values.iter().map(|&v| v as u32).collect::<Vec<_>>(), &mut rng)
                } else {
                    measure(id, &values, &mut rng)
                };
                model.decode_ns[id as usize][k] = decode;
                model.get_ns[id as usize][k] = get;
            }
        }
        model
    }

    /// The model as text: a header, `source`, `bandwidth`, then one `decode` and one `get` line per encoding.
    pub fn to_text(&self) -> String {
        let mut text = format!("{HEADER}\nsource {}\nbandwidth {:.3}\nwidths", self.source, self.bandwidth);
        for w in WIDTHS {
            text += &format!(" {w}");
        }
        text.push('\n');
        for id in EncodingId::ALL {
            for (what, table) in [("decode", &self.decode_ns), ("get", &self.get_ns)] {
                text += &format!("{} {what}", id.name());
                for ns in table[id as usize] {
                    text += &format!(" {ns:.3}");
                }
                text.push('\n');
            }
        }
        text
    }

    /// Parses [`CostModel::to_text`]'s output.
    pub fn from_text(text: &str) -> Result<CostModel> {
        let bad = |why: String| Error::InvalidArgument(format!("cost model: {why}"));
        let mut lines = text.lines().filter(|l| !l.trim().is_empty());
        if lines.next() != Some(HEADER) {
            return Err(bad(format!("does not start with {HEADER:?}")));
        }
        let mut model = CostModel {
            source: String::new(),
            bandwidth: 0.0,
            decode_ns: [[f64::NAN; WIDTHS.len()]; EncodingId::ALL.len()],
            get_ns: [[f64::NAN; WIDTHS.len()]; EncodingId::ALL.len()],
        };
        let number = |s: &str| s.parse::<f64>().ok().filter(|x| x.is_finite() && *x >= 0.0);
        for line in lines {
            let (key, rest) = line.split_once(' ').unwrap_or((line, ""));
            match key {
                "source" => model.source = rest.to_string(),
                "bandwidth" => model.bandwidth = number(rest).ok_or_else(|| bad(format!("bandwidth {rest:?}")))?,
                "widths" => {
                    let widths: Vec<u32> = rest.split_whitespace().filter_map(|w| w.parse().ok()).collect();
                    if widths != WIDTHS {
                        return Err(bad(format!("widths {rest:?}, expected {WIDTHS:?}")));
                    }
                }
                name => {
                    let id = EncodingId::ALL.into_iter().find(|id| id.name() == name);
                    let id = id.ok_or_else(|| bad(format!("unknown encoding {name:?}")))?;
                    let (what, values) = rest.split_once(' ').ok_or_else(|| bad(format!("line {line:?}")))?;
                    let table = match what {
                        "decode" => &mut model.decode_ns,
                        "get" => &mut model.get_ns,
                        _ => return Err(bad(format!("line {line:?}"))),
                    };
                    let values: Vec<f64> = values
                        .split_whitespace()
                        .map(number)
                        .collect::<Option<_>>()
                        .ok_or_else(|| bad(format!("line {line:?}")))?;
                    table[id as usize] =
                        values.try_into().map_err(|_| bad(format!("line {line:?} needs {} numbers", WIDTHS.len())))?;
                }
            }
        }
        let complete = model.decode_ns.iter().chain(&model.get_ns).flatten().all(|x| !x.is_nan());
        if !complete || model.bandwidth <= 0.0 {
            return Err(bad("an encoding or the bandwidth is missing".into()));
        }
        Ok(model)
    }
}

/// Linear interpolation of a per-width row at `width`.
fn interpolate(row: &[f64; WIDTHS.len()], width: u32) -> f64 {
    let k = WIDTHS.partition_point(|&w| w < width);
    if k == 0 {
        return row[0];
    }
    if k == WIDTHS.len() {
        return row[WIDTHS.len() - 1];
    }
    let (w0, w1) = (WIDTHS[k - 1] as f64, WIDTHS[k] as f64);
    let t = (width as f64 - w0) / (w1 - w0);
    row[k - 1] + t * (row[k] - row[k - 1])
}

const CALIBRATION_ROWS: usize = 16_384;
const CALIBRATION_GETS: usize = 1024;
const REPEATS: usize = 3;

/// Minimum over repeats of (ns per decoded value, ns per get).
fn measure<T: LwcInt>(id: EncodingId, values: &[T], rng: &mut SplitMix) -> (f64, f64) {
    let Ok(bytes) = encode_segment(values, None, Cascade::from(id)) else {
        return (f64::MAX / 4.0, f64::MAX / 4.0);
    };
    let segment = Segment::<T>::open(&bytes).expect("a segment just written opens");
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

/// Data on which `id` is the natural choice, with `width` meaning what the selector looks the cost up by:
/// residual bits for the bit-packing family, delta bits for `delta` and `delta2`, code bits for `dict`.
fn calibration_data(id: EncodingId, width: u32, n: usize, rng: &mut SplitMix) -> Vec<u64> {
    let limit = if width <= 32 { u32::MAX as u64 } else { u64::MAX };
    let mask = if width >= 64 { u64::MAX } else { (1u64 << width) - 1 };
    match id {
        EncodingId::Constant => vec![42; n],
        EncodingId::Sequence => (0..n as u64).map(|i| 1_000 + 3 * i).collect(),
        EncodingId::Dict => {
            let pool: Vec<u64> = (0..1usize << width.min(12)).map(|_| rng.next() & limit).collect();
            (0..n).map(|_| pool[rng.below(pool.len())]).collect()
        }
        EncodingId::ForN => (0..n)
            .map(|i| {
                ((i as u64 / 64).wrapping_mul(0x9e37_79b9) & (limit >> 1)).saturating_add(rng.next() & mask) & limit
            })
            .collect(),
        EncodingId::Pfor => (0..n).map(|i| rng.next() & if i % 64 == 7 { limit } else { mask }).collect(),
        EncodingId::Delta | EncodingId::Delta2 => {
            let mut acc = 0u64;
            (0..n)
                .map(|_| {
                    acc = acc.wrapping_add(rng.next() & mask) & limit;
                    acc
                })
                .collect()
        }
        EncodingId::Gcd => (0..n).map(|_| ((rng.next() & mask) << 3) & limit).collect(),
        EncodingId::Rle => (0..n).map(|i| (i as u64 / 8).wrapping_mul(0x9e37_79b9_7f4a_7c15) & mask).collect(),
        _ => (0..n).map(|_| rng.next() & mask).collect(),
    }
}

/// A small deterministic generator (SplitMix64), so calibration data is the same on every run.
pub(crate) struct SplitMix(pub u64);

impl SplitMix {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        ((self.next() as u128 * n as u128) >> 64) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_round_trips_and_rejects_garbage() {
        let model = CostModel::builtin();
        assert_eq!(CostModel::from_text(&model.to_text()).unwrap().to_text(), model.to_text());
        assert!(CostModel::from_text("").is_err());
        assert!(CostModel::from_text(&model.to_text().replace("plain decode", "plain decodes")).is_err());
        let truncated: String = model.to_text().lines().take(5).map(|l| format!("{l}\n")).collect();
        assert!(CostModel::from_text(&truncated).is_err());
    }

    #[test]
    fn interpolation_sits_between_measured_widths() {
        let row = [1.0, 4.0, 8.0, 16.0, 24.0, 32.0, 48.0, 64.0];
        assert_eq!(interpolate(&row, 0), 1.0);
        assert_eq!(interpolate(&row, 12), 12.0);
        assert_eq!(interpolate(&row, 64), 64.0);
    }

    #[test]
    fn calibration_measures_every_encoding_and_caches() {
        let dir = std::env::temp_dir().join(format!("lwc-cost-{}", std::process::id()));
        let path = dir.join("costs.txt");
        let model = CostModel::load_or_calibrate(&path).unwrap();
        assert!(model.bandwidth > 0.0);
        // Sequences answer a get without touching data; plain bit-packing of 64-bit values must do work.
        let sequence = model.costs(EncodingId::Sequence, 8, 0.0);
        assert!(sequence.get_ns.is_finite() && sequence.scan_ns.is_finite());
        assert_eq!(
            CostModel::load_or_calibrate(&path).unwrap().to_text(),
            model.to_text(),
            "second call reads the cache"
        );
        std::fs::remove_dir_all(dir).unwrap();
    }
}
