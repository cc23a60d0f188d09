//! The `lwc` command's integration tests, in one test binary: the corpus, the command's behaviour and the
//! killed writer run beside each other instead of one binary after another.
//!
//! Run one concern with a filter: `cargo test -p lwc-cli --test cli -- corpus::`.

mod cli;
mod common;
mod corpus;
mod crash;
