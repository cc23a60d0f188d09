//! Kernels: pure functions over slices of machine words. They know no format and no header; encodings
//! call them after validating lengths once. The only home of `unsafe` (runtime CPU-feature dispatch, and
//! FSST decoding's writes into space reserved up front).

pub mod bitpack;
#[cfg(target_arch = "x86_64")]
pub mod cpu;
pub mod decimal;
pub mod extremes;
pub mod fsst;
pub mod positions;
pub mod prefix;
pub mod radix;
pub mod range_sum;
pub mod scan;
pub mod varint;
