//! Byte mutations for corruption campaigns: the damage storage and transport do (flipped bits, zeroed or
//! overwritten bytes, truncation) and the damage a fuzzer does to reach past header checks (tweaked
//! length fields, bytes spliced in from another valid input, ranges duplicated or dropped).
//!
//! ```
//! use lwc_testdata::mutate::Mutator;
//!
//! let valid = vec![1u8, 2, 3, 4, 5, 6, 7, 8];
//! let mut mutator = Mutator::new(7);
//! let (mutated, how) = mutator.mutate(&valid, &[]);
//! assert!(mutated != valid || how == "unchanged", "{how}");
//! ```

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Values that tend to sit on boundaries of length and count fields.
const INTERESTING: [u64; 12] = [0, 1, 2, 7, 8, 63, 64, 255, 256, 65_535, 65_536, u32::MAX as u64];

/// A seeded source of mutations (the same seed mutates the same inputs the same way).
pub struct Mutator {
    rng: StdRng,
}

impl Mutator {
    /// A mutator seeded with `seed`.
    pub fn new(seed: u64) -> Self {
        Mutator { rng: StdRng::seed_from_u64(seed) }
    }

    /// A uniform number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        self.rng.gen_range(0..n)
    }

    /// A damaged copy of `input` and the kind of damage. `donors` are other valid inputs of the same kind,
    /// spliced in by one of the mutations (none when empty).
    pub fn mutate(&mut self, input: &[u8], donors: &[Vec<u8>]) -> (Vec<u8>, &'static str) {
        let mut b = input.to_vec();
        if b.is_empty() {
            b.push(self.rng.gen());
            return (b, "byte added to an empty input");
        }
        let n = b.len();
        let at = self.rng.gen_range(0..n);
        let kind = match self.rng.gen_range(0..10) {
            0 | 1 => {
                for _ in 0..self.rng.gen_range(1..=4) {
                    let i = if self.rng.gen_bool(0.5) { at } else { self.rng.gen_range(0..n) };
                    b[i] ^= 1 << self.rng.gen_range(0..8);
                }
                "bits flipped"
            }
            2 => {
                b[at] = [0x00, 0xff, 0x7f, 0x80][self.rng.gen_range(0..4)];
                "byte set to a boundary value"
            }
            3 => {
                let len = self.rng.gen_range(1..=16).min(n - at);
                self.rng.fill(&mut b[at..at + len]);
                "range overwritten with random bytes"
            }
            4 => {
                b.truncate(self.rng.gen_range(0..n));
                "truncated"
            }
            5 => {
                // A little-endian length or count field, nudged or replaced.
                let width = [1, 2, 4, 8][self.rng.gen_range(0..4)];
                let at = at - at % width;
                if at + width <= n {
                    let mut field = [0u8; 8];
                    field[..width].copy_from_slice(&b[at..at + width]);
                    let value = u64::from_le_bytes(field);
                    let next = if self.rng.gen_bool(0.5) {
                        value.wrapping_add(self.rng.gen_range(1..=16)).wrapping_sub(self.rng.gen_range(0..=16))
                    } else {
                        INTERESTING[self.rng.gen_range(0..INTERESTING.len())]
                    };
                    b[at..at + width].copy_from_slice(&next.to_le_bytes()[..width]);
                }
                "integer field changed"
            }
            6 if !donors.is_empty() => {
                let donor = &donors[self.rng.gen_range(0..donors.len())];
                if !donor.is_empty() {
                    let from = self.rng.gen_range(0..donor.len());
                    let len = self.rng.gen_range(1..=64).min(donor.len() - from).min(n - at);
                    b[at..at + len].copy_from_slice(&donor[from..from + len]);
                }
                "range spliced in from another input"
            }
            7 => {
                let len = self.rng.gen_range(1..=32).min(n - at);
                let copy = b[at..at + len].to_vec();
                let to = self.rng.gen_range(0..=n);
                b.splice(to..to, copy);
                "range duplicated"
            }
            8 => {
                let len = self.rng.gen_range(1..=32).min(n - at);
                b.drain(at..at + len);
                "range removed"
            }
            _ => {
                let extra = self.rng.gen_range(1..=24);
                b.extend((0..extra).map(|_| self.rng.gen::<u8>()));
                "random bytes appended"
            }
        };
        if b == input {
            return (b, "unchanged");
        }
        (b, kind)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mutations_change_inputs_and_repeat_for_a_seed() {
        let input: Vec<u8> = (0..200).collect();
        let donors = vec![vec![0xAB; 100]];
        let run = |seed| {
            let mut m = Mutator::new(seed);
            (0..500).map(|_| m.mutate(&input, &donors)).collect::<Vec<_>>()
        };
        let first = run(3);
        assert_eq!(first, run(3));
        let changed = first.iter().filter(|(b, _)| b != &input).count();
        assert!(changed > 480, "{changed} of 500 changed");
        let kinds: std::collections::BTreeSet<&str> = first.iter().map(|(_, k)| *k).collect();
        assert!(kinds.len() >= 9, "{kinds:?}");
    }
}
