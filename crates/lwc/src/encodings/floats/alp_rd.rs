//! `alp_rd`: ALP for "real doubles" (Afroozeh, Kuffo, Boncz, SIGMOD 2023, §3.4): floats that are not of
//! decimal origin (sensor readings, results of arithmetic) have random low mantissa bits, but their front
//! bits (sign, exponent, the top of the mantissa) take few values. Each latent is cut at a width `lw`:
//! the front `lw` bits go through a dictionary of at most eight entries (codes of 0 to 3 bits), the rest
//! is bit-packed as it is. Front bits the dictionary lacks make the row an exception, kept whole. On
//! uniformly random doubles in `[0, 1000)` that is 3 + 52 bits a value instead of 64.
//!
//! Bytes: `lw` (1), the entry count (1), two zero bytes, the entries (u64 each), the codes stream (`u8`),
//! the tails stream (`T`), then the exception count (u32) and the exceptions' rows (`u32`, ascending) and
//! latents (`T`) as child streams.
//!
//! Every read combines a code and a tail; filters and aggregates read blocks of values back (the tails are
//! random, so there is nothing to compare on the encoded form).

use super::patches::{self, is_float_latent, Patches};
use super::{Cascade, ChildReads, Children, Encoder, Encoding, OpenStream, StreamOps, StreamView};
use crate::bytes::{Reader, Writer};
use crate::error::{Error, Result};
use crate::kernels::bitpack::BLOCK;
use crate::stats::{Shape, SplitMix, Stats};
use crate::types::{LwcInt, Value, Word};

pub(crate) struct AlpRd;

/// Codes and tails are uniform: bit packing, one load a read.
const CODES: Encoding = Encoding::Bitpack;
const TAILS: Encoding = Encoding::Bitpack;

/// Dictionary entries at most (codes of at most 3 bits).
const MAX_ENTRIES: usize = 8;
/// The widest front cut tried.
const MAX_FRONT: u32 = 16;
/// Values the cut is chosen on.
const CHOICE_SAMPLE: usize = 1024;

fn width<T: LwcInt>() -> u32 {
    T::Unsigned::BITS
}

/// The front `lw` bits of `v`.
#[inline(always)]
fn front<T: LwcInt>(v: T, lw: u32) -> u64 {
    v.to_bits().to_u64() >> (width::<T>() - lw)
}

/// The most frequent front values at cut `lw` (at most [`MAX_ENTRIES`], ascending), and the rows whose
/// front they miss.
fn dictionary<T: LwcInt>(values: &[T], lw: u32) -> (Vec<u64>, usize) {
    let mut fronts: Vec<u64> = values.iter().map(|&v| front(v, lw)).collect();
    fronts.sort_unstable();
    let mut counts: Vec<(usize, u64)> = fronts.chunk_by(|a, b| a == b).map(|g| (g.len(), g[0])).collect();
    counts.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let kept = counts.len().min(MAX_ENTRIES);
    let missed = counts[kept..].iter().map(|c| c.0).sum();
    let mut entries: Vec<u64> = counts[..kept].iter().map(|c| c.1).collect();
    entries.sort_unstable();
    (entries, missed)
}

/// The cut that minimizes code, tail and exception bits on up to [`CHOICE_SAMPLE`] spread values, with
/// its dictionary.
fn choose_cut<T: LwcInt>(values: &[T]) -> (u32, Vec<u64>) {
    let sample = patches::choice_sample(values, CHOICE_SAMPLE);
    let w = width::<T>();
    (1..=MAX_FRONT.min(w - 1))
        .map(|lw| {
            let (entries, missed) = dictionary(&sample, lw);
            let code_bits = (entries.len().max(1) as u32 - 1).bits_used() as usize;
            let bits = sample.len() * (code_bits + (w - lw) as usize) + missed * (32 + w as usize);
            (bits, lw, entries)
        })
        .min_by_key(|c| (c.0, c.1))
        .map_or((1, Vec::new()), |(_, lw, entries)| (lw, entries))
}

struct Split<T> {
    lw: u32,
    entries: Vec<u64>,
    codes: Vec<u8>,
    tails: Vec<T>,
    rows: Vec<u32>,
    exceptions: Vec<T>,
}

fn split<T: LwcInt>(values: &[T]) -> Split<T> {
    let (lw, entries) = choose_cut(values);
    let tail_mask = T::Unsigned::low_mask(width::<T>() - lw);
    let mut split = Split { lw, codes: Vec::with_capacity(values.len()), tails: Vec::with_capacity(values.len()), entries, rows: Vec::new(), exceptions: Vec::new() };
    let mut last_code = 0u8;
    for (i, &v) in values.iter().enumerate() {
        split.tails.push(T::from_bits(v.to_bits() & tail_mask));
        match split.entries.binary_search(&front(v, lw)) {
            Ok(code) => last_code = code as u8,
            Err(_) => {
                split.rows.push(i as u32);
                split.exceptions.push(v);
            }
        }
        split.codes.push(last_code);
    }
    split
}

impl Encoder for AlpRd {
    const CHILDREN: &'static [&'static str] = &["codes", "tails", "exception rows", "exception values"];

    /// The values lie in the child streams.
    fn lines(_: u32, _: u32) -> f64 {
        0.0
    }

    fn child_reads(k: usize, _: u32, _: usize, _: usize) -> ChildReads {
        patches::child_reads(k, 2)
    }

    fn pruned(shape: &dyn Shape) -> Option<&'static str> {
        (!shape.floats()).then_some("stores floats")
    }

    /// Uniformly random floats in `[0, 1000)` (`f32` up to 32 bits, as the calibration reads them).
    fn calibration_values(width: u32, n: usize, rng: &mut SplitMix) -> Vec<u64> {
        (0..n)
            .map(|_| {
                let unit = (rng.next() >> 11) as f64 / (1u64 << 53) as f64;
                match width <= 32 {
                    true => ((unit * 1000.0) as f32).to_latent() as u64,
                    false => (unit * 1000.0).to_latent(),
                }
            })
            .collect()
    }

    fn estimate<T: LwcInt>(values: &[T], _stats: &Stats<T>, _parameter: u32, children: &impl Children) -> Option<usize> {
        if !is_float_latent::<T>() {
            return None;
        }
        let split = split(values);
        let codes = children.estimate(0, &split.codes, CODES)?;
        let tails = children.estimate(1, &split.tails, TAILS)?;
        Some(4 + 8 * split.entries.len() + codes + tails + patches::estimate(children, 2, &split.rows, &split.exceptions)?)
    }

    fn encode<T: LwcInt>(values: &[T], _stats: &Stats<T>, _parameter: u32, children: &impl Children, out: &mut Writer) -> Result<()> {
        if !is_float_latent::<T>() {
            return Err(Error::NotApplicable { encoding: "alp_rd", reason: format!("stores floats, not {}", T::TYPE) });
        }
        let split = split(values);
        out.u8(split.lw as u8);
        out.u8(split.entries.len() as u8);
        out.zeros(2);
        split.entries.iter().for_each(|&e| out.u64(e));
        children.encode(0, &split.codes, CODES, out)?;
        children.encode(1, &split.tails, TAILS, out)?;
        patches::write(children, 2, &split.rows, &split.exceptions, out)
    }
}

pub(crate) struct AlpRdView<'a, T: LwcInt> {
    /// The front bits of every code, already shifted into place; codes past the entries read the last.
    fronts: [T::Unsigned; 256],
    codes: StreamView<'a, u8>,
    tails: StreamView<'a, T>,
    exceptions: Patches<T>,
}

impl<'a, T: LwcInt> OpenStream<'a, T> for AlpRdView<'a, T> {
    fn open(r: &mut Reader<'a>, n: usize, depth: usize) -> Result<Self> {
        if !is_float_latent::<T>() {
            return Err(Error::Corrupt(format!("alp_rd: a float encoding where {} are", T::TYPE)));
        }
        let (lw, count) = (r.u8("alp_rd cut")? as u32, r.u8("alp_rd entry count")? as usize);
        r.take("alp_rd padding", 2)?;
        if !(1..=MAX_FRONT.min(width::<T>() - 1)).contains(&lw) || count > MAX_ENTRIES {
            return Err(Error::Corrupt(format!("alp_rd: cut {lw} with {count} entries")));
        }
        let mut fronts = [T::Unsigned::ZERO; 256];
        for slot in &mut fronts[..count] {
            let entry = r.u64("alp_rd entry")?;
            if entry >> lw != 0 {
                return Err(Error::Corrupt(format!("alp_rd: entry {entry:#x} wider than {lw} bits")));
            }
            *slot = T::Unsigned::from_u64(entry << (width::<T>() - lw));
        }
        let last = fronts[count.saturating_sub(1)];
        fronts[count.max(1)..].iter_mut().for_each(|f| *f = last);
        let codes = StreamView::open_nested(r, n, depth + 1)?;
        let tails = StreamView::open_nested(r, n, depth + 1)?;
        let exceptions = Patches::open(r, n, depth, "alp_rd")?;
        Ok(AlpRdView { fronts, codes, tails, exceptions })
    }

    fn child_cascades(&self) -> Vec<Cascade> {
        let [rows, values] = self.exceptions.cascades();
        vec![self.codes.cascade(), self.tails.cascade(), rows, values]
    }
}

impl<T: LwcInt> AlpRdView<'_, T> {
    #[inline(always)]
    fn value(&self, code: u8, tail: T) -> T {
        T::from_bits(self.fronts[code as usize] | tail.to_bits())
    }
}

impl<T: LwcInt> StreamOps<T> for AlpRdView<'_, T> {
    fn len(&self) -> usize {
        self.tails.len()
    }

    fn decode_into(&self, start: usize, out: &mut [T]) {
        let mut codes = [0u8; BLOCK];
        self.tails.decode_into(start, out);
        for (k, chunk) in out.chunks_mut(BLOCK).enumerate() {
            let codes = &mut codes[..chunk.len()];
            self.codes.decode_into(start + k * BLOCK, codes);
            for (v, &c) in chunk.iter_mut().zip(codes.iter()) {
                *v = self.value(c, *v);
            }
        }
        self.exceptions.patch(start, out, |v| v);
    }

    #[inline]
    fn get(&self, i: usize) -> T {
        self.exceptions.get(i).unwrap_or_else(|| self.value(self.codes.get(i), self.tails.get(i)))
    }

    fn get_cost(&self) -> usize {
        self.codes.get_cost().max(self.tails.get_cost()) + self.exceptions.search_cost()
    }

    fn take_into(&self, positions: &[u32], out: &mut [T]) {
        let mut codes = [0u8; BLOCK];
        self.tails.take_into(positions, out);
        for (chunk, dst) in positions.chunks(BLOCK).zip(out.chunks_mut(BLOCK)) {
            let codes = &mut codes[..chunk.len()];
            self.codes.take_into(chunk, codes);
            for (v, &c) in dst.iter_mut().zip(codes.iter()) {
                *v = self.value(c, *v);
            }
        }
        self.exceptions.patch_taken(positions, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encodings::encode_stream;
    use crate::Objective;

    fn round_trip<T: LwcInt>(values: &[T]) -> usize {
        let mut w = Writer::new();
        encode_stream(values, &"alp_rd".parse::<Cascade>().unwrap(), Objective::default(), &mut w).unwrap();
        let bytes = w.into_aligned();
        let view = StreamView::<T>::open(&mut Reader::new(bytes.as_bytes()), values.len()).unwrap();
        let mut out = vec![T::default(); values.len()];
        view.decode_into(0, &mut out);
        assert_eq!(out, values);
        for (i, &v) in values.iter().enumerate().step_by(7) {
            assert_eq!(view.get(i), v, "row {i}");
        }
        let positions: Vec<u32> = (0..values.len() as u32).rev().step_by(3).collect();
        let mut taken = vec![T::default(); positions.len()];
        view.take_into(&positions, &mut taken);
        assert!(positions.iter().zip(&taken).all(|(&p, &t)| values[p as usize] == t));
        bytes.len()
    }

    #[test]
    fn random_doubles_take_under_nine_tenths_of_plain() {
        let mut rng = SplitMix(7);
        let values = AlpRd::calibration_values(64, 20_000, &mut rng);
        let bytes = round_trip(&values);
        assert!(bytes * 10 < values.len() * 8 * 9, "{bytes} bytes for {} doubles", values.len());
        let floats = AlpRd::calibration_values(32, 20_000, &mut rng);
        let floats: Vec<u32> = floats.iter().map(|&v| v as u32).collect();
        round_trip(&floats);
    }

    #[test]
    fn specials_and_wide_ranges_round_trip() {
        let mut values: Vec<f64> = (0..3_000).map(|i| (i as f64).sin() * 10f64.powi(i % 40 - 20)).collect();
        values.extend([f64::NAN, -0.0, 0.0, f64::INFINITY, f64::NEG_INFINITY, 5e-324, f64::MAX]);
        round_trip(&values.iter().map(|v| v.to_latent()).collect::<Vec<u64>>());
        round_trip::<u64>(&[]);
        round_trip(&[1.5f64.to_latent()]);
    }
}
