//! Choosing the encoding of a stream from its data and from how it will be read (seed 003; BtrBlocks'
//! sampling), and the driver that writes streams: the one place that chooses, retries and recurses.
//!
//! For every stream [`crate::Encoding::Auto`] encodes (a segment, and each child stream of the
//! encoding chosen for it, down to [`crate::MAX_CASCADE_DEPTH`] streams):
//!
//! 1. **Profile**: the min, max and bit-OR the encoders need anyway, and, on a sample of 10 runs of 64
//!    values, sortedness, run count, step, delta width, distinct values and a common divisor: the
//!    stream's `Shape`.
//! 2. **Prune**: encodings that take a stream at once when they apply (constants, arithmetic sequences)
//!    are taken; the others are skipped where the shape rules them out, each with its reason, which the
//!    encoding's own file gives.
//! 3. **Estimate**: sizes that follow from min and max are exact; the others are estimated by the encoders'
//!    own size functions on the sample and scaled to the stream, child streams chosen the same way,
//!    recursively, on the sample's children. What lies across the seams where the sample's runs meet is
//!    left out (`Encoder::estimate_with_seams`), and a cascade's child-stream headers are not scaled.
//! 4. **Decide** by the [`Objective`], with speeds from the [`CostModel`] the caller passes.
//!
//! The winner is then encoded in full, and its child streams are chosen the same way on their full
//! values. Under `balanced`, what the segment's choice left of its size slack goes to the child streams
//! written below it: a stream of a few hundred bytes may grow by a share of the segment, not of itself,
//! where that reads much faster. An encoding chosen on a sample that does not fit the whole stream is
//! dropped and the next best taken. [`SegmentExplain`] records the candidates, estimates, costs, reason
//! and fallbacks.

mod budget;
mod cost;
mod explain;
mod objective;
mod profile;

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::Instant;

pub use budget::{fit_to_budget, BudgetOption, BUDGET_STEPS};
pub use cost::{CostModel, Costs, CACHE_LINE, SCATTERED_PARTS, TAKE_SPACING, WIDTHS, WORKING_SETS_LOG2};
pub(crate) use cost::{Price, TEXT_ROW_BYTES};
pub use explain::{Candidate, Fallback, SegmentExplain, TakeTradeoff, SLOW_TAKE};
pub use objective::{
    AccessMix, Objective, BALANCED_SIZE_SLACK, BALANCED_SPEEDUP, BALANCED_WIDE_SLACK, BALANCED_WIDE_SPEEDUP,
};

use crate::bytes::Writer;
use crate::encodings::{ByteProfile, Cascade, Children, Encoding, EncodingId, MAX_CASCADE_DEPTH};
use crate::error::{Error, Result};
use crate::kernels::bitpack;
use crate::stats::{Shape, Stats};
use crate::types::{LwcInt, Word};
use profile::Profile;

/// Streams up to this long consider only the encodings sized from min and max: anything cleverer saves
/// at most a few bytes and costs a profile of its own.
const TINY: usize = 64;

/// Read times within this fraction of the least are a tie, which the smallest candidate wins: no
/// objective buys bytes for a gain under 10 % (and a model is not that exact).
pub const TIME_TIE: f64 = 0.10;

/// Why a block compressor is not a candidate: every lookup would decompress a block.
const BLOCKS_NEED_NO_LOOKUPS: &str = "decompresses a block for every lookup: only for objectives without lookups";

/// Child streams of a sample this deep are priced from min and max only.
const SAMPLED_DEPTH: usize = 3;

/// Streams above this depth are estimated whole where the encoding says its sample misleads
/// ([`crate::encodings::Encoder::estimated_whole`]): the top stream and its children (`gcd`'s quotients of
/// long runs, delta-coded under `gcd`, were priced at 31 bytes and wrote 2,248). Deeper, `delta`'s
/// deltas of deltas were estimated whole again, and leaves priced on their samples still missed the
/// breaks: choosing took 2-7 ms a segment, and clock times with rare gaps wrote 2,029 bytes, not 431.
const WHOLE_DEPTH: usize = 2;

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
    /// Each candidate's in-cache price, its cascade included (`None` where it has no estimate).
    prices: Vec<Option<Price>>,
    /// Each candidate's own price, as measured with its default children.
    own_prices: Vec<Option<Price>>,
    /// Bits of the stream's range: the width an encoding that was not a candidate is priced at.
    width: u32,
    /// The child streams' cascades the winner was estimated with (empty where it has none).
    winner_children: Vec<Cascade>,
}

impl Evaluation {
    pub fn encoding(&self) -> EncodingId {
        self.candidates[self.winner].encoding
    }

    /// The winner's estimated size of the whole stream, id byte included.
    pub fn estimated_bytes(&self) -> usize {
        1 + self.candidates[self.winner].estimated_bytes.unwrap_or(0)
    }

    /// The winner as it was estimated, its children's cascades included.
    fn estimated_cascade(&self) -> Cascade {
        Cascade::read(self.encoding().into(), self.winner_children.clone())
    }

    /// The winner's in-cache price.
    fn price(&self) -> Price {
        self.prices[self.winner].expect("the winner has an estimate")
    }

    /// The price of `id` on this stream: its candidate's where it had one, else from the model at the
    /// stream's width with the winner's bytes.
    fn price_of(&self, id: EncodingId, model: &CostModel) -> Price {
        let candidate = self.candidates.iter().position(|c| c.encoding == id).and_then(|k| self.prices[k]);
        candidate.unwrap_or_else(|| model.default_price(id, self.width, self.price().bytes_per_value))
    }
}

/// A child stream as its parent's estimate or write left it: its rows, what reading it costs as chosen,
/// and as the encoder's default for it would have cost (the parent's calibration read that one).
#[derive(Debug, Clone, Copy)]
struct ChildPrice {
    k: usize,
    rows: usize,
    /// The chosen cascade's top encoding.
    encoding: Option<EncodingId>,
    chosen: Price,
    default: Price,
}

/// The price of a stream of `rows` values written as `id` (its own measured price `own`, which read the
/// default children) with `children` as they were chosen: each child's difference to its default,
/// times how often the parent reads it, and the cache lines its reads touch.
fn compose(own: Price, id: EncodingId, parameter: u32, rows: usize, children: &[ChildPrice]) -> Price {
    let own = patched(own, rows, children);
    let mut price = own;
    for child in children {
        let reads = id.child_reads(child.k, parameter, rows, child.rows);
        let per_value = child.rows as f64 / rows.max(1) as f64;
        let (chosen, default) = (child.chosen, child.default);
        price.decode_ns += per_value * (chosen.decode_ns - default.decode_ns);
        price.walk_ns += per_value * (chosen.decode_ns - default.decode_ns);
        // A take of one row in TAKE_SPACING walks on from the position before, not from a data point.
        let walked = chosen.walk_ns - default.walk_ns;
        price.get_ns += reads.gets * (chosen.get_ns - default.get_ns) + reads.values * walked;
        let taken = reads.gets * (chosen.take_ns - default.take_ns) + reads.values.min(TAKE_SPACING as f64) * walked;
        // A search is a bisection over lookups unless the child finds a rank its own way.
        let bisection = ((child.rows + 1) as f64).log2();
        let (chosen_probes, default_probes) =
            (chosen.search_gets.unwrap_or(bisection), default.search_gets.unwrap_or(bisection));
        let searched = reads.searches * (chosen_probes * chosen.get_ns - default_probes * default.get_ns);
        // A take's search gallops on from the position before, over the child values of TAKE_SPACING
        // rows: `2 log2(passed + 1)` probes where that is fewer (`rle` over months and years, run ends
        // read in place: 37-45 ns a position, priced 63-70 by a bisection); or it walks on (below).
        let galloped = 2.0 * (per_value * TAKE_SPACING as f64 + 1.0).log2();
        let probes = |p: &Price| p.search_gets.unwrap_or(bisection.min(galloped));
        let searched_on = reads.searches * (probes(&chosen) * chosen.get_ns - probes(&default) * default.get_ns);
        price.get_ns += searched;
        price.take_ns += taken + searched_on;
        price.scattered_ns += taken + searched_on;
        let (lookups, streamed) =
            (reads.gets + reads.searches * chosen_probes, reads.values * chosen.bytes_per_value / CACHE_LINE);
        price.lines += lookups * chosen.lines + streamed;
        price.take_lines += lookups * chosen.take_lines + streamed;
    }
    // A take of one row in TAKE_SPACING costs at most a decode of the rows from one position to the next
    // and the position's own read: where searching each position costs more, the take walks on through
    // the children instead (`rle(delta(dict), delta)` over l_orderkey: 31 ns a position of a take, where
    // its lookup's search of the run ends took 232).
    let walked_on = TAKE_SPACING as f64 * price.decode_ns;
    price.take_ns = price.take_ns.min(walked_on + own.take_ns);
    price.scattered_ns = price.scattered_ns.min(walked_on + own.scattered_ns);
    // A child far cheaper than its default cannot make the parent's own work negative.
    price.decode_ns = price.decode_ns.max(own.decode_ns * 0.25);
    price.walk_ns = price.walk_ns.max(own.walk_ns * 0.25);
    price.get_ns = price.get_ns.max(own.get_ns * 0.25);
    price.take_ns = price.take_ns.max(own.take_ns * 0.25);
    price.scattered_ns = price.scattered_ns.max(own.scattered_ns * 0.25);
    // Children that make the cascade read a row as one of them does: a column of its segments reads a
    // scattered take's rows in place as one of that child's segments does. A segment's own get and take
    // still dispatch to the children (`rle(sequence, sequence)` measured 2x a sequence's price so).
    let encoding_of = |k| children.iter().find(|c| c.k == k).and_then(|c| c.encoding);
    if let Some(like) = id.scattered_as_child(&encoding_of).and_then(|k| children.iter().find(|c| c.k == k)) {
        price.scattered_ns = like.chosen.scattered_ns;
    }
    price
}

/// The in-cache price of `id` with its default children on a stream of this shape, stored in
/// `bytes_per_value`: at its cost width, its decode priced as the passes of other encodings' whose work
/// it does there (see [`crate::encodings::Encoder::decodes_as`]). A walk over it is left as measured.
fn own_price(model: &CostModel, id: EncodingId, shape: &dyn Shape, parameter: u32, bytes_per_value: f64) -> Price {
    let width = id.cost_width(shape);
    let price = model.price(id, width, parameter, bytes_per_value);
    let passes = id.decodes_as(shape);
    if passes.is_empty() {
        return price;
    }
    let decode_ns = passes.iter().map(|&like| model.default_price(like, width, bytes_per_value).decode_ns).sum();
    Price { decode_ns, ..price }
}

/// A patched encoding's own price at the stream's share of patched rows (the rows of its child 0) instead of
/// its calibration's: the patching scales with the patched rows. A take over several segments pays the
/// same patching as one segment's; the rest of its cost is the segments'.
fn patched(own: Price, rows: usize, children: &[ChildPrice]) -> Price {
    let (Some(p), Some(patched)) = (own.patching, children.iter().find(|c| c.k == 0)) else {
        return own;
    };
    let more = patched.rows as f64 / rows.max(1) as f64 / p.share - 1.0;
    Price {
        decode_ns: own.decode_ns + more * p.decode_ns,
        walk_ns: own.walk_ns + more * p.decode_ns,
        take_ns: own.take_ns + more * p.take_ns,
        scattered_ns: own.scattered_ns + more * p.take_ns,
        ..own
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
    /// Where the stream, a child of a sample, joins runs from far-apart rows (see
    /// [`crate::encodings::Encoder::estimate_with_seams`]).
    seams: Rc<[usize]>,
    /// Encodings `Auto` may not choose here (bit `id`): chosen before, they did not apply.
    excluded: u32,
    /// The stream holds float latents (a float segment's own stream; never its children).
    floats: bool,
    /// The rows read together over the segment's rows: a stream's bytes times this are its working set.
    working_set_scale: f64,
    /// Under `balanced`, the bytes of the segment's size slack its top choice left: child streams written
    /// below it may spend them on a candidate that reads much faster than their smallest (see
    /// [`Driver::leave_slack`]). Shared by every driver of one segment.
    slack_left: Rc<Cell<f64>>,
    clock: &'c ChoosingClock,
}

impl<'c> Driver<'c> {
    /// A driver for a top-level stream.
    pub fn new(model: &'c CostModel, objective: Objective, cascade: Cascade, clock: &'c ChoosingClock) -> Self {
        Driver {
            model,
            objective,
            cascade,
            depth: 0,
            sampled: false,
            seams: Rc::new([]),
            excluded: 0,
            floats: false,
            working_set_scale: 1.0,
            slack_left: Rc::new(Cell::new(0.0)),
            clock,
        }
    }

    /// The same driver for a segment of `rows` rows read together with others, `working_set_rows` rows in
    /// all (at least the segment's own): lookups are priced at the working set that many rows make.
    pub fn reading_together(self, rows: usize, working_set_rows: Option<u64>) -> Self {
        let scale = working_set_rows.map_or(1.0, |w| w as f64 / rows.max(1) as f64).max(1.0);
        Driver { working_set_scale: scale, ..self }
    }

    /// What reading a stream of `price` in `bytes` costs here: lookups at the working set of the rows read
    /// together, and a take over many segments where this is a segment's top stream read with others
    /// (a child is read through its parent, in one segment).
    fn costs_at(&self, price: Price, bytes: f64) -> Costs {
        self.model.costs_at(price, bytes * self.working_set_scale, self.scattered())
    }

    /// Whether a take reads this stream as one of a column's many segments (see [`Driver::costs_at`]).
    fn scattered(&self) -> bool {
        self.depth == 0 && self.working_set_scale > 1.0
    }

    /// Under `balanced`, before the winner of this segment's top choice is written: what is left of the
    /// segment's [`BALANCED_SIZE_SLACK`] over its smallest candidate goes to the child streams. Each child
    /// chooses by its own bytes, where a few hundred bytes can be most of its size and nothing of the
    /// segment's: the 98 data points of the ends of 100,000 FSST-compressed rows, 100 bytes smaller as
    /// `delta(for, constant)` than as `bitpack`, made a take of 17 rows 2.7x slower.
    fn leave_slack(&self, candidates: &[Candidate], winner: usize) {
        if self.depth > 0 {
            return;
        }
        let smallest = candidates.iter().filter_map(|c| c.estimated_bytes).min();
        let left = match (self.objective, smallest, candidates[winner].estimated_bytes) {
            (Objective::Balanced, Some(smallest), Some(winner)) => {
                (smallest as f64 * BALANCED_SIZE_SLACK - winner.saturating_sub(smallest) as f64).max(0.0)
            }
            _ => 0.0,
        };
        self.slack_left.set(left);
    }

    /// The segment's slack a choice of this stream may spend: only a child stream about to be written.
    fn slack_to_spend(&self, to_write: bool) -> f64 {
        match to_write && self.depth > 0 && !self.sampled {
            true => self.slack_left.get(),
            false => 0.0,
        }
    }

    /// The same driver for a stream of float latents, which the float encodings take.
    pub fn for_floats(self, floats: bool) -> Self {
        Driver { floats, ..self }
    }

    /// The driver of child `k` with `cascade`, one stream deeper.
    fn child(&self, cascade: Cascade) -> Driver<'c> {
        Driver { cascade, depth: self.depth + 1, excluded: 0, floats: false, seams: Rc::new([]), ..self.clone() }
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
    #[cfg(test)]
    pub fn encode<T: LwcInt>(&self, values: &[T], out: &mut Writer) -> Result<Written> {
        self.encode_with(values, &Stats::compute(values), out)
    }

    /// [`Driver::encode`] with the stream's [`Stats`] already computed by the caller (the segment
    /// encoder's own pass over the values), so no second pass computes them again.
    pub fn encode_with<T: LwcInt>(&self, values: &[T], stats: &Stats<T>, out: &mut Writer) -> Result<Written> {
        self.cascade.check()?;
        if let Some(id) = self.cascade.encoding().id() {
            let start = out.len();
            let (cascade, children) = self.write(id, values, stats, out)?;
            let bytes_per_value = (out.len() - start) as f64 / values.len().max(1) as f64;
            let parameter = self.parameter(id);
            let own = own_price(self.model, id, &Profile::of(values, stats, self.sampled), parameter, bytes_per_value);
            let price = compose(own, id, parameter, values.len(), &children);
            return Ok(self.written(cascade, None, price));
        }
        // An encoding chosen on a sample may not fit the whole stream (a sample can look like a sequence
        // that the stream is not). Then the next best is chosen without it, and the record says so: a
        // stream `Auto` encodes never fails, as `plain` always applies.
        let mut fallbacks = Vec::new();
        let mut driver = Driver { excluded: 0, ..self.clone() };
        loop {
            let mut evaluation = driver.evaluate(values, stats, true);
            driver.leave_slack(&evaluation.candidates, evaluation.winner);
            let id = evaluation.encoding();
            let start = out.len();
            match driver.candidate(id, false).write(id, values, stats, out) {
                Err(Error::NotApplicable { reason, .. }) if id != EncodingId::Plain => {
                    out.truncate(start);
                    driver.excluded |= 1 << id as u32;
                    fallbacks.push(Fallback { encoding: id, reason });
                }
                Err(e) => return Err(e),
                Ok((cascade, children)) => {
                    evaluation.fallbacks = fallbacks;
                    // Its own price as estimated, with the children as written on all the values.
                    let own = evaluation.own_prices[evaluation.winner].expect("the winner has an estimate");
                    let price = compose(own, id, driver.parameter(id), values.len(), &children);
                    return Ok(self.written(cascade, Some(evaluation), price));
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
                self.leave_slack(&evaluation.candidates, evaluation.winner);
                (evaluation.encoding(), Some(evaluation))
            }
        };
        let chosen = match evaluation {
            Some(_) => self.candidate(id, false),
            None => self.clone(),
        };
        let children = ChildWriter::new(&chosen);
        let start = out.len();
        id.encode_bytes(profile, &children, out)?;
        let rows = profile.rows.len();
        let (children, priced) = children.finish();
        let cascade = Cascade::read(Encoding::from(id), children);
        let bytes_per_row = (out.len() - start) as f64 / rows.max(1) as f64;
        let own = self.model.text_price(id, profile.total_bytes as f64 / rows.max(1) as f64, bytes_per_row);
        Ok(self.written(cascade, evaluation, compose(own, id, 0, rows, &priced)))
    }

    /// What was written, priced for reading at this driver's working set.
    fn written(&self, cascade: Cascade, evaluation: Option<Evaluation>, price: Price) -> Written {
        Written { cascade, evaluation, price, working_set_scale: self.working_set_scale, scattered: self.scattered() }
    }

    fn evaluate_bytes(&self, profile: &ByteProfile<'_>) -> Evaluation {
        let (ns, busy) = self.clock.get();
        self.clock.set((ns, true));
        let start = (!busy).then(Instant::now);
        let rows = profile.rows.len().max(1) as f64;
        let row_bytes = profile.total_bytes as f64 / rows;
        let mut prices = Vec::new();
        let candidates: Vec<Candidate> = EncodingId::BYTES
            .into_iter()
            .map(|id| {
                if !id.random_access() && self.objective.reads_rows() {
                    prices.push((None, None));
                    return Candidate {
                        encoding: id,
                        estimated_bytes: None,
                        costs: None,
                        note: BLOCKS_NEED_NO_LOOKUPS,
                    };
                }
                let chosen = self.candidate(id, false);
                let sink = ChildWriter::new(&chosen);
                let estimate = id.estimate_bytes(profile, &sink);
                let note = match (estimate, id.random_access()) {
                    (None, _) => "nearly every string is distinct",
                    (Some(_), true) => "exact",
                    (Some(_), false) => "sampled",
                };
                let own = estimate.map(|bytes| self.model.text_price(id, row_bytes, bytes as f64 / rows));
                let (price, costs, _) = self.priced(own, id, 0, profile.rows.len(), estimate, sink);
                prices.push((own, price));
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
                decide(&candidates, objective, plain_costs, false, SegmentSlack::NONE).0
            }
        };
        if let Some(start) = start {
            self.clock.set((self.clock.get().0 + start.elapsed().as_nanos() as u64, false));
        }
        let (own_prices, prices) = prices.into_iter().unzip();
        Evaluation {
            candidates,
            winner,
            reason,
            sampled_rows: profile.rows.len(),
            fallbacks: Vec::new(),
            prices,
            own_prices,
            width: 0,
            winner_children: Vec::new(),
        }
    }

    /// A candidate's price with its children as `sink` saw them estimated, its costs at the working set
    /// of its `estimate` bytes, and the children's cascades.
    fn priced(
        &self,
        own: Option<Price>,
        id: EncodingId,
        parameter: u32,
        rows: usize,
        estimate: Option<usize>,
        sink: ChildWriter<'_, '_>,
    ) -> (Option<Price>, Option<Costs>, Vec<Cascade>) {
        let (Some(own), Some(bytes)) = (own, estimate) else { return (None, None, Vec::new()) };
        let (children, priced) = sink.finish();
        let price = compose(own, id, parameter, rows, &priced);
        (Some(price), Some(self.costs_at(price, bytes as f64)), children)
    }

    /// Writes `values` as `id` with this driver's cascade for its children; returns the cascade written
    /// and the children's prices.
    fn write<T: LwcInt>(
        &self,
        id: EncodingId,
        values: &[T],
        stats: &Stats<T>,
        out: &mut Writer,
    ) -> Result<(Cascade, Vec<ChildPrice>)> {
        let parameter = self.parameter(id);
        let children = ChildWriter::new(self);
        id.encode(values, stats, parameter, &children, out)?;
        let (children, priced) = children.finish();
        Ok((Cascade::read(Encoding::with_parameter(id, parameter), children), priced))
    }

    /// The estimate of this driver's (fixed) top encoding on `values`, body only.
    #[cfg(test)]
    pub fn estimate_top<T: LwcInt>(&self, values: &[T]) -> Option<usize> {
        let id = self.cascade.encoding().id()?;
        let sink = ChildWriter::new(self);
        id.estimate(values, &Stats::compute(values), self.parameter(id), &sink, &[], None)
    }

    /// Chooses the encoding of `values` (whose min/max/OR are `stats`), timing the choice; `to_write`
    /// when the stream is written next, not only estimated.
    fn evaluate<T: LwcInt>(&self, values: &[T], stats: &Stats<T>, to_write: bool) -> Evaluation {
        let (ns, busy) = self.clock.get();
        self.clock.set((ns, true));
        let start = (!busy).then(Instant::now);
        let evaluation = self.evaluate_untimed(values, stats, to_write);
        if let Some(start) = start {
            self.clock.set((self.clock.get().0 + start.elapsed().as_nanos() as u64, false));
        }
        evaluation
    }

    fn evaluate_untimed<T: LwcInt>(&self, values: &[T], stats: &Stats<T>, to_write: bool) -> Evaluation {
        let n = values.len();
        let profile = Profile::of(values, stats, self.sampled).of_floats(self.floats).with_seams(&self.seams);
        let at_once = EncodingId::ALL.into_iter().filter(|&id| id.taken_at_once() && !self.is_excluded(id));
        for id in at_once {
            if id.pruned(&profile).is_none() {
                let chosen = self.candidate(id, true);
                let sink = ChildWriter::new(&chosen);
                // Taken at once: their size does not depend on the values. A stream about to be written is
                // checked by the encoder, which chooses again on a miss; a child stream of rows only
                // estimated is checked here, or any whose sample looked like a sequence was priced as one
                // (clock times with rare gaps, estimated whole, were priced at 201 bytes and wrote 13,387).
                let parameter = chosen.parameter(id);
                let bytes = match to_write || self.sampled {
                    true => id.estimate_from_sample(values, stats, parameter, &sink, &profile),
                    false => id.estimate(values, stats, parameter, &sink, &self.seams, Some(&profile)),
                };
                if let Some(bytes) = bytes {
                    return self.single(id, bytes, n, stats.range_bits());
                }
            }
        }
        let room_for_children = self.depth + 1 < MAX_CASCADE_DEPTH;
        let plain_bytes = size_of::<T>() as f64;
        let plain = self.model.price(EncodingId::Plain, T::Unsigned::BITS, 0, plain_bytes);
        let plain = self.costs_at(plain, plain_bytes * n as f64);
        let mut prices = Vec::with_capacity(EncodingId::ALL.len());
        let mut children = Vec::with_capacity(EncodingId::ALL.len());
        let candidates: Vec<Candidate> = EncodingId::ALL
            .into_iter()
            .map(|id| {
                let (estimate, note, priced) = match self.skip_reason(id, &profile, room_for_children, n) {
                    Some(reason) => (None, reason, (None, None, None, Vec::new())),
                    None => {
                        let misleading = self.depth < WHOLE_DEPTH && id.estimated_whole(&profile);
                        let exact = id.sized_by_stats() || profile.is_whole() || misleading;
                        let chosen = self.candidate(id, self.sampled || !exact);
                        let sink = ChildWriter::new(&chosen);
                        let parameter = chosen.parameter(id);
                        let estimate = match exact {
                            true => id.estimate(values, stats, parameter, &sink, &self.seams, Some(&profile)),
                            false => id.estimate_from_sample(profile.sample(), stats, parameter, &sink, &profile),
                        };
                        let note = match estimate {
                            None => "does not apply to this data",
                            Some(_) if exact => "exact",
                            Some(_) => "sampled",
                        };
                        let own = estimate.map(|bytes| {
                            own_price(self.model, id, &profile, parameter, bytes as f64 / n.max(1) as f64)
                        });
                        let (price, costs, cascades) = self.priced(own, id, parameter, n, estimate, sink);
                        (estimate, note, (own, price, costs, cascades))
                    }
                };
                let (own, price, costs, cascades) = priced;
                prices.push((own, price));
                children.push(cascades);
                Candidate { encoding: id, estimated_bytes: estimate, costs, note }
            })
            .collect();
        // Estimates inside a sample are never shown: they skip writing out why.
        let slack = self.slack_to_spend(to_write);
        let own: Vec<Option<Costs>> = match slack > 0.0 {
            true => (prices.iter().zip(&candidates))
                .map(|(&(own, _), c)| Some(self.costs_at(own?, c.estimated_bytes? as f64)))
                .collect(),
            false => Vec::new(),
        };
        let segment = SegmentSlack { bytes: slack, own: &own };
        let ((winner, reason), spent) = decide(&candidates, self.objective, plain, self.sampled, segment);
        self.slack_left.set(self.slack_left.get() - spent);
        let (own_prices, prices) = prices.into_iter().unzip();
        Evaluation {
            candidates,
            winner,
            reason,
            sampled_rows: profile.sample_rows(),
            fallbacks: Vec::new(),
            prices,
            own_prices,
            width: stats.range_bits().max(1),
            winner_children: children.swap_remove(winner),
        }
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
            // Estimated first, before any other: one not taken then does not fit the stream, and a sample
            // it fits would price it again at nothing (the codes of runs 2,000 rows long, as a `sequence`).
            return Some(id.pruned(profile).unwrap_or("does not apply to this data"));
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
    fn single(&self, id: EncodingId, bytes: usize, n: usize, range_bits: u32) -> Evaluation {
        let price = self.model.price(id, 0, self.parameter(id), bytes as f64 / n.max(1) as f64);
        let costs = self.costs_at(price, bytes as f64);
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
            prices: vec![Some(price)],
            own_prices: vec![Some(price)],
            width: range_bits.max(1),
            winner_children: Vec::new(),
        }
    }
}

/// What [`Driver::encode`] wrote: the cascade (the encodings of the stream and of its child streams), and
/// how the top encoding was chosen when `Auto` chose it.
pub(crate) struct Written {
    pub cascade: Cascade,
    pub evaluation: Option<Evaluation>,
    /// The in-cache price of reading it, children as written.
    price: Price,
    working_set_scale: f64,
    /// Takes read it as one of a column's many segments.
    scattered: bool,
}

impl Written {
    /// The cost model's price of reading what was written, as a segment of `rows` rows in `bytes` bytes:
    /// its cascade priced whole, the bytes a scan streams in and the working set of lookups taken from
    /// the segment as written.
    pub fn read_costs(&self, model: &CostModel, rows: usize, bytes: usize) -> Costs {
        let price = Price { bytes_per_value: bytes as f64 / rows.max(1) as f64, ..self.price };
        model.costs_at(price, bytes as f64 * self.working_set_scale, self.scattered)
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
/// the cascade it was written or estimated with, and its price, are kept for the parent's.
struct ChildWriter<'d, 'c> {
    driver: &'d Driver<'c>,
    written: RefCell<Vec<(usize, Cascade)>>,
    priced: RefCell<Vec<ChildPrice>>,
    /// The children's cascades a second estimate keeps (see [`Children::again_with_the_same_children`]).
    pinned: RefCell<Vec<(usize, Cascade)>>,
}

impl<'d, 'c> ChildWriter<'d, 'c> {
    fn new(driver: &'d Driver<'c>) -> Self {
        ChildWriter { driver, written: Default::default(), priced: Default::default(), pinned: Default::default() }
    }

    /// The children's cascades in child order, and their prices.
    fn finish(self) -> (Vec<Cascade>, Vec<ChildPrice>) {
        let mut written = self.written.into_inner();
        written.sort_by_key(|(k, _)| *k);
        (written.into_iter().map(|(_, c)| c).collect(), self.priced.into_inner())
    }

    /// The encoding the parent's calibration read its child `k` as: what the parent says its calibration's
    /// data makes of it, else the default itself, or `for` where the default is left to the selector
    /// (which picks a frame of reference on the calibration's values).
    fn calibrated(&self, k: usize, default: Encoding) -> Encoding {
        let parent = self.driver.cascade.encoding().id();
        match (parent.and_then(|id| id.calibrated_child(k)), default.id()) {
            (Some(calibrated), _) => calibrated,
            (None, Some(_)) => default,
            (None, None) => Encoding::For,
        }
    }

    /// The price of `default` (as [`ChildWriter::calibrated`] reads it) on a child stream of `values`
    /// (`stats`), `bytes_per_value` as chosen: what the parent's calibration read.
    fn default_price<C: LwcInt>(&self, k: usize, default: Encoding, stats: &Stats<C>, bytes_per_value: f64) -> Price {
        let default = self.calibrated(k, default);
        let id = default.id().expect("calibrated children are fixed");
        let parameter = default.parameter().or(id.parameter().map(|p| p.default)).unwrap_or(0);
        self.driver.model.price(id, stats.range_bits().max(1), parameter, bytes_per_value)
    }

    fn record(&self, k: usize, rows: usize, encoding: Option<EncodingId>, chosen: Price, default: Price) {
        self.priced.borrow_mut().push(ChildPrice { k, rows, encoding, chosen, default });
    }
}

impl Children for ChildWriter<'_, '_> {
    fn given(&self, k: usize) -> bool {
        k < self.driver.cascade.children().len()
    }

    fn again_with_the_same_children<R>(&self, estimate: impl FnOnce() -> R) -> R {
        let recorded = (self.written.borrow().len(), self.priced.borrow().len());
        self.pinned.replace(self.written.borrow().clone());
        let result = estimate();
        self.pinned.borrow_mut().clear();
        self.written.borrow_mut().truncate(recorded.0);
        self.priced.borrow_mut().truncate(recorded.1);
        result
    }

    fn encode<C: LwcInt>(&self, k: usize, values: &[C], default: Encoding, out: &mut Writer) -> Result<()> {
        let stats = Stats::compute(values);
        let written = self.driver.child(self.driver.cascade.child(k, default)).encode_with(values, &stats, out)?;
        let default = match (&written.evaluation, self.calibrated(k, default).id()) {
            (Some(e), Some(id)) => e.price_of(id, self.driver.model),
            _ => self.default_price(k, default, &stats, written.price.bytes_per_value),
        };
        self.record(k, values.len(), written.cascade.encoding().id(), written.price, default);
        self.written.borrow_mut().push((k, written.cascade));
        Ok(())
    }

    fn estimate_with_seams<C: LwcInt>(
        &self,
        k: usize,
        values: &[C],
        seams: &[usize],
        default: Encoding,
    ) -> Option<usize> {
        // A second estimate keeps the child's cascade, unless it does not apply to these rows (half of a
        // sample may hold none of `pfor`'s exceptions, which a `constant` stored on the whole).
        let pinned = self.pinned.borrow().iter().find(|(j, _)| *j == k).map(|(_, cascade)| cascade.clone());
        pinned
            .and_then(|cascade| self.estimate_as(k, cascade, values, seams, default))
            .or_else(|| self.estimate_as(k, self.driver.cascade.child(k, default), values, seams, default))
    }
}

impl ChildWriter<'_, '_> {
    /// [`Children::estimate_with_seams`] of child `k` as `cascade` (`Auto` choosing), recorded.
    fn estimate_as<C: LwcInt>(
        &self,
        k: usize,
        cascade: Cascade,
        values: &[C],
        seams: &[usize],
        default: Encoding,
    ) -> Option<usize> {
        let child = Driver { seams: seams.into(), ..self.driver.child(cascade) };
        let stats = Stats::compute(values);
        let n = values.len();
        match child.cascade.encoding().id() {
            Some(id) => {
                let sink = ChildWriter::new(&child);
                let parameter = child.parameter(id);
                let profile = Profile::of(values, &stats, true);
                let bytes = 1 + id.estimate(values, &stats, parameter, &sink, seams, Some(&profile))?;
                let bytes_per_value = bytes as f64 / n.max(1) as f64;
                let own = own_price(self.driver.model, id, &profile, parameter, bytes_per_value);
                let (grandchildren, priced) = sink.finish();
                let chosen = compose(own, id, parameter, n, &priced);
                self.record(k, n, Some(id), chosen, self.default_price(k, default, &stats, bytes_per_value));
                self.written.borrow_mut().push((k, Cascade::read(child.cascade.encoding(), grandchildren)));
                Some(bytes)
            }
            None => {
                let evaluation = child.evaluate(values, &stats, false);
                let reference = self.calibrated(k, default).id().expect("calibrated children are fixed");
                let default = evaluation.price_of(reference, self.driver.model);
                self.record(k, n, Some(evaluation.encoding()), evaluation.price(), default);
                self.written.borrow_mut().push((k, evaluation.estimated_cascade()));
                Some(evaluation.estimated_bytes())
            }
        }
    }
}

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

/// What a `balanced` choice of a child stream being written may spend of its segment's slack (see
/// [`Driver::leave_slack`]): `bytes`, on a candidate that reads much faster than the smallest could with
/// its children as the model's calibration read them (`own`, each candidate's costs so, where known). The
/// smallest's children were chosen on a sample, each by its own few bytes; written, they may spend the
/// slack too. Against its costs as estimated, `delta` over the ends of FSST-compressed rows (its data
/// points nested `delta` on the sample, 841 ns a get) lost to `delta2` (386 ns), where written with
/// `bitpack` data points it reads in 133.
struct SegmentSlack<'a> {
    bytes: f64,
    own: &'a [Option<Costs>],
}

impl SegmentSlack<'_> {
    const NONE: SegmentSlack<'static> = SegmentSlack { bytes: 0.0, own: &[] };
}

/// The index of the winner among `candidates` for `objective` and why (unless `within_a_sample`, whose
/// choices are never shown), and the bytes of the segment's slack it spent.
fn decide(
    candidates: &[Candidate],
    objective: Objective,
    plain: Costs,
    within_a_sample: bool,
    segment: SegmentSlack<'_>,
) -> ((usize, String), f64) {
    let explain = !within_a_sample;
    let viable = || candidates.iter().enumerate().filter_map(|(k, c)| Some((k, c.estimated_bytes?, c.costs?)));
    // `min_by` keeps the first of equals: the earlier, preferred candidate.
    let smallest = viable().min_by_key(|&(_, bytes, _)| bytes).expect("plain always applies");
    let by = |key: &dyn Fn(usize, Costs) -> f64| {
        viable().min_by(|a, b| key(a.1, a.2).total_cmp(&key(b.1, b.2)).then(a.1.cmp(&b.1))).expect("plain")
    };
    let name = |k: usize| candidates[k].encoding.name();
    let why = |text: &dyn Fn() -> String| if explain { text() } else { String::new() };
    // Reads within `TIME_TIE` of the least are a tie, which the smaller candidate wins.
    let least_time = |time: &dyn Fn(Costs) -> f64, what: &dyn Fn(f64) -> String| {
        let fastest = by(&|_, c| time(c));
        let limit = time(fastest.2) * (1.0 + TIME_TIE);
        let pick = viable().filter(|&(_, _, c)| time(c) <= limit).min_by_key(|&(_, bytes, _)| bytes).expect("fastest");
        let reason = why(&|| match pick.0 == fastest.0 {
            true => format!("fastest {}", what(time(pick.2))),
            false => format!(
                "smallest within {:.0} % of the fastest {} ({}, {} bytes): {}",
                TIME_TIE * 100.0,
                what(time(fastest.2)),
                name(fastest.0),
                fastest.1,
                what(time(pick.2)),
            ),
        });
        (pick.0, reason)
    };
    let unspent = |decided: (usize, String)| (decided, 0.0);
    match objective {
        Objective::Size => unspent((smallest.0, why(&|| format!("smallest estimate ({} bytes)", smallest.1)))),
        Objective::Scan => {
            unspent(least_time(&|c| c.scan_ns, &|t| format!("scan ({t:.2} ns/value with reading its bytes)")))
        }
        Objective::Random => unspent(least_time(&|c| c.get_ns, &|t| format!("lookup ({t:.1} ns/get)"))),
        Objective::Mix(mix) => unspent(least_time(&|c| mix.scan * c.scan_ns + mix.get * c.get_ns, &|t| {
            format!("time for scan={},get={} ({t:.2} ns/row)", mix.scan, mix.get)
        })),
        Objective::Balanced => {
            let even = |c: Costs| 0.5 * c.scan_ns / plain.scan_ns + 0.5 * c.get_ns / plain.get_ns;
            // A few bytes more are no matter on a small stream. A child stream of a sample stands for one
            // some hundred times larger, where only what does not grow with the rows stays that small: a
            // packed stream's padding. 64 bytes there priced the deltas of l_orderkey's run values as 5-bit
            // `bitpack` (130 bytes against `gcd`'s 70), where the segment's are 1-bit `gcd`; none let the
            // padding alone choose `radix` over `bitpack` (40 bytes against 53; 2,064 against 2,081 there).
            let few_bytes = if within_a_sample { bitpack::PADDING as f64 } else { 64.0 };
            let limit = |slack: f64| smallest.1 as f64 * (1.0 + slack) + few_bytes;
            let fits = |bytes: usize, slack: f64| bytes as f64 <= limit(slack);
            let smallest_at_best = match segment.own.get(smallest.0) {
                Some(Some(own)) => even(*own).min(even(smallest.2)),
                _ => even(smallest.2),
            };
            // Within 5 % of the smallest and much faster, or within 10 % and 4x faster: the fastest such;
            // or within the segment's slack and much faster than the smallest at best.
            let slack_taken = |bytes: usize, costs: Costs| {
                let relative = even(costs) / even(smallest.2);
                if fits(bytes, BALANCED_SIZE_SLACK) && relative <= BALANCED_SPEEDUP {
                    Some(BALANCED_SIZE_SLACK)
                } else if fits(bytes, BALANCED_WIDE_SLACK) && relative <= BALANCED_WIDE_SPEEDUP {
                    Some(BALANCED_WIDE_SLACK)
                } else if bytes as f64 <= limit(BALANCED_SIZE_SLACK) + segment.bytes
                    && even(costs) / smallest_at_best <= BALANCED_SPEEDUP
                {
                    Some(BALANCED_SIZE_SLACK)
                } else {
                    None
                }
            };
            // The smallest never qualifies: its cost relative to its own is 1.
            let faster_close = viable()
                .filter_map(|(k, bytes, costs)| Some((k, bytes, costs, slack_taken(bytes, costs)?)))
                .min_by(|a, b| even(a.2).total_cmp(&even(b.2)).then(a.1.cmp(&b.1)));
            if let Some((k, bytes, costs, slack)) = faster_close {
                let spent = (bytes as f64 - limit(slack)).max(0.0);
                let reason = why(&|| {
                    let within = match spent > 0.0 {
                        true => format!("within the segment's {:.0} %", BALANCED_SIZE_SLACK * 100.0),
                        false => format!("within {:.0} %", slack * 100.0),
                    };
                    format!(
                        "{within} of the smallest ({}, {} bytes) and {:.1}x faster to read ({bytes} bytes)",
                        name(smallest.0),
                        smallest.1,
                        even(smallest.2) / even(costs),
                    )
                });
                ((k, reason), spent)
            } else {
                let reason = why(&|| {
                    format!(
                        "smallest estimate ({} bytes); nothing within {:.0} % of it reads much faster, nor within \
                         {:.0} % 4x faster",
                        smallest.1,
                        BALANCED_SIZE_SLACK * 100.0,
                        BALANCED_WIDE_SLACK * 100.0,
                    )
                });
                unspent((smallest.0, reason))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// `lz4` over keys repeated in runs (l_orderkey's 1-7 rows of 23-bit keys) is priced as the
    /// calibration's compressible 4-bit values, and over the same keys once each by their width.
    #[test]
    fn lz4_is_priced_by_how_its_values_repeat() {
        let mut rng = crate::stats::SplitMix(5);
        let mut key = 1u32;
        let repeated: Vec<u32> = (0..65_536)
            .map(|_| {
                key += u32::from(rng.below(4) == 0) * (1 + rng.below(32) as u32);
                key
            })
            .collect();
        let once: Vec<u32> = repeated.iter().enumerate().map(|(i, &k)| k * 8 + (i % 8) as u32).collect();
        let width = |values: &[u32]| EncodingId::Lz4.cost_width(&Profile::of(values, &Stats::compute(values), false));
        assert_eq!(width(&repeated), 4);
        assert_eq!(width(&once), Stats::compute(&once).range_bits());
        assert!(width(&once) > 16);
    }

    /// A dictionary whose entries fill their range at even steps computes its values, and is priced so
    /// where the sample misses some entries too (days every tenth of 2,000 in 65,536 rows: the sample
    /// holds a few hundred): as the passes of `for` and `gcd`, not as a lookup per code.
    #[test]
    fn a_dictionary_of_evenly_spaced_entries_is_priced_as_computed() {
        let mut rng = crate::stats::SplitMix(3);
        let days: Vec<u32> = (0..65_536).map(|_| 10 * rng.below(2_000) as u32).collect();
        let (model, clock) = (CostModel::builtin(), ChoosingClock::default());
        let driver = Driver::new(&model, Objective::default(), EncodingId::Dict.into(), &clock);
        let written = driver.encode(&days, &mut Writer::new()).unwrap();
        assert_eq!(written.cascade.encoding().id(), Some(EncodingId::Dict));
        let looked_up = model.price(EncodingId::Dict, 11, 0, 2.0).decode_ns;
        let computed = [EncodingId::For, EncodingId::Gcd].map(|id| model.default_price(id, 11, 2.0).decode_ns);
        assert!(written.price.decode_ns < 0.6 * looked_up, "{} against {looked_up}", written.price.decode_ns);
        assert!((written.price.decode_ns - computed.iter().sum::<f64>()).abs() < 0.02, "{computed:?}");
    }

    /// Keys each repeated four times, written `rle(sequence, sequence)`, read a row as a sequence does
    /// over many segments: the cascade's scattered takes are priced as the sequence's, not as grouped by
    /// segment, each row's run ranked and its value read. With other run values they are not.
    #[test]
    fn equal_runs_of_a_sequence_are_priced_as_the_sequence() {
        let keys: Vec<u32> = (0..65_536).map(|i| 1 + i / 4).collect();
        let (model, clock) = (CostModel::builtin(), ChoosingClock::default());
        let price_of = |cascade: &str, values: &[u32]| {
            let driver = Driver::new(&model, Objective::default(), cascade.parse().unwrap(), &clock);
            driver.encode(values, &mut Writer::new()).unwrap().price
        };
        let runs = price_of("rle(sequence, sequence)", &keys);
        let sequence = price_of("sequence", &(1..=16_384).collect::<Vec<u32>>());
        assert_eq!(runs.scattered_ns, sequence.scattered_ns);
        assert!(runs.get_ns > sequence.get_ns, "a segment's lookup still dispatches to its children");
        let hashed: Vec<u32> = keys.iter().map(|k| k.wrapping_mul(2_654_435_761) >> 12).collect();
        let ranked = price_of("rle(bitpack, sequence)", &hashed);
        assert!(ranked.scattered_ns > runs.scattered_ns, "{} against {}", ranked.scattered_ns, runs.scattered_ns);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]

        /// Every encoding estimates a stream the same with the selector's profile of it as without: what
        /// one takes from the profile (dict: how many values are distinct) is what it would find. Streams
        /// up to 3,000 rows: a profile of more than 2,560 is a sample's, and tells less.
        #[test]
        fn estimates_with_a_profile_are_those_without(
            values in prop::collection::vec(prop_oneof![0i64..20, -5_000i64..5_000, any::<i64>()], 1..3_000)
        ) {
            let (model, clock) = (CostModel::builtin(), ChoosingClock::default());
            let stats = Stats::compute(&values);
            let profile = Profile::of(&values, &stats, false);
            for id in EncodingId::ALL {
                let driver = Driver::new(&model, Objective::default(), id.into(), &clock);
                let parameter = driver.parameter(id);
                let alone = id.estimate(&values, &stats, parameter, &ChildWriter::new(&driver), &[], None);
                let profiled = id.estimate(&values, &stats, parameter, &ChildWriter::new(&driver), &[], Some(&profile));
                prop_assert_eq!(alone, profiled, "{:?}", id);
            }
        }
    }
}
