//! Every peer decodes and takes back what it encoded, at lengths around its block sizes.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::*;

const LENGTHS: [usize; 9] = [0, 1, 127, 128, 129, 1000, 1025, 65_535, 70_000];

/// The data shapes every peer must round-trip, by name.
fn shapes(len: usize, rng: &mut StdRng) -> Vec<(&'static str, Vec<u32>)> {
    let mut full: Vec<u32> = (0..len).map(|_| rng.gen()).collect();
    if let Some(last) = full.last_mut() {
        *last = u32::MAX;
    }
    let small = (0..len).map(|_| rng.gen_range(0..16)).collect();
    let mut sum = 0u32;
    let sorted = (0..len)
        .map(|_| {
            sum = sum.wrapping_add(rng.gen_range(0..1000)).min(u32::MAX - 1000);
            sum
        })
        .collect();
    vec![
        ("full-range", full),
        ("small", small),
        ("sorted", sorted),
        ("zeros", vec![0; len]),
        ("max", vec![u32::MAX; len]),
    ]
}

fn check<T: Copy + Default + PartialEq>(peer: &dyn Peer<T>, shape: &str, values: &[T], rng: &mut StdRng) {
    let what = format!("{} on {} {shape} values", peer.name(), values.len());
    let encoded = peer.encode(values).unwrap_or_else(|| panic!("{what}: not encoded"));
    assert!(values.is_empty() || encoded.bytes() > 0, "{what}: no bytes");

    let mut decoded = vec![T::default(); values.len()];
    encoded.decode_into(&mut decoded);
    assert!(decoded == values, "{what}: decode_into differs");

    let mut scratch = Vec::new();
    let random: Vec<u32> =
        if values.is_empty() { Vec::new() } else { (0..500).map(|_| rng.gen_range(0..values.len() as u32)).collect() };
    let mut sorted = random.clone();
    sorted.sort_unstable();
    let every: Vec<u32> = (0..values.len() as u32).collect();
    for (kind, positions) in [("random", &random), ("sorted", &sorted), ("every", &every), ("empty", &Vec::new())] {
        let mut out = vec![T::default(); positions.len()];
        encoded.take_into(positions, &mut out, &mut scratch);
        let expected: Vec<T> = positions.iter().map(|&p| values[p as usize]).collect();
        assert!(out == expected, "{what}: take_into {kind} positions differs");
    }
}

#[test]
fn peers_in_table_order() {
    let names: Vec<_> = all().iter().map(|peer| peer.name()).collect();
    let mut expected =
        vec!["bitpacking BP128", "bitpacking BP8x", "fastlanes", "fastpfor", "stream-vbyte", "pco", "zstd", "lz4_flex"];
    if cfg!(feature = "vortex") {
        expected.push("vortex");
    }
    assert_eq!(names, expected);
}

#[test]
fn every_peer_round_trips() {
    let mut rng = StdRng::seed_from_u64(7);
    for len in LENGTHS {
        for (shape, values) in shapes(len, &mut rng) {
            for peer in all() {
                check(peer.as_ref(), shape, &values, &mut rng);
            }
        }
    }
}

#[cfg(feature = "vortex")]
#[test]
fn vortex_compresses_small_integers() {
    let values: Vec<u32> = (0..65_536).map(|i| i % 16).collect();
    let encoded = vortex_peer::VortexPeer::default().encode(&values).expect("encodes");
    assert!(encoded.bytes() < values.len(), "{} bytes", encoded.bytes());
}

#[test]
fn wide_and_byte_peers_round_trip() {
    let mut rng = StdRng::seed_from_u64(13);
    for len in LENGTHS {
        for (shape, values) in shapes(len, &mut rng) {
            let longs: Vec<u64> = values.iter().map(|&v| (v as u64) << 32 | v as u64).collect();
            for peer in wide() {
                check(peer.as_ref(), shape, &longs, &mut rng);
            }
            let raw: Vec<u8> = values.iter().map(|&v| v as u8).collect();
            for peer in bytes() {
                check(peer.as_ref(), shape, &raw, &mut rng);
            }
        }
    }
}

#[test]
fn float_peers_round_trip() {
    let names: Vec<_> = floats::<f64>().iter().map(|peer| peer.name()).collect();
    assert_eq!(names, ["pco", "zstd"]);
    let mut rng = StdRng::seed_from_u64(17);
    for len in LENGTHS {
        for (shape, values) in shapes(len, &mut rng) {
            // Decimals, full mantissas and extremes alike (no NaN: the check compares with `==`).
            let doubles: Vec<f64> = values.iter().map(|&v| v as f64 / 100.0 + (v % 7) as f64 / 3.0).collect();
            let singles: Vec<f32> = values.iter().map(|&v| f32::from_bits(v & 0x7f7f_ffff)).collect();
            for peer in floats::<f64>() {
                check(peer.as_ref(), shape, &doubles, &mut rng);
            }
            for peer in floats::<f32>() {
                check(peer.as_ref(), shape, &singles, &mut rng);
            }
        }
    }
}

#[test]
fn every_peer_round_trips_a_million_values() {
    let mut rng = StdRng::seed_from_u64(11);
    let values: Vec<u32> = (0..1_000_000).map(|_| rng.gen()).collect();
    for peer in all() {
        check(peer.as_ref(), "full-range", &values, &mut rng);
    }
}

#[test]
fn random_access_peers_are_the_block_codecs() {
    let random: Vec<_> = all().iter().filter(|peer| peer.random_access()).map(|peer| peer.name()).collect();
    let mut expected = vec!["bitpacking BP128", "bitpacking BP8x", "fastlanes", "zstd", "lz4_flex"];
    if cfg!(feature = "vortex") {
        expected.push("vortex");
    }
    assert_eq!(random, expected);
}
