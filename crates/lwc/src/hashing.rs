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
    fn write_u128(&mut self, v: u128) {
        self.mix(v as u64);
        self.mix((v >> 64) as u64)
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

/// Byte strings up to this long pack into one [`short_key`].
pub(crate) const SHORT_KEY_BYTES: usize = 15;

/// `bytes` (at most [`SHORT_KEY_BYTES`] of them) and their length in one word: equal words are equal
/// strings. Hashing one is two multiplies and comparing it one compare, where a slice key hashes its
/// length and words and compares through a pointer and a `memcmp` call at every probe. The bytes are read
/// as overlapping loads of fixed size, since a copy of variable length compiles to a `memcpy` call.
#[inline]
pub(crate) fn short_key(bytes: &[u8]) -> u128 {
    let n = bytes.len();
    assert!(n <= SHORT_KEY_BYTES, "a short key of {n} bytes");
    let word = |b: &[u8]| u64::from_le_bytes(b.try_into().expect("8 bytes"));
    let half = |b: &[u8]| u64::from(u32::from_le_bytes(b.try_into().expect("4 bytes")));
    let (low, high) = match n {
        // Bytes 8.. from the last 8, shifted down past the ones `low` holds.
        9.. => (word(&bytes[..8]), word(&bytes[n - 8..]) >> (8 * (16 - n))),
        8 => (word(bytes), 0),
        // The first and the last 4 bytes, overlapping: OR-ing a byte with itself keeps it.
        4..8 => (half(&bytes[..4]) | half(&bytes[n - 4..]) << (8 * (n - 4)), 0),
        1..4 => {
            let at = |i: usize| u64::from(bytes[i]) << (8 * i);
            (at(0) | at(n / 2) | at(n - 1), 0)
        }
        0 => (0, 0),
    };
    u128::from(low) | u128::from(high) << 64 | (n as u128) << 120
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
    fn short_keys_are_the_bytes_and_their_length() {
        let text = b"DELIVER IN PERSON";
        for start in 0..3 {
            for n in 0..=SHORT_KEY_BYTES {
                let bytes = &text[start..start + n];
                let mut padded = [0u8; 16];
                padded[..n].copy_from_slice(bytes);
                padded[15] = n as u8;
                assert_eq!(short_key(bytes), u128::from_le_bytes(padded), "{bytes:?}");
            }
        }
        // Zero bytes count: a string and the same string with a zero byte more are distinct.
        let keys: KeySet<u128> =
            [&b""[..], b"\0", b"\0\0", b"A", b"A\0", b"AIR\0\0\0\0\0"].into_iter().map(short_key).collect();
        assert_eq!(keys.len(), 6);
    }

    #[test]
    fn maps_are_seeded_apart() {
        let (a, b) = (KeyState::default(), KeyState::default());
        assert_ne!(a.hash_one(b"SHIP".as_slice()), b.hash_one(b"SHIP".as_slice()));
    }
}
