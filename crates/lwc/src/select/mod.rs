//! Choosing the encoding of a stream from its data and from how it will be read (seed 003; BtrBlocks'
//! sampling), and the driver that writes streams: the one place that chooses, retries and recurses.
//!
//! For every stream [`crate::Encoding::Auto`] encodes (a segment, and each child stream of the
//! encoding chosen for it, down to [`crate::MAX_CASCADE_DEPTH`] streams):
//!
//! 1. **Profile**: the min, max and bit-OR the encoders need anyway, and, on a sample of 10 runs of 64
//!    values, sortedness, run count, step, delta width, distinct values and a common divisor: the
//!    stream's [`Shape`](crate::stats::Shape).
//! 2. **Prune**: encodings that take a stream at once when they apply (constants, arithmetic sequences)
//!    are taken; the others are skipped where the shape rules them out, each with its reason, which the
//!    encoding's own file gives.
//! 3. **Estimate**: sizes that follow from min and max are exact; the others are estimated by the encoders'
//!    own size functions on the sample and scaled to the stream, child streams chosen the same way,
//!    recursively, on the sample's children.
//! 4. **Decide** by the [`Objective`], with speeds from the [`CostModel`] the caller passes.
//!
//! The winner is then encoded in full, and its child streams are chosen the same way on their full
//! values. An encoding chosen on a sample that does not fit the whole stream is dropped and the next best
//! taken. [`SegmentExplain`] records the candidates, estimates, costs, reason and fallbacks.

mod budget;
mod cost;
mod explain;
mod objective;
mod profile;

use std::cell::{Cell, RefCell};
use std::time::Instant;

pub use budget::{fit_to_budget, BudgetOption, BUDGET_STEPS};
pub(crate) use cost::TEXT_ROW_BYTES;
pub use cost::{CostModel, Costs, WIDTHS};
pub use explain::{Candidate, Fallback, SegmentExplain};
pub use objective::{AccessMix, Objective, BALANCED_SIZE_SLACK, BALANCED_SPEEDUP};

use crate::bytes::Writer;
use crate::encodings::{ByteProfile, Cascade, Children, Encoding, EncodingId, MAX_CASCADE_DEPTH};
use crate::error::{Error, Result};
use crate::stats::{Shape, Stats};
use crate::types::{LwcInt, Word};
use profile::Profile;

/// Streams up to this long consider only the encodings sized from min and max: anything cleverer saves
/// at most a few bytes and costs a profile of its own.
const TINY: usize = 64;

/// Why a block compressor is not a candidate: every lookup would decompress a block.
const BLOCKS_NEED_NO_LOOKUPS: &str = "decompresses a block for every lookup: only for objectives without lookups";

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

/// Nanoseconds spent choosing, and whether a choice is under way (choices nested in another, for child
/// streams of a sample, are part of the outer one's time).
pub(crate) type ChoosingClock = Cell<(u64, bool)>;

/// Writes and estimates streams: the cascade for this stream, the objective and cost model for `Auto`,
/// and where in the cascade it sits. Encoders see it only through the [`Children`] sink it hands them.
#[derive(Clone)]
pub(crate) struct Driver<'c> {
    model: &'c CostModel,
    objective: Objective,
    cascade: Cascade,
    /// Streams above this one (0 at the top).
    depth: usize,
    /// The stream is (a child of) a sample being estimated, not data being written.
    sampled: bool,
    /// Encodings `Auto` may not choose here (bit `id`): chosen before, they did not apply.
    excluded: u32,
    /// The stream holds float latents (a float segment's own stream; never its children).
    floats: bool,
    clock: &'c ChoosingClock,
}

impl<'c> Driver<'c> {
    /// A driver for a top-level stream.
    pub fn new(model: &'c CostModel, objective: Objective, cascade: Cascade, clock: &'c ChoosingClock) -> Self {
        Driver { model, objective, cascade, depth: 0, sampled: false, excluded: 0, floats: false, clock }
    }

    /// The same driver for a stream of float latents, which the float encodings take.
    pub fn for_floats(self, floats: bool) -> Self {
        Driver { floats, ..self }
    }

    /// The driver of child `k` with `cascade`, one stream deeper.
    fn child(&self, cascade: Cascade) -> Driver<'c> {
        Driver { cascade, depth: self.depth + 1, excluded: 0, floats: false, ..self.clone() }
    }

    /// The driver that writes or estimates `id` (its children left to `Auto`) at this stream's place.
    fn candidate(&self, id: EncodingId, sampled: bool) -> Driver<'c> {
        Driver { cascade: Cascade::chosen(id), sampled, ..self.clone() }
    }

    fn is_excluded(&self, id: EncodingId) -> bool {
        self.excluded & (1 << id as u32) != 0
    }

    /// The top encoding's parameter, as given or its default.
    fn parameter(&self, id: EncodingId) -> u32 {
        self.cascade.encoding().parameter().or(id.parameter().map(|p| p.default)).unwrap_or(0)
    }

    /// Writes `values` as a stream (id byte and body) as the cascade says, choosing where it says `Auto`;
    /// returns the cascade written and how its top encoding was chosen, if it was.
    pub fn encode<T: LwcInt>(&self, values: &[T], out: &mut Writer) -> Result<Written> {
        self.encode_with(values, &Stats::compute(values), out)
    }

    /// [`Driver::encode`] with the stream's [`Stats`] already computed by the caller (the segment
    /// encoder's own pass over the values), so no second pass computes them again.
    pub fn encode_with<T: LwcInt>(&self, values: &[T], stats: &Stats<T>, out: &mut Writer) -> Result<Written> {
        self.cascade.check()?;
        if let Some(id) = self.cascade.encoding().id() {
            let cascade = self.write(id, values, stats, out)?;
            return Ok(Written { cascade, evaluation: None });
        }
        // An encoding chosen on a sample may not fit the whole stream (a sample can look like a sequence
        // that the stream is not). Then the next best is chosen without it, and the record says so: a
        // stream `Auto` encodes never fails, as `plain` always applies.
        let mut fallbacks = Vec::new();
        let mut driver = Driver { excluded: 0, ..self.clone() };
        loop {
            let mut evaluation = driver.evaluate(values, stats);
            let id = evaluation.encoding();
            let start = out.len();
            match driver.candidate(id, false).write(id, values, stats, out) {
                Err(Error::NotApplicable { reason, .. }) if id != EncodingId::Plain => {
                    out.truncate(start);
                    driver.excluded |= 1 << id as u32;
                    fallbacks.push(Fallback { encoding: id, reason });
                }
                Err(e) => return Err(e),
                Ok(cascade) => {
                    evaluation.fallbacks = fallbacks;
                    return Ok(Written { cascade, evaluation: Some(evaluation) });
                }
            }
        }
    }

    /// Writes byte strings as a stream (id byte and body) as the cascade says; `Auto` takes the smallest
    /// estimate of the byte-string encodings (their child streams, integers, are chosen by the objective).
    pub fn encode_bytes(&self, profile: &ByteProfile<'_>, out: &mut Writer) -> Result<Written> {
        self.cascade.check()?;
        let (id, evaluation) = match self.cascade.encoding().id() {
            Some(id) => (id, None),
            None => {
                let evaluation = self.evaluate_bytes(profile);
                (evaluation.encoding(), Some(evaluation))
            }
        };
        let chosen = match evaluation {
            Some(_) => self.candidate(id, false),
            None => self.clone(),
        };
        let children = ChildWriter { driver: &chosen, written: RefCell::new(Vec::new()) };
        id.encode_bytes(profile, &children, out)?;
        let mut written = children.written.into_inner();
        written.sort_by_key(|(k, _)| *k);
        let cascade = Cascade::read(Encoding::from(id), written.into_iter().map(|(_, c)| c).collect());
        Ok(Written { cascade, evaluation })
    }

    fn evaluate_bytes(&self, profile: &ByteProfile<'_>) -> Evaluation {
        let (ns, busy) = self.clock.get();
        self.clock.set((ns, true));
        let start = (!busy).then(Instant::now);
        let rows = profile.rows.len().max(1) as f64;
        let row_bytes = profile.total_bytes as f64 / rows;
        let candidates: Vec<Candidate> = EncodingId::BYTES
            .into_iter()
            .map(|id| {
                if !id.random_access() && self.objective.reads_rows() {
                    return Candidate {
                        encoding: id,
                        estimated_bytes: None,
                        costs: None,
                        note: BLOCKS_NEED_NO_LOOKUPS,
                    };
                }
                let chosen = self.candidate(id, false);
                let sink = ChildWriter { driver: &chosen, written: RefCell::new(Vec::new()) };
                let estimate = id.estimate_bytes(profile, &sink);
                let note = match (estimate, id.random_access()) {
                    (None, _) => "nearly every string is distinct",
                    (Some(_), true) => "exact",
                    (Some(_), false) => "sampled",
                };
                let costs = estimate.map(|bytes| self.model.text_costs(id, row_bytes, bytes as f64 / rows));
                Candidate { encoding: id, estimated_bytes: estimate, costs, note }
            })
            .collect();
        let plain = candidates.len() - 1;
        let (winner, reason) = match self.objective {
            Objective::Size | Objective::Balanced => smallest_text(&candidates, self.objective),
            // Reads weighed by the model: a block compressor wins a scan only if its decode is paid for by
            // the bytes it saves.
            objective => {
                let plain_costs = candidates[plain].costs.expect("plain bytes always apply");
                decide(&candidates, objective, plain_costs, true)
            }
        };
        if let Some(start) = start {
            self.clock.set((self.clock.get().0 + start.elapsed().as_nanos() as u64, false));
        }
        Evaluation { candidates, winner, reason, sampled_rows: profile.rows.len(), fallbacks: Vec::new() }
    }

    /// Writes `values` as `id` with this driver's cascade for its children; returns the cascade written.
    fn write<T: LwcInt>(&self, id: EncodingId, values: &[T], stats: &Stats<T>, out: &mut Writer) -> Result<Cascade> {
        let parameter = self.parameter(id);
        let children = ChildWriter { driver: self, written: RefCell::new(Vec::new()) };
        id.encode(values, stats, parameter, &children, out)?;
        let mut written = children.written.into_inner();
        written.sort_by_key(|(k, _)| *k);
        Ok(Cascade::read(Encoding::with_parameter(id, parameter), written.into_iter().map(|(_, c)| c).collect()))
    }

    /// The estimate of this driver's (fixed) top encoding on `values`, body only.
    #[cfg(test)]
    pub fn estimate_top<T: LwcInt>(&self, values: &[T]) -> Option<usize> {
        let id = self.cascade.encoding().id()?;
        let sink = ChildWriter { driver: self, written: RefCell::new(Vec::new()) };
        id.estimate(values, &Stats::compute(values), self.parameter(id), &sink)
    }

    /// Chooses the encoding of `values` (whose min/max/OR are `stats`), timing the choice.
    fn evaluate<T: LwcInt>(&self, values: &[T], stats: &Stats<T>) -> Evaluation {
        let (ns, busy) = self.clock.get();
        self.clock.set((ns, true));
        let start = (!busy).then(Instant::now);
        let evaluation = self.evaluate_untimed(values, stats);
        if let Some(start) = start {
            self.clock.set((self.clock.get().0 + start.elapsed().as_nanos() as u64, false));
        }
        evaluation
    }

    fn evaluate_untimed<T: LwcInt>(&self, values: &[T], stats: &Stats<T>) -> Evaluation {
        let n = values.len();
        let profile = Profile::of(values, stats, self.sampled).of_floats(self.floats);
        let at_once = EncodingId::ALL.into_iter().filter(|&id| id.taken_at_once() && !self.is_excluded(id));
        for id in at_once {
            if id.pruned(&profile).is_none() {
                let chosen = self.candidate(id, true);
                let sink = ChildWriter { driver: &chosen, written: RefCell::new(Vec::new()) };
                // Taken at once: their size does not depend on the values (the encoder checks them anyway).
                let bytes = id.estimate_from_sample(values, stats, chosen.parameter(id), &sink, &profile);
                if let Some(bytes) = bytes {
                    return self.single(id, bytes, n);
                }
            }
        }
        let room_for_children = self.depth + 1 < MAX_CASCADE_DEPTH;
        let plain = self.model.costs(EncodingId::Plain, T::Unsigned::BITS, size_of::<T>() as f64);
        let candidates: Vec<Candidate> = EncodingId::ALL
            .into_iter()
            .map(|id| {
                let (estimate, note) = match self.skip_reason(id, &profile, room_for_children, n) {
                    Some(reason) => (None, reason),
                    None => {
                        let exact = id.sized_by_stats() || profile.is_whole();
                        let chosen = self.candidate(id, self.sampled || !exact);
                        let sink = ChildWriter { driver: &chosen, written: RefCell::new(Vec::new()) };
                        let parameter = chosen.parameter(id);
                        let estimate = match exact {
                            true => id.estimate(values, stats, parameter, &sink),
                            false => id.estimate_from_sample(profile.sample(), stats, parameter, &sink, &profile),
                        };
                        let note = match estimate {
                            None => "does not apply to this data",
                            Some(_) if exact => "exact",
                            Some(_) => "sampled",
                        };
                        (estimate, note)
                    }
                };
                let costs =
                    estimate.map(|bytes| self.model.costs(id, id.cost_width(&profile), bytes as f64 / n.max(1) as f64));
                Candidate { encoding: id, estimated_bytes: estimate, costs, note }
            })
            .collect();
        // Estimates inside a sample are never shown: they skip writing out why.
        let (winner, reason) = decide(&candidates, self.objective, plain, !self.sampled);
        Evaluation { candidates, winner, reason, sampled_rows: profile.sample_rows(), fallbacks: Vec::new() }
    }

    /// Why `id` is not estimated here: excluded, too few values, too deep, no room for children, or what
    /// the encoding's own facts say of the shape.
    fn skip_reason<T: LwcInt>(
        &self,
        id: EncodingId,
        profile: &Profile<'_, T>,
        room_for_children: bool,
        n: usize,
    ) -> Option<&'static str> {
        if self.is_excluded(id) {
            return Some("chosen first, but did not apply to the whole stream");
        }
        if !id.random_access() && self.objective.reads_rows() {
            return Some(BLOCKS_NEED_NO_LOOKUPS);
        }
        if id.taken_at_once() {
            return id.pruned(profile);
        }
        if n <= TINY && !id.sized_by_stats() {
            return Some("too few values to pay for more than a header");
        }
        if self.sampled && self.depth >= SAMPLED_DEPTH && !id.sized_by_stats() {
            return Some("deep inside a sample's estimate: priced from min and max only");
        }
        if !room_for_children && !id.child_names().is_empty() {
            return Some("no room for child streams at this depth");
        }
        id.pruned(profile)
    }

    /// An evaluation with one obvious candidate, taken at once.
    fn single(&self, id: EncodingId, bytes: usize, n: usize) -> Evaluation {
        let costs = self.model.costs(id, 0, bytes as f64 / n.max(1) as f64);
        Evaluation {
            candidates: vec![Candidate {
                encoding: id,
                estimated_bytes: Some(bytes),
                costs: Some(costs),
                note: "exact",
            }],
            winner: 0,
            reason: id.taken_because().to_string(),
            sampled_rows: 0,
            fallbacks: Vec::new(),
        }
    }
}

/// What [`Driver::encode`] wrote: the cascade (the encodings of the stream and of its child streams), and
/// how the top encoding was chosen when `Auto` chose it.
pub(crate) struct Written {
    pub cascade: Cascade,
    pub evaluation: Option<Evaluation>,
}

impl Written {
    /// The cost model's price of reading what was written: the winner's modeled costs, with the bytes a
    /// scan streams in taken from the segment as written rather than from the estimate; an encoding given
    /// by the caller is priced at the bits it spends per value.
    pub fn read_costs(&self, model: &CostModel, rows: usize, bytes: usize) -> Costs {
        let id = self.cascade.encoding().id().expect("a written stream has an encoding");
        let rows = rows.max(1) as f64;
        let actual = bytes as f64 / rows;
        let chosen = self.evaluation.as_ref().and_then(|e| e.candidates.iter().find(|c| c.encoding == id));
        match chosen {
            Some(Candidate { estimated_bytes: Some(estimated), costs: Some(costs), .. }) => Costs {
                scan_ns: costs.scan_ns + (actual - *estimated as f64 / rows) / model.bandwidth,
                get_ns: costs.get_ns,
            },
            // Strings in an encoding the caller gave: the row length is not known here, so priced as
            // reading their bytes.
            _ if id.family() == crate::encodings::Family::Bytes => {
                Costs { scan_ns: actual / model.bandwidth, get_ns: model.costs(EncodingId::Plain, 64, 0.0).get_ns }
            }
            _ => model.costs(id, (8.0 * actual).ceil().clamp(1.0, 64.0) as u32, actual),
        }
    }

    /// The explain record of a segment of `rows` rows written this way into `bytes` bytes: the choice, its
    /// price, and `(choose_ns, started)`: the time spent choosing and when encoding began.
    pub fn explain(
        &self,
        rows: usize,
        nulls: usize,
        objective: Objective,
        bytes: usize,
        read_costs: Costs,
        (choose_ns, started): (u64, Instant),
    ) -> SegmentExplain {
        let mut explain = SegmentExplain::new(rows, nulls, objective, self.evaluation.clone());
        explain.chosen = self.cascade.clone();
        explain.actual_bytes = bytes;
        explain.choose_ns = choose_ns;
        explain.encode_ns = started.elapsed().as_nanos() as u64;
        explain.read_costs = read_costs;
        explain
    }
}

/// The [`Children`] sink an encoder writes through: each child goes to the driver one stream deeper, and
/// the cascade it was written with is kept for the parent's.
struct ChildWriter<'d, 'c> {
    driver: &'d Driver<'c>,
    written: RefCell<Vec<(usize, Cascade)>>,
}

impl Children for ChildWriter<'_, '_> {
    fn given(&self, k: usize) -> bool {
        k < self.driver.cascade.children().len()
    }

    fn encode<C: LwcInt>(&self, k: usize, values: &[C], default: Encoding, out: &mut Writer) -> Result<()> {
        let written = self.driver.child(self.driver.cascade.child(k, default)).encode(values, out)?;
        self.written.borrow_mut().push((k, written.cascade));
        Ok(())
    }

    fn estimate<C: LwcInt>(&self, k: usize, values: &[C], default: Encoding) -> Option<usize> {
        let child = self.driver.child(self.driver.cascade.child(k, default));
        let stats = Stats::compute(values);
        match child.cascade.encoding().id() {
            Some(id) => {
                let sink = ChildWriter { driver: &child, written: RefCell::new(Vec::new()) };
                Some(1 + id.estimate(values, &stats, child.parameter(id), &sink)?)
            }
            None => Some(child.evaluate(values, &stats).estimated_bytes()),
        }
    }
}

/// The index of the winner among `candidates` for `objective`, and why (when `explain`).
/// The byte-string choice under `size` and `balanced`: the smallest estimate, where under `balanced` a
/// dictionary or FSST has to save more than [`BALANCED_SIZE_SLACK`] over reading the bytes in place (the
/// last, plainest candidate), since each costs a lookup or a decode per read.
fn smallest_text(candidates: &[Candidate], objective: Objective) -> (usize, String) {
    let slack = if objective == Objective::Size { 0.0 } else { BALANCED_SIZE_SLACK };
    let plain = candidates.len() - 1;
    let limit = |k: usize| match k == plain {
        true => candidates[k].estimated_bytes.map(|b| b as f64),
        false => candidates[k].estimated_bytes.map(|b| b as f64 * (1.0 + slack)),
    };
    let winner = (0..candidates.len())
        .filter_map(|k| Some((k, limit(k)?)))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map_or(plain, |(k, _)| k);
    let bytes = candidates[winner].estimated_bytes.unwrap_or(0);
    let reason = match (winner == plain, slack > 0.0) {
        (false, true) => format!(
            "smallest estimate ({bytes} bytes), and more than {:.0} % below storing the strings as they are",
            slack * 100.0
        ),
        _ => format!("smallest estimate ({bytes} bytes)"),
    };
    (winner, reason)
}

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
