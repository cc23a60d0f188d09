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
            read_costs: Costs { scan_ns: 0.0, get_ns: 0.0 },
            choose_ns: 0,
            encode_ns: 0,
        }
    }

    /// Time spent choosing as a fraction of the time spent writing.
    pub fn choose_share(&self) -> f64 {
        self.choose_ns as f64 / self.encode_ns.max(1) as f64
    }
}

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
        if !self.candidates.is_empty() {
            writeln!(f, "  {:<9} {:>12} {:>10} {:>9}  note", "candidate", "est. bytes", "scan ns/v", "get ns")?;
        }
        for c in &self.candidates {
            let bytes = c.estimated_bytes.map_or("-".to_string(), |b| b.to_string());
            let (scan, get) = c.costs.map_or(("-".to_string(), "-".to_string()), |c| {
                (format!("{:.2}", c.scan_ns), format!("{:.1}", c.get_ns))
            });
            writeln!(f, "  {:<9} {bytes:>12} {scan:>10} {get:>9}  {}", c.encoding.name(), c.note)?;
        }
        Ok(())
    }
}
