//! The peer libraries, behind one interface so every experiment measures them the same way as lwc.
//!
//! A peer without random access answers `take` by decoding everything into `scratch` and gathering from
//! it, which is how seed 000 measured such codecs; [`Peer::random_access`] says which peers do that.
//!
//! The number of values is not counted in [`PeerEncoded::bytes`]: the interface hands it to every decode
//! (`out.len()`), as a column's metadata would.
//!
//! Most experiments use `u32` (the default type parameter); the peers that take any width (pco and the byte
//! compressors) also come over `u64` ([`wide`]) and, the byte compressors, over raw bytes ([`bytes`]).

use std::cell::RefCell;
use std::marker::PhantomData;
use std::ops::Range;

use bitpacking::{BitPacker, BitPacker4x, BitPacker8x};
use fastlanes::BitPacking;
use fastpfor::{AnyLenCodec, FastPForSimd256};
use stream_vbyte::scalar::Scalar;

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

// ---------------------------------------------------------------------------------------------------------------
// Shared helpers

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

// ---------------------------------------------------------------------------------------------------------------
// bitpacking BP128 / BP8x

/// The `bitpacking` crate's block packers (BP128 is `BitPacker4x`, BP8x is `BitPacker8x`): one bit width per block.
/// The last block is padded with zeros, which costs less than storing the tail plainly unless values are 32 bits.
struct BitPackingPeer<P> {
    name: &'static str,
    packer: PhantomData<fn() -> P>,
}

impl<P> BitPackingPeer<P> {
    fn new(name: &'static str) -> Self {
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
struct BitPacked<P> {
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

// ---------------------------------------------------------------------------------------------------------------
// fastlanes

/// Values per FastLanes block.
const FASTLANES_BLOCK: usize = 1024;

/// The `fastlanes` crate's bit-packing in its interleaved 1024-value layout, at one bit width for the whole input
/// (the widest value's), since FastLanes leaves per-block widths to the format built on top of it. The last block
/// is padded with zeros.
struct FastLanesPeer;

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
struct FastLanesPacked {
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

// ---------------------------------------------------------------------------------------------------------------
// fastpfor

/// The `fastpfor` crate's FastPFOR over 256-value blocks with a variable-byte tail. `FastPForSimd256` picks AVX2
/// kernels at run time when the CPU has them and writes the same bytes as the scalar codec.
struct FastPforPeer;

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
struct FastPforEncoded {
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

// ---------------------------------------------------------------------------------------------------------------
// stream-vbyte

/// The `stream-vbyte` crate with its scalar codec: its SSSE3 decoder needs nightly Rust (`portable_simd`) and the
/// crate's `x86_ssse3` feature.
struct StreamVbytePeer;

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
        let written = stream_vbyte::encode::encode::<Scalar>(values, &mut bytes);
        bytes.truncate(written);
        bytes.shrink_to_fit();
        Some(Box::new(StreamVbyteEncoded { bytes, len: values.len() }))
    }
}

/// Stream VByte's control and data bytes.
struct StreamVbyteEncoded {
    bytes: Vec<u8>,
    len: usize,
}

impl PeerEncoded for StreamVbyteEncoded {
    fn bytes(&self) -> usize {
        self.bytes.len()
    }

    fn decode_into(&self, out: &mut [u32]) {
        stream_vbyte::decode::decode::<Scalar>(&self.bytes, out.len(), out);
    }

    fn take_into(&self, positions: &[u32], out: &mut [u32], scratch: &mut Vec<u32>) {
        take_by_decoding(self, self.len, positions, out, scratch);
    }
}

// ---------------------------------------------------------------------------------------------------------------
// pco

/// The `pco` crate's standalone format with its default configuration.
struct PcoPeer;

impl<T: pco::data_types::Number> Peer<T> for PcoPeer {
    fn name(&self) -> &'static str {
        "pco"
    }

    fn random_access(&self) -> bool {
        false
    }

    fn encode(&self, values: &[T]) -> Option<Box<dyn PeerEncoded<T>>> {
        let bytes = pco::standalone::simple_compress(values, &pco::ChunkConfig::default()).ok()?;
        Some(Box::new(PcoEncoded { bytes, len: values.len() }))
    }
}

/// A pco standalone file.
struct PcoEncoded {
    bytes: Vec<u8>,
    len: usize,
}

impl<T: pco::data_types::Number> PeerEncoded<T> for PcoEncoded {
    fn bytes(&self) -> usize {
        self.bytes.len()
    }

    fn decode_into(&self, out: &mut [T]) {
        let progress = pco::standalone::simple_decompress_into(&self.bytes, out).expect("pco decodes what it encoded");
        debug_assert_eq!(progress.n_processed, out.len());
    }

    fn take_into(&self, positions: &[u32], out: &mut [T], scratch: &mut Vec<T>) {
        take_by_decoding(self, self.len, positions, out, scratch);
    }
}

// ---------------------------------------------------------------------------------------------------------------
// zstd / lz4_flex

/// Raw bytes per independently compressed block (16K `u32`, 8K `u64`).
const RAW_BLOCK_BYTES: usize = 64 * 1024;

/// zstd's level (its default).
const ZSTD_LEVEL: i32 = 3;

/// A general-purpose byte compressor, run over blocks of [`RAW_BLOCK_BYTES`] so `take` decompresses only
/// the blocks it reads.
trait ByteCompressor: 'static {
    const NAME: &'static str;
    /// Compresses one block of raw bytes; `None` when the compressor fails.
    fn compress(raw: &[u8]) -> Option<Vec<u8>>;
    /// Decompresses one block into the front of `raw`, which is at least the block's raw size.
    fn decompress(block: &[u8], raw: &mut [u8]);
}

/// zstd at [`ZSTD_LEVEL`].
struct Zstd;

thread_local! {
    /// zstd contexts are costly to create (hundreds of KiB each), so each thread keeps one of each.
    static ZSTD_COMPRESSOR: RefCell<zstd::bulk::Compressor<'static>> =
        RefCell::new(zstd::bulk::Compressor::new(ZSTD_LEVEL).expect("zstd compression context"));
    static ZSTD_DECOMPRESSOR: RefCell<zstd::bulk::Decompressor<'static>> =
        RefCell::new(zstd::bulk::Decompressor::new().expect("zstd decompression context"));
}

impl ByteCompressor for Zstd {
    const NAME: &'static str = "zstd";

    fn compress(raw: &[u8]) -> Option<Vec<u8>> {
        ZSTD_COMPRESSOR.with_borrow_mut(|compressor| compressor.compress(raw)).ok()
    }

    fn decompress(block: &[u8], raw: &mut [u8]) {
        ZSTD_DECOMPRESSOR
            .with_borrow_mut(|decompressor| decompressor.decompress_to_buffer(block, raw))
            .expect("zstd decodes what it encoded");
    }
}

/// LZ4's block format from `lz4_flex`.
struct Lz4;

impl ByteCompressor for Lz4 {
    const NAME: &'static str = "lz4_flex";

    fn compress(raw: &[u8]) -> Option<Vec<u8>> {
        Some(lz4_flex::block::compress(raw))
    }

    fn decompress(block: &[u8], raw: &mut [u8]) {
        lz4_flex::block::decompress_into(block, raw).expect("lz4_flex decodes what it encoded");
    }
}

/// An unsigned integer the byte compressors take as little-endian bytes.
///
/// # Safety
/// Every byte pattern of `size_of::<Self>()` bytes must be a valid value (true of the plain integers it is
/// implemented for), since decompressors write into values through [`as_bytes_mut`].
unsafe trait LeWord: Copy + Default + Send + Sync + 'static {
    /// Appends the values' little-endian bytes to `raw`.
    fn extend_le(raw: &mut Vec<u8>, values: &[Self]);
    /// The value whose little-endian bytes `raw` holds (nothing to do on little-endian targets).
    fn from_le(raw: Self) -> Self;
}

macro_rules! le_word {
    ($($t:ty),*) => {$(
        // SAFETY: a plain integer; every bit pattern is a value.
        unsafe impl LeWord for $t {
            fn extend_le(raw: &mut Vec<u8>, values: &[Self]) {
                raw.extend(values.iter().flat_map(|v| v.to_le_bytes()));
            }

            fn from_le(raw: Self) -> Self {
                <$t>::from_le(raw)
            }
        }
    )*};
}

le_word!(u8, u32, u64);

/// Values compressed by `C` in independent blocks of [`RAW_BLOCK_BYTES`].
struct BlockCompressorPeer<C>(PhantomData<fn() -> C>);

impl<C: ByteCompressor, T: LeWord> Peer<T> for BlockCompressorPeer<C> {
    fn name(&self) -> &'static str {
        C::NAME
    }

    fn random_access(&self) -> bool {
        true
    }

    fn encode(&self, values: &[T]) -> Option<Box<dyn PeerEncoded<T>>> {
        let (mut data, mut bounds) = (Vec::new(), BlockBounds::new());
        let mut raw = Vec::with_capacity(RAW_BLOCK_BYTES);
        for chunk in values.chunks(CompressedBlocks::<C, T>::BLOCK_LEN) {
            raw.clear();
            T::extend_le(&mut raw, chunk);
            data.extend_from_slice(&C::compress(&raw)?);
            bounds.push(data.len())?;
        }
        Some(Box::new(CompressedBlocks::<C, T> { data, bounds, compressor: PhantomData }))
    }
}

/// The compressed blocks, back to back, and where each one lies.
struct CompressedBlocks<C, T> {
    data: Vec<u8>,
    bounds: BlockBounds,
    compressor: PhantomData<fn() -> (C, T)>,
}

impl<C: ByteCompressor, T: LeWord> BlockDecoder for CompressedBlocks<C, T> {
    type Value = T;
    const BLOCK_LEN: usize = RAW_BLOCK_BYTES / size_of::<T>();

    fn blocks(&self) -> usize {
        self.bounds.blocks()
    }

    fn decode_block(&self, index: usize, out: &mut [T]) {
        C::decompress(&self.data[self.bounds.range(index)], as_bytes_mut(out));
        // Compiles to nothing on little-endian targets.
        for value in out.iter_mut() {
            *value = T::from_le(*value);
        }
    }
}

impl<C: ByteCompressor, T: LeWord> PeerEncoded<T> for CompressedBlocks<C, T> {
    fn bytes(&self) -> usize {
        self.data.len() + self.bounds.bytes()
    }

    fn decode_into(&self, out: &mut [T]) {
        decode_blocks(self, out);
    }

    fn take_into(&self, positions: &[u32], out: &mut [T], scratch: &mut Vec<T>) {
        take_blocks(self, positions, out, scratch);
    }
}

/// `values` as bytes, so decompressors write straight into the output instead of through a copy.
fn as_bytes_mut<T: LeWord>(values: &mut [T]) -> &mut [u8] {
    // SAFETY: the bytes cover exactly the same memory, `u8` has no alignment requirement, and every byte pattern
    // is a valid `T` (the contract of `LeWord`).
    unsafe { std::slice::from_raw_parts_mut(values.as_mut_ptr().cast::<u8>(), size_of_val(values)) }
}

// ---------------------------------------------------------------------------------------------------------------
// vortex (feature `vortex`)

#[cfg(feature = "vortex")]
mod vortex_peer {
    use vortex::array::arrays::PrimitiveArray;
    use vortex::array::serde::SerializeOptions;
    use vortex::array::session::ArraySessionExt;
    use vortex::array::validity::Validity;
    use vortex::array::{ArrayContext, ArrayRef, IntoArray, VortexSessionExecute};
    use vortex::buffer::Buffer;
    use vortex::compressor::BtrBlocksCompressor;
    use vortex::encodings::{
        alp, bytebool, datetime_parts, decimal_byte_parts, fastlanes, fsst, pco, runend, sequence, sparse, zigzag,
    };
    use vortex::session::VortexSession;
    use vortex::VortexSessionDefault;

    use super::{Peer, PeerEncoded};

    /// The `vortex` crate's default compressor (BtrBlocks-style cascades, chosen by sampling) on one array of all
    /// the values. Decode and take execute to a fresh `PrimitiveArray` and copy it out; take pushes the positions
    /// down to the encodings' own take kernels.
    pub struct VortexPeer {
        session: VortexSession,
    }

    impl Default for VortexPeer {
        /// The default session plus the encodings a default Vortex file session registers (its `files` feature,
        /// a larger build, would add them; zstd and onpair, for strings, aside). The compressor keeps only the
        /// schemes whose encodings the session knows: without these it leaves integers uncompressed.
        fn default() -> Self {
            let session = VortexSession::default();
            for initialize in [
                alp::initialize,
                bytebool::initialize,
                datetime_parts::initialize,
                decimal_byte_parts::initialize,
                fastlanes::initialize,
                fsst::initialize,
                runend::initialize,
                sequence::initialize,
                sparse::initialize,
                zigzag::initialize,
            ] {
                initialize(&session);
            }
            session.arrays().register(pco::Pco);
            VortexPeer { session }
        }
    }

    impl Peer for VortexPeer {
        fn name(&self) -> &'static str {
            "vortex"
        }

        fn random_access(&self) -> bool {
            true
        }

        fn encode(&self, values: &[u32]) -> Option<Box<dyn PeerEncoded>> {
            let array = PrimitiveArray::new(Buffer::copy_from(values), Validity::NonNullable).into_array();
            let mut ctx = self.session.create_execution_ctx();
            let array = BtrBlocksCompressor::from_session(&self.session).compress(&array, &mut ctx).ok()?;
            // The serialized size: buffers, and the encoding tree's metadata (all a sequence or a run of
            // sequences needs, which own no buffer).
            let serialized =
                array.serialize(&ArrayContext::empty(), &self.session, &SerializeOptions::default()).ok()?;
            let bytes = serialized.iter().map(|buffer| buffer.len()).sum();
            Some(Box::new(VortexEncoded { array, bytes, session: self.session.clone() }))
        }
    }

    /// A compressed vortex array.
    struct VortexEncoded {
        array: ArrayRef,
        bytes: usize,
        session: VortexSession,
    }

    impl VortexEncoded {
        /// Executes `array` (this one, or a take of it) into `out`.
        fn execute_into(&self, array: ArrayRef, out: &mut [u32]) {
            let mut ctx = self.session.create_execution_ctx();
            let decoded: PrimitiveArray = array.execute(&mut ctx).expect("vortex decodes what it encoded");
            out.copy_from_slice(decoded.as_slice::<u32>());
        }
    }

    impl PeerEncoded for VortexEncoded {
        fn bytes(&self) -> usize {
            self.bytes
        }

        fn decode_into(&self, out: &mut [u32]) {
            self.execute_into(self.array.clone(), out);
        }

        fn take_into(&self, positions: &[u32], out: &mut [u32], _: &mut Vec<u32>) {
            let indices = PrimitiveArray::new(Buffer::copy_from(positions), Validity::NonNullable).into_array();
            self.execute_into(self.array.take(indices).expect("positions in range"), out);
        }
    }
}

#[cfg(test)]
mod tests {
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    use super::*;

    const LENGTHS: [usize; 9] = [0, 1, 127, 128, 129, 1000, 1025, 65_535, 70_000];

    /// The data shapes every peer must round-trip, by name.
    fn shapes(len: usize, rng: &mut StdRng) -> Vec<(&'static str, Vec<u32>)> {
        let mut full: Vec<u32> = (0..len).map(|_| rng.gen()).collect();
        if let Some(last) = full.last_mut() {
            *last = u32::MAX;
        }
        let small = (0..len).map(|_| rng.gen_range(0..16)).collect();
        let mut sum = 0u32;
        let sorted = (0..len)
            .map(|_| {
                sum = sum.wrapping_add(rng.gen_range(0..1000)).min(u32::MAX - 1000);
                sum
            })
            .collect();
        vec![
            ("full-range", full),
            ("small", small),
            ("sorted", sorted),
            ("zeros", vec![0; len]),
            ("max", vec![u32::MAX; len]),
        ]
    }

    fn check<T: Copy + Default + PartialEq>(peer: &dyn Peer<T>, shape: &str, values: &[T], rng: &mut StdRng) {
        let what = format!("{} on {} {shape} values", peer.name(), values.len());
        let encoded = peer.encode(values).unwrap_or_else(|| panic!("{what}: not encoded"));
        assert!(values.is_empty() || encoded.bytes() > 0, "{what}: no bytes");

        let mut decoded = vec![T::default(); values.len()];
        encoded.decode_into(&mut decoded);
        assert!(decoded == values, "{what}: decode_into differs");

        let mut scratch = Vec::new();
        let random: Vec<u32> = if values.is_empty() {
            Vec::new()
        } else {
            (0..500).map(|_| rng.gen_range(0..values.len() as u32)).collect()
        };
        let mut sorted = random.clone();
        sorted.sort_unstable();
        let every: Vec<u32> = (0..values.len() as u32).collect();
        for (kind, positions) in [("random", &random), ("sorted", &sorted), ("every", &every), ("empty", &Vec::new())] {
            let mut out = vec![T::default(); positions.len()];
            encoded.take_into(positions, &mut out, &mut scratch);
            let expected: Vec<T> = positions.iter().map(|&p| values[p as usize]).collect();
            assert!(out == expected, "{what}: take_into {kind} positions differs");
        }
    }

    #[test]
    fn peers_in_table_order() {
        let names: Vec<_> = all().iter().map(|peer| peer.name()).collect();
        let mut expected = vec![
            "bitpacking BP128",
            "bitpacking BP8x",
            "fastlanes",
            "fastpfor",
            "stream-vbyte",
            "pco",
            "zstd",
            "lz4_flex",
        ];
        if cfg!(feature = "vortex") {
            expected.push("vortex");
        }
        assert_eq!(names, expected);
    }

    #[test]
    fn every_peer_round_trips() {
        let mut rng = StdRng::seed_from_u64(7);
        for len in LENGTHS {
            for (shape, values) in shapes(len, &mut rng) {
                for peer in all() {
                    check(peer.as_ref(), shape, &values, &mut rng);
                }
            }
        }
    }

    #[cfg(feature = "vortex")]
    #[test]
    fn vortex_compresses_small_integers() {
        let values: Vec<u32> = (0..65_536).map(|i| i % 16).collect();
        let encoded = vortex_peer::VortexPeer::default().encode(&values).expect("encodes");
        assert!(encoded.bytes() < values.len(), "{} bytes", encoded.bytes());
    }

    #[test]
    fn wide_and_byte_peers_round_trip() {
        let mut rng = StdRng::seed_from_u64(13);
        for len in LENGTHS {
            for (shape, values) in shapes(len, &mut rng) {
                let longs: Vec<u64> = values.iter().map(|&v| (v as u64) << 32 | v as u64).collect();
                for peer in wide() {
                    check(peer.as_ref(), shape, &longs, &mut rng);
                }
                let raw: Vec<u8> = values.iter().map(|&v| v as u8).collect();
                for peer in bytes() {
                    check(peer.as_ref(), shape, &raw, &mut rng);
                }
            }
        }
    }

    #[test]
    fn every_peer_round_trips_a_million_values() {
        let mut rng = StdRng::seed_from_u64(11);
        let values: Vec<u32> = (0..1_000_000).map(|_| rng.gen()).collect();
        for peer in all() {
            check(peer.as_ref(), "full-range", &values, &mut rng);
        }
    }

    #[test]
    fn random_access_peers_are_the_block_codecs() {
        let random: Vec<_> = all().iter().filter(|peer| peer.random_access()).map(|peer| peer.name()).collect();
        let mut expected = vec!["bitpacking BP128", "bitpacking BP8x", "fastlanes", "zstd", "lz4_flex"];
        if cfg!(feature = "vortex") {
            expected.push("vortex");
        }
        assert_eq!(random, expected);
    }
}
