//! The peer libraries, behind one interface so every experiment measures them the same way as lwc.
//!
//! A peer without random access answers `take` by decoding everything into `scratch` and gathering from
//! it, which is how seed 000 measured such codecs; [`Peer::random_access`] says which peers do that.
//!
//! The number of values is not counted in [`PeerEncoded::bytes`]: the interface hands it to every decode
//! (`out.len()`), as a column's metadata would.
//!
//! Most experiments use `u32` (the default type parameter); the peers that take any width (pco and the byte
//! compressors) also come over `u64` ([`wide`]), pco and zstd over `f32` and `f64` ([`floats`]) and, the byte
//! compressors, over raw bytes ([`bytes`]).

use std::cell::RefCell;
use std::marker::PhantomData;
use std::ops::Range;

use ::bitpacking::{BitPacker4x, BitPacker8x};

/// A codec from another library, measured on the same data as lwc.
pub trait Peer<T = u32>: Send + Sync {
    /// The name printed in tables and JSON (for example `"bitpacking BP128"`).
    fn name(&self) -> &'static str;
    /// Whether `take` reads single values in place (`false`: decode all, then gather).
    fn random_access(&self) -> bool;
    /// Encodes `values`; `None` when the codec cannot hold them (the table shows it as missing).
    fn encode(&self, values: &[T]) -> Option<Box<dyn PeerEncoded<T>>>;
}

/// Values encoded by a [`Peer`].
pub trait PeerEncoded<T = u32>: Send + Sync {
    /// Encoded size in bytes, everything needed to decode included.
    fn bytes(&self) -> usize;
    /// Decodes every value into `out` (`out.len()` is the number of values encoded).
    fn decode_into(&self, out: &mut [T]);
    /// `out[k] = values[positions[k]]`; `scratch` is reusable space for peers that decode first.
    fn take_into(&self, positions: &[u32], out: &mut [T], scratch: &mut Vec<T>);
}

/// Every peer this build has, in table order (`vortex` last, with the `vortex` feature).
pub fn all() -> Vec<Box<dyn Peer>> {
    let peers: Vec<Box<dyn Peer>> = vec![
        Box::new(BitPackingPeer::<BitPacker4x>::new("bitpacking BP128")),
        Box::new(BitPackingPeer::<BitPacker8x>::new("bitpacking BP8x")),
        Box::new(FastLanesPeer),
        Box::new(FastPforPeer),
        Box::new(StreamVbytePeer),
        Box::new(PcoPeer),
        Box::new(BlockCompressorPeer::<Zstd>(PhantomData)),
        Box::new(BlockCompressorPeer::<Lz4>(PhantomData)),
    ];
    #[cfg(feature = "vortex")]
    let peers = {
        let mut peers = peers;
        peers.push(Box::new(vortex_peer::VortexPeer::default()));
        peers
    };
    peers
}

/// The peers that take `u64` values, in table order (the bit packers are 32-bit only).
pub fn wide() -> Vec<Box<dyn Peer<u64>>> {
    vec![
        Box::new(PcoPeer),
        Box::new(BlockCompressorPeer::<Zstd>(PhantomData)),
        Box::new(BlockCompressorPeer::<Lz4>(PhantomData)),
    ]
}

/// A float type the float peers take (`f32`, `f64`).
pub trait FloatPeers: Copy + Default + PartialEq + 'static {
    /// The peers over this type, in table order: see [`floats`].
    fn float_peers() -> Vec<Box<dyn Peer<Self>>>;
}

macro_rules! float_peers {
    ($($t:ty),*) => {$(
        impl FloatPeers for $t {
            fn float_peers() -> Vec<Box<dyn Peer<Self>>> {
                vec![Box::new(PcoPeer), Box::new(BlockCompressorPeer::<Zstd>(PhantomData))]
            }
        }
    )*};
}

float_peers!(f32, f64);

/// The peers that take floats, in table order: pco (with its float modes) and zstd over the values'
/// little-endian bytes.
pub fn floats<T: FloatPeers>() -> Vec<Box<dyn Peer<T>>> {
    T::float_peers()
}

/// The byte compressors over raw bytes (strings, for instance), in table order.
pub fn bytes() -> Vec<Box<dyn Peer<u8>>> {
    vec![Box::new(BlockCompressorPeer::<Zstd>(PhantomData)), Box::new(BlockCompressorPeer::<Lz4>(PhantomData))]
}

/// Whether `e` decodes and gathers back exactly `values` (a codec that does not is left out, loudly).
pub fn decodes_back<T: Copy + Default + PartialEq>(e: &dyn PeerEncoded<T>, values: &[T]) -> bool {
    let mut out = vec![T::default(); values.len()];
    e.decode_into(&mut out);
    let positions = crate::data::positions(257.min(values.len()), values.len(), false, 99);
    let mut picked = vec![T::default(); positions.len()];
    e.take_into(&positions, &mut picked, &mut Vec::new());
    let ok = out == values && positions.iter().zip(&picked).all(|(&p, &v)| values[p as usize] == v);
    if !ok {
        eprintln!("warning: a codec decoded wrong values; it is left out of the tables");
    }
    ok
}

/// An encoding cut into blocks of `BLOCK_LEN` values that decode independently, so `take` decodes only the
/// blocks it reads.
trait BlockDecoder {
    /// The decoded values' type.
    type Value: Copy + Default;
    /// Values per block; the last block may hold fewer.
    const BLOCK_LEN: usize;
    /// Decodes block `index` into `out` (`out.len() == BLOCK_LEN`; slots past the last value are unspecified).
    fn decode_block(&self, index: usize, out: &mut [Self::Value]);
    /// Blocks in the encoding.
    fn blocks(&self) -> usize;
}

/// `decode_into` for a [`BlockDecoder`]: whole blocks straight into `out`, a partial last one through a buffer.
fn decode_blocks<D: BlockDecoder>(decoder: &D, out: &mut [D::Value]) {
    let full = out.len() / D::BLOCK_LEN;
    let (head, tail) = out.split_at_mut(full * D::BLOCK_LEN);
    for (index, block) in head.chunks_exact_mut(D::BLOCK_LEN).enumerate() {
        decoder.decode_block(index, block);
    }
    if !tail.is_empty() {
        let mut block = vec![D::Value::default(); D::BLOCK_LEN];
        decoder.decode_block(full, &mut block);
        tail.copy_from_slice(&block[..tail.len()]);
    }
}

/// `take_into` for a [`BlockDecoder`]: decodes the block holding each position into `block`, and keeps it while
/// the following positions stay in that block, so sorted positions decode each block at most once. A list
/// longer than there are blocks decodes every block once, then gathers: block by block, an unsorted list would
/// decode about one block per position.
fn take_blocks<D: BlockDecoder>(decoder: &D, positions: &[u32], out: &mut [D::Value], block: &mut Vec<D::Value>) {
    if positions.len() > decoder.blocks() {
        block.resize(decoder.blocks() * D::BLOCK_LEN, D::Value::default());
        decode_blocks(decoder, block);
        return gather(block, positions, out);
    }
    if block.len() < D::BLOCK_LEN {
        block.resize(D::BLOCK_LEN, D::Value::default());
    }
    let block = &mut block[..D::BLOCK_LEN];
    let mut decoded = None;
    for (value, &position) in out.iter_mut().zip(positions) {
        let position = position as usize;
        let index = position / D::BLOCK_LEN;
        if decoded != Some(index) {
            decoder.decode_block(index, block);
            decoded = Some(index);
        }
        *value = block[position % D::BLOCK_LEN];
    }
}

/// `take_into` for peers without random access: decodes all `len` values into `scratch`, then gathers.
fn take_by_decoding<T: Copy + Default>(
    encoded: &impl PeerEncoded<T>,
    len: usize,
    positions: &[u32],
    out: &mut [T],
    scratch: &mut Vec<T>,
) {
    scratch.resize(len, T::default());
    encoded.decode_into(scratch);
    gather(scratch, positions, out);
}

/// `out[k] = values[positions[k]]`.
fn gather<T: Copy>(values: &[T], positions: &[u32], out: &mut [T]) {
    for (value, &position) in out.iter_mut().zip(positions) {
        *value = values[position as usize];
    }
}

/// Where each block lies in the encoded bytes: `n + 1` offsets for `n` blocks. Stored as `u32`, as a format would
/// store them; the leading 0 is implicit and not counted.
struct BlockBounds(Vec<u32>);

impl BlockBounds {
    fn new() -> Self {
        Self(vec![0])
    }

    /// Ends the current block at byte `end`; `None` past what a `u32` offset can address.
    fn push(&mut self, end: usize) -> Option<()> {
        self.0.push(u32::try_from(end).ok()?);
        Some(())
    }

    fn range(&self, index: usize) -> Range<usize> {
        self.0[index] as usize..self.0[index + 1] as usize
    }

    /// Blocks bounded.
    fn blocks(&self) -> usize {
        self.0.len() - 1
    }

    fn bytes(&self) -> usize {
        (self.0.len() - 1) * size_of::<u32>()
    }
}

mod bitpacking;
mod blocks;
mod fastlanes;
mod fastpfor;
mod pco;
mod stream_vbyte;
mod vortex;

use bitpacking::*;
use blocks::*;
// The byte compressors themselves, for experiments that cut their own blocks (strings: 64Ki rows a block).
pub(crate) use blocks::{ByteCompressor, Lz4, Zstd, ZSTD_LEVEL};
use fastlanes::*;
use fastpfor::*;
use pco::*;
use stream_vbyte::*;
#[cfg(feature = "vortex")]
use vortex::*;

#[cfg(test)]
mod tests;
