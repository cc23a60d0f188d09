//! The cost model: how fast each encoding decodes and looks up values, per bit width, measured.
//!
//! Speeds are not guessed: [`crate::calibrate::calibrate`] encodes synthetic data shaped for each
//! encoding at each width of [`WIDTHS`], times a full decode and random `get`s in cache, and times a
//! sequential read from memory for the bandwidth a scan pays per byte. It takes well under a second; front
//! ends keep the result (`lwc calibrate`) and pass it in [`crate::EncodeOptions`]. Without one, the
//! built-in table measured on the development machine (`builtin_costs.txt`) is used. The model is data:
//! it travels with the options, and nothing in the core holds one globally.
//!
//! A candidate's cost is that of its top encoding at the width of its data, with child streams as that
//! encoding's defaults would have them: the model does not add up cascades node by node.

use std::sync::{Arc, LazyLock};

use crate::encodings::EncodingId;
use crate::error::{Error, Result};

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
#[derive(Debug, Clone)]
pub struct CostModel {
    /// Where the numbers come from (machine, date or "built-in").
    pub source: String,
    /// Bytes per nanosecond a sequential read streams from memory.
    pub bandwidth: f64,
    /// Nanoseconds per value of an in-cache decode, `[encoding id][width index]`.
    pub(crate) decode_ns: [[f64; WIDTHS.len()]; ID_SLOTS],
    /// Nanoseconds per in-cache `get`, `[encoding id][width index]`.
    pub(crate) get_ns: [[f64; WIDTHS.len()]; ID_SLOTS],
    /// Byte-string encodings: nanoseconds per byte of an in-cache decode, `[encoding id]`.
    pub(crate) text_decode_ns: [f64; ID_SLOTS],
    /// Byte-string encodings: nanoseconds per `get` of a row of [`TEXT_ROW_BYTES`], `[encoding id]`.
    pub(crate) text_get_ns: [f64; ID_SLOTS],
}

/// Mean length of the rows the byte-string figures are measured on; a `get` of a longer row pays the
/// decode of its extra bytes.
pub(crate) const TEXT_ROW_BYTES: f64 = 48.0;

/// Rows of the tables: one per encoding id (ids are below this).
pub(crate) const ID_SLOTS: usize = 32;

const _: () = {
    let mut k = 0;
    while k < EncodingId::ALL.len() {
        assert!((EncodingId::ALL[k] as usize) < ID_SLOTS, "an encoding id past the cost model's table");
        k += 1;
    }
};

const HEADER: &str = "# lwc cost model v1";

/// Equal when every figure is (bit for bit: rows of ids no encoding has hold NaN).
impl PartialEq for CostModel {
    fn eq(&self, other: &CostModel) -> bool {
        let bits = |t: &[[f64; WIDTHS.len()]; ID_SLOTS]| t.iter().flatten().map(|x| x.to_bits()).collect::<Vec<_>>();
        let row_bits = |t: &[f64; ID_SLOTS]| t.map(f64::to_bits);
        self.source == other.source
            && self.bandwidth.to_bits() == other.bandwidth.to_bits()
            && bits(&self.decode_ns) == bits(&other.decode_ns)
            && bits(&self.get_ns) == bits(&other.get_ns)
            && row_bits(&self.text_decode_ns) == row_bits(&other.text_decode_ns)
            && row_bits(&self.text_get_ns) == row_bits(&other.text_get_ns)
    }
}

/// The built-in table, parsed once (an immutable constant, not state).
static BUILTIN: LazyLock<Arc<CostModel>> = LazyLock::new(|| {
    Arc::new(CostModel::from_text(include_str!("builtin_costs.txt")).expect("the built-in cost table parses"))
});

impl CostModel {
    /// The table measured on the development machine (2-core Intel Xeon, 2026-11; see `builtin_costs.txt`),
    /// shared.
    pub fn builtin() -> Arc<CostModel> {
        BUILTIN.clone()
    }

    /// A model with no measurements yet, for [`crate::calibrate`] to fill in.
    pub(crate) fn empty(source: String, bandwidth: f64) -> CostModel {
        CostModel {
            source,
            bandwidth,
            decode_ns: [[f64::NAN; WIDTHS.len()]; ID_SLOTS],
            get_ns: [[f64::NAN; WIDTHS.len()]; ID_SLOTS],
            text_decode_ns: [f64::NAN; ID_SLOTS],
            text_get_ns: [f64::NAN; ID_SLOTS],
        }
    }

    /// The costs of the byte-string encoding `encoding` on rows of `row_bytes` bytes on average, stored in
    /// `bytes_per_row`: per row, as for values.
    pub fn text_costs(&self, encoding: EncodingId, row_bytes: f64, bytes_per_row: f64) -> Costs {
        let row = encoding as usize;
        let decode = self.text_decode_ns[row] * row_bytes;
        Costs {
            scan_ns: decode + bytes_per_row / self.bandwidth,
            get_ns: self.text_get_ns[row] + self.text_decode_ns[row] * (row_bytes - TEXT_ROW_BYTES).max(0.0),
        }
    }

    /// The costs of `encoding` on values of `width` bits stored in `bytes_per_value`.
    pub fn costs(&self, encoding: EncodingId, width: u32, bytes_per_value: f64) -> Costs {
        let row = encoding as usize;
        Costs {
            scan_ns: interpolate(&self.decode_ns[row], width) + bytes_per_value / self.bandwidth,
            get_ns: interpolate(&self.get_ns[row], width),
        }
    }

    /// The model as text: a header, `source`, `bandwidth`, then one `decode` and one `get` line per encoding,
    /// and a `text NAME DECODE GET` line per byte-string encoding.
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
        for id in EncodingId::BYTES {
            let row = id as usize;
            text += &format!("text {} {:.3} {:.3}\n", id.name(), self.text_decode_ns[row], self.text_get_ns[row]);
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
        let mut model = CostModel::empty(String::new(), 0.0);
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
                "text" => {
                    let fields: Vec<&str> = rest.split_whitespace().collect();
                    let [name, decode, get] = fields[..] else { return Err(bad(format!("line {line:?}"))) };
                    let id = EncodingId::BYTES.into_iter().find(|id| id.name() == name);
                    let id = id.ok_or_else(|| bad(format!("unknown byte-string encoding {name:?}")))?;
                    let (decode, get) = number(decode).zip(number(get)).ok_or_else(|| bad(format!("line {line:?}")))?;
                    (model.text_decode_ns[id as usize], model.text_get_ns[id as usize]) = (decode, get);
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
        let complete = EncodingId::ALL
            .iter()
            .all(|&id| model.decode_ns[id as usize].iter().chain(&model.get_ns[id as usize]).all(|x| !x.is_nan()))
            && EncodingId::BYTES
                .iter()
                .all(|&id| !(model.text_decode_ns[id as usize] + model.text_get_ns[id as usize]).is_nan());
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
}
