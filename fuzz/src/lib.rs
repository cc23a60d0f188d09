//! Shared by the fuzz targets: the operations run on whatever opens come from `lwc-testdata`, as in the
//! corruption campaigns of `cargo test`, so the fuzzers and the tests exercise the same set; and the
//! cascades the round-trip target and the seed writer share.

use lwc::Cascade;

pub use lwc_testdata::exercise::{exercise_column, exercise_file, exercise_segment};

/// Views with at most this many rows are exercised over every row; larger ones (a constant stream can
/// claim 2^32 - 1 rows in a few bytes) get windows and samples, so a run stays within libFuzzer's
/// memory and time limits.
pub const FULL_UP_TO: usize = 1 << 16;

/// The cascades the round-trip target picks from, by an input byte modulo their count, and the seed
/// writer writes seeds of, in the same order: [`lwc_testdata::cascades`], the campaigns' list (every
/// registered encoding, from the registry, and parameters and nested cascades).
pub fn cascades() -> Vec<Cascade> {
    lwc_testdata::cascades().iter().map(|text| text.parse().expect("a cascade lwc parses")).collect()
}
