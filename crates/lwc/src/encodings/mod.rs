//! Encodings: one file each, all of one shape, registered in one table (`registry!` below).
//!
//! An encoding turns a slice of integers (no nulls: the segment layer has filled them) into a *stream*
//! and reads a stream back through a validated view. Each file provides:
//!
//! - the writing half, an `Encoder`: its facts (child streams, parameter, what data it needs, when the
//!   selector prunes it, what width the cost model prices it at and what data calibrates it), its size
//!   estimate and its encoder. Child streams are handed to a `Children` sink, which the selector's
//!   driver implements: an encoding never chooses its children's encodings itself;
//! - the reading half, a view that `OpenStream` opens and that answers the operation set,
//!   `StreamOps`: decode a range, get one value, take positions, filter by a value range or set, sum
//!   and aggregate a selection. What it cannot do better than "decode a block, then work on plain values"
//!   comes from block-at-a-time defaults, so nothing is materialized whole.
//!
//! Stream bytes: one byte of encoding id, then the encoding's own body. Child streams are streams too,
//! encoded by any encoding: a [`Cascade`] says which.
//!
//! Adding an encoding is its file and one line in the table: ids, names, parameters, parsing and printing,
//! the [`Encoding`] enum, dispatch, opening, estimating and encoding all come from the table, and the
//! selector, the property tests, the cost model's calibration, the command line and the bench enumerate
//! [`EncodingId::ALL`].

#[macro_use]
mod registry;
mod byte_strings;
mod cascade;
mod stream;

#[cfg(test)]
pub(crate) mod test_shapes {
    pub use lwc_testdata::shapes::*;
}

use crate::bitmap::Bitmap;
use crate::bytes::{Reader, Writer};
use crate::error::{Error, Result};
use crate::selection::Selection;
use crate::stats::{Shape, SplitMix, Stats};
use crate::types::{LwcInt, Word};

pub(crate) use bitpack::Frame;
use bitpack::FrameSums;
pub use byte_strings::ByteArray;
pub(crate) use byte_strings::{ByteProfile, BytesEncoder, BytesOps, BytesTest, OpenBytes};
pub use cascade::{Cascade, MAX_CASCADE_DEPTH};
pub(crate) use stream::{
    all_or_none, digit_value, scaled, wrapping_sum_decoded, InPlace, InPlaceParts, OpenStream, StreamOps, SumMinMax,
    WordStream,
};

registry! {
    // variant {parameter} = id, stable name, file => view. The order is the selector's order of
    // preference on equal estimates: the cheaper to read first.
    integers {
    /// One value repeated (Umbra's Single); fails on data with two distinct values.
    Constant = 1, "constant", "ints/constant.rs", constant::{Constant, constant::ConstantView<T>};
    /// `base + i * step` (Umbra's Increment); fails on data that is not exactly such a sequence,
    /// ascending, descending or constant, without wrapping.
    Sequence = 10, "sequence", "ints/sequence.rs", sequence::{Sequence, sequence::SequenceView<T>};
    /// Fixed-width bit packing of the values themselves (negative values need the full width).
    Bitpack = 2, "bitpack", "ints/bitpack.rs", bitpack::{Bitpack, bitpack::BitpackView<'a, T>};
    /// Frame of reference: `value - min`, bit-packed at the width of `max - min`.
    For = 4, "for", "ints/for.rs", frame_of_reference::{For, frame_of_reference::ForView<'a, T>};
    /// `value - min` in the smallest of 1, 2, 4 or 8 bytes (Umbra's truncation, Hyrise's fsba with a
    /// reference).
    Bytepack = 3, "bytepack", "ints/bytepack.rs", bytepack::{Bytepack, bytepack::BytepackView<'a, T>};
    /// Frame of reference with one reference per `block` values (a power of two; seed 001's FOR64 is
    /// `block = 64`), residuals bit-packed at one width.
    ForN { block } = 5, "for_n", "ints/for_n.rs", for_n::{ForN, for_n::ForNView<'a, T>};
    /// Sorted distinct values, and codes bit-packed as a child stream.
    Dict = 6, "dict", "ints/dict.rs", dict::{Dict, Box<dict::DictView<'a, T>>};
    /// `(value - min) / d` for the greatest common divisor `d > 1` of those differences, the quotients
    /// as a child stream; fails on data whose differences have no common divisor.
    Gcd = 13, "gcd", "ints/gcd.rs", gcd::{Gcd, Box<gcd::GcdView<'a, T>>};
    /// Patched frame of reference (seed 002's PFOR): `value - min` bit-packed at the width that
    /// minimizes the total size, the values that do not fit kept as exceptions in two child streams.
    Pfor = 7, "pfor", "ints/pfor.rs", pfor::{Pfor, Box<pfor::PforView<'a, T>>};
    /// `value - min` in LEB128 bytes (byte-aligned null suppression per value), a byte offset every 128
    /// values for `get`.
    Varint = 12, "varint", "ints/varint.rs", varint::{Varint, varint::VarintView<'a, T>};
    /// `value - min` as the digits of base `max - min + 1`, as many as fit a `u64` (ten codes: 3.37 bits, not
    /// 4).
    Radix = 21, "radix", "ints/radix.rs", radix::{Radix, Box<radix::RadixView<'a, T>>};
    /// Differences between neighbours (zigzagged unless the values never decrease) and the full value
    /// every `stride` rows (a power of two in 16 ..= 65,536; seed 001's data points), both child streams.
    Delta { stride } = 8, "delta", "ints/delta/mod.rs", delta::{Delta, Box<delta::DeltaView<'a, T>>};
    /// Run-end encoding: one value and one exclusive end row per run, as child streams.
    Rle = 11, "rle", "ints/rle.rs", rle::{Rle, Box<rle::RleView<'a, T>>};
    /// Floats of decimal origin as integer digits `round(v · 10^e / 10^f)` in a child stream, the
    /// values that do not read back exactly as exceptions (ALP).
    Alp = 18, "alp", "floats/alp.rs", alp::{Alp, Box<alp::AlpView<'a, T>>};
    /// Doubles that are exactly `f32` values as their `f32` latents in a child stream, the others as
    /// exceptions: four bytes a value where that is lossless.
    Narrow = 25, "narrow", "floats/narrow.rs", narrow::{Narrow, Box<narrow::NarrowView<'a, T>>};
    /// Floats not of decimal origin: the front bits of each value through a dictionary of at most eight
    /// entries, the rest bit-packed, values with other front bits as exceptions (ALP-RD).
    AlpRd = 19, "alp_rd", "floats/alp_rd.rs", alp_rd::{AlpRd, Box<alp_rd::AlpRdView<'a, T>>};
    /// Double delta: zigzag second differences bit-packed, the value and first delta stored every
    /// `stride` values (a power of two), so a read walks at most `stride` differences.
    Delta2 { stride } = 9, "delta2", "ints/delta2.rs", delta2::{Delta2, delta2::Delta2View<'a, T>};
    /// Values as they are.
    Plain = 0, "plain", "ints/plain.rs", plain::{Plain, plain::PlainView<'a, T>};
    /// Blocks of 1,024 values compressed by LZ4: a heavyweight baseline (random access decompresses a
    /// block).
    Lz4 = 14, "lz4", "ints/lz4.rs", lz4::{Lz4, blocks::BlocksView<'a, T, lz4::Lz4Compressor>};
    /// Blocks of 1,024 values compressed by Zstandard (level 3): a heavyweight baseline.
    Zstd = 15, "zstd", "ints/zstd.rs", zstd::{Zstd, blocks::BlocksView<'a, T, zstd::ZstdCompressor>};
    }
    bytes {
    /// Sorted distinct strings stored once, and a code per row: filters run on the codes.
    BytesDict = 17, "dict", "bytes/dict.rs", bytes_dict::{BytesDict, bytes_dict::BytesDictView<'a>};
    /// `dict` with the entries compressed by an FSST symbol table trained on them (DuckDB's dict_fsst).
    BytesDictFsst = 24, "dict_fsst", "bytes/dict_fsst.rs", bytes_dict_fsst::{BytesDictFsst, bytes_dict::BytesDictView<'a, bytes_dict_fsst::FsstEntries>};
    /// Every row compressed on its own by one FSST symbol table, and the end offsets of their codes.
    BytesFsst = 20, "fsst", "bytes/fsst.rs", bytes_fsst::{BytesFsst, bytes_fsst::BytesFsstView<'a>};
    /// The rows' bytes back to back in blocks of 128 KiB, each compressed by LZ4, and their end offsets:
    /// a heavyweight baseline (a lookup decompresses the blocks its row touches).
    BytesLz4 = 22, "lz4", "bytes/lz4.rs", bytes_lz4::{BytesLz4, bytes_blocks::BytesBlocksView<'a, lz4::Lz4Compressor>};
    /// The rows' bytes back to back in blocks of 128 KiB, each compressed by Zstandard (level 9), and
    /// their end offsets: the `size` objective's pick for free text.
    BytesZstd = 23, "zstd", "bytes/zstd.rs", bytes_zstd::{BytesZstd, bytes_blocks::BytesBlocksView<'a, zstd::ZstdCompressor>};
    /// Every row's bytes back to back, and their end offsets.
    BytesPlain = 16, "plain", "bytes/plain.rs", bytes_plain::{BytesPlain, bytes_plain::BytesPlainView<'a>};
    }
}

#[path = "ints/blocks.rs"]
mod blocks;
#[path = "bytes/blocks.rs"]
mod bytes_blocks;
#[path = "floats/patches.rs"]
mod patches;

impl Encoding {
    /// Parses a stable name: `"for_n"` takes the default block of 64, `"for_n:128"` another; `"auto"` is
    /// [`Encoding::Auto`]. A parameter on an encoding without one is no name.
    pub fn from_name(text: &str) -> Option<Encoding> {
        if text == "auto" {
            return Some(Encoding::Auto);
        }
        let (name, parameter) = match text.split_once(':') {
            Some((name, parameter)) => (name, Some(parameter.parse::<u32>().ok()?)),
            None => (text, None),
        };
        let id = EncodingId::from_name(name)?;
        match (id.parameter(), parameter) {
            (Some(spec), given) => Some(Encoding::with_parameter(id, given.unwrap_or(spec.default))),
            (None, None) => Some(Encoding::from(id)),
            (None, Some(_)) => None,
        }
    }

    /// FOR64 of seed 001.
    pub const FOR64: Encoding = Encoding::ForN { block: 64 };
    /// Delta with a data point every 1,024 rows.
    pub const DELTA: Encoding = Encoding::Delta { stride: delta::DEFAULT_STRIDE };
    /// `delta2` at its default stride of 1,024 values.
    pub const DELTA2: Encoding = Encoding::Delta2 { stride: delta2::DEFAULT_STRIDE };
}

/// The encoding with its parameter at its default.
impl From<EncodingId> for Encoding {
    fn from(id: EncodingId) -> Encoding {
        Encoding::with_parameter(id, id.parameter().map_or(0, |p| p.default))
    }
}

/// The stable name, with a parameter where it differs from the default (`for_n:128`); [`Encoding::from_name`]
/// parses it back.
impl std::fmt::Display for Encoding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Some(id) = self.id() else { return f.write_str("auto") };
        match (self.parameter(), id.parameter()) {
            (Some(value), Some(spec)) if value != spec.default => write!(f, "{id}:{value}"),
            _ => f.write_str(id.name()),
        }
    }
}

/// What an encoding stores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Family {
    /// Integers (and floats through their integer latents).
    Integers,
    /// Byte strings (Utf8 and Binary), whose child streams are integers.
    Bytes,
}

/// An encoding's parameter: `for_n:128` sets for_n's block to 128.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Parameter {
    /// What it sets, as the docs say it (`block`, `stride`).
    pub name: &'static str,
    /// Its value when none is given.
    pub default: u32,
}

/// What data an encoding needs; on other data encoding with it is [`Error::NotApplicable`] (and `Auto`
/// never writes it there).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Requirement {
    /// Any data.
    Nothing,
    /// One distinct value.
    OneValue,
    /// Equal steps from each value to the next (as integers, without wrapping).
    EqualSteps,
    /// Differences from the minimum with a common divisor above 1.
    CommonDivisor,
    /// Doubles (`f64` values).
    Doubles,
}

/// How often one lookup of a stream reads one of its child streams: what the cost model multiplies the
/// child's price by when it prices a cascade whole (see `select/cost.rs`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChildReads {
    /// Lookups of the child per lookup of the parent (a dictionary code: 1; an exception's value read only
    /// where a row is one: its share of the rows).
    pub gets: f64,
    /// Child values decoded in sequence per lookup of the parent (a walk over half a stride of deltas).
    pub values: f64,
    /// Searches of the child's sorted values per lookup of the parent (run ends, exception rows): each a
    /// bisection of `log2(rows + 1)` lookups, or what the child's own search costs
    /// (`Encoder::search_gets`).
    pub searches: f64,
}

impl ChildReads {
    /// One lookup of the child per lookup of the parent.
    pub const ONE_GET: ChildReads = ChildReads { gets: 1.0, values: 0.0, searches: 0.0 };

    /// One search of the child's sorted values per lookup of the parent.
    pub const SEARCH: ChildReads = ChildReads { gets: 0.0, values: 0.0, searches: 1.0 };

    /// No read of the child.
    pub const NONE: ChildReads = ChildReads { gets: 0.0, values: 0.0, searches: 0.0 };

    /// Exceptions of a patched encoding: their rows searched, and their values read where a row is one
    /// (`exceptions` of `rows`).
    pub fn patches(k: usize, exceptions: usize, rows: usize) -> ChildReads {
        match k {
            0 => ChildReads::SEARCH,
            _ => ChildReads { gets: exceptions as f64 / rows.max(1) as f64, ..ChildReads::NONE },
        }
    }
}

/// The writing half of an encoding, with the facts the selector, the cost model and the tests read.
pub(crate) trait Encoder {
    /// What each child stream holds, in order; empty for encodings without children.
    const CHILDREN: &'static [&'static str] = &[];
    /// The parameter, for encodings that take one.
    const PARAMETER: Option<Parameter> = None;
    /// What data it needs.
    const REQUIRES: Requirement = Requirement::Nothing;
    /// Whether one value reads without decompressing a block (not the block compressors): `Auto` chooses
    /// the others only for objectives without lookups.
    const RANDOM_ACCESS: bool = true;
    /// Whether its size follows from min, max and OR alone, so it is estimated exactly without a sample.
    const SIZED_BY_STATS: bool = false;
    /// Whether, once it applies, nothing is smaller or faster: the selector takes it without estimating
    /// the others.
    const TAKEN_AT_ONCE: bool = false;
    /// Why it was taken at once, for the explain record (encodings taken at once only).
    const TAKEN_BECAUSE: &'static str = "";

    /// Why the stream's shape rules it out, if it does.
    fn pruned(_shape: &dyn Shape) -> Option<&'static str> {
        None
    }

    /// Whether to estimate it on every value of a sampled stream near the top (the selector's
    /// `WHOLE_DEPTH`): where the sample cannot see what it writes (a few long runs, the rare breaks of a
    /// step) and the whole costs little more.
    fn estimated_whole(_shape: &dyn Shape) -> bool {
        false
    }

    /// The width (bits) the cost model prices its reads at: what its work scales with.
    fn cost_width(shape: &dyn Shape) -> u32 {
        shape.range_bits().max(1)
    }

    /// Cache lines one lookup touches in the stream's own bytes (child streams count their own): one for a
    /// value read in place; none where the header says it all (`constant`, `sequence`) or the data lies in
    /// child streams.
    fn lines(_parameter: u32, _width: u32) -> f64 {
        1.0
    }

    /// Cache lines one position of a take of one row in [`crate::select::TAKE_SPACING`] touches in the
    /// stream's own bytes: a lookup's, unless the take's positions share what they read (a block
    /// decompressed once for all of its positions).
    fn take_lines(parameter: u32, width: u32) -> f64 {
        Self::lines(parameter, width)
    }

    /// What its calibration's data ([`Encoder::calibration_values`]) makes of child `k`, where the
    /// default it writes that child with depends on the data (`rle`'s run ends: a `sequence` where evenly
    /// spaced, as the calibration's are, else bit-packed). The model prices a chosen child against it.
    fn calibrated_child(_k: usize) -> Option<Encoding> {
        None
    }

    /// The child whose scattered take over a column of its segments one of the stream costs, where the
    /// children's encodings (`child(k)`, the top encoding of child `k`) make the whole cascade read a row in
    /// place as that child reads its own (`rle` of equal runs, its ends a `sequence`, over a `sequence`);
    /// `None` for most.
    fn scattered_as_child(_child: &dyn Fn(usize) -> Option<EncodingId>) -> Option<usize> {
        None
    }

    /// Whether its streams at cost width `width` sum a run of values where they lie instead of decoding
    /// them (`StreamOps::sums_in_place`): a parent that walks the stream, as `delta` walks its deltas,
    /// then pays about a frame of reference's decode per value, not this encoding's.
    fn sums_in_place(_width: u32) -> bool {
        false
    }

    /// Where its decode on a stream of this shape does the work of other encodings' decodes, one pass
    /// after the other, those encodings: the model prices the decode as theirs at the same width.
    fn decodes_as(_shape: &dyn Shape) -> &'static [EncodingId] {
        &[]
    }

    /// Where it patches another encoding's values (`pfor`: a frame of reference, its exceptions' rows in
    /// child 0): that encoding, and the share of rows its calibration's data patch. The model prices the
    /// patching in proportion to a stream's own share: with no exceptions it costs what the encoding it
    /// patches does.
    fn patches() -> Option<(EncodingId, f64)> {
        None
    }

    /// Lookups' worth of one search of its values for a rank, where it finds one without a bisection
    /// over lookups (a `sequence` divides; `delta` bisects its data points and walks one stride); `None`:
    /// a bisection, `log2(rows + 1)` lookups.
    fn search_gets() -> Option<f64> {
        None
    }

    /// How one lookup reads child `k` (of `child_rows` values) of a stream of `rows` values: one lookup of
    /// it unless the encoding says otherwise.
    fn child_reads(_k: usize, _parameter: u32, _rows: usize, _child_rows: usize) -> ChildReads {
        ChildReads::ONE_GET
    }

    /// `n` values on which it is the natural choice at `width` bits, for calibrating the cost model:
    /// by default uniform values of that width.
    fn calibration_values(width: u32, n: usize, rng: &mut SplitMix) -> Vec<u64> {
        let mask = if width >= 64 { u64::MAX } else { (1u64 << width) - 1 };
        (0..n).map(|_| rng.next() & mask).collect()
    }

    /// Encoded body bytes, or `None` when it cannot represent `values`.
    fn estimate<T: LwcInt>(values: &[T], stats: &Stats<T>, parameter: u32, children: &impl Children) -> Option<usize>;

    /// [`Encoder::estimate`] of a sample, or of a child stream of one, made of runs of consecutive rows
    /// from far-apart places that meet at `seams` (the indices where a run starts). What lies across a
    /// seam is no neighbour of the stream: encodings that live on neighbours (`delta`, `rle`) leave it out.
    fn estimate_with_seams<T: LwcInt>(
        values: &[T],
        stats: &Stats<T>,
        parameter: u32,
        children: &impl Children,
        _seams: &[usize],
    ) -> Option<usize> {
        Self::estimate(values, stats, parameter, children)
    }

    /// [`Encoder::estimate_with_seams`] of a stream the selector has profiled: `shape` is the profile of
    /// these very values, whose facts (how many are distinct) an encoding may take instead of finding
    /// them again.
    fn estimate_profiled<T: LwcInt>(
        values: &[T],
        stats: &Stats<T>,
        parameter: u32,
        children: &impl Children,
        seams: &[usize],
        _shape: &dyn Shape,
    ) -> Option<usize> {
        Self::estimate_with_seams(values, stats, parameter, children, seams)
    }

    /// The estimate for a stream of which `sample` is a sample with the stream's `stats` and `shape`:
    /// the sample's estimate scaled to the stream, unless the encoding knows better.
    ///
    /// With child streams, only the part that grows with the rows is scaled. Each child stream has a
    /// header, and a cascade's headers came to about 100 bytes on a sample of 640 rows: scaled to a
    /// segment of 65,536, they made `rle` over l_orderkey look 17.7 KB where it wrote 6.7. Each half of
    /// the sample's runs, estimated with the children chosen on the whole, tells that part from the
    /// fixed one: the halves pay the fixed part twice, the whole once. (With one half, `rle` on the
    /// segments of l_orderkey was estimated at 0.80-1.17x what it writes; with both, 0.84-1.12x.)
    fn estimate_from_sample<T: LwcInt>(
        sample: &[T],
        stats: &Stats<T>,
        parameter: u32,
        children: &impl Children,
        shape: &dyn Shape,
    ) -> Option<usize> {
        let seams = shape.seams();
        let bytes = Self::estimate_with_seams(sample, stats, parameter, children, &seams)? as f64;
        let proportional = Some((bytes * shape.scale()) as usize);
        let Some(&half) = seams.get(seams.len() / 2).filter(|_| !Self::CHILDREN.is_empty()) else {
            return proportional;
        };
        let (first, second) = (&seams[..seams.len() / 2], &seams[seams.len() / 2 + 1..]);
        let second: Vec<usize> = second.iter().map(|s| s - half).collect();
        let halves = [(&sample[..half], first), (&sample[half..], second.as_slice())];
        let halves: Option<f64> = halves
            .into_iter()
            .map(|(rows, seams)| {
                let again = || Self::estimate_with_seams(rows, stats, parameter, children, seams);
                children.again_with_the_same_children(again).map(|b| b as f64)
            })
            .sum();
        let Some(halves) = halves else { return proportional };
        let fixed = (halves - bytes).clamp(0.0, bytes);
        let per_row = (bytes - fixed) / sample.len() as f64;
        Some((fixed + per_row * shape.rows() as f64) as usize)
    }

    /// Appends the body (without the id byte); child streams go through `children`.
    fn encode<T: LwcInt>(
        values: &[T],
        stats: &Stats<T>,
        parameter: u32,
        children: &impl Children,
        out: &mut Writer,
    ) -> Result<()>;
}

/// Where an encoder's child streams go: the selector's driver implements it, choosing each child's
/// encoding as the cascade says (or by `Auto`) and recursing. Encoders only hand their children over.
pub(crate) trait Children {
    /// Whether the cascade names child `k`'s encoding (otherwise the encoder's default for it applies).
    fn given(&self, k: usize) -> bool;

    /// Writes child stream `k` (id byte and body): as the cascade says, else as `default`.
    fn encode<C: LwcInt>(&self, k: usize, values: &[C], default: Encoding, out: &mut Writer) -> Result<()>;

    /// The bytes [`Children::encode`] would write for child `k` (id byte included), estimated.
    fn estimate<C: LwcInt>(&self, k: usize, values: &[C], default: Encoding) -> Option<usize> {
        self.estimate_with_seams(k, values, &[], default)
    }

    /// Runs `estimate`, a second estimate on part of a sample, with each child kept at the cascade the
    /// first estimate chose for it (so the two differ in rows, not in encodings); what it records of the
    /// children is dropped, as they are not to price the stream.
    fn again_with_the_same_children<R>(&self, estimate: impl FnOnce() -> R) -> R {
        estimate()
    }

    /// [`Children::estimate`] of a child of a sample whose runs from far-apart rows meet at `seams` (see
    /// [`Encoder::estimate_with_seams`]).
    fn estimate_with_seams<C: LwcInt>(
        &self,
        k: usize,
        values: &[C],
        seams: &[usize],
        default: Encoding,
    ) -> Option<usize>;
}

/// Writes `values` as one stream as `cascade` says (`Auto` choosing for `objective` by the built-in cost
/// model): what a segment does, without the segment, for the tests of single encodings.
#[cfg(test)]
pub(crate) fn encode_stream<T: LwcInt>(
    values: &[T],
    cascade: &Cascade,
    objective: crate::Objective,
    out: &mut Writer,
) -> Result<()> {
    let (model, clock) = (crate::CostModel::builtin(), Default::default());
    crate::select::Driver::new(&model, objective, cascade.clone(), &clock).encode(values, out).map(|_| ())
}

/// The estimate of the stream [`encode_stream`] writes for `encoding`, id byte excluded.
#[cfg(test)]
pub(crate) fn estimate_stream<T: LwcInt>(values: &[T], encoding: Encoding) -> Option<usize> {
    let (model, clock) = (crate::CostModel::builtin(), Default::default());
    crate::select::Driver::new(&model, crate::Objective::default(), encoding.into(), &clock).estimate_top(values)
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
