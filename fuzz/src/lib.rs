//! Shared by the fuzz targets: the operations run on whatever opens come from `lwc-testdata`, as in the
//! corruption campaigns of `cargo test`, so the fuzzers and the tests exercise the same set.

pub use lwc_testdata::exercise::{exercise_column, exercise_file, exercise_segment};

/// Views with at most this many rows are exercised over every row; larger ones (a constant stream can
/// claim 2^32 - 1 rows in a few bytes) get windows and samples, so a run stays within libFuzzer's
/// memory and time limits.
pub const FULL_UP_TO: usize = 1 << 16;
