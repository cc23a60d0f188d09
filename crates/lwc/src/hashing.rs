//! A fast hasher for integer keys (dictionary building, distinct counts): std's SipHash defends against
//! chosen keys, which costs more than building a 65,536-row dictionary's other steps together.

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};

/// Folded multiply of each written word: every output bit depends on every input bit.
#[derive(Default, Clone, Copy)]
pub(crate) struct IntHasher(u64);

const K: u64 = 0x9e37_79b9_7f4a_7c15;

impl IntHasher {
    #[inline(always)]
    fn mix(&mut self, v: u64) {
        let product = (self.0 ^ v) as u128 * K as u128;
        self.0 = (product as u64) ^ ((product >> 64) as u64);
    }
}

impl Hasher for IntHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.mix(u64::from_le_bytes(word));
        }
    }
    #[inline(always)]
    fn write_u8(&mut self, v: u8) {
        self.mix(v as u64)
    }
    #[inline(always)]
    fn write_u16(&mut self, v: u16) {
        self.mix(v as u64)
    }
    #[inline(always)]
    fn write_u32(&mut self, v: u32) {
        self.mix(v as u64)
    }
    #[inline(always)]
    fn write_u64(&mut self, v: u64) {
        self.mix(v)
    }
    #[inline(always)]
    fn finish(&self) -> u64 {
        self.0
    }
}

/// A set of integers hashed with [`IntHasher`].
pub(crate) type IntSet<T> = HashSet<T, BuildHasherDefault<IntHasher>>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_of_signed_and_unsigned_keys_count_right() {
        let set: IntSet<i64> = [-1, 0, 1, -1, i64::MIN, i64::MAX, 0].into_iter().collect();
        assert_eq!(set.len(), 5);
        let set: IntSet<u32> = (0..10_000u32).map(|i| i % 77 * 1024).collect();
        assert_eq!(set.len(), 77);
    }
}
