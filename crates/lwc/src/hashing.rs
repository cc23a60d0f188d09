//! A fast hasher for dictionary keys (integers and byte strings: dictionary building, distinct counts).
//! std's SipHash defends against chosen keys at a cost higher than building a 65,536-row dictionary's
//! other steps together; a folded multiply seeded per map keeps most of that defence (the seed comes from
//! std's per-process random keys) at the cost of a multiply a word.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasher, Hasher, RandomState};

/// Folded multiply of each written word, from a random seed: every output bit depends on every input bit.
#[derive(Clone, Copy)]
pub(crate) struct KeyHasher(u64);

const K: u64 = 0x9e37_79b9_7f4a_7c15;

impl KeyHasher {
    #[inline(always)]
    fn mix(&mut self, v: u64) {
        let product = (self.0 ^ v) as u128 * K as u128;
        self.0 = (product as u64) ^ ((product >> 64) as u64);
    }
}

impl Hasher for KeyHasher {
    /// Whole words straight from the bytes; the tail zero-padded (`Hash` for slices writes the length
    /// first, so padding never makes two keys equal).
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for word in &mut words {
            self.mix(u64::from_le_bytes(word.try_into().expect("8 bytes")));
        }
        let rest = words.remainder();
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
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
    fn write_usize(&mut self, v: usize) {
        self.mix(v as u64)
    }
    #[inline(always)]
    fn finish(&self) -> u64 {
        self.0
    }
}

/// Builds [`KeyHasher`]s from one random seed per map.
#[derive(Clone)]
pub(crate) struct KeyState(u64);

impl Default for KeyState {
    fn default() -> KeyState {
        KeyState(RandomState::new().hash_one(K))
    }
}

impl BuildHasher for KeyState {
    type Hasher = KeyHasher;
    #[inline(always)]
    fn build_hasher(&self) -> KeyHasher {
        KeyHasher(self.0)
    }
}

/// A set of keys hashed with [`KeyHasher`].
pub(crate) type KeySet<T> = HashSet<T, KeyState>;

/// A map from keys hashed with [`KeyHasher`].
pub(crate) type KeyMap<K, V> = HashMap<K, V, KeyState>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_of_signed_and_unsigned_keys_count_right() {
        let set: KeySet<i64> = [-1, 0, 1, -1, i64::MIN, i64::MAX, 0].into_iter().collect();
        assert_eq!(set.len(), 5);
        let set: KeySet<u32> = (0..10_000u32).map(|i| i % 77 * 1024).collect();
        assert_eq!(set.len(), 77);
    }

    #[test]
    fn byte_strings_that_differ_in_length_or_tail_bytes_are_distinct() {
        let keys: [&[u8]; 8] = [b"", b"\0", b"\0\0", b"a", b"a\0", b"12345678", b"12345678\0", b"123456789"];
        let set: KeySet<&[u8]> = keys.iter().chain(&keys).copied().collect();
        assert_eq!(set.len(), keys.len());
        let map: KeyMap<Vec<u8>, usize> =
            (0..5_000usize).map(|i| (format!("Customer#{i:09}").into_bytes(), i)).collect();
        assert!((0..5_000usize).all(|i| map[format!("Customer#{i:09}").as_bytes()] == i));
    }

    #[test]
    fn maps_are_seeded_apart() {
        let (a, b) = (KeyState::default(), KeyState::default());
        assert_ne!(a.hash_one(b"SHIP".as_slice()), b.hash_one(b"SHIP".as_slice()));
    }
}
