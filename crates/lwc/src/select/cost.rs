//! The cost model: how fast each encoding decodes and looks up values, per bit width, measured; and what a
//! lookup pays when its data is out of cache.
//!
//! Speeds are not guessed: [`crate::calibrate::calibrate`] encodes synthetic data shaped for each
//! encoding at each width of [`WIDTHS`], times a full decode and random `get`s in cache, a sequential read
//! from memory for the bandwidth a scan pays per byte, and random reads at growing working sets
//! ([`WORKING_SETS_LOG2`]) for what a lookup pays per cache line it touches. It takes about a second;
//! front ends keep the result (`lwc calibrate`) and pass it in [`crate::EncodeOptions`]. Without one, the
//! built-in table (`builtin_costs.txt`) is used. The model is data: it travels with the options, and
//! nothing in the core holds one globally.
//!
//! **Cascades are priced whole.** Each encoding is measured with its default child streams. When the
//! selector gives a child another encoding (`delta(dict)`, `rle(delta(dict), delta)`), the parent's price
//! changes by the child's difference to that default, times how often the parent reads the child: per
//! lookup (the encoding's [`ChildReads`](crate::encodings::ChildReads): one code for `dict`, a search of
//! the run ends for `rle`, half a stride of deltas for `delta`) and per scanned value (child rows per
//! row). A walk over deltas pays the child's decode per value, or a frame of reference's where the child
//! sums its values where they lie (a dictionary of at most four entries); a take of one row in
//! [`TAKE_SPACING`] walks on from the row before, so at most that many, and its position costs at most a
//! decode of the rows between two positions: a search per position (`rle`'s run ends) is dearer where
//! the ends must be walked to (`delta`), and over ends read in place it gallops from the position
//! before. A patched encoding (`pfor`) pays for its stream's share of patched rows, not for its
//! calibration's, and an encoding that does another's work on some data (a dictionary of evenly spaced
//! entries computes its values) is priced as that work. Nested children were priced the same way one
//! level down.
//!
//! **Lookups pay for memory.** A lookup touches some cache lines (the encoding's `lines`, plus those of
//! the children it reads). In cache they cost what the calibration measured; out of cache each costs the
//! extra latency measured at the stream's working set: its bytes, scaled from the segment to the rows
//! read together ([`crate::EncodeOptions::working_set_rows`]). That is why, on a large table, a 4-bit
//! month beats an 8-byte one for lookups too: the small one stays in cache.
//!
//! **Takes over many segments are timed as such.** A column of many segments reads a scattered take's
//! rows where they lie, each found in its segment first, or groups them by segment; that costs up to
//! several times what one segment's take of the same rows does (its kernels take a list in one call:
//! `bitpack` and `for` about 1.9x, `for_n` and `bytepack` 4.5-5x in the calibration on an AMD EPYC). The
//! calibration times both, and a segment read with others ([`crate::EncodeOptions::working_set_rows`] past its own
//! rows) is priced by the second.

use std::sync::{Arc, LazyLock};

use crate::encodings::EncodingId;
use crate::error::{Error, Result};

/// The widths (bits) the model is measured at; costs between them are interpolated.
pub const WIDTHS: [u32; 8] = [1, 4, 8, 16, 24, 32, 48, 64];

/// The working sets (log2 of bytes) random reads are timed at: from inside L1 to far past the last-level
/// cache of current servers. Between them the latency is interpolated in log2 of the bytes.
pub const WORKING_SETS_LOG2: [u32; 8] = [14, 16, 18, 20, 22, 24, 26, 28];

/// Bytes of a cache line: what a lookup out of cache pays for.
pub const CACHE_LINE: f64 = 64.0;

/// What reading one segment (or stream) costs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Costs {
    /// Nanoseconds per value of a full decode from memory: decode work plus the bytes streamed in.
    pub scan_ns: f64,
    /// Nanoseconds per lone point lookup (`get`) at the stream's working set: the work in cache plus
    /// what its cache lines cost where the data does not fit the caches.
    pub get_ns: f64,
    /// Nanoseconds per position of a take of sparse random positions, at the working set: a lookup
    /// without the call's checks, or cheaper where the encoding gathers many at once. Over a column of
    /// several segments where the segment was written as one of them.
    pub take_ns: f64,
    /// Cache lines one lookup touches, child streams included.
    pub lines: f64,
}

/// What reading a stream costs in cache, composed over a cascade (see the module documentation); memory
/// is priced last, by [`CostModel::costs_at`], once the stream's bytes are known.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Price {
    /// Nanoseconds per value of a full decode in cache.
    pub decode_ns: f64,
    /// Nanoseconds per lookup in cache.
    pub get_ns: f64,
    /// Nanoseconds per position of a sparse take in cache.
    pub take_ns: f64,
    /// The same, of a take scattered over a column of several segments of this stream.
    pub scattered_ns: f64,
    /// Nanoseconds per value of a parent's walk over a run of them (`delta` summing its deltas): the
    /// decode, or a frame of reference's where the stream sums its values where they lie.
    pub walk_ns: f64,
    /// Cache lines one lookup touches.
    pub lines: f64,
    /// Cache lines one position of a sparse take touches.
    pub take_lines: f64,
    /// Bytes stored per value.
    pub bytes_per_value: f64,
    /// Lookups' worth of a search of the stream's values for a rank; `None`: a bisection (see
    /// [`crate::encodings::ChildReads::searches`]).
    pub search_gets: Option<f64>,
    /// A patched encoding's patching, as its calibration measured it (see
    /// [`crate::encodings::Encoder::patches`]).
    pub patching: Option<Patching>,
}

/// What the calibration's patched rows added to a patched encoding's decode and take, over those of the
/// encoding it patches, and their share of the rows. A lookup is left as measured: it checks its row
/// for a patch whether or not there is one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Patching {
    pub share: f64,
    pub decode_ns: f64,
    pub take_ns: f64,
}

/// Measured decode and lookup speeds per encoding and width, the memory bandwidth, and the latency of
/// random reads by working set.
#[derive(Debug, Clone)]
pub struct CostModel {
    /// Where the numbers come from (machine, date or "built-in").
    pub source: String,
    /// Bytes per nanosecond a sequential read streams from memory.
    pub bandwidth: f64,
    /// Nanoseconds a lone `get` costs beyond one position of a gather: the row check and dispatch that a
    /// take pays once per list.
    pub call_ns: f64,
    /// Nanoseconds per random read (one position of a gather of 8-byte words) at each working set of
    /// [`WORKING_SETS_LOG2`].
    pub latency_ns: [f64; WORKING_SETS_LOG2.len()],
    /// Nanoseconds per value of an in-cache decode, `[encoding id][width index]`.
    pub(crate) decode_ns: [[f64; WIDTHS.len()]; ID_SLOTS],
    /// Nanoseconds per in-cache `get`, `[encoding id][width index]`.
    pub(crate) get_ns: [[f64; WIDTHS.len()]; ID_SLOTS],
    /// Nanoseconds per position of an in-cache take of sparse random positions (one in
    /// [`TAKE_SPACING`] rows), `[encoding id][width index]`; where a table lacks them, a `get` less
    /// [`CostModel::call_ns`].
    pub(crate) take_ns: [[f64; WIDTHS.len()]; ID_SLOTS],
    /// The same positions scattered over a column of [`SCATTERED_PARTS`] such segments, `[encoding
    /// id][width index]`: a column reads each row where it lies, or groups rows by segment, where one
    /// segment's take reads them in one call. Where a table lacks them, the take's.
    pub(crate) scattered_ns: [[f64; WIDTHS.len()]; ID_SLOTS],
    /// Byte-string encodings: nanoseconds per byte of an in-cache decode, `[encoding id]`.
    pub(crate) text_decode_ns: [f64; ID_SLOTS],
    /// Byte-string encodings: nanoseconds per `get` of a row of [`TEXT_ROW_BYTES`], `[encoding id]`.
    pub(crate) text_get_ns: [f64; ID_SLOTS],
}

/// One position in this many rows is what a take is timed at: sparse enough that each position is read
/// on its own (a denser list decodes blocks, which its take weighs itself).
pub const TAKE_SPACING: usize = 64;

/// Segments of the column a scattered take is timed over (each the calibration's segment again).
pub const SCATTERED_PARTS: usize = 4;

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

const HEADER: &str = "# lwc cost model v3";
/// Files of the second version lack `scattered` lines: those are the takes'.
const HEADER_V2: &str = "# lwc cost model v2";
/// Files of the first version lack `call` and `latency` too: those are taken from the built-in table.
const HEADER_V1: &str = "# lwc cost model v1";

/// Equal when every figure is (bit for bit: rows of ids no encoding has hold NaN).
impl PartialEq for CostModel {
    fn eq(&self, other: &CostModel) -> bool {
        let bits = |t: &[[f64; WIDTHS.len()]; ID_SLOTS]| t.iter().flatten().map(|x| x.to_bits()).collect::<Vec<_>>();
        let row_bits = |t: &[f64; ID_SLOTS]| t.map(f64::to_bits);
        self.source == other.source
            && self.bandwidth.to_bits() == other.bandwidth.to_bits()
            && self.call_ns.to_bits() == other.call_ns.to_bits()
            && self.latency_ns.map(f64::to_bits) == other.latency_ns.map(f64::to_bits)
            && bits(&self.decode_ns) == bits(&other.decode_ns)
            && bits(&self.get_ns) == bits(&other.get_ns)
            && bits(&self.take_ns) == bits(&other.take_ns)
            && bits(&self.scattered_ns) == bits(&other.scattered_ns)
            && row_bits(&self.text_decode_ns) == row_bits(&other.text_decode_ns)
            && row_bits(&self.text_get_ns) == row_bits(&other.text_get_ns)
    }
}

/// The built-in table, parsed once (an immutable constant, not state).
static BUILTIN: LazyLock<Arc<CostModel>> = LazyLock::new(|| {
    Arc::new(CostModel::from_text(include_str!("builtin_costs.txt")).expect("the built-in cost table parses"))
});

impl CostModel {
    /// The table measured on the development machine (a 2-core AMD EPYC, 2026-11-25; see
    /// `builtin_costs.txt`), shared.
    pub fn builtin() -> Arc<CostModel> {
        BUILTIN.clone()
    }

    /// Keeps, figure by figure, the faster of this model and `other`: two calibrations of one machine, as
    /// [`crate::calibrate::calibrate_passes`] makes, or passes spread over a longer run, so that a shared
    /// host's slower stretches fall on none of them.
    pub fn keep_fastest(&mut self, other: &CostModel) {
        fn min_into(into: &mut [f64], from: &[f64]) {
            into.iter_mut().zip(from).for_each(|(a, &b)| *a = a.min(b));
        }
        self.bandwidth = self.bandwidth.max(other.bandwidth);
        self.call_ns = self.call_ns.min(other.call_ns);
        min_into(&mut self.latency_ns, &other.latency_ns);
        for (mine, theirs) in [
            (&mut self.decode_ns, &other.decode_ns),
            (&mut self.get_ns, &other.get_ns),
            (&mut self.take_ns, &other.take_ns),
            (&mut self.scattered_ns, &other.scattered_ns),
        ] {
            mine.iter_mut().zip(theirs).for_each(|(a, b)| min_into(a, b));
        }
        min_into(&mut self.text_decode_ns, &other.text_decode_ns);
        min_into(&mut self.text_get_ns, &other.text_get_ns);
    }

    /// A model with no measurements yet, for [`crate::calibrate`] to fill in.
    pub(crate) fn empty(source: String, bandwidth: f64) -> CostModel {
        CostModel {
            source,
            bandwidth,
            call_ns: f64::NAN,
            latency_ns: [f64::NAN; WORKING_SETS_LOG2.len()],
            decode_ns: [[f64::NAN; WIDTHS.len()]; ID_SLOTS],
            get_ns: [[f64::NAN; WIDTHS.len()]; ID_SLOTS],
            take_ns: [[f64::NAN; WIDTHS.len()]; ID_SLOTS],
            scattered_ns: [[f64::NAN; WIDTHS.len()]; ID_SLOTS],
            text_decode_ns: [f64::NAN; ID_SLOTS],
            text_get_ns: [f64::NAN; ID_SLOTS],
        }
    }

    /// The in-cache price of the byte-string encoding `encoding` on rows of `row_bytes` bytes on average,
    /// stored in `bytes_per_row`: per row, as for values. A lookup reads the row's bytes and its ends.
    pub(crate) fn text_price(&self, encoding: EncodingId, row_bytes: f64, bytes_per_row: f64) -> Price {
        let row = encoding as usize;
        let get_ns = self.text_get_ns[row] + self.text_decode_ns[row] * (row_bytes - TEXT_ROW_BYTES).max(0.0);
        let decode_ns = self.text_decode_ns[row] * row_bytes;
        let take_ns = self.take_of_get(get_ns);
        Price {
            decode_ns,
            walk_ns: decode_ns,
            get_ns,
            take_ns,
            scattered_ns: take_ns,
            lines: encoding.lines(0, 0),
            take_lines: encoding.take_lines(0, 0),
            bytes_per_value: bytes_per_row,
            search_gets: None,
            patching: None,
        }
    }

    /// The in-cache price of `encoding` (with its default child streams) on values of `width` bits stored
    /// in `bytes_per_value`, its parameter `parameter`.
    pub(crate) fn price(&self, encoding: EncodingId, width: u32, parameter: u32, bytes_per_value: f64) -> Price {
        let row = encoding as usize;
        let decode_ns = interpolate(&self.decode_ns[row], width);
        let walk_ns = match encoding.sums_in_place(width) {
            true => decode_ns.min(interpolate(&self.decode_ns[EncodingId::For as usize], width)),
            false => decode_ns,
        };
        let (get_ns, take_ns) = (interpolate(&self.get_ns[row], width), interpolate(&self.take_ns[row], width));
        let scattered_ns = interpolate(&self.scattered_ns[row], width);
        let patching = encoding.patches().map(|(base, share)| {
            let base = self.default_price(base, width, bytes_per_value);
            Patching {
                share,
                decode_ns: (decode_ns - base.decode_ns).max(0.0),
                take_ns: (take_ns - base.take_ns).max(0.0),
            }
        });
        Price {
            decode_ns,
            walk_ns,
            get_ns,
            take_ns,
            scattered_ns,
            lines: encoding.lines(parameter, width),
            take_lines: encoding.take_lines(parameter, width),
            bytes_per_value,
            search_gets: encoding.search_gets(),
            patching,
        }
    }

    /// What reading a stream of `price` costs when its bytes, and those read with it, come to
    /// `working_set` bytes: a scan streams its bytes in, a lookup pays the extra latency of its cache
    /// lines at that working set. A take's position is priced as one of a take over many segments
    /// where `scattered` (the stream is a segment's top stream, read with others).
    pub(crate) fn costs_at(&self, price: Price, working_set: f64, scattered: bool) -> Costs {
        let take_ns = if scattered { price.scattered_ns } else { price.take_ns };
        Costs {
            scan_ns: price.decode_ns + price.bytes_per_value / self.bandwidth,
            get_ns: price.get_ns + price.lines * self.miss_ns(working_set),
            take_ns: take_ns + price.take_lines * self.miss_ns(working_set),
            lines: price.lines,
        }
    }

    /// A take's position where only a lone `get` was measured: the get less the call's checks.
    fn take_of_get(&self, get_ns: f64) -> f64 {
        (get_ns - self.call_ns).max(0.1 * get_ns)
    }

    /// The costs of `encoding` (default children, default parameter) on values of `width` bits stored in
    /// `bytes_per_value`, read with a working set that fits the caches.
    pub fn costs(&self, encoding: EncodingId, width: u32, bytes_per_value: f64) -> Costs {
        self.costs_at(self.default_price(encoding, width, bytes_per_value), 0.0, false)
    }

    /// [`CostModel::price`] at the encoding's default parameter.
    pub(crate) fn default_price(&self, encoding: EncodingId, width: u32, bytes_per_value: f64) -> Price {
        self.price(encoding, width, encoding.parameter().map_or(0, |p| p.default), bytes_per_value)
    }

    /// Nanoseconds a random read costs beyond one in L1 when the data read is `working_set` bytes.
    pub fn miss_ns(&self, working_set: f64) -> f64 {
        let at = working_set.max(1.0).log2();
        let first = WORKING_SETS_LOG2[0] as f64;
        let last = WORKING_SETS_LOG2[WORKING_SETS_LOG2.len() - 1] as f64;
        let latency = if at <= first {
            self.latency_ns[0]
        } else if at >= last {
            self.latency_ns[WORKING_SETS_LOG2.len() - 1]
        } else {
            let k = WORKING_SETS_LOG2.partition_point(|&w| (w as f64) < at);
            let (w0, w1) = (WORKING_SETS_LOG2[k - 1] as f64, WORKING_SETS_LOG2[k] as f64);
            let t = (at - w0) / (w1 - w0);
            self.latency_ns[k - 1] + t * (self.latency_ns[k] - self.latency_ns[k - 1])
        };
        (latency - self.latency_ns[0]).max(0.0)
    }

    /// The model as text: a header, `source`, `bandwidth`, then one `decode` and one `get` line per encoding,
    /// and a `text NAME DECODE GET` line per byte-string encoding.
    pub fn to_text(&self) -> String {
        let mut text = format!(
            "{HEADER}\nsource {}\nbandwidth {:.3}\ncall {:.3}\nworking_sets",
            self.source, self.bandwidth, self.call_ns
        );
        for w in WORKING_SETS_LOG2 {
            text += &format!(" {w}");
        }
        text += "\nlatency";
        for ns in self.latency_ns {
            text += &format!(" {ns:.3}");
        }
        text += "\nwidths";
        for w in WIDTHS {
            text += &format!(" {w}");
        }
        text.push('\n');
        for id in EncodingId::ALL {
            for (what, table) in [
                ("decode", &self.decode_ns),
                ("get", &self.get_ns),
                ("take", &self.take_ns),
                ("scattered", &self.scattered_ns),
            ] {
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
        let mut model = CostModel::empty(String::new(), 0.0);
        match lines.next() {
            Some(HEADER | HEADER_V2) => {}
            Some(HEADER_V1) => {
                let builtin = CostModel::builtin();
                (model.call_ns, model.latency_ns) = (builtin.call_ns, builtin.latency_ns);
            }
            _ => return Err(bad(format!("does not start with {HEADER:?}"))),
        }
        let number = |s: &str| s.parse::<f64>().ok().filter(|x| x.is_finite() && *x >= 0.0);
        let numbers = |s: &str| -> Option<Vec<f64>> { s.split_whitespace().map(number).collect() };
        for line in lines {
            let (key, rest) = line.split_once(' ').unwrap_or((line, ""));
            match key {
                "source" => model.source = rest.to_string(),
                "bandwidth" => model.bandwidth = number(rest).ok_or_else(|| bad(format!("bandwidth {rest:?}")))?,
                "call" => model.call_ns = number(rest).ok_or_else(|| bad(format!("call {rest:?}")))?,
                "working_sets" => {
                    let sets: Vec<u32> = rest.split_whitespace().filter_map(|w| w.parse().ok()).collect();
                    if sets != WORKING_SETS_LOG2 {
                        return Err(bad(format!("working sets {rest:?}, expected {WORKING_SETS_LOG2:?}")));
                    }
                }
                "latency" => {
                    let values = numbers(rest).ok_or_else(|| bad(format!("line {line:?}")))?;
                    model.latency_ns = values
                        .try_into()
                        .map_err(|_| bad(format!("latency needs {} numbers", WORKING_SETS_LOG2.len())))?;
                }
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
                        "take" => &mut model.take_ns,
                        "scattered" => &mut model.scattered_ns,
                        _ => return Err(bad(format!("line {line:?}"))),
                    };
                    let values = numbers(values).ok_or_else(|| bad(format!("line {line:?}")))?;
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
        let memory = !model.call_ns.is_nan() && model.latency_ns.iter().all(|x| !x.is_nan());
        // Tables without takes (the first version's, or hand-made ones) take them from the gets, and those
        // without scattered takes (the second version's) from the takes.
        for id in EncodingId::ALL {
            let row = id as usize;
            if model.take_ns[row].iter().any(|x| x.is_nan()) && !memory {
                continue;
            }
            for k in 0..WIDTHS.len() {
                if model.take_ns[row][k].is_nan() {
                    model.take_ns[row][k] = model.take_of_get(model.get_ns[row][k]);
                }
                if model.scattered_ns[row][k].is_nan() {
                    model.scattered_ns[row][k] = model.take_ns[row][k];
                }
            }
        }
        if !complete || !memory || model.bandwidth <= 0.0 {
            return Err(bad("an encoding, the bandwidth, the call cost or the latencies are missing".into()));
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
    fn keeping_the_fastest_takes_each_figure_from_the_faster_calibration() {
        let fast = CostModel::builtin();
        let mut slow = (*fast).clone();
        slow.bandwidth /= 2.0;
        slow.latency_ns[3] *= 2.0;
        slow.get_ns[EncodingId::Bitpack as usize][2] *= 2.0;
        slow.text_get_ns[EncodingId::BytesPlain as usize] *= 2.0;
        let mut mixed = (*fast).clone();
        mixed.take_ns[EncodingId::Dict as usize][1] *= 1.5;
        mixed.keep_fastest(&slow);
        assert_eq!(mixed.to_text(), fast.to_text());
    }

    /// The built-in table as an older version's file: under `header`, with the lines `kept`.
    fn older_file(header: &str, kept: impl Fn(&str) -> bool) -> String {
        let text = CostModel::builtin().to_text().replace(HEADER, header);
        text.lines().filter(|l| kept(l)).map(|l| format!("{l}\n")).collect()
    }

    #[test]
    fn first_version_files_read_with_the_built_in_memory_figures() {
        let model = CostModel::builtin();
        let v1 = older_file(HEADER_V1, |l| {
            !l.starts_with("call") && !l.starts_with("latency") && !l.starts_with("working_sets")
        });
        let read = CostModel::from_text(&v1).unwrap();
        assert_eq!(read, *model);
        // Later versions need them.
        assert!(CostModel::from_text(&v1.replace(HEADER_V1, HEADER)).is_err());
    }

    #[test]
    fn second_version_files_read_scattered_takes_as_takes() {
        let model = CostModel::builtin();
        let v2 = older_file(HEADER_V2, |l| !l.contains(" scattered "));
        let read = CostModel::from_text(&v2).unwrap();
        // Rows of ids no encoding has hold NaN, which equals nothing: compared as printed.
        assert_eq!(format!("{:?}", read.scattered_ns), format!("{:?}", read.take_ns));
        assert_eq!(format!("{:?}", read.take_ns), format!("{:?}", model.take_ns));
        // A take over many segments is priced by the scattered table, one segment's by the take's.
        let mut scattered = (*model).clone();
        scattered.scattered_ns[EncodingId::Bitpack as usize] = [50.0; WIDTHS.len()];
        let price = scattered.price(EncodingId::Bitpack, 8, 0, 1.0);
        assert_eq!(scattered.costs_at(price, 0.0, true).take_ns, 50.0);
        assert_eq!(scattered.costs_at(price, 0.0, false).take_ns, price.take_ns);
    }

    #[test]
    fn misses_grow_with_the_working_set_and_cost_nothing_in_l1() {
        let mut model = (*CostModel::builtin()).clone();
        model.latency_ns = [1.0, 1.0, 2.0, 3.0, 5.0, 8.0, 40.0, 80.0];
        assert_eq!(model.miss_ns(1024.0), 0.0);
        assert_eq!(model.miss_ns(f64::from(1u32 << 14)), 0.0);
        assert_eq!(model.miss_ns(f64::from(1u32 << 19)), 1.5);
        assert_eq!(model.miss_ns(f64::from(1u32 << 28)), 79.0);
        assert_eq!(model.miss_ns(1e12), 79.0);
        let plain = model.price(EncodingId::Plain, 64, 0, 8.0);
        let (cached, far) = (model.costs_at(plain, 1e3, false), model.costs_at(plain, 1e9, false));
        assert_eq!(far.get_ns - cached.get_ns, 79.0 * plain.lines);
        assert_eq!(far.scan_ns, cached.scan_ns);
    }

    #[test]
    fn a_take_shares_each_decompressed_block_among_its_positions() {
        let mut model = (*CostModel::builtin()).clone();
        model.latency_ns = [1.0, 1.0, 2.0, 3.0, 5.0, 8.0, 40.0, 80.0];
        // A take of one row in TAKE_SPACING finds this many of its positions in each block of `lz4` and
        // `zstd`, and one in each line or block of the others.
        let per_block = (crate::kernels::bitpack::BLOCK / TAKE_SPACING) as f64;
        let sharing = [
            (EncodingId::Lz4, per_block),
            (EncodingId::Zstd, per_block),
            (EncodingId::Plain, 1.0),
            (EncodingId::Bitpack, 1.0),
            (EncodingId::ForN, 1.0),
        ];
        for (id, sharing) in sharing {
            let price = model.price(id, 32, 0, 4.0);
            let (cached, far) = (model.costs_at(price, 1e3, false), model.costs_at(price, 1e9, false));
            let (get_misses, take_misses) = (far.get_ns - cached.get_ns, far.take_ns - cached.take_ns);
            assert_eq!(get_misses, 79.0 * price.lines, "{id:?}");
            assert_eq!(take_misses * sharing, get_misses, "{id:?}");
        }
    }

    #[test]
    fn interpolation_sits_between_measured_widths() {
        let row = [1.0, 4.0, 8.0, 16.0, 24.0, 32.0, 48.0, 64.0];
        assert_eq!(interpolate(&row, 0), 1.0);
        assert_eq!(interpolate(&row, 12), 12.0);
        assert_eq!(interpolate(&row, 64), 64.0);
    }
}
