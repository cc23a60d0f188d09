//! The experiments of `../shared/design/EXPERIMENTS.md`, one module each.

use crate::measure::Settings;
use crate::report::Report;

pub mod access;
pub mod adaptive;
pub mod cascades;
pub mod database;
pub mod end_to_end;
pub mod floats;
pub mod keys;
pub mod limits;
pub mod strings;

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
        name: "end-to-end",
        about: "TPC-H's 22 queries in DataFusion over .lwc, Parquet-zstd and in-memory Arrow (issue 15)",
        run: end_to_end::run,
    },
];
