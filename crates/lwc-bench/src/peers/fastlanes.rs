//! The fastlanes peer.

use super::*;
use ::fastlanes::BitPacking;

/// Values per FastLanes block.
pub(super) const FASTLANES_BLOCK: usize = 1024;

/// The `fastlanes` crate's bit-packing in its interleaved 1024-value layout, at one bit width for the whole input
/// (the widest value's), since FastLanes leaves per-block widths to the format built on top of it. The last block
/// is padded with zeros.
pub(super) struct FastLanesPeer;

impl Peer for FastLanesPeer {
    fn name(&self) -> &'static str {
        "fastlanes"
    }

    fn random_access(&self) -> bool {
        true
    }

    fn encode(&self, values: &[u32]) -> Option<Box<dyn PeerEncoded>> {
        let width = (u32::BITS - values.iter().fold(0, |acc, &v| acc | v).leading_zeros()) as usize;
        let words = FastLanesPacked::block_words(width);
        let mut packed = vec![0; values.len().div_ceil(FASTLANES_BLOCK) * words];
        let mut padded = [0; FASTLANES_BLOCK];
        for (index, chunk) in values.chunks(FASTLANES_BLOCK).enumerate() {
            let block = if chunk.len() == FASTLANES_BLOCK {
                chunk
            } else {
                padded[..chunk.len()].copy_from_slice(chunk);
                &padded
            };
            // SAFETY: the input holds 1024 values, the output `1024 * width / 32` words, and `width <= 32`.
            unsafe { u32::unchecked_pack(width, block, &mut packed[index * words..][..words]) };
        }
        Some(Box::new(FastLanesPacked { width, blocks: values.len().div_ceil(FASTLANES_BLOCK), packed }))
    }
}

/// FastLanes blocks of `width`-bit values, `32 * width` words each.
pub(super) struct FastLanesPacked {
    width: usize,
    /// Blocks, also at width 0 where they take no words.
    blocks: usize,
    packed: Vec<u32>,
}

impl FastLanesPacked {
    /// Words per block at `width` bits per value.
    fn block_words(width: usize) -> usize {
        FASTLANES_BLOCK * width / u32::BITS as usize
    }

    /// The packed words of block `index`: exactly the length the unchecked unpackers require.
    fn block(&self, index: usize) -> &[u32] {
        let words = Self::block_words(self.width);
        &self.packed[index * words..][..words]
    }
}

impl BlockDecoder for FastLanesPacked {
    type Value = u32;
    const BLOCK_LEN: usize = FASTLANES_BLOCK;

    fn blocks(&self) -> usize {
        self.blocks
    }

    fn decode_block(&self, index: usize, out: &mut [u32]) {
        assert_eq!(out.len(), FASTLANES_BLOCK);
        // SAFETY: `block` has `1024 * width / 32` words, `out` 1024 values, and `width <= 32`.
        unsafe { u32::unchecked_unpack(self.width, self.block(index), out) };
    }
}

impl PeerEncoded for FastLanesPacked {
    fn bytes(&self) -> usize {
        // The one width byte for the whole input.
        size_of_val(self.packed.as_slice()) + 1
    }

    fn decode_into(&self, out: &mut [u32]) {
        decode_blocks(self, out);
    }

    /// Unpacks each value alone: FastLanes computes a single value's place in its layout without the block.
    fn take_into(&self, positions: &[u32], out: &mut [u32], _: &mut Vec<u32>) {
        for (value, &position) in out.iter_mut().zip(positions) {
            let position = position as usize;
            let block = self.block(position / FASTLANES_BLOCK);
            // SAFETY: `block` has `1024 * width / 32` words and `width <= 32`; the index is below 1024.
            *value = unsafe { u32::unchecked_unpack_single(self.width, block, position % FASTLANES_BLOCK) };
        }
    }
}
