//! The experiments of `../shared/design/EXPERIMENTS.md`, one module each.

use crate::measure::{race_codecs_where, Settings};
use crate::peers::PeerEncoded;
use crate::report::Report;

pub mod access;
pub mod adaptive;
pub mod cascades;
pub mod costs;
pub mod database;
pub mod end_to_end;
pub mod floats;
pub mod keys;
pub mod limits;
pub mod strings;
pub mod threads;

/// A take may exceed decoding everything and gathering by this factor before it is called a cliff:
/// medians of separate races differ by up to 1.3x from noise and from lwc's per-call checks alone.
const CLIFF_TOLERANCE: f64 = 1.5;

/// Races a cell over the bound may be run again, its codec alone, before it is marked (see
/// [`confirmed_bound`]).
const CONFIRM_RACES: usize = 2;

/// A take of `take_ns` as a multiple of a decode of `decode_ns` plus a plain gather of `gather_ns`: over
/// [`CLIFF_TOLERANCE`] it breaks issue 16's bound (`NaN` where a figure is missing).
pub(crate) fn bound_factor(take_ns: f64, decode_ns: f64, gather_ns: f64) -> f64 {
    take_ns / (decode_ns + gather_ns)
}

/// A take's [`bound_factor`] confirmed: `first`, from its first race, where it is within
/// [`CLIFF_TOLERANCE`]; else `race_again` (the codec's decode and take raced again, alone against plain,
/// giving the factor of that race) up to [`CONFIRM_RACES`] times while it stays over, keeping the lowest.
/// On a shared host a slow stretch, or caches another candidate filled, falls on one race; a real cliff
/// stays over in every race.
pub(crate) fn confirmed_bound(first: f64, mut race_again: impl FnMut() -> Option<f64>) -> f64 {
    let mut factor = first;
    for _ in 0..CONFIRM_RACES {
        if factor.is_nan() || factor <= CLIFF_TOLERANCE {
            break;
        }
        if let Some(again) = race_again() {
            factor = factor.min(again);
        }
    }
    factor
}

/// The [`bound_factor`] of `encoded[codec]` raced alone against plain: its decode, then its take of
/// `positions` with plain's gather of the same list (`None` where it did not encode).
pub(crate) fn race_bound_alone(
    settings: Settings,
    values: &[u32],
    positions: &[u32],
    encoded: &[Option<Box<dyn PeerEncoded>>],
    codec: usize,
) -> Option<f64> {
    let alone = |k| k == codec;
    let decoded = race_codecs_where(settings, values, None, encoded, alone);
    let taken = race_codecs_where(settings, values, Some(positions), encoded, alone);
    // Index 0 is plain; the codecs follow in `encoded`'s order.
    let (decode, take, gather) = (decoded[codec + 1]?, taken[codec + 1]?, taken[0]?);
    Some(bound_factor(take.median_ns, decode.median_ns, gather.median_ns))
}

/// The note under a table whose takes went through [`confirmed_bound`].
pub(crate) fn confirm_note() -> String {
    format!(
        "A take over the bound in its first race is raced again, its codec alone against plain with its decode, up to {CONFIRM_RACES} times, and marked only if the fastest figures stay over: a shared host's slow stretches fall on one race."
    )
}

/// Issue 16's bound on takes: no take slower than decoding everything and gathering the same list. Given a
/// codec's median take and decode times and the plain array's gather of that list, one per data set
/// (`NaN` where it does not apply), the worst data set's take as a multiple of decode + gather, where it
/// exceeds [`CLIFF_TOLERANCE`].
pub(crate) fn cliff(take_ns: &[f64], decode_ns: &[f64], gather_ns: &[f64]) -> Option<(usize, f64)> {
    let factors: Vec<f64> =
        take_ns.iter().zip(decode_ns).zip(gather_ns).map(|((&t, &d), &g)| bound_factor(t, d, g)).collect();
    worst_over_bound(&factors)
}

/// The data set whose [`bound_factor`] is the worst, and that factor, where it exceeds [`CLIFF_TOLERANCE`].
pub(crate) fn worst_over_bound(factors: &[f64]) -> Option<(usize, f64)> {
    let worst =
        factors.iter().copied().enumerate().filter(|(_, f)| f.is_finite()).max_by(|a, b| a.1.total_cmp(&b.1))?;
    (worst.1 > CLIFF_TOLERANCE).then_some(worst)
}

/// The note under a table whose cells [`cliff`] marked with `!`, naming each.
pub(crate) fn cliff_note(cliffs: &[String]) -> String {
    if cliffs.is_empty() {
        return format!("No take exceeds {CLIFF_TOLERANCE}x the codec's decode all plus a plain gather of the same list (issue 16's bound).");
    }
    format!(
        "`!`: slower than {CLIFF_TOLERANCE}x the codec's decode all plus a plain gather of the same list (issue 16's bound): {}.",
        cliffs.join("; ")
    )
}

/// What every experiment is given.
#[derive(Clone, Copy, Debug)]
pub struct Config {
    /// Fraction of the papers' data sizes (`None`: each experiment's default, a few minutes on 2 cores).
    pub scale: Option<f64>,
    pub settings: Settings,
    /// `--rounds` where given, for experiments whose own default differs from `settings.rounds`.
    pub explicit_rounds: Option<usize>,
    /// Threads for the parts measured "on all threads".
    pub threads: usize,
    pub seed: u64,
}

impl Config {
    /// `full` scaled, at least `floor`.
    pub fn scaled(&self, full: usize, default_scale: f64, floor: usize) -> usize {
        ((full as f64 * self.scale.unwrap_or(default_scale)).round() as usize).max(floor)
    }
}

/// An experiment by name.
pub struct Experiment {
    pub name: &'static str,
    pub about: &'static str,
    pub run: fn(&Config) -> Report,
}

/// Every experiment, in the order `all` runs them.
pub const ALL: &[Experiment] = &[
    Experiment { name: "limits", about: "copy and sum bandwidth: the physical bound", run: limits::run },
    Experiment { name: "access", about: "random access vs sequential decoding (seed 000, Table 2)", run: access::run },
    Experiment {
        name: "cascades",
        about: "light vs middle vs heavyweight codecs on D1-D4 (seed 002)",
        run: cascades::run,
    },
    Experiment { name: "keys", about: "FOR per block vs delta on TPC-H keys (seed 001)", run: keys::run },
    Experiment {
        name: "adaptive",
        about: "let the data choose: sorted u64 and low-cardinality strings (seed 003)",
        run: adaptive::run,
    },
    Experiment {
        name: "costs",
        about: "the cost model's predicted get, take and decode against measured, and the default's lookups on TPC-H (issue 16)",
        run: costs::run,
    },
    Experiment { name: "database", about: "whole TPC-H tables: sizes and load cost (seed 004)", run: database::run },
    Experiment {
        name: "floats",
        about: "alp and alp_rd vs plain, pco and zstd on TPC-H prices and synthetic doubles (issue 14)",
        run: floats::run,
    },
    Experiment {
        name: "strings",
        about: "fsst, dict and plain vs zstd, lz4, fsst-rs and Parquet on TPC-H text and low-cardinality keys",
        run: strings::run,
    },
    Experiment {
        name: "threads",
        about: "decode, scan, sum and encode on 1 … all threads, next to copy and sum bandwidth (seed 002, Fig. 7)",
        run: threads::run,
    },
    Experiment {
        name: "end-to-end",
        about: "TPC-H's 22 queries in DataFusion over .lwc, Parquet-zstd and in-memory Arrow (issue 15)",
        run: end_to_end::run,
    },
];
