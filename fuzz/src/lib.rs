//! Shared by the fuzz targets: the operations run on whatever opens, from the crate's corrupt-input
//! tests, so the fuzzers and `cargo test` exercise the same set.

#[path = "../../crates/lwc/tests/common/exercise.rs"]
mod exercise;

pub use exercise::{exercise_column, exercise_segment};

/// Views with at most this many rows are exercised over every row; larger ones (a constant stream can
/// claim 2^32 - 1 rows in a few bytes) get windows and samples, so a run stays within libFuzzer's
/// memory and time limits.
pub const FULL_UP_TO: usize = 1 << 16;
