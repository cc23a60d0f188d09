//! Dictionary lookups: the entry of each code, where a code past the last entry reads the last one (so a
//! corrupt code never reads out of bounds; [`entry`] is the same rule for one code).
//!
//! A lookup per code compiles to a scalar loop (a load, a clamp and a store per code, about 1 ns a value
//! on the Xeon this was written on, eight times a bit-packed decode). AVX2 gathers eight 32-bit entries or
//! four 64-bit ones per instruction instead, with the codes clamped eight at a time. Evenly spaced
//! entries are computed rather than looked up, in a loop compiled for AVX2 where the CPU has it: baseline
//! x86-64 has neither an unsigned 32-bit min nor a 32-bit multiply, and emulates both at several times
//! the cost.

use bytemuck::Pod;

use crate::types::Word;
#[cfg(target_arch = "x86_64")]
use bytemuck::{try_cast_slice, try_cast_slice_mut};

/// `out[i] = dictionary[min(codes[i], len - 1)]` over `codes.len().min(out.len())` codes; nothing is
/// written where the dictionary is empty.
pub fn lookup<W: Pod>(dictionary: &[W], codes: &[u32], out: &mut [W]) {
    if dictionary.is_empty() {
        return;
    }
    let n = codes.len().min(out.len());
    let (codes, out) = (&codes[..n], &mut out[..n]);
    #[cfg(target_arch = "x86_64")]
    if crate::kernels::cpu::avx2() && dictionary.len() <= i32::MAX as usize {
        // Words of 4 and 8 bytes are gathered as `u32` and `u64` (a cast that also checks alignment).
        match size_of::<W>() {
            4 => {
                if let (Ok(d), Ok(o)) = (try_cast_slice(dictionary), try_cast_slice_mut(out)) {
                    // SAFETY: the CPU has AVX2 (checked above); every entry's index fits a gather's `i32`.
                    return unsafe { x86::lookup_u32(d, codes, o) };
                }
            }
            8 => {
                if let (Ok(d), Ok(o)) = (try_cast_slice(dictionary), try_cast_slice_mut(out)) {
                    // SAFETY: as above.
                    return unsafe { x86::lookup_u64(d, codes, o) };
                }
            }
            _ => {}
        }
    }
    lookup_scalar(dictionary, codes, out);
}

with_avx2! {
    /// `out[i] = first + step · min(codes[i], last)`, wrapping: the entries of an evenly spaced
    /// dictionary of `last + 1` entries, computed.
    pub fn evenly_spaced[U: Word](first: U, step: U, last: u32, codes: &[u32], out: &mut [U]) -> () {
        for (o, &c) in out.iter_mut().zip(codes) {
            *o = first.wrapping_add(step.wrapping_mul(U::from_u64(u64::from(c.min(last)))));
        }
    }
}

/// The entry of `code` in a non-empty dictionary; a corrupt code past the end reads the last entry instead
/// of out of bounds (`dict`'s lone reads, in place or not, and [`lookup`]'s).
#[inline(always)]
pub fn entry<W: Copy>(dictionary: &[W], code: u32) -> W {
    dictionary[(code as usize).min(dictionary.len() - 1)]
}

/// [`lookup`] one code at a time, for a non-empty `dictionary`.
fn lookup_scalar<W: Copy>(dictionary: &[W], codes: &[u32], out: &mut [W]) {
    for (o, &c) in out.iter_mut().zip(codes) {
        *o = entry(dictionary, c);
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    /// # Safety
    /// AVX2; `dictionary` non-empty with at most `i32::MAX` entries; `codes` and `out` of one length.
    #[target_feature(enable = "avx2")]
    pub unsafe fn lookup_u32(dictionary: &[u32], codes: &[u32], out: &mut [u32]) {
        let last = dictionary.len() - 1;
        let clamp = _mm256_set1_epi32(last as i32);
        let (mut code_chunks, mut out_chunks) = (codes.chunks_exact(8), out.chunks_exact_mut(8));
        for (c, o) in (&mut code_chunks).zip(&mut out_chunks) {
            // SAFETY: eight codes read and eight entries written; each index is at most `last`.
            unsafe {
                let at = _mm256_min_epu32(_mm256_loadu_si256(c.as_ptr().cast()), clamp);
                let v = _mm256_i32gather_epi32::<4>(dictionary.as_ptr().cast(), at);
                _mm256_storeu_si256(o.as_mut_ptr().cast(), v);
            }
        }
        super::lookup_scalar(dictionary, code_chunks.remainder(), out_chunks.into_remainder());
    }

    /// # Safety
    /// As [`lookup_u32`].
    #[target_feature(enable = "avx2")]
    pub unsafe fn lookup_u64(dictionary: &[u64], codes: &[u32], out: &mut [u64]) {
        let last = dictionary.len() - 1;
        let clamp = _mm_set1_epi32(last as i32);
        let (mut code_chunks, mut out_chunks) = (codes.chunks_exact(4), out.chunks_exact_mut(4));
        for (c, o) in (&mut code_chunks).zip(&mut out_chunks) {
            // SAFETY: four codes read and four entries written; each index is at most `last`.
            unsafe {
                let at = _mm_min_epu32(_mm_loadu_si128(c.as_ptr().cast()), clamp);
                let v = _mm256_i32gather_epi64::<8>(dictionary.as_ptr().cast(), at);
                _mm256_storeu_si256(o.as_mut_ptr().cast(), v);
            }
        }
        super::lookup_scalar(dictionary, code_chunks.remainder(), out_chunks.into_remainder());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every length around the vector widths, dictionaries of 1 to 300 entries, codes past the end: the
    /// dispatched kernel agrees with the scalar one for 1-, 2-, 4- and 8-byte words.
    #[test]
    fn lookups_agree_with_the_scalar_loop() {
        fn check<W: Pod + PartialEq + std::fmt::Debug>(word: impl Fn(u64) -> W) {
            for entries in [1usize, 2, 5, 16, 300] {
                let dictionary: Vec<W> =
                    (0..entries as u64).map(|i| word(i.wrapping_mul(0x9e37_79b9_7f4a_7c15))).collect();
                for n in [0usize, 1, 3, 4, 7, 8, 9, 31, 33, 1000] {
                    let codes: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(2_654_435_761) % 400).collect();
                    let mut want = vec![word(0); n];
                    lookup_scalar(&dictionary, &codes, &mut want);
                    let mut got = vec![word(0); n + 2];
                    lookup(&dictionary, &codes, &mut got);
                    assert_eq!(got[..n], want[..], "{entries} entries, {n} codes");
                    assert!(got[n..].iter().all(|&w| w == word(0)), "wrote past the codes");
                }
            }
        }
        check(|v| v as u8);
        check(|v| v as u16);
        check(|v| v as u32);
        check(|v| v as i32);
        check(|v| v);
        check(|v| v as i64);
        // A code far past the end, and the largest code, read the last entry.
        let mut out = [0u32; 9];
        lookup(&[7u32, 8, 9], &[u32::MAX; 9], &mut out);
        assert_eq!(out, [9; 9]);
        // Evenly spaced entries, computed, agree with the same entries looked up.
        let spaced: Vec<u32> = (0..300u32).map(|i| 7 + 3 * i).collect();
        let codes: Vec<u32> = (0..1000u32).map(|i| i.wrapping_mul(2_654_435_761) % 400).collect();
        let (mut computed, mut looked_up) = (vec![0u32; 1000], vec![0u32; 1000]);
        evenly_spaced(7, 3, 299, &codes, &mut computed);
        lookup_scalar(&spaced, &codes, &mut looked_up);
        assert_eq!(computed, looked_up);
        // An empty dictionary writes nothing.
        lookup(&[] as &[u32], &[0; 9], &mut out);
        assert_eq!(out, [9; 9]);
    }
}
