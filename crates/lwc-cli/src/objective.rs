//! `--objective`: what the encoding selector optimizes for.
//!
//! Until the core crate's `lwc::Objective` is available this is parsed and checked here with the same
//! grammar, so the flag is accepted and validated; it is handed to the encoder once the core crate takes it.

use std::fmt;
use std::str::FromStr;

use anyhow::{bail, Context};

/// The selector's objective.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Objective {
    /// Smallest encoded size.
    Size,
    /// Fastest full scans (decode, filter, aggregate).
    Scan,
    /// Fastest point lookups and gathers.
    Random,
    /// A balance of size, scan and random access.
    #[default]
    Balanced,
    /// Explicit weights, e.g. `scan=0.8,get=0.2` (keys: `size`, `scan`, `get`).
    Weights(Vec<(String, f64)>),
}

impl FromStr for Objective {
    type Err = anyhow::Error;

    fn from_str(s: &str) -> anyhow::Result<Self> {
        Ok(match s.trim().to_ascii_lowercase().as_str() {
            "size" => Objective::Size,
            "scan" => Objective::Scan,
            "random" | "get" => Objective::Random,
            "balanced" => Objective::Balanced,
            text if text.contains('=') => {
                let mut weights = Vec::new();
                for part in text.split(',') {
                    let (key, value) = part.split_once('=').with_context(|| format!("'{part}' is not KEY=WEIGHT"))?;
                    let key = key.trim();
                    if !matches!(key, "size" | "scan" | "get") {
                        bail!("unknown objective weight '{key}' (use size, scan, get)");
                    }
                    let value: f64 =
                        value.trim().parse().with_context(|| format!("weight '{}' is not a number", value.trim()))?;
                    if !(value.is_finite() && value >= 0.0) {
                        bail!("weight {value} of '{key}' must be a non-negative number");
                    }
                    weights.push((key.to_string(), value));
                }
                if weights.iter().all(|(_, w)| *w == 0.0) {
                    bail!("objective weights must not all be zero");
                }
                Objective::Weights(weights)
            }
            other => bail!(
                "unknown objective '{other}' (use size, scan, random, balanced, or weights like scan=0.8,get=0.2)"
            ),
        })
    }
}

impl fmt::Display for Objective {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Objective::Size => f.write_str("size"),
            Objective::Scan => f.write_str("scan"),
            Objective::Random => f.write_str("random"),
            Objective::Balanced => f.write_str("balanced"),
            Objective::Weights(w) => {
                let parts: Vec<String> = w.iter().map(|(k, v)| format!("{k}={v}")).collect();
                f.write_str(&parts.join(","))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objectives_parse_and_print() {
        for s in ["size", "scan", "random", "balanced", "scan=0.8,get=0.2"] {
            assert_eq!(s.parse::<Objective>().unwrap().to_string(), s);
        }
        assert!("fast".parse::<Objective>().is_err());
        assert!("scan=x".parse::<Objective>().is_err());
        assert!("speed=1".parse::<Objective>().is_err());
        assert!("scan=0,get=0".parse::<Objective>().is_err());
    }
}
