//! Kernels: pure functions over slices of machine words. They know no format and no header; encodings
//! call them after validating lengths once. The only home of `unsafe` (runtime CPU-feature dispatch, and
//! FSST decoding's writes into space reserved up front).

/// Defines `pub fn $name` that runs `$body` compiled for AVX2 when the CPU has it, for baseline
/// x86-64 otherwise. Generic parameters, if any, go in brackets after the name: `pub fn f[R: Copy](…)`.
macro_rules! with_avx2 {
    ($(#[$doc:meta])* pub fn $name:ident $([$($generics:tt)*])? ($($arg:ident: $ty:ty),*) -> $ret:ty $body:block) => {
        $(#[$doc])*
        pub fn $name $(<$($generics)*>)? ($($arg: $ty),*) -> $ret {
            #[inline(always)]
            fn body $(<$($generics)*>)? ($($arg: $ty),*) -> $ret $body

            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "avx2")]
            unsafe fn avx2 $(<$($generics)*>)? ($($arg: $ty),*) -> $ret {
                body($($arg),*)
            }

            #[cfg(target_arch = "x86_64")]
            if crate::kernels::cpu::avx2() {
                // SAFETY: the CPU supports AVX2, checked just above; the body is safe code.
                return unsafe { avx2($($arg),*) };
            }
            body($($arg),*)
        }
    };
}

pub mod bitpack;
pub mod bits;
#[cfg(target_arch = "x86_64")]
pub mod cpu;

/// Runs a kernel's test `f`, then again under [`cpu::avx2_only`] where this CPU has an AVX-512 path that
/// `f` would otherwise take instead of the AVX2 one.
#[cfg(test)]
pub fn on_every_path(f: impl Fn()) {
    f();
    #[cfg(target_arch = "x86_64")]
    if cpu::avx512f() || cpu::avx512_vbmi() {
        cpu::avx2_only(f);
    }
}
pub mod decimal;
pub mod divisor;
pub mod extremes;
pub mod fsst;
pub mod lookup;
pub mod positions;
pub mod prefix;
pub mod radix;
pub mod range_sum;
pub mod scan;
pub mod varint;
