//! The bitpacking BP128 / BP8x peer.

use super::*;
use ::bitpacking::BitPacker;

/// The `bitpacking` crate's block packers (BP128 is `BitPacker4x`, BP8x is `BitPacker8x`): one bit width per block.
/// The last block is padded with zeros, which costs less than storing the tail plainly unless values are 32 bits.
pub(super) struct BitPackingPeer<P> {
    name: &'static str,
    packer: PhantomData<fn() -> P>,
}

impl<P> BitPackingPeer<P> {
    pub(super) fn new(name: &'static str) -> Self {
        Self { name, packer: PhantomData }
    }
}

impl<P: BitPacker + Send + Sync + 'static> Peer for BitPackingPeer<P> {
    fn name(&self) -> &'static str {
        self.name
    }

    fn random_access(&self) -> bool {
        true
    }

    fn encode(&self, values: &[u32]) -> Option<Box<dyn PeerEncoded>> {
        // `new` picks the widest SIMD instruction set this CPU has.
        let packer = P::new();
        let mut padded = vec![0; P::BLOCK_LEN];
        let (mut widths, mut bounds, mut packed) = (Vec::new(), BlockBounds::new(), Vec::new());
        for chunk in values.chunks(P::BLOCK_LEN) {
            let block = if chunk.len() == P::BLOCK_LEN {
                chunk
            } else {
                padded[..chunk.len()].copy_from_slice(chunk);
                &padded
            };
            let width = packer.num_bits(block);
            let start = packed.len();
            packed.resize(start + P::compressed_block_size(width), 0);
            packer.compress(block, &mut packed[start..], width);
            widths.push(width);
            bounds.push(packed.len())?;
        }
        Some(Box::new(BitPacked { packer, widths, bounds, packed }))
    }
}

/// Blocks packed by a [`BitPacker`]: a width byte and an offset per block, so any block decodes on its own.
pub(super) struct BitPacked<P> {
    packer: P,
    widths: Vec<u8>,
    bounds: BlockBounds,
    packed: Vec<u8>,
}

impl<P: BitPacker> BlockDecoder for BitPacked<P> {
    type Value = u32;
    const BLOCK_LEN: usize = P::BLOCK_LEN;

    fn blocks(&self) -> usize {
        self.bounds.blocks()
    }

    fn decode_block(&self, index: usize, out: &mut [u32]) {
        self.packer.decompress(&self.packed[self.bounds.range(index)], out, self.widths[index]);
    }
}

impl<P: BitPacker + Send + Sync> PeerEncoded for BitPacked<P> {
    fn bytes(&self) -> usize {
        self.packed.len() + self.widths.len() + self.bounds.bytes()
    }

    fn decode_into(&self, out: &mut [u32]) {
        decode_blocks(self, out);
    }

    fn take_into(&self, positions: &[u32], out: &mut [u32], scratch: &mut Vec<u32>) {
        take_blocks(self, positions, out, scratch);
    }
}
