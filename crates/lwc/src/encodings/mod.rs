//! Encodings: one file each, all of the same shape.
//!
//! An encoding turns a slice of integers (no nulls: the segment layer has replaced them) into a *stream*
//! and reads a stream back through a validated view. Every view answers the same operations
//! (`StreamOps`): decode a range, get one value, take positions, filter by a value range or set, sum and
//! aggregate a selection. Operations an encoding cannot do better than "decode a block, then work on
//! plain values" use the provided defaults, which stay block-at-a-time so nothing is materialized whole.
//!
//! Stream bytes: one byte of encoding id, then the encoding's own body. Child streams (dictionary codes,
//! ...) are streams too, encoded by any encoding: a [`Cascade`] says which.

pub(crate) mod bitpack;
pub(crate) mod bytepack;
mod cascade;
mod compressed;
pub(crate) mod constant;
pub(crate) mod delta;
pub(crate) mod delta2;
pub(crate) mod dict;
pub(crate) mod for_n;
pub(crate) mod frame_of_reference;
pub(crate) mod gcd;
pub(crate) mod lz4;
pub(crate) mod pfor;
pub(crate) mod plain;
pub(crate) mod rle;
pub(crate) mod sequence;
pub(crate) mod varint;
pub(crate) mod zstd;

#[cfg(test)]
#[path = "../../tests/common/shapes.rs"]
pub(crate) mod test_shapes;

use crate::bitmap::Bitmap;
use crate::bytes::{Reader, Writer};
use crate::error::{Error, Result};
use crate::kernels::{bitpack::BLOCK, positions::has_dense_block, scan};
use crate::select::{self, Evaluation, Fallback, Objective};
use crate::selection::Selection;
use crate::types::{LwcInt, Word};

pub use cascade::{Cascade, MAX_CASCADE_DEPTH};

/// Stable identifiers of encodings, as stored in bytes and printed by tools. Add, never renumber. Ids
/// reserved for the catalog: pfor 7, delta 8, delta2 9, sequence 10, rle 11, varint 12, gcd 13, lz4 14,
/// zstd 15.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum EncodingId {
    /// Values as they are.
    Plain = 0,
    /// One value repeated.
    Constant = 1,
    /// Fixed-width bit-aligned null suppression.
    Bitpack = 2,
    /// Frame of reference truncated to 1, 2, 4 or 8 bytes.
    Bytepack = 3,
    /// Frame of reference: one reference, bit-packed residuals.
    For = 4,
    /// Frame of reference with one reference per block of N values.
    ForN = 5,
    /// Sorted distinct values and bit-packed codes.
    Dict = 6,
    /// Patched frame of reference: residuals bit-packed at a width most fit, the rest as exceptions.
    Pfor = 7,
    /// Differences between neighbours, with a full value every `stride` rows.
    Delta = 8,
    /// Double delta: bit-packed second differences, a data point every `stride` values.
    Delta2 = 9,
    /// `base + i * step`.
    Sequence = 10,
    /// Run-end encoding: run values and run ends as child streams.
    Rle = 11,
    /// Byte-aligned variable-length residuals (LEB128), a byte offset every 128 values.
    Varint = 12,
    /// Residuals divided by their greatest common divisor, the quotients as a child stream.
    Gcd = 13,
    /// Blocks of 1,024 values compressed by LZ4.
    Lz4 = 14,
    /// Blocks of 1,024 values compressed by Zstandard.
    Zstd = 15,
}

impl EncodingId {
    /// Every encoding, in id order.
    pub const ALL: [EncodingId; 16] = [
        EncodingId::Plain,
        EncodingId::Constant,
        EncodingId::Bitpack,
        EncodingId::Bytepack,
        EncodingId::For,
        EncodingId::ForN,
        EncodingId::Dict,
        EncodingId::Pfor,
        EncodingId::Delta,
        EncodingId::Delta2,
        EncodingId::Sequence,
        EncodingId::Rle,
        EncodingId::Varint,
        EncodingId::Gcd,
        EncodingId::Lz4,
        EncodingId::Zstd,
    ];

    /// The stable name (`"plain"`, `"for_n"`, ...).
    pub fn name(self) -> &'static str {
        match self {
            EncodingId::Plain => "plain",
            EncodingId::Constant => "constant",
            EncodingId::Bitpack => "bitpack",
            EncodingId::Bytepack => "bytepack",
            EncodingId::For => "for",
            EncodingId::ForN => "for_n",
            EncodingId::Dict => "dict",
            EncodingId::Lz4 => "lz4",
            EncodingId::Zstd => "zstd",
            EncodingId::Pfor => "pfor",
            EncodingId::Varint => "varint",
            EncodingId::Gcd => "gcd",
            EncodingId::Delta => "delta",
            EncodingId::Delta2 => "delta2",
            EncodingId::Sequence => "sequence",
            EncodingId::Rle => "rle",
        }
    }

    /// Parses a stored id.
    pub fn from_id(id: u8) -> Result<EncodingId> {
        EncodingId::ALL.iter().copied().find(|&e| e as u8 == id).ok_or(Error::UnknownEncoding(id))
    }

    /// What each child stream holds, in order; empty for encodings without children.
    pub fn child_names(self) -> &'static [&'static str] {
        match self {
            EncodingId::Dict => &["codes"],
            EncodingId::Pfor => &["exception positions", "exception values"],
            EncodingId::Gcd => &["quotients"],
            EncodingId::Delta => &["deltas", "data points"],
            EncodingId::Rle => &["values", "ends"],
            _ => &[],
        }
    }
}

impl std::fmt::Display for EncodingId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// How to encode a segment: a fixed encoding, or `Auto`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Encoding {
    /// Values as they are.
    Plain,
    /// One value repeated; fails on data with two distinct values.
    Constant,
    /// Fixed-width bit packing of the values themselves (negative values need the full width).
    Bitpack,
    /// `value - min` in the smallest of 1, 2, 4 or 8 bytes (Umbra's truncation, Hyrise's fsba with a
    /// reference).
    Bytepack,
    /// Frame of reference: `value - min`, bit-packed at the width of `max - min`.
    For,
    /// Frame of reference with one reference per `block` values (a power of two; seed 001's FOR64 is
    /// `block = 64`), residuals bit-packed at one width.
    ForN {
        /// Values per reference.
        block: u32,
    },
    /// Sorted distinct values, and codes bit-packed as a child stream.
    Dict,
    /// Blocks of 1,024 values compressed by LZ4: a heavyweight baseline (random access decompresses a block).
    Lz4,
    /// Blocks of 1,024 values compressed by Zstandard (level 3): a heavyweight baseline.
    Zstd,
    /// Patched frame of reference (seed 002's PFOR): `value - min` bit-packed at the width that minimizes
    /// the total size, the values that do not fit kept as exceptions in two child streams.
    Pfor,
    /// `value - min` in LEB128 bytes (byte-aligned null suppression per value), a byte offset every 128
    /// values for `get`.
    Varint,
    /// `(value - min) / d` for the greatest common divisor `d > 1` of those differences, the quotients as a
    /// child stream; fails on data whose differences have no common divisor.
    Gcd,
    /// Differences between neighbours (zigzagged unless the values never decrease) and the full value
    /// every `stride` rows (a power of two in 16 ..= 65,536; seed 001's data points), both child streams.
    Delta {
        /// Rows per data point.
        stride: u32,
    },
    /// Double delta: zigzag second differences bit-packed, the value and first delta stored every
    /// `stride` values (a power of two), so a read walks at most `stride` differences.
    Delta2 {
        /// Values per data point.
        stride: u32,
    },
    /// `base + i * step` (Umbra's Increment); fails on data that is not exactly such a sequence, ascending,
    /// descending or constant, without wrapping.
    Sequence,
    /// Run-end encoding: one value and one exclusive end row per run, as child streams.
    Rle,
    /// The smallest estimated encoding for each segment. (The sampling selector with objectives is a
    /// later layer; this picks by exact size estimates from one pass over the values.)
    #[default]
    Auto,
}

impl Encoding {
    /// FOR64 of seed 001.
    pub const FOR64: Encoding = Encoding::ForN { block: 64 };

    /// Delta with a data point every 1,024 rows.
    pub const DELTA: Encoding = Encoding::Delta { stride: delta::DEFAULT_STRIDE };
    /// `delta2` at its default stride of 1,024 values.
    pub const DELTA2: Encoding = Encoding::Delta2 { stride: delta2::DEFAULT_STRIDE };

    /// Parses a stable name (`"for_n"` takes the default block of 64, `"for_n:128"` another; `"auto"` is
    /// [`Encoding::Auto`]).
    pub fn from_name(name: &str) -> Option<Encoding> {
        if let Some((name, parameter)) = name.split_once(':') {
            let parameter: u32 = parameter.parse().ok()?;
            return match name {
                "for_n" => Some(Encoding::ForN { block: parameter }),
                "delta" => Some(Encoding::Delta { stride: parameter }),
                "delta2" => Some(Encoding::Delta2 { stride: parameter }),
                _ => None,
            };
        }
        Some(match name {
            "plain" => Encoding::Plain,
            "constant" => Encoding::Constant,
            "bitpack" => Encoding::Bitpack,
            "bytepack" => Encoding::Bytepack,
            "for" => Encoding::For,
            "for_n" => Encoding::FOR64,
            "dict" => Encoding::Dict,
            "lz4" => Encoding::Lz4,
            "zstd" => Encoding::Zstd,
            "pfor" => Encoding::Pfor,
            "varint" => Encoding::Varint,
            "gcd" => Encoding::Gcd,
            "delta" => Encoding::DELTA,
            "delta2" => Encoding::DELTA2,
            "sequence" => Encoding::Sequence,
            "rle" => Encoding::Rle,
            "auto" => Encoding::Auto,
            _ => return None,
        })
    }

    /// The stored encoding, `None` for [`Encoding::Auto`].
    pub fn id(self) -> Option<EncodingId> {
        Some(match self {
            Encoding::Plain => EncodingId::Plain,
            Encoding::Constant => EncodingId::Constant,
            Encoding::Bitpack => EncodingId::Bitpack,
            Encoding::Bytepack => EncodingId::Bytepack,
            Encoding::For => EncodingId::For,
            Encoding::ForN { .. } => EncodingId::ForN,
            Encoding::Dict => EncodingId::Dict,
            Encoding::Lz4 => EncodingId::Lz4,
            Encoding::Zstd => EncodingId::Zstd,
            Encoding::Pfor => EncodingId::Pfor,
            Encoding::Varint => EncodingId::Varint,
            Encoding::Gcd => EncodingId::Gcd,
            Encoding::Delta { .. } => EncodingId::Delta,
            Encoding::Delta2 { .. } => EncodingId::Delta2,
            Encoding::Sequence => EncodingId::Sequence,
            Encoding::Rle => EncodingId::Rle,
            Encoding::Auto => return None,
        })
    }
}

/// The stable name, with a parameter where it differs from the default (`for_n:128`); [`Encoding::from_name`]
/// parses it back.
impl std::fmt::Display for Encoding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self, self.id()) {
            (Encoding::ForN { block }, _) if *self != Encoding::FOR64 => write!(f, "for_n:{block}"),
            (Encoding::Delta { stride }, _) if *self != Encoding::DELTA => write!(f, "delta:{stride}"),
            (Encoding::Delta2 { stride }, _) if *self != Encoding::DELTA2 => write!(f, "delta2:{stride}"),
            (_, Some(id)) => f.write_str(id.name()),
            (_, None) => f.write_str("auto"),
        }
    }
}

/// The encoding with its parameters at their defaults.
impl From<EncodingId> for Encoding {
    fn from(id: EncodingId) -> Encoding {
        match id {
            EncodingId::Plain => Encoding::Plain,
            EncodingId::Constant => Encoding::Constant,
            EncodingId::Bitpack => Encoding::Bitpack,
            EncodingId::Bytepack => Encoding::Bytepack,
            EncodingId::For => Encoding::For,
            EncodingId::ForN => Encoding::FOR64,
            EncodingId::Dict => Encoding::Dict,
            EncodingId::Lz4 => Encoding::Lz4,
            EncodingId::Zstd => Encoding::Zstd,
            EncodingId::Pfor => Encoding::Pfor,
            EncodingId::Varint => Encoding::Varint,
            EncodingId::Gcd => Encoding::Gcd,
            EncodingId::Delta => Encoding::DELTA,
            EncodingId::Delta2 => Encoding::DELTA2,
            EncodingId::Sequence => Encoding::Sequence,
            EncodingId::Rle => Encoding::Rle,
        }
    }
}

/// What one pass over the values tells every encoder.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Stats<T: LwcInt> {
    pub min: T,
    pub max: T,
    /// OR of all values' bits: its width is the width plain bit packing needs.
    pub or_bits: T::Unsigned,
}

impl<T: LwcInt> Stats<T> {
    pub fn compute(values: &[T]) -> Stats<T> {
        let (mut min, mut max, mut or_bits) = (T::MAX, T::MIN, T::Unsigned::ZERO);
        for &v in values {
            min = min.min(v);
            max = max.max(v);
            or_bits = or_bits | v.to_bits();
        }
        if values.is_empty() {
            (min, max) = (T::default(), T::default());
        }
        Stats { min, max, or_bits }
    }

    /// Bits of `max - min`: the width of frame-of-reference residuals.
    pub fn range_bits(&self) -> u32 {
        self.max.offset_from(self.min).bits_used()
    }
}

/// Sum, min and max of some values (the count is the caller's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Partial<T> {
    pub sum: i128,
    pub min: Option<T>,
    pub max: Option<T>,
}

impl<T: LwcInt> Partial<T> {
    pub const EMPTY: Partial<T> = Partial { sum: 0, min: None, max: None };

    pub fn of(values: &[T]) -> Partial<T> {
        Partial { sum: T::sum(values), min: values.iter().min().copied(), max: values.iter().max().copied() }
    }

    pub fn merge(self, other: Partial<T>) -> Partial<T> {
        let pick = |a: Option<T>, b: Option<T>, f: fn(T, T) -> T| match (a, b) {
            (Some(a), Some(b)) => Some(f(a, b)),
            (a, b) => a.or(b),
        };
        Partial {
            sum: self.sum + other.sum,
            min: pick(self.min, other.min, T::min),
            max: pick(self.max, other.max, T::max),
        }
    }
}

/// The writing half of an encoding.
pub(crate) trait Codec {
    const ID: EncodingId;
    /// Encoded body bytes, or `None` when the encoding cannot represent `values`.
    fn estimate<T: LwcInt>(values: &[T], stats: &Stats<T>, params: &Params) -> Option<usize>;
    /// Appends the body (without the id byte).
    fn encode<T: LwcInt>(values: &[T], stats: &Stats<T>, params: &Params, out: &mut Writer) -> Result<()>;
}

/// What an encoder is told beyond the values: its parameters and how to encode its children.
#[derive(Debug, Clone)]
pub(crate) struct Params {
    pub for_n_block: u32,
    pub delta_stride: u32,
    pub delta2_stride: u32,
    /// The cascade being written; its children say how child streams are encoded.
    pub cascade: Cascade,
    /// Streams above this one (0 at the top).
    pub depth: usize,
    /// What `Auto` optimizes, here and in child streams.
    pub objective: Objective,
    /// Encodings `Auto` may not choose here: ones chosen before that did not apply to the whole stream
    /// (bit `id`).
    pub excluded: u32,
    /// The stream is (a child of) a sample being estimated, not data being written.
    pub sampled: bool,
}

impl Params {
    /// The parameters of `cascade`'s top encoding at `depth`.
    pub(crate) fn of(cascade: &Cascade, depth: usize, objective: Objective) -> Params {
        let mut params = Params {
            for_n_block: 64,
            delta_stride: delta::DEFAULT_STRIDE,
            delta2_stride: delta2::DEFAULT_STRIDE,
            cascade: cascade.clone(),
            depth,
            objective,
            excluded: 0,
            sampled: false,
        };
        match cascade.encoding() {
            Encoding::ForN { block } => params.for_n_block = block,
            Encoding::Delta { stride } => params.delta_stride = stride,
            Encoding::Delta2 { stride } => params.delta2_stride = stride,
            _ => {}
        }
        params
    }

    /// Encodes child stream `k` (id byte and body): as the cascade says, else with `default`.
    pub fn encode_child<C: LwcInt>(&self, k: usize, values: &[C], default: Encoding, out: &mut Writer) -> Result<()> {
        let child = self.cascade.child(k, default);
        encode_stream_at(values, &child, self.depth + 1, self.objective, out).map(|_| ())
    }

    /// Estimated bytes of child stream `k` (id byte and body), as [`Params::encode_child`] would write it.
    pub fn estimate_child<C: LwcInt>(&self, k: usize, values: &[C], default: Encoding) -> Option<usize> {
        let child = self.cascade.child(k, default);
        let stats = Stats::compute(values);
        let params = Params { sampled: self.sampled, ..Params::of(&child, self.depth + 1, self.objective) };
        match child.encoding().id() {
            Some(id) => Some(1 + estimate_of(id, values, &stats, &params)?),
            None => Some(select::evaluate(values, &stats, &params).estimated_bytes()),
        }
    }
}

impl Default for Params {
    fn default() -> Self {
        Params::of(&Cascade::new(Encoding::Auto), 0, Objective::default())
    }
}

/// Positions in one block of [`BLOCK`] values from which decoding the block beats reading them one by
/// one: with gathers at about 0.8 ns a position and a block decode at about 75 ns, the crossover sits
/// near 250 (`lwc-bench access`, take 10^4 sorted: 150 a block, 2.1x faster read one by one than
/// with a threshold of 96).
pub(crate) const DENSE_BLOCK: usize = 256;

/// The operations every encoded stream answers. Positions passed in are `< len()`; callers check.
pub(crate) trait StreamOps<T: LwcInt> {
    /// Values in the stream.
    fn len(&self) -> usize;

    /// `out = values[start .. start + out.len()]`.
    fn decode_into(&self, start: usize, out: &mut [T]);

    /// One value, O(1).
    fn get(&self, i: usize) -> T;

    /// `out[k] = values[positions[k]]`, positions in any order.
    fn take_into(&self, positions: &[u32], out: &mut [T]) {
        for (o, &p) in out.iter_mut().zip(positions) {
            *o = self.get(p as usize);
        }
    }

    /// As [`StreamOps::take_into`] for ascending positions: a block holding at least [`DENSE_BLOCK`]
    /// of them is decoded once into a buffer that stays in L1 and picked from; the positions between
    /// dense blocks are read value by value, in one call.
    fn take_sorted_into(&self, positions: &[u32], out: &mut [T]) {
        if !has_dense_block(positions, BLOCK as u32, DENSE_BLOCK) {
            return self.take_into(positions, out);
        }
        let mut buf = [T::default(); BLOCK];
        let (mut k, mut sparse_from) = (0, 0);
        while k < positions.len() {
            let end = (positions[k] as usize / BLOCK + 1) * BLOCK;
            // One probe says whether the block is dense; sparse runs are short, so step over them.
            let dense = positions.get(k + DENSE_BLOCK - 1).is_some_and(|&p| (p as usize) < end);
            if !dense {
                while k < positions.len() && (positions[k] as usize) < end {
                    k += 1;
                }
                continue;
            }
            let run = positions[k..].partition_point(|&p| (p as usize) < end);
            self.take_into(&positions[sparse_from..k], &mut out[sparse_from..k]);
            let start = end - BLOCK;
            let len = (self.len() - start).min(BLOCK);
            self.decode_into(start, &mut buf[..len]);
            for (o, &p) in out[k..k + run].iter_mut().zip(&positions[k..k + run]) {
                *o = buf[p as usize - start];
            }
            k += run;
            sparse_from = k;
        }
        self.take_into(&positions[sparse_from..], &mut out[sparse_from..]);
    }

    /// Sets bit `i` of `out` (all clear on entry) for every value with `lo <= value <= hi`.
    fn filter_range(&self, lo: T, hi: T, out: &mut Bitmap) {
        let span = hi.offset_from(lo);
        self.for_each_block(|start, block| {
            scan::filter_range_plain(
                bytemuck::cast_slice(block),
                lo.to_bits(),
                span,
                &mut out.words_mut()[start / 64..],
            );
        });
    }

    /// Sets bit `i` of `out` for every value in `set` (sorted, distinct, non-empty).
    fn filter_in(&self, set: &[T], out: &mut Bitmap) {
        self.for_each_block(|start, block| {
            for (k, v) in block.iter().enumerate() {
                if set.binary_search(v).is_ok() {
                    out.set(start + k);
                }
            }
        });
    }

    /// Sum of all values.
    fn sum(&self) -> i128 {
        let mut sum = 0;
        self.for_each_block(|_, block| sum += T::sum(block));
        sum
    }

    /// Sum, min and max of the selected values.
    fn aggregate(&self, selection: &Selection) -> Partial<T> {
        let mut acc = Partial::EMPTY;
        match selection {
            Selection::Positions(p) => {
                let mut buf = [T::default(); BLOCK];
                for chunk in p.chunks(BLOCK) {
                    self.take_into(chunk, &mut buf[..chunk.len()]);
                    acc = acc.merge(Partial::of(&buf[..chunk.len()]));
                }
            }
            Selection::Bitmap(bits) => {
                let mut picked = Vec::with_capacity(BLOCK);
                self.for_each_block(|start, block| {
                    picked.clear();
                    let words = &bits.words()[start / 64..(start + block.len()).div_ceil(64)];
                    for (wi, &w) in words.iter().enumerate() {
                        let mut w = w;
                        while w != 0 {
                            picked.push(block[wi * 64 + w.trailing_zeros() as usize]);
                            w &= w - 1;
                        }
                    }
                    acc = acc.merge(Partial::of(&picked));
                });
            }
        }
        acc
    }

    /// Calls `f(start, values)` for consecutive blocks of up to [`BLOCK`] values (starts are multiples of it).
    fn for_each_block(&self, mut f: impl FnMut(usize, &[T])) {
        let mut buf = [T::default(); BLOCK];
        for start in (0..self.len()).step_by(BLOCK) {
            let n = (self.len() - start).min(BLOCK);
            self.decode_into(start, &mut buf[..n]);
            f(start, &buf[..n]);
        }
    }
}

/// A view over any encoded stream: dispatch of the operation set to the encoding's view.
pub(crate) enum StreamView<'a, T: LwcInt> {
    Plain(plain::PlainView<'a, T>),
    Constant(constant::ConstantView<T>),
    Bitpack(bitpack::BitpackView<'a, T>),
    Bytepack(bytepack::BytepackView<'a, T>),
    For(frame_of_reference::ForView<'a, T>),
    ForN(for_n::ForNView<'a, T>),
    Dict(Box<dict::DictView<'a, T>>),
    Lz4(compressed::CompressedView<'a, T, lz4::Lz4>),
    Zstd(compressed::CompressedView<'a, T, zstd::Zstd>),
    Pfor(Box<pfor::PforView<'a, T>>),
    Varint(varint::VarintView<'a, T>),
    Gcd(Box<gcd::GcdView<'a, T>>),
    Delta(Box<delta::DeltaView<'a, T>>),
    Delta2(delta2::Delta2View<'a, T>),
    Sequence(sequence::SequenceView<T>),
    Rle(Box<rle::RleView<'a, T>>),
}

macro_rules! dispatch {
    ($self:ident, |$v:ident| $body:expr) => {
        match $self {
            StreamView::Plain($v) => $body,
            StreamView::Constant($v) => $body,
            StreamView::Bitpack($v) => $body,
            StreamView::Bytepack($v) => $body,
            StreamView::For($v) => $body,
            StreamView::ForN($v) => $body,
            StreamView::Dict($v) => $body,
            StreamView::Lz4($v) => $body,
            StreamView::Zstd($v) => $body,
            StreamView::Pfor($v) => $body,
            StreamView::Varint($v) => $body,
            StreamView::Gcd($v) => $body,
            StreamView::Delta($v) => $body,
            StreamView::Delta2($v) => $body,
            StreamView::Sequence($v) => $body,
            StreamView::Rle($v) => $body,
        }
    };
}

impl<'a, T: LwcInt> StreamView<'a, T> {
    /// Validates and opens a stream of `n` values.
    pub fn open(r: &mut Reader<'a>, n: usize) -> Result<Self> {
        StreamView::open_nested(r, n, 0)
    }

    /// Opens a stream that sits `depth` child streams deep.
    pub fn open_nested(r: &mut Reader<'a>, n: usize, depth: usize) -> Result<Self> {
        // Children open recursively: bound the depth (writers stack at most MAX_CASCADE_DEPTH streams), or
        // a few bytes per level of corrupt input (dictionaries of dictionaries) overflow the stack.
        if depth >= MAX_CASCADE_DEPTH {
            return Err(Error::Corrupt(format!("streams nested deeper than {MAX_CASCADE_DEPTH} levels")));
        }
        let id = EncodingId::from_id(r.u8("stream encoding id")?)?;
        Ok(match id {
            EncodingId::Plain => StreamView::Plain(plain::PlainView::open(r, n)?),
            EncodingId::Constant => StreamView::Constant(constant::ConstantView::open(r, n)?),
            EncodingId::Bitpack => StreamView::Bitpack(bitpack::BitpackView::open(r, n)?),
            EncodingId::Bytepack => StreamView::Bytepack(bytepack::BytepackView::open(r, n)?),
            EncodingId::For => StreamView::For(frame_of_reference::ForView::open(r, n)?),
            EncodingId::ForN => StreamView::ForN(for_n::ForNView::open(r, n)?),
            EncodingId::Dict => StreamView::Dict(Box::new(dict::DictView::open(r, n, depth)?)),
            EncodingId::Lz4 => StreamView::Lz4(compressed::CompressedView::open(r, n)?),
            EncodingId::Zstd => StreamView::Zstd(compressed::CompressedView::open(r, n)?),
            EncodingId::Pfor => StreamView::Pfor(Box::new(pfor::PforView::open(r, n, depth)?)),
            EncodingId::Varint => StreamView::Varint(varint::VarintView::open(r, n)?),
            EncodingId::Gcd => StreamView::Gcd(Box::new(gcd::GcdView::open(r, n, depth)?)),
            EncodingId::Delta => StreamView::Delta(Box::new(delta::DeltaView::open(r, n, depth)?)),
            EncodingId::Delta2 => StreamView::Delta2(delta2::Delta2View::open(r, n)?),
            EncodingId::Sequence => StreamView::Sequence(sequence::SequenceView::open(r, n)?),
            EncodingId::Rle => StreamView::Rle(Box::new(rle::RleView::open(r, n, depth)?)),
        })
    }

    pub fn encoding(&self) -> EncodingId {
        match self {
            StreamView::Plain(_) => EncodingId::Plain,
            StreamView::Constant(_) => EncodingId::Constant,
            StreamView::Bitpack(_) => EncodingId::Bitpack,
            StreamView::Bytepack(_) => EncodingId::Bytepack,
            StreamView::For(_) => EncodingId::For,
            StreamView::ForN(_) => EncodingId::ForN,
            StreamView::Dict(_) => EncodingId::Dict,
            StreamView::Lz4(_) => EncodingId::Lz4,
            StreamView::Zstd(_) => EncodingId::Zstd,
            StreamView::Pfor(_) => EncodingId::Pfor,
            StreamView::Varint(_) => EncodingId::Varint,
            StreamView::Gcd(_) => EncodingId::Gcd,
            StreamView::Delta(_) => EncodingId::Delta,
            StreamView::Delta2(_) => EncodingId::Delta2,
            StreamView::Sequence(_) => EncodingId::Sequence,
            StreamView::Rle(_) => EncodingId::Rle,
        }
    }

    /// The cascade the stream was written with, as its bytes say.
    pub fn cascade(&self) -> Cascade {
        let encoding = match self {
            StreamView::ForN(v) => Encoding::ForN { block: v.block() },
            StreamView::Delta(v) => Encoding::Delta { stride: v.stride() },
            StreamView::Delta2(v) => Encoding::Delta2 { stride: v.stride() },
            _ => self.encoding().into(),
        };
        let children = match self {
            StreamView::Dict(v) => vec![v.codes().cascade()],
            StreamView::Pfor(v) => vec![v.positions().cascade(), v.exceptions().cascade()],
            StreamView::Gcd(v) => vec![v.quotients().cascade()],
            StreamView::Delta(v) => vec![v.deltas_cascade(), v.data_points().cascade()],
            StreamView::Rle(v) => vec![v.values().cascade(), v.ends().cascade()],
            _ => Vec::new(),
        };
        Cascade::read(encoding, children)
    }
}

impl<T: LwcInt> StreamOps<T> for StreamView<'_, T> {
    fn len(&self) -> usize {
        dispatch!(self, |v| v.len())
    }
    fn decode_into(&self, start: usize, out: &mut [T]) {
        dispatch!(self, |v| v.decode_into(start, out))
    }
    #[inline(always)]
    fn get(&self, i: usize) -> T {
        dispatch!(self, |v| v.get(i))
    }
    fn take_into(&self, positions: &[u32], out: &mut [T]) {
        dispatch!(self, |v| v.take_into(positions, out))
    }
    fn take_sorted_into(&self, positions: &[u32], out: &mut [T]) {
        dispatch!(self, |v| v.take_sorted_into(positions, out))
    }
    fn filter_range(&self, lo: T, hi: T, out: &mut Bitmap) {
        dispatch!(self, |v| v.filter_range(lo, hi, out))
    }
    fn filter_in(&self, set: &[T], out: &mut Bitmap) {
        dispatch!(self, |v| v.filter_in(set, out))
    }
    fn sum(&self) -> i128 {
        dispatch!(self, |v| v.sum())
    }
    fn aggregate(&self, selection: &Selection) -> Partial<T> {
        dispatch!(self, |v| v.aggregate(selection))
    }
    fn for_each_block(&self, f: impl FnMut(usize, &[T])) {
        dispatch!(self, |v| v.for_each_block(f))
    }
}

/// A child stream of unsigned words (`T::Unsigned`: deltas, exception bits, quotients), behind a trait object.
///
/// A view cannot hold a `StreamView<'a, T::Unsigned>` field: the compiler's implied-bounds inference
/// follows `T::Unsigned::Unsigned...` through the recursive `StreamView` without seeing that the
/// projection is idempotent, and stops with "overflow computing implied lifetime bounds". A trait
/// object ends that walk; calling through it costs the same indirect jump as `StreamView`'s match.
pub(crate) struct WordStream<'a, U: LwcInt>(Box<dyn DynStream<U> + Send + Sync + 'a>);

impl<'a, U: LwcInt> WordStream<'a, U> {
    /// Opens a child stream of `n` values that sits `depth` streams deep.
    pub fn open_nested(r: &mut Reader<'a>, n: usize, depth: usize) -> Result<Self> {
        Ok(WordStream(Box::new(StreamView::<U>::open_nested(r, n, depth)?)))
    }

    /// The cascade the stream was written with.
    pub fn cascade(&self) -> Cascade {
        self.0.cascade()
    }
}

/// [`StreamOps`] without its generic method, so it can sit behind `dyn`, and the cascade.
trait DynStream<U: LwcInt> {
    fn len(&self) -> usize;
    fn decode_into(&self, start: usize, out: &mut [U]);
    fn get(&self, i: usize) -> U;
    fn take_into(&self, positions: &[u32], out: &mut [U]);
    fn take_sorted_into(&self, positions: &[u32], out: &mut [U]);
    fn filter_range(&self, lo: U, hi: U, out: &mut Bitmap);
    fn filter_in(&self, set: &[U], out: &mut Bitmap);
    fn sum(&self) -> i128;
    fn aggregate(&self, selection: &Selection) -> Partial<U>;
    fn cascade(&self) -> Cascade;
}

impl<U: LwcInt> DynStream<U> for StreamView<'_, U> {
    fn len(&self) -> usize {
        StreamOps::len(self)
    }
    fn decode_into(&self, start: usize, out: &mut [U]) {
        StreamOps::decode_into(self, start, out)
    }
    fn get(&self, i: usize) -> U {
        StreamOps::get(self, i)
    }
    fn take_into(&self, positions: &[u32], out: &mut [U]) {
        StreamOps::take_into(self, positions, out)
    }
    fn take_sorted_into(&self, positions: &[u32], out: &mut [U]) {
        StreamOps::take_sorted_into(self, positions, out)
    }
    fn filter_range(&self, lo: U, hi: U, out: &mut Bitmap) {
        StreamOps::filter_range(self, lo, hi, out)
    }
    fn filter_in(&self, set: &[U], out: &mut Bitmap) {
        StreamOps::filter_in(self, set, out)
    }
    fn sum(&self) -> i128 {
        StreamOps::sum(self)
    }
    fn aggregate(&self, selection: &Selection) -> Partial<U> {
        StreamOps::aggregate(self, selection)
    }
    fn cascade(&self) -> Cascade {
        StreamView::cascade(self)
    }
}

impl<U: LwcInt> StreamOps<U> for WordStream<'_, U> {
    fn len(&self) -> usize {
        self.0.len()
    }
    fn decode_into(&self, start: usize, out: &mut [U]) {
        self.0.decode_into(start, out)
    }
    #[inline(always)]
    fn get(&self, i: usize) -> U {
        self.0.get(i)
    }
    fn take_into(&self, positions: &[u32], out: &mut [U]) {
        self.0.take_into(positions, out)
    }
    fn take_sorted_into(&self, positions: &[u32], out: &mut [U]) {
        self.0.take_sorted_into(positions, out)
    }
    fn filter_range(&self, lo: U, hi: U, out: &mut Bitmap) {
        self.0.filter_range(lo, hi, out)
    }
    fn filter_in(&self, set: &[U], out: &mut Bitmap) {
        self.0.filter_in(set, out)
    }
    fn sum(&self) -> i128 {
        self.0.sum()
    }
    fn aggregate(&self, selection: &Selection) -> Partial<U> {
        self.0.aggregate(selection)
    }
}

fn encode_with<C: Codec, T: LwcInt>(values: &[T], stats: &Stats<T>, params: &Params, out: &mut Writer) -> Result<()> {
    out.u8(C::ID as u8);
    C::encode(values, stats, params, out)
}

pub(crate) fn estimate_of<T: LwcInt>(id: EncodingId, values: &[T], stats: &Stats<T>, params: &Params) -> Option<usize> {
    match id {
        EncodingId::Plain => plain::Plain::estimate(values, stats, params),
        EncodingId::Constant => constant::Constant::estimate(values, stats, params),
        EncodingId::Bitpack => bitpack::Bitpack::estimate(values, stats, params),
        EncodingId::Bytepack => bytepack::Bytepack::estimate(values, stats, params),
        EncodingId::For => frame_of_reference::For::estimate(values, stats, params),
        EncodingId::ForN => for_n::ForN::estimate(values, stats, params),
        EncodingId::Dict => dict::Dict::estimate(values, stats, params),
        EncodingId::Lz4 => compressed::Compressed::<lz4::Lz4>::estimate(values, stats, params),
        EncodingId::Zstd => compressed::Compressed::<zstd::Zstd>::estimate(values, stats, params),
        EncodingId::Pfor => pfor::Pfor::estimate(values, stats, params),
        EncodingId::Varint => varint::Varint::estimate(values, stats, params),
        EncodingId::Gcd => gcd::Gcd::estimate(values, stats, params),
        EncodingId::Delta => delta::Delta::estimate(values, stats, params),
        EncodingId::Delta2 => delta2::Delta2::estimate(values, stats, params),
        EncodingId::Sequence => sequence::Sequence::estimate(values, stats, params),
        EncodingId::Rle => rle::Rle::estimate(values, stats, params),
    }
}

/// Encodes `values` as a stream (id byte and body) as `cascade` says, `Auto` choosing for `objective`;
/// returns how the top encoding was chosen, if it was.
pub(crate) fn encode_stream<T: LwcInt>(
    values: &[T],
    cascade: &Cascade,
    objective: Objective,
    out: &mut Writer,
) -> Result<Option<Evaluation>> {
    cascade.check()?;
    encode_stream_at(values, cascade, 0, objective, out)
}

/// [`encode_stream`] for a stream `depth` streams deep.
fn encode_stream_at<T: LwcInt>(
    values: &[T],
    cascade: &Cascade,
    depth: usize,
    objective: Objective,
    out: &mut Writer,
) -> Result<Option<Evaluation>> {
    let stats = Stats::compute(values);
    let params = Params::of(cascade, depth, objective);
    if let Some(id) = cascade.encoding().id() {
        return encode_as(id, values, &stats, &params, out).map(|()| None);
    }
    // An encoding chosen on a sample may not fit the whole stream (a sample can look like a sequence, or
    // share a divisor, that the stream does not). Then the next best is chosen without it, and the
    // record says so: a stream `Auto` encodes never fails, as `plain` always applies.
    let mut fallbacks = Vec::new();
    let mut excluded = 0u32;
    loop {
        let params = Params { excluded, ..params.clone() };
        let mut evaluation = select::evaluate(values, &stats, &params);
        let id = evaluation.encoding();
        let start = out.len();
        match encode_as(id, values, &stats, &Params::chosen(id, &params), out) {
            Err(Error::NotApplicable { reason, .. }) if id != EncodingId::Plain => {
                out.truncate(start);
                excluded |= 1 << id as u32;
                fallbacks.push(Fallback { encoding: id, reason });
            }
            Err(e) => return Err(e),
            Ok(()) => {
                evaluation.fallbacks = fallbacks;
                return Ok(Some(evaluation));
            }
        }
    }
}

/// Writes `values` as encoding `id` (id byte and body).
fn encode_as<T: LwcInt>(
    id: EncodingId,
    values: &[T],
    stats: &Stats<T>,
    params: &Params,
    out: &mut Writer,
) -> Result<()> {
    match id {
        EncodingId::Plain => encode_with::<plain::Plain, T>(values, stats, params, out),
        EncodingId::Constant => encode_with::<constant::Constant, T>(values, stats, params, out),
        EncodingId::Bitpack => encode_with::<bitpack::Bitpack, T>(values, stats, params, out),
        EncodingId::Bytepack => encode_with::<bytepack::Bytepack, T>(values, stats, params, out),
        EncodingId::For => encode_with::<frame_of_reference::For, T>(values, stats, params, out),
        EncodingId::ForN => encode_with::<for_n::ForN, T>(values, stats, params, out),
        EncodingId::Dict => encode_with::<dict::Dict, T>(values, stats, params, out),
        EncodingId::Lz4 => encode_with::<compressed::Compressed<lz4::Lz4>, T>(values, stats, params, out),
        EncodingId::Zstd => encode_with::<compressed::Compressed<zstd::Zstd>, T>(values, stats, params, out),
        EncodingId::Pfor => encode_with::<pfor::Pfor, T>(values, stats, params, out),
        EncodingId::Varint => encode_with::<varint::Varint, T>(values, stats, params, out),
        EncodingId::Gcd => encode_with::<gcd::Gcd, T>(values, stats, params, out),
        EncodingId::Delta => encode_with::<delta::Delta, T>(values, stats, params, out),
        EncodingId::Delta2 => encode_with::<delta2::Delta2, T>(values, stats, params, out),
        EncodingId::Sequence => encode_with::<sequence::Sequence, T>(values, stats, params, out),
        EncodingId::Rle => encode_with::<rle::Rle, T>(values, stats, params, out),
    }
}

/// Reads a width byte and checks it against the word size.
pub(crate) fn read_width<T: LwcInt>(r: &mut Reader<'_>) -> Result<u32> {
    let w = r.u8("bit width")? as u32;
    if w > T::Unsigned::BITS {
        return Err(Error::Corrupt(format!("bit width {w} exceeds the {}-bit type", T::Unsigned::BITS)));
    }
    Ok(w)
}

/// Reads a value stored as zero-extended `u64` bits, rejecting bits the type does not have.
pub(crate) fn read_value<T: LwcInt>(r: &mut Reader<'_>, what: &'static str) -> Result<T> {
    let bits = r.u64(what)?;
    let narrowed = T::Unsigned::from_u64(bits);
    if narrowed.to_u64() != bits {
        return Err(Error::Corrupt(format!("{what} {bits:#x} does not fit a {}", T::TYPE)));
    }
    Ok(T::from_bits(narrowed))
}

/// Stores a value as zero-extended `u64` bits.
pub(crate) fn value_bits<T: LwcInt>(v: T) -> u64 {
    v.to_bits().to_u64()
}
