//! Explain records: what the selector considered for a segment, and why the winner won.

use std::fmt;

use super::{Costs, Evaluation, Objective};
use crate::encodings::{Cascade, EncodingId};

/// One encoding the selector considered for a stream.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// The encoding (its child streams are chosen in turn if it wins).
    pub encoding: EncodingId,
    /// Estimated bytes of the whole stream; `None` when skipped or not applicable.
    pub estimated_bytes: Option<usize>,
    /// Estimated read costs at that size, from the [`super::CostModel`].
    pub costs: Option<Costs>,
    /// `"exact"` (from min and max, or estimated on every value), `"sampled"` (on the sample, scaled), or
    /// why the candidate was skipped.
    pub note: &'static str,
}

/// An encoding the selector chose that did not apply to the whole stream (its sample suggested it), so the
/// next best was taken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fallback {
    /// The encoding chosen first.
    pub encoding: EncodingId,
    /// Why it did not apply.
    pub reason: String,
}

/// How one segment's encoding was chosen and what it came to.
#[derive(Debug, Clone, PartialEq)]
pub struct SegmentExplain {
    /// Rows of the segment.
    pub rows: usize,
    /// Null rows.
    pub nulls: usize,
    /// What the choice optimized.
    pub objective: Objective,
    /// Every candidate, in preference order; empty when the encoding was given rather than chosen.
    pub candidates: Vec<Candidate>,
    /// Rows the estimates were made on (a sample, or all rows).
    pub sampled_rows: usize,
    /// The encoding written, with its child streams as the bytes say.
    pub chosen: Cascade,
    /// Why it won.
    pub reason: String,
    /// Encodings of the top stream chosen before the winner that did not apply to all its values.
    pub fallbacks: Vec<Fallback>,
    /// The winner's estimated stream bytes.
    pub estimated_bytes: Option<usize>,
    /// Bytes of the segment as written (header, validity and stream).
    pub actual_bytes: usize,
    /// The modeled cost of reading the segment as written (see [`crate::EncodedSegment::read_costs`]).
    pub read_costs: Costs,
    /// Nanoseconds spent choosing encodings: this stream's and its child streams'.
    pub choose_ns: u64,
    /// Nanoseconds the whole segment took to write, choosing included.
    pub encode_ns: u64,
}

impl SegmentExplain {
    pub(crate) fn new(rows: usize, nulls: usize, objective: Objective, evaluation: Option<Evaluation>) -> Self {
        let (candidates, sampled_rows, reason, fallbacks, estimated_bytes) = match evaluation {
            Some(e) => {
                let estimated = Some(e.estimated_bytes());
                (e.candidates, e.sampled_rows, e.reason, e.fallbacks, estimated)
            }
            None => (Vec::new(), 0, "given by the caller".to_string(), Vec::new(), None),
        };
        SegmentExplain {
            rows,
            nulls,
            objective,
            candidates,
            sampled_rows,
            chosen: Cascade::chosen(EncodingId::Plain),
            reason,
            fallbacks,
            estimated_bytes,
            actual_bytes: 0,
            read_costs: Costs { scan_ns: 0.0, get_ns: 0.0, take_ns: 0.0, lines: 0.0 },
            choose_ns: 0,
            encode_ns: 0,
        }
    }

    /// Time spent choosing as a fraction of the time spent writing.
    pub fn choose_share(&self) -> f64 {
        self.choose_ns as f64 / self.encode_ns.max(1) as f64
    }

    /// What a take of random rows costs a row as chosen against `plain`, and what the fastest take among the
    /// candidates, and the smallest within [`SLOW_TAKE`] of plain's, would cost in bytes: `None` when the
    /// encoding was given, or plain was not a candidate. Takes, not lone gets, because a lone get's call
    /// hides what a row costs: `radix` over ten values was modeled at 1.5x plain's get and took 1,000 random
    /// rows in 5.6x a plain gather (AMD EPYC Zen 5).
    pub fn take_tradeoff(&self) -> Option<TakeTradeoff> {
        let priced = |c: &Candidate| Some((c.encoding, c.estimated_bytes?, c.costs?));
        let chosen_id = self.chosen.encoding().id()?;
        let chosen = self.candidates.iter().filter(|c| c.encoding == chosen_id).find_map(priced)?;
        let plain = self.candidates.iter().filter(|c| c.encoding == EncodingId::Plain).find_map(priced)?;
        let fastest = self
            .candidates
            .iter()
            .filter_map(priced)
            .min_by(|a, b| a.2.take_ns.total_cmp(&b.2.take_ns).then(a.1.cmp(&b.1)))?;
        // Plain itself is within, so there is always one.
        let within = (self.candidates.iter().filter_map(priced))
            .filter(|c| c.2.take_ns <= SLOW_TAKE * plain.2.take_ns)
            .min_by(|a, b| a.1.cmp(&b.1).then(a.2.take_ns.total_cmp(&b.2.take_ns)))?;
        Some(TakeTradeoff {
            times_plain: chosen.2.take_ns / plain.2.take_ns.max(f64::MIN_POSITIVE),
            take_ns: chosen.2.take_ns,
            fastest: fastest.0,
            fastest_take_ns: fastest.2.take_ns,
            extra_bytes: fastest.1 as i64 - chosen.1 as i64,
            within: within.0,
            within_take_ns: within.2.take_ns,
            within_extra_bytes: within.1 as i64 - chosen.1 as i64,
        })
    }
}

/// A take of random rows as chosen against the fastest one on offer (see [`SegmentExplain::take_tradeoff`]):
/// the modeled cost a row, [`crate::select::Costs::take_ns`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TakeTradeoff {
    /// The chosen encoding's modeled take over plain's.
    pub times_plain: f64,
    /// The chosen encoding's modeled take, nanoseconds a row.
    pub take_ns: f64,
    /// The candidate with the fastest modeled take.
    pub fastest: EncodingId,
    /// Its modeled take, nanoseconds a row.
    pub fastest_take_ns: f64,
    /// Its estimated bytes minus the chosen one's.
    pub extra_bytes: i64,
    /// The smallest candidate whose modeled take is within [`SLOW_TAKE`] of plain's: what keeping takes
    /// within that bound costs (where the chosen one's take is within, it or a smaller one).
    pub within: EncodingId,
    /// Its modeled take, nanoseconds a row.
    pub within_take_ns: f64,
    /// Its estimated bytes minus the chosen one's.
    pub within_extra_bytes: i64,
}

/// Takes slower than this many times plain's are called out in the explain text, with what a take within
/// this bound, and the fastest take, would cost in bytes.
pub const SLOW_TAKE: f64 = 3.0;

impl fmt::Display for SegmentExplain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{} rows ({} null), objective {}: chose {} — {}",
            self.rows, self.nulls, self.objective, self.chosen, self.reason
        )?;
        let estimate = self.estimated_bytes.map_or("-".to_string(), |b| b.to_string());
        writeln!(
            f,
            "  estimated {estimate} stream bytes, wrote {} segment bytes; choosing took {:.1} µs of {:.1} µs ({:.1} %)",
            self.actual_bytes,
            self.choose_ns as f64 / 1e3,
            self.encode_ns as f64 / 1e3,
            100.0 * self.choose_share()
        )?;
        for fallback in &self.fallbacks {
            writeln!(f, "  chose {} first, but it did not apply: {}", fallback.encoding, fallback.reason)?;
        }
        if let Some(t) = self.take_tradeoff().filter(|t| t.times_plain > SLOW_TAKE) {
            writeln!(
                f,
                "  a take of random rows costs {:.1}x plain's ({:.1} ns a row); {} would take within \
                 {SLOW_TAKE}x of plain's ({:.1} ns) for {:+} bytes; the fastest, {}, in {:.1} ns for {:+}",
                t.times_plain,
                t.take_ns,
                t.within,
                t.within_take_ns,
                t.within_extra_bytes,
                t.fastest,
                t.fastest_take_ns,
                t.extra_bytes
            )?;
        }
        if !self.candidates.is_empty() {
            writeln!(
                f,
                "  {:<9} {:>12} {:>10} {:>9} {:>9} {:>6}  note",
                "candidate", "est. bytes", "scan ns/v", "get ns", "take ns", "lines"
            )?;
        }
        for c in &self.candidates {
            let bytes = c.estimated_bytes.map_or("-".to_string(), |b| b.to_string());
            let dash = || "-".to_string();
            let (scan, get, take, lines) = c.costs.map_or((dash(), dash(), dash(), dash()), |c| {
                let ns = |ns: f64| format!("{ns:.1}");
                (format!("{:.2}", c.scan_ns), ns(c.get_ns), ns(c.take_ns), ns(c.lines))
            });
            writeln!(f, "  {:<9} {bytes:>12} {scan:>10} {get:>9} {take:>9} {lines:>6}  {}", c.encoding.name(), c.note)?;
        }
        Ok(())
    }
}
