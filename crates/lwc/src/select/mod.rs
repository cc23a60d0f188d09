//! Choosing the encoding of a stream from its data and from how it will be read (seed 003; BtrBlocks'
//! sampling).
//!
//! For every stream [`crate::Encoding::Auto`] encodes (a segment, and each child stream of the
//! encoding chosen for it, down to [`crate::MAX_CASCADE_DEPTH`] streams):
//!
//! 1. **Profile**: the min, max and bit-OR the encoders need anyway, and, on a sample of 10 runs of 64
//!    values, sortedness, run count, step, delta width, distinct values and a common divisor.
//! 2. **Prune**: constants and arithmetic sequences are taken at once (nothing is smaller or faster);
//!    candidates the profile rules out are skipped, each with its reason.
//! 3. **Estimate**: sizes that follow from min and max (plain, bit packing, frame of reference, byte
//!    packing) are exact; the others are estimated by the encoders' own size functions on the sample and
//!    scaled to the stream, child streams chosen the same way, recursively, on the sample's children.
//! 4. **Decide** by the [`Objective`], with speeds from the measured [`CostModel`].
//!
//! The winner is then encoded in full, and its child streams are chosen the same way on their full
//! values. [`SegmentExplain`] records the candidates, estimates, costs and the reason.

mod budget;
mod cost;
mod explain;
mod objective;
mod profile;

use std::cell::Cell;
use std::time::Instant;

pub use budget::{fit_to_budget, BudgetOption, BUDGET_STEPS};
pub use cost::{CostModel, Costs, WIDTHS};
pub use explain::{Candidate, Fallback, SegmentExplain};
pub use objective::{AccessMix, Objective, BALANCED_SIZE_SLACK, BALANCED_SPEEDUP};

use crate::encodings::{estimate_of, Cascade, EncodingId, Params, Stats, MAX_CASCADE_DEPTH};
use crate::types::{LwcInt, Word};
use profile::Profile;

/// Candidates in order of preference: on equal estimates the earlier one (the cheaper to read) wins.
/// `lz4` and `zstd` are not candidates: each random access would decompress a block.
const CANDIDATES: [EncodingId; 14] = [
    EncodingId::Constant,
    EncodingId::Sequence,
    EncodingId::Bitpack,
    EncodingId::For,
    EncodingId::Bytepack,
    EncodingId::ForN,
    EncodingId::Dict,
    EncodingId::Gcd,
    EncodingId::Pfor,
    EncodingId::Varint,
    EncodingId::Delta,
    EncodingId::Rle,
    EncodingId::Delta2,
    EncodingId::Plain,
];

/// Streams up to this long consider only the encodings sized from min and max: anything cleverer saves
/// at most a few bytes and costs a profile of its own.
const TINY: usize = 64;

/// Child streams of a sample this deep are priced from min and max only.
const SAMPLED_DEPTH: usize = 3;

/// The outcome of choosing one stream's encoding.
#[derive(Debug, Clone)]
pub(crate) struct Evaluation {
    /// Every encoding considered, in preference order, with its estimate or why it was skipped.
    pub candidates: Vec<Candidate>,
    /// The index of the winner in `candidates`.
    pub winner: usize,
    /// Why it won.
    pub reason: String,
    /// Rows the estimates were made on.
    pub sampled_rows: usize,
    /// Encodings chosen before the winner that did not apply to the whole stream, in order.
    pub fallbacks: Vec<Fallback>,
}

impl Evaluation {
    pub fn encoding(&self) -> EncodingId {
        self.candidates[self.winner].encoding
    }

    /// The winner's estimated size of the whole stream, id byte included.
    pub fn estimated_bytes(&self) -> usize {
        1 + self.candidates[self.winner].estimated_bytes.unwrap_or(0)
    }
}

thread_local! {
    /// Nanoseconds this thread has spent choosing, and whether a choice is under way (nested choices of
    /// child streams are part of the outer one's time).
    static CHOOSING: Cell<(u64, bool)> = const { Cell::new((0, false)) };
}

/// Nanoseconds this thread has spent in [`evaluate`] so far.
pub(crate) fn choosing_ns() -> u64 {
    CHOOSING.with(|c| c.get().0)
}

/// Chooses the encoding of `values` (whose min/max/OR are `stats`) at `params.depth` for `params.objective`.
pub(crate) fn evaluate<T: LwcInt>(values: &[T], stats: &Stats<T>, params: &Params) -> Evaluation {
    let outermost = CHOOSING.with(|c| {
        let (ns, busy) = c.get();
        c.set((ns, true));
        !busy
    });
    let start = outermost.then(Instant::now);
    let evaluation = evaluate_untimed(values, stats, params);
    if let Some(start) = start {
        CHOOSING.with(|c| c.set((c.get().0 + start.elapsed().as_nanos() as u64, false)));
    }
    evaluation
}

fn evaluate_untimed<T: LwcInt>(values: &[T], stats: &Stats<T>, params: &Params) -> Evaluation {
    let n = values.len();
    if stats.min == stats.max {
        return single(EncodingId::Constant, 8, "every value is the same", n);
    }
    let profile = Profile::of(values, stats);
    // A child stream of a sample (run values, run ends) breaks its step where the sample's runs meet;
    // the full stream's child has no such seams, so a few breaks still price it as a sequence.
    if params.sampled && (1..=profile::RUNS).contains(&profile.step_breaks(profile::RUNS)) {
        return single(EncodingId::Sequence, 16, "an arithmetic sequence but for the seams of the sample", n);
    }
    if profile.uniform_step && !params.is_excluded(EncodingId::Sequence) {
        // Not verified here: the encoder checks every step anyway, and on a miss the stream is chosen
        // again without `sequence` (see `encodings::encode_stream_at`), so sequences cost one pass, not two.
        return single(EncodingId::Sequence, 16, "an arithmetic sequence: two numbers answer everything", n);
    }
    let room_for_children = params.depth + 1 < MAX_CASCADE_DEPTH;
    let range_bits = stats.range_bits();
    let model = CostModel::current();
    let plain = model.costs(EncodingId::Plain, T::Unsigned::BITS, size_of::<T>() as f64);
    let mut candidates: Vec<Candidate> = CANDIDATES
        .iter()
        .map(|&id| {
            let (estimate, note) = match skip_reason(id, &profile, range_bits, room_for_children, n, params) {
                Some(reason) => (None, reason),
                None => {
                    let exact = exact_from_stats(id);
                    let estimate = match exact {
                        true => estimate_of(id, values, stats, &Params::chosen(id, params)),
                        false => sampled_estimate(id, &profile, stats, params),
                    };
                    let note = match estimate {
                        None => "does not apply to this data",
                        Some(_) if exact || profile.is_whole() => "exact",
                        Some(_) => "sampled",
                    };
                    (estimate, note)
                }
            };
            let width = cost_width(id, stats, &profile);
            let costs = estimate.map(|bytes| model.costs(id, width, bytes as f64 / n.max(1) as f64));
            Candidate { encoding: id, estimated_bytes: estimate, costs, note }
        })
        .collect();
    // Estimates inside a sample are never shown: they skip writing out why.
    let (winner, reason) = decide(&candidates, params.objective, plain, !params.sampled);
    // The top encoding's parameters are the defaults: for_n's block and delta's stride.
    candidates.shrink_to_fit();
    Evaluation { candidates, winner, reason, sampled_rows: profile.sample.len(), fallbacks: Vec::new() }
}

/// An evaluation with one obvious candidate.
fn single(id: EncodingId, bytes: usize, reason: &'static str, n: usize) -> Evaluation {
    let costs = CostModel::current().costs(id, 0, bytes as f64 / n.max(1) as f64);
    Evaluation {
        candidates: vec![Candidate { encoding: id, estimated_bytes: Some(bytes), costs: Some(costs), note: "exact" }],
        winner: 0,
        reason: reason.to_string(),
        sampled_rows: 0,
        fallbacks: Vec::new(),
    }
}

/// Sizes plain, bit packing, frame of reference and byte packing follow from min, max and OR alone.
fn exact_from_stats(id: EncodingId) -> bool {
    matches!(id, EncodingId::Plain | EncodingId::Bitpack | EncodingId::For | EncodingId::Bytepack)
}

/// Why the profile rules `id` out, if it does.
fn skip_reason<T: LwcInt>(
    id: EncodingId,
    profile: &Profile<'_, T>,
    range_bits: u32,
    room_for_children: bool,
    n: usize,
    params: &Params,
) -> Option<&'static str> {
    let s = profile.sample.len().max(1);
    match id {
        _ if params.is_excluded(id) => Some("chosen first, but did not apply to the whole stream"),
        EncodingId::Constant => Some("values differ"),
        EncodingId::Sequence => Some("not an arithmetic sequence"),
        _ if n <= TINY && !exact_from_stats(id) => Some("too few values to pay for more than a header"),
        _ if params.sampled && params.depth >= SAMPLED_DEPTH && !exact_from_stats(id) => {
            Some("deep inside a sample's estimate: priced from min and max only")
        }
        _ if !room_for_children && !id.child_names().is_empty() => Some("no room for child streams at this depth"),
        EncodingId::Rle if 2 * profile.runs > s => Some("runs average under two rows"),
        EncodingId::Dict if 2 * profile.distinct_estimate() > n || profile.distinct() == s => {
            Some("too many distinct values")
        }
        EncodingId::Dict if (profile.distinct_estimate() as u128) << 1 > 1u128 << range_bits => {
            Some("values fill their range: codes would be as wide as the values")
        }
        EncodingId::Gcd if profile.gcd <= 1 => Some("no common divisor"),
        EncodingId::Delta if !profile.ascending && profile.delta_bits + 2 > range_bits => {
            Some("unsorted, and differences are not narrower than the values")
        }
        EncodingId::Delta2 if !profile.ascending => Some("not sorted"),
        EncodingId::ForN | EncodingId::Pfor | EncodingId::Varint if range_bits <= 8 => {
            Some("values already fit 8 bits")
        }
        _ => None,
    }
}

/// The estimate of `id` on the profile's sample, scaled to the `n` rows of the stream.
///
/// The encoders are handed the stream's min, max and OR, not the sample's: a reference or a width taken
/// from the sample would price an encoding the full stream cannot have (one small outlier the sample
/// missed sets every `pfor` residual's width).
fn sampled_estimate<T: LwcInt>(
    id: EncodingId,
    profile: &Profile<'_, T>,
    stats: &Stats<T>,
    params: &Params,
) -> Option<usize> {
    if profile.is_whole() {
        return estimate_of(id, &profile.sample, stats, &Params::chosen(id, params));
    }
    if id == EncodingId::ForN && !profile.has_extremes {
        // One block holding an extreme the sample missed widens every block's residuals: assume the worst.
        let n = (profile.sample.len() as f64 * profile.scale) as usize;
        let references = n.div_ceil(params.for_n_block as usize) * size_of::<T>();
        return Some(
            16 + references + estimate_of(EncodingId::For, &[], stats, params)? + n * stats.range_bits() as usize / 8,
        );
    }
    let sampled = Params { sampled: true, ..Params::chosen(id, params) };
    let bytes = estimate_of(id, &profile.sample, stats, &sampled)?;
    if id == EncodingId::Dict {
        // The dictionary itself does not grow with the rows, it grows with the distinct values; the codes
        // grow with the rows, one bit wider per doubling of the dictionary.
        let sampled_dictionary = 16 + profile.distinct() * size_of::<T>();
        let code_bits = |d: usize| bits(d.max(2) - 1) as f64;
        let codes =
            bytes.saturating_sub(sampled_dictionary) as f64 * profile.scale * code_bits(profile.distinct_estimate())
                / code_bits(profile.distinct());
        return Some(16 + profile.distinct_estimate() * size_of::<T>() + codes as usize);
    }
    Some((bytes as f64 * profile.scale) as usize)
}

/// The width the cost model is looked up at: what the encoding's work scales with.
fn cost_width<T: LwcInt>(id: EncodingId, stats: &Stats<T>, profile: &Profile<'_, T>) -> u32 {
    match id {
        EncodingId::Bitpack | EncodingId::Plain => stats.or_bits.bits_used().max(1),
        EncodingId::Delta | EncodingId::Delta2 => profile.delta_bits.max(1),
        EncodingId::Dict => bits(profile.distinct_estimate().max(2) - 1),
        _ => stats.range_bits().max(1),
    }
}

/// Bits needed to write `x`.
fn bits(x: usize) -> u32 {
    usize::BITS - x.leading_zeros()
}

/// The index of the winner among `candidates` for `objective`, and why (when `explain`).
fn decide(candidates: &[Candidate], objective: Objective, plain: Costs, explain: bool) -> (usize, String) {
    let viable = || candidates.iter().enumerate().filter_map(|(k, c)| Some((k, c.estimated_bytes?, c.costs?)));
    // `min_by` keeps the first of equals: the earlier, preferred candidate.
    let smallest = viable().min_by_key(|&(_, bytes, _)| bytes).expect("plain always applies");
    let by = |key: &dyn Fn(usize, Costs) -> f64| {
        viable().min_by(|a, b| key(a.1, a.2).total_cmp(&key(b.1, b.2)).then(a.1.cmp(&b.1))).expect("plain")
    };
    let name = |k: usize| candidates[k].encoding.name();
    let why = |text: &dyn Fn() -> String| if explain { text() } else { String::new() };
    match objective {
        Objective::Size => (smallest.0, why(&|| format!("smallest estimate ({} bytes)", smallest.1))),
        Objective::Scan => {
            let w = by(&|_, c| c.scan_ns);
            (w.0, why(&|| format!("fastest scan ({:.2} ns/value with reading its bytes)", w.2.scan_ns)))
        }
        Objective::Random => {
            let w = by(&|_, c| c.get_ns);
            (w.0, why(&|| format!("fastest lookup ({:.1} ns/get)", w.2.get_ns)))
        }
        Objective::Mix(mix) => {
            let time = |c: Costs| mix.scan * c.scan_ns + mix.get * c.get_ns;
            let w = by(&|_, c| time(c));
            (w.0, why(&|| format!("least time for scan={},get={} ({:.2} ns/row)", mix.scan, mix.get, time(w.2))))
        }
        Objective::Balanced => {
            let even = |c: Costs| 0.5 * c.scan_ns / plain.scan_ns + 0.5 * c.get_ns / plain.get_ns;
            let limit = smallest.1 as f64 * (1.0 + BALANCED_SIZE_SLACK) + 64.0;
            let fastest_close = viable()
                .filter(|&(_, bytes, _)| bytes as f64 <= limit)
                .min_by(|a, b| even(a.2).total_cmp(&even(b.2)).then(a.1.cmp(&b.1)))
                .expect("the smallest is close to itself");
            let slack = BALANCED_SIZE_SLACK * 100.0;
            if fastest_close.0 != smallest.0 && even(fastest_close.2) <= BALANCED_SPEEDUP * even(smallest.2) {
                let (k, bytes, costs) = fastest_close;
                let reason = why(&|| {
                    format!(
                        "within {slack:.0} % of the smallest ({}, {} bytes) and {:.1}x faster to read ({bytes} bytes)",
                        name(smallest.0),
                        smallest.1,
                        even(smallest.2) / even(costs),
                    )
                });
                (k, reason)
            } else {
                let reason = why(&|| {
                    format!(
                        "smallest estimate ({} bytes); nothing within {slack:.0} % of it reads much faster",
                        smallest.1
                    )
                });
                (smallest.0, reason)
            }
        }
    }
}

impl Params {
    /// Whether `Auto` may not choose `id` for this stream.
    pub(crate) fn is_excluded(&self, id: EncodingId) -> bool {
        self.excluded & (1 << id as u32) != 0
    }

    /// The parameters of candidate `id` under `parent`'s settings: default parameters, children left to
    /// the selector (a chosen encoding's children are chosen too, where a forced one's take defaults).
    pub(crate) fn chosen(id: EncodingId, parent: &Params) -> Params {
        Params {
            excluded: parent.excluded,
            sampled: parent.sampled,
            ..Params::of(&Cascade::chosen(id), parent.depth, parent.objective)
        }
    }
}
