//! The pco peer.

use super::*;

/// The `pco` crate's standalone format with its default configuration.
pub(super) struct PcoPeer;

impl<T: ::pco::data_types::Number> Peer<T> for PcoPeer {
    fn name(&self) -> &'static str {
        "pco"
    }

    fn random_access(&self) -> bool {
        false
    }

    fn encode(&self, values: &[T]) -> Option<Box<dyn PeerEncoded<T>>> {
        let bytes = ::pco::standalone::simple_compress(values, &::pco::ChunkConfig::default()).ok()?;
        Some(Box::new(PcoEncoded { bytes, len: values.len() }))
    }
}

/// A pco standalone file.
pub(super) struct PcoEncoded {
    bytes: Vec<u8>,
    len: usize,
}

impl<T: ::pco::data_types::Number> PeerEncoded<T> for PcoEncoded {
    fn bytes(&self) -> usize {
        self.bytes.len()
    }

    fn decode_into(&self, out: &mut [T]) {
        let progress =
            ::pco::standalone::simple_decompress_into(&self.bytes, out).expect("pco decodes what it encoded");
        debug_assert_eq!(progress.n_processed, out.len());
    }

    fn take_into(&self, positions: &[u32], out: &mut [T], scratch: &mut Vec<T>) {
        take_by_decoding(self, self.len, positions, out, scratch);
    }
}
