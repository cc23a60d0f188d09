//! The fastpfor peer.

use super::*;
use ::fastpfor::{AnyLenCodec, FastPForSimd256};

/// The `fastpfor` crate's FastPFOR over 256-value blocks with a variable-byte tail. `FastPForSimd256` picks AVX2
/// kernels at run time when the CPU has them and writes the same bytes as the scalar codec.
pub(super) struct FastPforPeer;

thread_local! {
    /// The codec holds sizable per-page buffers: one per thread rather than one per call.
    static FASTPFOR: RefCell<FastPForSimd256> = RefCell::default();
    /// The codec decodes only into a `Vec`; `decode_into` reuses this one so it pays no allocation or page faults.
    static FASTPFOR_DECODED: RefCell<Vec<u32>> = const { RefCell::new(Vec::new()) };
}

impl Peer for FastPforPeer {
    fn name(&self) -> &'static str {
        "fastpfor"
    }

    fn random_access(&self) -> bool {
        false
    }

    fn encode(&self, values: &[u32]) -> Option<Box<dyn PeerEncoded>> {
        // The format stores its value count as a `u32`.
        u32::try_from(values.len()).ok()?;
        let mut words = Vec::new();
        FASTPFOR.with_borrow_mut(|codec| codec.encode(values, &mut words)).ok()?;
        Some(Box::new(FastPforEncoded { words, len: values.len() }))
    }
}

/// FastPFOR's output words.
pub(super) struct FastPforEncoded {
    words: Vec<u32>,
    len: usize,
}

impl FastPforEncoded {
    /// Replaces `decoded` with every value.
    fn decode_to(&self, decoded: &mut Vec<u32>) {
        decoded.clear();
        decoded.reserve(self.len);
        FASTPFOR
            .with_borrow_mut(|codec| codec.decode(&self.words, decoded, None))
            .expect("fastpfor decodes what it encoded");
    }
}

impl PeerEncoded for FastPforEncoded {
    fn bytes(&self) -> usize {
        size_of_val(self.words.as_slice())
    }

    fn decode_into(&self, out: &mut [u32]) {
        FASTPFOR_DECODED.with_borrow_mut(|decoded| {
            self.decode_to(decoded);
            out.copy_from_slice(decoded);
        });
    }

    fn take_into(&self, positions: &[u32], out: &mut [u32], scratch: &mut Vec<u32>) {
        self.decode_to(scratch);
        gather(scratch, positions, out);
    }
}
