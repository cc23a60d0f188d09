pub mod bitmap;
pub mod bytes;
pub mod error;
pub mod kernels;
pub mod selection;
pub mod types;
