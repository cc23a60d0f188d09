//! Which x86 instruction sets the kernels may use: what the CPU reports (`std` caches the detection),
//! unless the crate is built with the `portable` feature, which turns every SIMD path off so that one
//! machine runs and tests the portable kernels other targets (aarch64, older x86) depend on. The
//! `avx2-ceiling` feature turns the AVX-512 paths off alone, so that an AVX-512 machine runs and
//! measures the kernels an AVX2-only CPU (AMD before Zen 4) takes.
//!
//! Debug and test builds take the portable paths too where `LWC_TEST_PORTABLE=1` is set: CI
//! runs the compiled tests a second time that way instead of compiling the workspace's crates again with
//! the feature (2 minutes on a 2-core machine). Release builds other than tests read no environment.

/// Whether SIMD paths may run at all: not in a `portable` build, nor in a debug or test run held to the
/// portable paths.
#[inline]
fn simd_allowed() -> bool {
    #[cfg(any(test, debug_assertions))]
    if portable_test_run() {
        return false;
    }
    !cfg!(feature = "portable")
}

#[cfg(any(test, debug_assertions))]
fn portable_test_run() -> bool {
    static PORTABLE: std::sync::LazyLock<bool> =
        std::sync::LazyLock::new(|| std::env::var_os("LWC_TEST_PORTABLE").is_some_and(|v| v == "1"));
    *PORTABLE
}

/// AVX2.
#[inline]
pub fn avx2() -> bool {
    simd_allowed() && std::arch::is_x86_feature_detected!("avx2")
}

/// POPCNT: one instruction for a word's ones, which the baseline x86-64 target counts in a dozen.
#[inline]
pub fn popcnt() -> bool {
    simd_allowed() && std::arch::is_x86_feature_detected!("popcnt")
}

/// AVX2 and BMI2 (`pdep`/`pext`).
#[inline]
pub fn avx2_bmi2() -> bool {
    avx2() && std::arch::is_x86_feature_detected!("bmi2")
}

/// AVX2 and FMA.
#[inline]
pub fn avx2_fma() -> bool {
    avx2() && std::arch::is_x86_feature_detected!("fma")
}

/// Whether the CPU is Intel's. The vendor is read once and kept, as `std` keeps the feature flags: in a
/// virtual machine every `cpuid` traps to the hypervisor.
fn intel() -> bool {
    static INTEL: std::sync::LazyLock<bool> = std::sync::LazyLock::new(|| {
        // SAFETY: `cpuid` leaf 0 (the vendor) exists on every x86-64 CPU. (Newer compilers call it safe;
        // the block is for the older ones `rust-version` allows.)
        #[allow(unused_unsafe)]
        let id = unsafe { std::arch::x86_64::__cpuid(0) };
        [id.ebx, id.edx, id.ecx].map(u32::to_le_bytes).concat() == b"GenuineIntel"
    });
    *INTEL
}

/// Whether the CPU's gather instructions run at about a load per lane: Intel's. AMD's cost more than
/// the loads done one by one; the kernels use them there only where a gather replaces more than loads
/// (see `bitpack::x86::gather`).
#[inline]
pub fn fast_gathers() -> bool {
    avx2() && intel()
}

/// Whether streaming decodes should ask for their input and output lines ahead with software prefetches:
/// on Intel, where they decoded wide streams a few percent faster. On AMD's Zen 3 the hardware prefetcher
/// keeps up alone and the hints cost load slots: 65,536 `u32` at widths 1 to 4 decoded 10-15 % faster
/// without them, and 4,096 (in L1) about 17 % faster.
#[inline]
pub fn software_prefetch() -> bool {
    intel()
}

/// Whether AVX-512 paths may run at all: where SIMD may, not in an `avx2-ceiling` build, nor (in tests) on
/// a thread held to AVX2 by [`avx2_only`].
#[inline]
fn avx512_allowed() -> bool {
    #[cfg(test)]
    if AVX2_ONLY.with(|c| c.get()) {
        return false;
    }
    simd_allowed() && !cfg!(feature = "avx2-ceiling")
}

#[cfg(test)]
thread_local! {
    static AVX2_ONLY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f` with every AVX-512 path off on this thread, so that a kernel's test covers its AVX2 path on a
/// CPU that has AVX-512 too (the default test run would otherwise never take it there).
#[cfg(test)]
pub fn avx2_only<R>(f: impl FnOnce() -> R) -> R {
    let before = AVX2_ONLY.with(|c| c.replace(true));
    let r = f();
    AVX2_ONLY.with(|c| c.set(before));
    r
}

/// AVX-512F: 512-bit vectors, mask compares and two-register permutes.
#[inline]
pub fn avx512f() -> bool {
    avx512_allowed() && std::arch::is_x86_feature_detected!("avx512f")
}

/// AVX-512 F and DQ: 64-bit multiplies and conversions between `u64` and `f64` lanes.
#[inline]
pub fn avx512dq() -> bool {
    avx512f() && std::arch::is_x86_feature_detected!("avx512dq")
}

/// AVX-512 VBMI with VL: `vpermb` on 256-bit vectors.
#[inline]
pub fn avx512_vbmi() -> bool {
    avx512_allowed()
        && std::arch::is_x86_feature_detected!("avx512vbmi")
        && std::arch::is_x86_feature_detected!("avx512vl")
}

/// AVX-512 F, BW and VBMI on 512-bit vectors.
#[inline]
pub fn avx512_vbmi_zmm() -> bool {
    avx512_vbmi() && std::arch::is_x86_feature_detected!("avx512f") && std::arch::is_x86_feature_detected!("avx512bw")
}

#[cfg(test)]
mod tests {
    /// A `portable` build, or a debug run with `LWC_TEST_PORTABLE=1`, reports no SIMD at all, so its
    /// tests cover the portable kernels alone.
    #[test]
    fn portable_builds_take_no_simd_path() {
        let any_simd = super::avx2() || super::avx2_bmi2() || super::avx2_fma() || super::avx512_vbmi();
        assert!(!super::avx512_vbmi_zmm() || any_simd);
        assert!(!super::popcnt() || super::simd_allowed());
        let portable = cfg!(feature = "portable") || super::portable_test_run();
        assert_eq!(any_simd, !portable && std::arch::is_x86_feature_detected!("avx2"));
    }

    /// A thread held to AVX2 sees no AVX-512 path and keeps AVX2; other threads are not affected.
    #[test]
    fn avx2_only_holds_its_thread_alone() {
        let outside = (super::avx2(), super::avx512f(), super::avx512_vbmi());
        super::avx2_only(|| {
            assert!(!super::avx512f() && !super::avx512_vbmi() && !super::avx512_vbmi_zmm());
            assert_eq!(super::avx2(), outside.0);
            let other = std::thread::spawn(|| (super::avx2(), super::avx512f(), super::avx512_vbmi()));
            assert_eq!(other.join().unwrap(), outside);
        });
        assert_eq!((super::avx2(), super::avx512f(), super::avx512_vbmi()), outside);
    }

    /// An `avx2-ceiling` build takes no AVX-512 path, whatever the CPU has, and keeps AVX2 where the
    /// CPU has it (`cargo test -p lwc --features avx2-ceiling --lib kernels::cpu`).
    #[cfg(feature = "avx2-ceiling")]
    #[test]
    fn avx2_ceiling_builds_take_no_avx512_path() {
        assert!(!super::avx512f() && !super::avx512_vbmi() && !super::avx512_vbmi_zmm());
        assert_eq!(super::avx2(), super::simd_allowed() && std::arch::is_x86_feature_detected!("avx2"));
    }
}
