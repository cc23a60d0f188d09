//! `radix`: `value - min` as the digits of base `k = max - min + 1`, as many as fit one `u64` word
//! (19 digits of base 10, 40 of base 3): `k` distinct codes that are not a power of two take `64 / m` bits
//! instead of bit packing's `⌈log2 k⌉` (ten values: 3.37 bits, not 4). Dictionary codes of low-cardinality
//! columns are its data: `'Key_' + random % 10` in 3.4 bits a row, every row still one word and one
//! division away.
//!
//! Bytes: the reference (8, zero-extended bits), the base `k` (8; 0 stands for `2^64`, one digit a word),
//! then `⌈n / m⌉` words (8-aligned), digit `j` of word `w` holding row `w·m + j`.
//!
//! Decoding splits a word into 32-bit chunks of digits, one division by a power of `k` each, and reads a
//! chunk's digits side by side in vector lanes (bases up to `2^16`, on x86 with AVX2; larger bases, and
//! other CPUs, divide by `k` digit after digit, through a precomputed reciprocal). A lone row's digit is two products away
//! ([`crate::kernels::radix`]); filters and aggregates decode a block and work on plain values.

use super::{Children, Encoder, InPlace, OpenStream, StreamOps, read_value, value_bits};
use crate::bytes::{Reader, Writer};
use crate::error::{Error, Result};
use crate::kernels::bitpack::BLOCK;
use crate::kernels::radix::{
    chunks_pay, digits_per_word, pack_word, unpack_chunks, unpack_word, unpack_words, Chunks, Digits, DigitsInParts,
    Divisor, WORDS_IN_FLIGHT,
};
use crate::stats::{Shape, SplitMix, Stats};
use crate::types::{LwcInt, Word};

pub(crate) struct Radix;

/// The base for a range of residuals (`None`: `2^64`, which one digit a word stores as it is) and the digits
/// a word holds. A constant stream is written in base 2, all digits 0.
fn base<T: LwcInt>(stats: &Stats<T>) -> (Option<u64>, usize) {
    match stats.range().to_u64().checked_add(1) {
        None => (None, 1),
        Some(k) => {
            let k = k.max(2);
            (Some(k), digits_per_word(k))
        }
    }
}

impl Encoder for Radix {
    const SIZED_BY_STATS: bool = true;

    fn pruned(shape: &dyn Shape) -> Option<&'static str> {
        // Past 20 bits a word holds at most three digits: no narrower than bit packing.
        (shape.range_bits() > 20).then_some("digits no narrower than bits at this range")
    }

    /// Uniform values below three quarters of `2^width`: a base that is not a power of two.
    fn calibration_values(width: u32, n: usize, rng: &mut SplitMix) -> Vec<u64> {
        let limit = if width >= 63 { u64::MAX / 2 } else { ((1u64 << width) * 3 / 4).max(2) };
        (0..n).map(|_| rng.below(limit as usize) as u64).collect()
    }

    fn estimate<T: LwcInt>(values: &[T], stats: &Stats<T>, _: u32, _: &impl Children) -> Option<usize> {
        Some(16 + 8 * values.len().div_ceil(base(stats).1))
    }

    fn encode<T: LwcInt>(values: &[T], stats: &Stats<T>, _: u32, _: &impl Children, out: &mut Writer) -> Result<()> {
        let (k, m) = base(stats);
        out.u64(value_bits(stats.min));
        out.u64(k.unwrap_or(0));
        let residual = |v: &T| v.offset_from(stats.min).to_u64();
        let words: Vec<u64> = match k {
            Some(k) => values.chunks(m).map(|chunk| pack_word(chunk.iter().map(residual), k)).collect(),
            None => values.iter().map(residual).collect(),
        };
        out.array(&words);
        Ok(())
    }
}

pub(crate) struct RadixView<'a, T: LwcInt> {
    reference: T,
    /// `None` for base `2^64`: each word is one residual.
    base: Option<Divisor>,
    /// One digit's reads (`None` for base `2^64`).
    digits: Option<Digits>,
    /// Whole words' reads, for bases up to `2^16` on CPUs with vector lanes for them.
    chunks: Option<Chunks>,
    m: usize,
    words: &'a [u64],
    n: usize,
}

impl<'a, T: LwcInt> OpenStream<'a, T> for RadixView<'a, T> {
    fn open(r: &mut Reader<'a>, n: usize, _: usize) -> Result<Self> {
        let reference = read_value(r, "radix reference")?;
        let k = r.u64("radix base")?;
        if k == 1 {
            return Err(Error::Corrupt("radix: base 1".into()));
        }
        let (base, m) = match k {
            0 => (None, 1),
            k => (Some(Divisor::new(k)), digits_per_word(k)),
        };
        let digits = base.is_some().then(|| Digits::new(k));
        let words = r.array("radix words", n.div_ceil(m))?;
        let chunks = if chunks_pay() { Chunks::new(k) } else { None };
        Ok(RadixView { reference, base, digits, chunks, m, words, n })
    }

    fn in_place(&self) -> Option<InPlace<'a, T>> {
        Some(InPlace::Digits { words: self.words, digits: self.digits.clone()?, reference: self.reference })
    }
}

impl<T: LwcInt> RadixView<'_, T> {
    #[inline(always)]
    fn value(&self, residual: u64) -> T {
        T::add_offset(self.reference, T::Unsigned::from_u64(residual))
    }

    /// The residual of row `i`.
    #[inline]
    fn residual(&self, i: usize) -> u64 {
        match &self.digits {
            Some(digits) => digits.get(self.words, i),
            None => self.words[i],
        }
    }
}

impl<T: LwcInt> RadixView<'_, T> {
    /// [`StreamOps::decode_into`] with runs of whole words read by `unpack` (their digits into a buffer of
    /// [`DIGITS_AT_ONCE`] and [`Chunks::SLACK`]), as many words a call as `batch` allows; a word cut by
    /// the window's ends, or a run shorter than `batch` starts, is divided digit after digit.
    fn decode_words(
        &self,
        start: usize,
        out: &mut [T],
        base: Divisor,
        batch: std::ops::RangeInclusive<usize>,
        unpack: impl Fn(&[u64], &mut [u64]),
    ) {
        let mut digits = [0u64; DIGITS_AT_ONCE + Chunks::SLACK];
        let (mut row, end) = (start, start + out.len());
        let (fewest, most) = batch.into_inner();
        let most_rows = most * self.m;
        while row < end {
            let (w, j) = (row / self.m, row % self.m);
            let (whole, many) = match row + most_rows <= end {
                true => (most, most_rows),
                false => ((end - row) / self.m, (end - row) / self.m * self.m),
            };
            if j == 0 && whole >= fewest {
                unpack(&self.words[w..w + whole], &mut digits);
                for (o, &d) in out[row - start..row - start + many].iter_mut().zip(&digits) {
                    *o = self.value(d);
                }
                row += many;
                continue;
            }
            let take = (self.m - j).min(end - row);
            unpack_word(self.words[w], base, &mut digits[..j + take]);
            for (o, &d) in out[row - start..row - start + take].iter_mut().zip(&digits[j..j + take]) {
                *o = self.value(d);
            }
            row += take;
        }
    }
}

impl<T: LwcInt> StreamOps<T> for RadixView<'_, T> {
    fn len(&self) -> usize {
        self.n
    }

    fn decode_into(&self, start: usize, out: &mut [T]) {
        let Some(base) = self.base else {
            for (o, &w) in out.iter_mut().zip(&self.words[start..]) {
                *o = self.value(w);
            }
            return;
        };
        match &self.chunks {
            Some(chunks) => {
                self.decode_words(start, out, base, 1..=DIGITS_AT_ONCE / self.m, |words, digits| {
                    unpack_chunks(chunks, words, digits)
                })
            }
            None => self.decode_words(start, out, base, WORDS_IN_FLIGHT..=WORDS_IN_FLIGHT, |words, digits| {
                unpack_words(words.try_into().expect("words in flight"), base, self.m, digits)
            }),
        }
    }

    #[inline]
    fn get(&self, i: usize) -> T {
        self.value(self.residual(i))
    }

    fn take_into(&self, positions: &[u32], out: &mut [T]) {
        // Many rows go eight at a time in vector lanes where the CPU has them, as a column's scattered
        // rows do (the stream as one part of a power-of-two length); rows past the stream panic below.
        if positions.len() >= LANES_TAKE {
            // The chunks the view read whole words with, not made again.
            let lanes = self.chunks.as_ref().and_then(|chunks| {
                let part = [(self.words, self.reference.to_bits().to_u64())];
                DigitsInParts::new(chunks, &part, (self.n as u64).next_power_of_two(), self.n as u64)
            });
            let value = |lane| T::from_bits(T::Unsigned::from_u64(lane));
            if lanes.is_some_and(|lanes| lanes.gather_then(positions, out, value).is_ok()) {
                return;
            }
        }
        for (o, &p) in out.iter_mut().zip(positions) {
            *o = self.value(self.residual(p as usize));
        }
    }
}

/// Positions from which a stream's take reads them in vector lanes: fewer do not pay for setting the
/// lanes up.
const LANES_TAKE: usize = 32;

/// Digits unpacked into the stack buffer at a time: at least four words of base 2.
const DIGITS_AT_ONCE: usize = 256;
const _: () = assert!(DIGITS_AT_ONCE >= 64 * WORDS_IN_FLIGHT);

/// Blocks stay what the defaults decode at a time.
const _: () = assert!(BLOCK >= 64);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encodings::{encode_stream, Cascade, StreamView};
    use crate::Objective;

    fn round_trip<T: LwcInt>(values: &[T]) -> usize {
        let mut w = Writer::new();
        encode_stream(values, &"radix".parse::<Cascade>().unwrap(), Objective::default(), &mut w).unwrap();
        let bytes = w.into_aligned();
        let view = StreamView::<T>::open(&mut Reader::new(bytes.as_bytes()), values.len()).unwrap();
        let mut out = vec![T::default(); values.len().saturating_sub(3)];
        view.decode_into(values.len() - out.len(), &mut out);
        assert_eq!(out, values[values.len() - out.len()..]);
        assert!(values.iter().enumerate().all(|(i, &v)| view.get(i) == v));
        bytes.len()
    }

    #[test]
    fn ten_codes_take_under_three_and_a_half_bits() {
        let codes: Vec<u32> = (0..65_536u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 7) % 10).collect();
        assert!(codes.contains(&9) && codes.contains(&0));
        let bytes = round_trip(&codes);
        assert!((bytes * 8) as f64 / codes.len() as f64 <= 3.4, "{bytes} bytes");
    }

    #[test]
    fn windows_decode_across_words_and_batches() {
        // Bases read by chunks (3, 11, 1,000) and by division (70,000); windows that start and end inside
        // words, span a buffer's worth of whole words or stop just short of one.
        for k in [3u64, 11, 1_000, 70_000] {
            let values: Vec<u64> = (0..5_000u64).map(|i| ((i * 2_654_435_761) >> 3) % k).collect();
            let mut w = Writer::new();
            encode_stream(&values, &"radix".parse::<Cascade>().unwrap(), Objective::default(), &mut w).unwrap();
            let bytes = w.into_aligned();
            let view = StreamView::<u64>::open(&mut Reader::new(bytes.as_bytes()), values.len()).unwrap();
            let m = digits_per_word(k);
            for (start, len) in [(0, 5_000), (1, 4_998), (m, DIGITS_AT_ONCE), (m - 1, DIGITS_AT_ONCE + 2), (7, 3 * m - 1)] {
                let mut out = vec![0; len];
                view.decode_into(start, &mut out);
                assert_eq!(out, values[start..start + len], "base {k}, rows {start}..{}", start + len);
            }
        }
    }

    #[test]
    fn every_range_round_trips() {
        round_trip(&[i64::MIN, i64::MAX, 0, -1, 5]);
        round_trip(&[u64::MAX, 0, 1]);
        round_trip(&[7u8; 100]);
        round_trip(&(0..1_000i32).map(|i| i * 37 % 1_000_003 - 500_000).collect::<Vec<_>>());
        round_trip(&(0..300).map(|i| (i % 3) as i16 - 1).collect::<Vec<_>>());
    }
}
