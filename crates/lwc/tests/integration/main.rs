//! lwc's integration tests, one module per concern, in one test binary: each binary instantiates and
//! optimizes lwc's generic codecs for the types it uses, so nine binaries compiled the same code nine
//! times (about 5 of CI's CPU-minutes), and one binary runs its tests on every core at once.
//!
//! Run one concern with a filter: `cargo test -p lwc --test integration -- golden::`.

mod auto;
mod campaign;
mod corrupt;
mod floats;
mod golden;
mod properties;
mod select;
mod smoke;
mod strings;
