//! Decimal scaling, the kernel of `alp`: a float of decimal origin `v` as integer digits
//! `d = round(v · 10^e / 10^f)`, read back as `d · 10^f / 10^e`.
//!
//! Reading back divides, correctly rounded, so a value parsed from decimal text (the double nearest to
//! `d / 10^e`) comes back bit for bit: multiplying by the inexact `10^-e` instead, as the ALP paper does,
//! missed by one ulp on 14 % of two-digit prices between 900 and 1,900 here (`1771.09`, `1404.61`), each
//! an exception. The division is one multiply and two fused multiply-adds (Markstein's correction: the
//! remainder `a - q · 10^e` is exact in a fused multiply-add, and one step of it rounds the quotient
//! correctly), vectorized where the CPU has FMA and computed by the same formula, with the same bits,
//! everywhere else. Writers check every value against this very function, so whatever it returns is
//! what was stored.

/// `10^i`, exact as `f64` up to `10^22`.
pub const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20,
    1e21, 1e22,
];

/// `10^-i`, rounded to nearest.
const INV_POW10: [f64; 23] = [
    1e0, 1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 1e-11, 1e-12, 1e-13, 1e-14, 1e-15, 1e-16, 1e-17,
    1e-18, 1e-19, 1e-20, 1e-21, 1e-22,
];

/// The largest exponent and factor (indexes of [`POW10`]).
pub const MAX_EXPONENT: u8 = 22;

/// Digits stay within `±2^51`, where adding and subtracting `1.5 · 2^52` rounds to an integer exactly.
pub const MAX_DIGITS: i64 = 1 << 51;
const ROUNDING: f64 = 6_755_399_441_055_744.0; // 1.5 · 2^52

/// The digits of `v` under exponent `e` and factor `f` (both at most [`MAX_EXPONENT`]): `v · 10^e / 10^f`
/// rounded, `None` beyond `±2^51` or for NaN. Whether they read back as `v` is the caller's check.
#[inline(always)]
pub fn digits(v: f64, e: u8, f: u8) -> Option<i64> {
    let scaled = v * POW10[e as usize] * INV_POW10[f as usize];
    // NaN is not less either.
    if scaled.abs().partial_cmp(&(MAX_DIGITS as f64)) != Some(std::cmp::Ordering::Less) {
        return None;
    }
    Some(((scaled + ROUNDING) - ROUNDING) as i64)
}

/// `d` as `f64`, exact for `|d| < 2^51`: through the bits of `1.5 · 2^52 + d`, which vectorizes where
/// AVX2 has no conversion from 64-bit integers (digits beyond the range, which writers never store, read
/// back as some other float).
#[inline(always)]
fn to_f64(d: i64) -> f64 {
    f64::from_bits(d.wrapping_add(ROUNDING.to_bits() as i64) as u64) - ROUNDING
}

/// `d · 10^f / 10^e`, the quotient correctly rounded (see the module documentation).
#[inline(always)]
fn scale(d: i64, e: u8, f: u8) -> f64 {
    let a = to_f64(d) * POW10[f as usize];
    let (divisor, inverse) = (POW10[e as usize], INV_POW10[e as usize]);
    let q = a * inverse;
    let remainder = (-q).mul_add(divisor, a);
    remainder.mul_add(inverse, q)
}

fn scale_slice(digits: &[i64], e: u8, f: u8, out: &mut [f64]) {
    for (o, &d) in out.iter_mut().zip(digits) {
        *o = scale(d, e, f);
    }
}

fn scale_in_place(words: &mut [u64], e: u8, f: u8) {
    for w in words {
        *w = scale(*w as i64, e, f).to_bits();
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn scale_slice_fma(digits: &[i64], e: u8, f: u8, out: &mut [f64]) {
    scale_slice(digits, e, f, out)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn scale_in_place_fma(words: &mut [u64], e: u8, f: u8) {
    scale_in_place(words, e, f)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "fma")]
unsafe fn scale_fma(d: i64, e: u8, f: u8) -> f64 {
    scale(d, e, f)
}

#[cfg(target_arch = "x86_64")]
fn has_fma() -> bool {
    crate::kernels::cpu::avx2_fma()
}

/// One value read back: `d · 10^f / 10^e`.
///
/// # Panics
/// If `e` or `f` exceeds [`MAX_EXPONENT`].
#[inline]
pub fn read_back(d: i64, e: u8, f: u8) -> f64 {
    #[cfg(target_arch = "x86_64")]
    if has_fma() {
        // SAFETY: the CPU has FMA, checked just above; the function is otherwise safe.
        return unsafe { scale_fma(d, e, f) };
    }
    scale(d, e, f)
}

/// `out[i] = read_back(digits[i], e, f)` for the common length.
///
/// # Panics
/// If `e` or `f` exceeds [`MAX_EXPONENT`].
pub fn read_back_into(digits: &[i64], e: u8, f: u8, out: &mut [f64]) {
    #[cfg(target_arch = "x86_64")]
    if has_fma() {
        // SAFETY: the CPU has AVX2 and FMA, checked just above; the function is otherwise safe.
        return unsafe { scale_slice_fma(digits, e, f, out) };
    }
    scale_slice(digits, e, f, out)
}

/// [`read_back_into`] in place: each word holds digits (as `i64` bits) on entry and the float read back
/// (its bits) on return, so a decode needs no second buffer.
///
/// # Panics
/// If `e` or `f` exceeds [`MAX_EXPONENT`].
pub fn read_back_in_place(words: &mut [u64], e: u8, f: u8) {
    #[cfg(target_arch = "x86_64")]
    if has_fma() {
        // SAFETY: the CPU has AVX2 and FMA, checked just above; the function is otherwise safe.
        return unsafe { scale_in_place_fma(words, e, f) };
    }
    scale_in_place(words, e, f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_decimals_read_back_exactly() {
        // Every two-digit price from 0.00 to 99,999.99 parsed as text is the double nearest to it.
        let mut misses = 0;
        for cents in (0..10_000_000i64).step_by(7) {
            let v: f64 = format!("{}.{:02}", cents / 100, cents % 100).parse().unwrap();
            let d = digits(v, 2, 0).unwrap();
            assert_eq!(d, cents);
            misses += usize::from(read_back(d, 2, 0).to_bits() != v.to_bits());
        }
        assert_eq!(misses, 0);
    }

    #[test]
    fn the_vector_path_agrees_with_the_scalar_formula() {
        let digits: Vec<i64> = (-5_000..5_000).map(|i| i * 7_919_123 + 13).collect();
        for (e, f) in [(0, 0), (2, 0), (5, 3), (14, 12), (18, 0), (22, 22)] {
            let mut out = vec![0.0; digits.len()];
            read_back_into(&digits, e, f, &mut out);
            let mut words: Vec<u64> = digits.iter().map(|&d| d as u64).collect();
            read_back_in_place(&mut words, e, f);
            assert!(words.iter().zip(&out).all(|(w, o)| *w == o.to_bits()));
            for (&d, &o) in digits.iter().zip(&out) {
                assert_eq!(o.to_bits(), scale(d, e, f).to_bits());
                assert_eq!(o.to_bits(), read_back(d, e, f).to_bits());
            }
        }
    }

    #[test]
    fn digits_stop_at_the_exact_range() {
        assert_eq!(digits(f64::NAN, 2, 0), None);
        assert_eq!(digits(f64::INFINITY, 0, 0), None);
        assert_eq!(digits(1e300, 0, 0), None);
        assert_eq!(digits(-2.5, 1, 0), Some(-25));
        assert_eq!(digits((MAX_DIGITS - 1) as f64, 0, 0), Some(MAX_DIGITS - 1));
        for d in [0, 1, -1, MAX_DIGITS - 1, 1 - MAX_DIGITS, 123_456_789] {
            assert_eq!(to_f64(d), d as f64);
        }
    }
}
