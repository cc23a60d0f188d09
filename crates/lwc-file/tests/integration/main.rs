//! lwc-file's integration tests, one module per concern, in one test binary: one link of Arrow and lwc
//! instead of nine, and the long campaigns run beside the other tests instead of after them.
//!
//! Run one concern with a filter: `cargo test -p lwc-file --test integration -- scan::`.

mod budget;
mod campaign;
mod common;
mod concurrency;
mod corrupt;
mod golden;
mod properties;
mod roundtrip;
mod scan;
mod size;
