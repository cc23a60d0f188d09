//! The zstd / lz4_flex peer.

use super::*;

/// Raw bytes per independently compressed block (16K `u32`, 8K `u64`).
pub(super) const RAW_BLOCK_BYTES: usize = 64 * 1024;

/// zstd's level (its default).
pub(crate) const ZSTD_LEVEL: i32 = 3;

/// A general-purpose byte compressor, run over blocks of [`RAW_BLOCK_BYTES`] so `take` decompresses only
/// the blocks it reads.
pub(crate) trait ByteCompressor: 'static {
    const NAME: &'static str;
    /// Compresses one block of raw bytes; `None` when the compressor fails.
    fn compress(raw: &[u8]) -> Option<Vec<u8>>;
    /// Decompresses one block into the front of `raw`, which is at least the block's raw size.
    fn decompress(block: &[u8], raw: &mut [u8]);
}

/// zstd at [`ZSTD_LEVEL`].
pub(crate) struct Zstd;

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
pub(crate) struct Lz4;

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

macro_rules! le_float {
    ($($t:ty),*) => {$(
        // SAFETY: every bit pattern of a float is a value (NaNs included).
        unsafe impl LeWord for $t {
            fn extend_le(raw: &mut Vec<u8>, values: &[Self]) {
                raw.extend(values.iter().flat_map(|v| v.to_le_bytes()));
            }

            fn from_le(raw: Self) -> Self {
                <$t>::from_bits(raw.to_bits().to_le())
            }
        }
    )*};
}

le_float!(f32, f64);

/// Values compressed by `C` in independent blocks of [`RAW_BLOCK_BYTES`].
pub(super) struct BlockCompressorPeer<C>(pub(super) PhantomData<fn() -> C>);

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
pub(super) struct CompressedBlocks<C, T> {
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
