//! The stream-vbyte peer.

use super::*;
use ::stream_vbyte::scalar::Scalar;

/// The `stream-vbyte` crate with its scalar codec: its SSSE3 decoder needs nightly Rust (`portable_simd`) and the
/// crate's `x86_ssse3` feature.
pub(super) struct StreamVbytePeer;

impl Peer for StreamVbytePeer {
    fn name(&self) -> &'static str {
        "stream-vbyte"
    }

    fn random_access(&self) -> bool {
        false
    }

    fn encode(&self, values: &[u32]) -> Option<Box<dyn PeerEncoded>> {
        // The worst case: a control byte per four values, four data bytes per value.
        let mut bytes = vec![0; values.len().div_ceil(4) + size_of_val(values)];
        let written = ::stream_vbyte::encode::encode::<Scalar>(values, &mut bytes);
        bytes.truncate(written);
        bytes.shrink_to_fit();
        Some(Box::new(StreamVbyteEncoded { bytes, len: values.len() }))
    }
}

/// Stream VByte's control and data bytes.
pub(super) struct StreamVbyteEncoded {
    bytes: Vec<u8>,
    len: usize,
}

impl PeerEncoded for StreamVbyteEncoded {
    fn bytes(&self) -> usize {
        self.bytes.len()
    }

    fn decode_into(&self, out: &mut [u32]) {
        ::stream_vbyte::decode::decode::<Scalar>(&self.bytes, out.len(), out);
    }

    fn take_into(&self, positions: &[u32], out: &mut [u32], scratch: &mut Vec<u32>) {
        take_by_decoding(self, self.len, positions, out, scratch);
    }
}
