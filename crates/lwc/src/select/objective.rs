//! What the selector optimizes: the user's say in how a column will be read.

use std::fmt;
use std::str::FromStr;

use crate::error::{Error, Result};

/// How often each kind of read happens, per row: `scan = 1, get = 0.01` says every row is scanned once
/// and one row in a hundred is also looked up on its own.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AccessMix {
    /// Full decodes (scans) per row.
    pub scan: f64,
    /// Point lookups (`get`, or a position in a `take`) per row.
    pub get: f64,
}

/// What [`crate::Encoding::Auto`] optimizes, per segment and per child stream.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Objective {
    /// The smallest encoding.
    Size,
    /// The fastest full decode of data read from memory: decode work plus the bytes it streams in.
    Scan,
    /// The fastest point lookups and gathers.
    Random,
    /// The smallest, unless a candidate within [`BALANCED_SIZE_SLACK`] of its size reads much faster
    /// (at most [`BALANCED_SPEEDUP`] of its cost on an even mix of scans and lookups), or one within
    /// [`BALANCED_WIDE_SLACK`] reads at least 4x faster (at most [`BALANCED_WIDE_SPEEDUP`] of that cost).
    /// A child stream written below the segment's choice may also spend what that choice left of the
    /// segment's [`BALANCED_SIZE_SLACK`], so that a small stream is judged by the segment's bytes.
    #[default]
    Balanced,
    /// The least expected time for the given mix of scans and lookups; ties go to the smaller.
    Mix(AccessMix),
}

impl Objective {
    /// Whether reads look rows up (every objective but `size`, `scan` and weights without lookups): then
    /// `Auto` keeps random access and never picks a block compressor.
    pub fn reads_rows(self) -> bool {
        match self {
            Objective::Size | Objective::Scan => false,
            Objective::Random | Objective::Balanced => true,
            Objective::Mix(mix) => mix.get > 0.0,
        }
    }

    /// The mix of reads the objective stands for, which a memory budget weighs; `None` for `size`, which
    /// has none (it takes the smallest encoding whatever the reads).
    pub fn access_mix(self) -> Option<AccessMix> {
        match self {
            Objective::Size => None,
            Objective::Scan => Some(AccessMix { scan: 1.0, get: 0.0 }),
            Objective::Random => Some(AccessMix { scan: 0.0, get: 1.0 }),
            Objective::Balanced => Some(AccessMix { scan: 1.0, get: 1.0 }),
            Objective::Mix(mix) => Some(mix),
        }
    }
}

/// How much larger than the smallest candidate a `balanced` pick may be (fraction of its size).
pub const BALANCED_SIZE_SLACK: f64 = 0.05;
/// The cost (relative to the smallest candidate's) below which a `balanced` pick is "much faster".
pub const BALANCED_SPEEDUP: f64 = 0.67;
/// How much larger than the smallest candidate a `balanced` pick may be when it reads at least 4x faster:
/// `balanced` never keeps a read 4x slower for a saving under 10 %, as `random` never buys 4x the bytes
/// for a gain under 10 % (issue 16). Months as `radix` (3.6 bits a value) against a 4-bit `bitpack` saved
/// 6 % and decoded 19x slower.
pub const BALANCED_WIDE_SLACK: f64 = 0.10;
/// The cost (relative to the smallest candidate's) at or below which a pick within [`BALANCED_WIDE_SLACK`]
/// is taken.
pub const BALANCED_WIDE_SPEEDUP: f64 = 0.25;

impl fmt::Display for Objective {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Objective::Size => f.write_str("size"),
            Objective::Scan => f.write_str("scan"),
            Objective::Random => f.write_str("random"),
            Objective::Balanced => f.write_str("balanced"),
            Objective::Mix(m) => write!(f, "scan={},get={}", m.scan, m.get),
        }
    }
}

/// Parses `size`, `scan`, `random`, `balanced`, or weights such as `scan=0.8,get=0.2` (either may be left
/// out, meaning 0).
impl FromStr for Objective {
    type Err = Error;

    fn from_str(text: &str) -> Result<Objective> {
        let text = text.trim();
        match text {
            "size" => return Ok(Objective::Size),
            "scan" => return Ok(Objective::Scan),
            "random" => return Ok(Objective::Random),
            "balanced" => return Ok(Objective::Balanced),
            _ => {}
        }
        let bad = |why: String| {
            Error::InvalidArgument(format!(
                "objective {text:?}: {why} (expected size, scan, random, balanced, or weights like scan=0.8,get=0.2)"
            ))
        };
        let mut mix = AccessMix { scan: 0.0, get: 0.0 };
        for part in text.split(',') {
            let (key, weight) = part.split_once('=').ok_or_else(|| bad(format!("{part:?} is not key=weight")))?;
            let weight: f64 = weight.trim().parse().map_err(|_| bad(format!("{weight:?} is not a number")))?;
            if !(weight.is_finite() && weight >= 0.0) {
                return Err(bad(format!("weight {weight} is not a finite number >= 0")));
            }
            match key.trim() {
                "scan" => mix.scan = weight,
                "get" | "random" | "take" => mix.get = weight,
                other => return Err(bad(format!("unknown access {other:?}"))),
            }
        }
        if mix.scan + mix.get == 0.0 {
            return Err(bad("all weights are zero".into()));
        }
        Ok(Objective::Mix(mix))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_weights_parse_and_print_back() {
        for text in ["size", "scan", "random", "balanced", "scan=0.8,get=0.2"] {
            assert_eq!(text.parse::<Objective>().unwrap().to_string(), text);
        }
        assert_eq!("get=1".parse::<Objective>().unwrap(), Objective::Mix(AccessMix { scan: 0.0, get: 1.0 }));
        for bad in ["", "fast", "scan=-1", "scan=x", "scan=0,get=0", "disk=1"] {
            assert!(bad.parse::<Objective>().is_err(), "{bad}");
        }
    }
}
