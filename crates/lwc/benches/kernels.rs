//! Kernel benchmarks on 65,536 `u32` values at bit widths 3, 11 and 20, next to a plain `Vec<u32>` and
//! the `bitpacking` crate's `BitPacker8x`, all measured in the same run so ratios are comparable.
//!
//! Groups:
//! - `decode`: plain copy, lwc `unpack_range` of all values, `BitPacker8x::decompress` of every block.
//! - `gather`: 1,000 and 1,000,000 random positions (with repeats) from a plain `Vec`, lwc `gather`, a
//!   loop of lwc `get`, and decode-then-gather (whole stream into a scratch buffer, then a plain gather).
//! - `take_crossover`: lwc `gather` against decode-then-gather at list lengths from `n / 64` to `2n`.
//! - `filter_gt`: `x > median` on the packed stream, decode-then-compare, and on a plain `Vec`.
//! - `lookup`: dictionary lookups of 65,536 codes into 8 to 256 random `u32` and `u64` entries (not
//!   evenly spaced, so none is computed): lwc `lookup` (a permute of the dictionary in registers up to 64
//!   `u32` or 32 `u64` entries, gathers beyond), a scalar loop, and a plain copy of as many values.
//! - `fsst`: FSST on 65,536 TPC-H-like comments (10 to 43 bytes cut from text of the TPC-H grammar):
//!   training, compressing string by string (`compress_each`) and in batches of four runs side by side
//!   (`compress_all`), decompressing string by string and all codes in one call;
//!   throughput in bytes of decoded text.
//!
//! Run with `cargo bench -p lwc --bench kernels`.

use std::hint::black_box;
use std::time::Duration;

use bitpacking::{BitPacker, BitPacker8x};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use lwc::kernels::fsst::SymbolTable;
use lwc::kernels::{bitpack, scan};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const N: usize = 65_536;
const WIDTHS: [u32; 3] = [3, 11, 20];

struct Data {
    w: u32,
    plain: Vec<u32>,
    packed: Vec<u8>,
    bp: Vec<u8>,
}

fn data(w: u32) -> Data {
    let mut rng = StdRng::seed_from_u64(0x5EED + w as u64);
    let plain: Vec<u32> = (0..N).map(|_| rng.gen_range(0..1u32 << w)).collect();
    let mut packed = Vec::new();
    bitpack::pack(&plain, w, &mut packed);
    let bitpacker = BitPacker8x::new();
    let mut bp = vec![0u8; N * 4];
    let mut len = 0;
    for block in plain.chunks(BitPacker8x::BLOCK_LEN) {
        let bits = bitpacker.num_bits(block).max(w as u8);
        assert_eq!(bits, w as u8);
        len += bitpacker.compress(block, &mut bp[len..], bits);
    }
    bp.truncate(len);
    Data { w, plain, packed, bp }
}

fn positions(m: usize) -> Vec<u32> {
    let mut rng = StdRng::seed_from_u64(0xCAFE + m as u64);
    (0..m).map(|_| rng.gen_range(0..N as u32)).collect()
}

fn plain_gather(v: &[u32], pos: &[u32], out: &mut [u32]) {
    for (o, &i) in out.iter_mut().zip(pos) {
        *o = v[i as usize]
    }
}

/// A routine and the name it is benched under.
type Named<'a, F> = (&'static str, &'a F);
/// Values into the first slice, the second one scratch.
type Gather<'a> = dyn Fn(&mut [u32], &mut [u32]) + 'a;
/// A bitmap into the first slice, the second one scratch.
type Filter<'a> = dyn Fn(&mut [u64], &mut [u32]) + 'a;
/// Appends its output (codes or text) to the vector.
type Appends<'a> = dyn Fn(&mut Vec<u8>) + 'a;

fn configure<'a>(c: &'a mut Criterion, name: &str) -> criterion::BenchmarkGroup<'a, criterion::measurement::WallTime> {
    let mut g = c.benchmark_group(name);
    g.measurement_time(Duration::from_secs(2)).warm_up_time(Duration::from_secs(1)).sample_size(20);
    g
}

fn decode(c: &mut Criterion) {
    let mut g = configure(c, "decode");
    g.throughput(Throughput::Elements(N as u64));
    for w in WIDTHS {
        let d = data(w);
        let mut out = vec![0u32; N];
        g.bench_function(BenchmarkId::new("plain_copy", w), |b| b.iter(|| out.copy_from_slice(black_box(&d.plain))));
        let lwc = |out: &mut [u32]| bitpack::unpack_range(black_box(&d.packed), N, d.w, 0, 0, out);
        let bitpacker = BitPacker8x::new();
        let bp8x = |out: &mut [u32]| {
            let src = black_box(&d.bp);
            let mut at = 0;
            for block in out.chunks_exact_mut(BitPacker8x::BLOCK_LEN) {
                at += bitpacker.decompress(&src[at..], block, d.w as u8);
            }
        };
        // Both decoders see the same values (checked here, so that it holds whichever benches a filter runs).
        for decode in [&lwc as &dyn Fn(&mut [u32]), &bp8x] {
            out.fill(0);
            decode(&mut out);
            assert_eq!(out, d.plain);
        }
        g.bench_function(BenchmarkId::new("lwc", w), |b| b.iter(|| lwc(&mut out)));
        g.bench_function(BenchmarkId::new("bitpacker8x", w), |b| b.iter(|| bp8x(&mut out)));
    }
    g.finish();
}

fn gather(c: &mut Criterion) {
    let mut g = configure(c, "gather");
    for m in [1_000usize, 1_000_000] {
        let pos = positions(m);
        g.throughput(Throughput::Elements(m as u64));
        let mut out = vec![0u32; m];
        let mut scratch = vec![0u32; N];
        for w in WIDTHS {
            let d = data(w);
            let expect: Vec<u32> = pos.iter().map(|&i| d.plain[i as usize]).collect();
            let id = format!("{m}/{w}");
            g.bench_function(BenchmarkId::new("plain", &id), |b| {
                b.iter(|| plain_gather(black_box(&d.plain), black_box(&pos), &mut out))
            });
            let mask = (1u32 << w) - 1;
            let lwc_gather =
                |out: &mut [u32], _: &mut [u32]| bitpack::gather(black_box(&d.packed), N, d.w, 0, black_box(&pos), out);
            let lwc_get_loop = |out: &mut [u32], _: &mut [u32]| {
                let packed = black_box(&d.packed);
                for (o, &i) in out.iter_mut().zip(black_box(&pos)) {
                    *o = bitpack::get(packed, d.w, mask, i as usize);
                }
            };
            let decode_then_gather = |out: &mut [u32], scratch: &mut [u32]| {
                bitpack::unpack_range(black_box(&d.packed), N, d.w, 0, 0, scratch);
                plain_gather(scratch, black_box(&pos), out)
            };
            let readers: [Named<Gather>; 3] = [
                ("lwc_gather", &lwc_gather),
                ("lwc_get_loop", &lwc_get_loop),
                ("decode_then_gather", &decode_then_gather),
            ];
            for (name, read) in readers {
                out.fill(0);
                read(&mut out, &mut scratch);
                assert_eq!(out, expect, "{name}");
                g.bench_function(BenchmarkId::new(name, &id), |b| b.iter(|| read(&mut out, &mut scratch)));
            }
        }
    }
    g.finish();
}

/// Where decode-then-gather overtakes a direct gather, as a list length relative to `n`.
fn take_crossover(c: &mut Criterion) {
    let mut g = c.benchmark_group("take_crossover");
    g.measurement_time(Duration::from_millis(700)).warm_up_time(Duration::from_millis(300)).sample_size(10);
    let mut scratch = vec![0u32; N];
    for w in WIDTHS {
        let d = data(w);
        for div in [64usize, 16, 4, 1] {
            let m = N / div;
            let pos = positions(m);
            let mut out = vec![0u32; m];
            let id = format!("{w}/n_div_{div}");
            g.throughput(Throughput::Elements(m as u64));
            g.bench_function(BenchmarkId::new("lwc_gather", &id), |b| {
                b.iter(|| bitpack::gather(black_box(&d.packed), N, d.w, 0, black_box(&pos), &mut out))
            });
            g.bench_function(BenchmarkId::new("decode_then_gather", &id), |b| {
                b.iter(|| {
                    bitpack::unpack_range(black_box(&d.packed), N, d.w, 0, 0, &mut scratch);
                    plain_gather(&scratch, black_box(&pos), &mut out)
                })
            });
        }
    }
    g.finish();
}

fn filter_gt(c: &mut Criterion) {
    let mut g = configure(c, "filter_gt");
    g.throughput(Throughput::Elements(N as u64));
    for w in WIDTHS {
        let d = data(w);
        let mut sorted = d.plain.clone();
        sorted.sort_unstable();
        // x > median as a range [median + 1, u32::MAX].
        let lo = sorted[N / 2] + 1;
        let span = u32::MAX - lo;
        let expect: Vec<u64> = d
            .plain
            .chunks(64)
            .map(|c| c.iter().enumerate().fold(0u64, |a, (k, &x)| a | ((x >= lo) as u64) << k))
            .collect();
        let mut bits = vec![0u64; N / 64];
        let mut scratch = vec![0u32; N];
        let packed =
            |bits: &mut [u64], _: &mut [u32]| scan::filter_range_packed(black_box(&d.packed), N, d.w, lo, span, bits);
        let decode_then_compare = |bits: &mut [u64], scratch: &mut [u32]| {
            bitpack::unpack_range(black_box(&d.packed), N, d.w, 0, 0, scratch);
            scan::filter_range_plain(scratch, lo, span, bits)
        };
        let plain = |bits: &mut [u64], _: &mut [u32]| scan::filter_range_plain(black_box(&d.plain), lo, span, bits);
        let filters: [Named<Filter>; 3] =
            [("lwc_packed", &packed), ("decode_then_compare", &decode_then_compare), ("plain", &plain)];
        for (name, filter) in filters {
            bits.fill(0);
            filter(&mut bits, &mut scratch);
            assert_eq!(bits, expect, "{name}");
            g.bench_function(BenchmarkId::new(name, w), |b| b.iter(|| filter(&mut bits, &mut scratch)));
        }
    }
    g.finish();
}

/// TPC-H-like comments: substrings of 10 to 43 bytes at random offsets of text from the TPC-H grammar (a
/// noun phrase, a verb phrase, sometimes a prepositional phrase, a terminator), as dbgen makes `l_comment`.
fn comments(n: usize) -> Vec<Vec<u8>> {
    // Word lists of the TPC-H grammar (spec 4.2.2.10), shortened.
    const NOUNS: &str = "packages|requests|accounts|deposits|foxes|ideas|theodolites|pinto beans|instructions|\
        dependencies|excuses|platelets|asymptotes|courts|dolphins|multipliers|sauternes|warthogs|frets|dinos|\
        attainments|somas|Tiresias|patterns|forges|braids|hockey players|frays|warhorses|dugouts|notornis";
    const VERBS: &str = "sleep|wake|are|cajole|haggle|nag|use|boost|affix|detect|integrate|maintain|nod|was|lose|\
        sublate|solve|thrash|promise|engage|hinder|print|x-ray|breach|eat|grow|impress|mold|poach|serve";
    const ADJECTIVES: &str = "furious|sly|careful|blithe|quick|fluffy|slow|quiet|ruthless|thin|close|dogged|\
        daring|brave|stealthy|permanent|enticing|idle|busy|regular|final|ironic|even|bold|silent";
    const ADVERBS: &str = "sometimes|always|never|furiously|slyly|carefully|blithely|quickly|fluffily|slowly|\
        quietly|ruthlessly|thinly|closely|doggedly|daringly|bravely|stealthily|permanently|finally|ironically";
    const PREPOSITIONS: &str = "about|above|according to|across|after|against|along|alongside of|among|around|\
        at|atop|before|behind|beneath|beside|besides|between|beyond|by|despite|during|except|for|from|into";
    const TERMINATORS: &str = ".|;|:|?|!|--";
    let lists: Vec<Vec<&str>> = [NOUNS, VERBS, ADJECTIVES, ADVERBS, PREPOSITIONS, TERMINATORS]
        .iter()
        .map(|l| l.split('|').map(str::trim).collect())
        .collect();
    let [nouns, verbs, adjectives, adverbs, prepositions, terminators] = &lists[..] else { unreachable!() };
    let mut rng = StdRng::seed_from_u64(0xF557);
    let pick = |rng: &mut StdRng, list: &[&'static str]| list[rng.gen_range(0..list.len())];
    let mut text = String::new();
    while text.len() < 1 << 20 {
        let mut words = Vec::new();
        for _ in 0..rng.gen_range(0..3) {
            words.push(pick(&mut rng, adjectives));
        }
        words.push(pick(&mut rng, nouns));
        if rng.gen_bool(0.5) {
            words.push(pick(&mut rng, adverbs));
        }
        words.push(pick(&mut rng, verbs));
        if rng.gen_bool(0.5) {
            words.extend([pick(&mut rng, prepositions), "the", pick(&mut rng, adjectives), pick(&mut rng, nouns)]);
        }
        text.push_str(&words.join(" "));
        text.push_str(pick(&mut rng, terminators));
        text.push(' ');
    }
    let text = text.as_bytes();
    (0..n)
        .map(|_| {
            let len = rng.gen_range(10..=43);
            let at = rng.gen_range(0..text.len() - len);
            text[at..at + len].to_vec()
        })
        .collect()
}

fn fsst(c: &mut Criterion) {
    let mut g = configure(c, "fsst");
    let strings = comments(N);
    let refs: Vec<&[u8]> = strings.iter().map(|s| &s[..]).collect();
    let raw: usize = strings.iter().map(|s| s.len()).sum();
    let table = SymbolTable::train(&refs);
    let mut codes = Vec::new();
    let mut offsets = vec![0];
    for s in &refs {
        table.compress_into(s, &mut codes);
        offsets.push(codes.len());
    }
    println!(
        "fsst: {} symbols, {raw} bytes -> {} codes, ratio {:.3}",
        table.len(),
        codes.len(),
        raw as f64 / codes.len() as f64
    );
    g.throughput(Throughput::BytesDecimal(raw as u64));
    g.bench_function("train", |b| b.iter(|| SymbolTable::train(black_box(&refs))));
    let mut scratch = Vec::with_capacity(codes.len());
    let compress_each = |scratch: &mut Vec<u8>| {
        for s in black_box(&refs) {
            table.compress_into(s, scratch);
        }
    };
    let compress_all = |scratch: &mut Vec<u8>| table.compress_all(black_box(&refs).iter().copied(), scratch, |_| ());
    let compressors: [Named<Appends>; 2] = [("compress_each", &compress_each), ("compress_all", &compress_all)];
    for (name, compress) in compressors {
        // Checked here, so that it holds whichever benches a filter runs.
        scratch.clear();
        compress(&mut scratch);
        assert_eq!(scratch, codes, "{name}");
        g.bench_function(name, |b| {
            b.iter(|| {
                scratch.clear();
                compress(&mut scratch)
            })
        });
    }
    let decoder = table.decoder();
    let mut out = Vec::with_capacity(raw + 64);
    let decompress_each = |out: &mut Vec<u8>| {
        for w in offsets.windows(2) {
            decoder.decompress_into(black_box(&codes[w[0]..w[1]]), out);
        }
    };
    let decompress_all = |out: &mut Vec<u8>| decoder.decompress_into(black_box(&codes), out);
    let decompressors: [Named<Appends>; 2] =
        [("decompress_each", &decompress_each), ("decompress_all", &decompress_all)];
    for (name, decompress) in decompressors {
        out.clear();
        decompress(&mut out);
        assert_eq!(out, strings.concat(), "{name}");
        g.bench_function(name, |b| {
            b.iter(|| {
                out.clear();
                decompress(&mut out)
            })
        });
    }
    g.finish();
}

fn lookup(c: &mut Criterion) {
    fn run<W: bytemuck::Pod + Default + PartialEq>(
        g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
        word: fn(u64) -> W,
    ) {
        let name = |what: &str| format!("{what}_u{}", 8 * size_of::<W>());
        for entries in [8usize, 32, 64, 256] {
            let mut rng = StdRng::seed_from_u64(0xD1C7 + entries as u64);
            let dictionary: Vec<W> = (0..entries).map(|_| word(rng.gen())).collect();
            let codes: Vec<u32> = (0..N).map(|_| rng.gen_range(0..entries as u32)).collect();
            let plain: Vec<W> = codes.iter().map(|&c| dictionary[c as usize]).collect();
            let mut out = vec![W::default(); N];
            g.bench_function(BenchmarkId::new(name("plain_copy"), entries), |b| {
                b.iter(|| out.copy_from_slice(black_box(&plain)))
            });
            g.bench_function(BenchmarkId::new(name("scalar"), entries), |b| {
                b.iter(|| {
                    for (o, &c) in out.iter_mut().zip(black_box(&codes)) {
                        *o = dictionary[c as usize];
                    }
                })
            });
            lwc::kernels::lookup::lookup(&dictionary, &codes, &mut out);
            assert!(out == plain);
            g.bench_function(BenchmarkId::new(name("lwc"), entries), |b| {
                b.iter(|| lwc::kernels::lookup::lookup(&dictionary, black_box(&codes), &mut out))
            });
        }
    }
    let mut g = configure(c, "lookup");
    g.throughput(Throughput::Elements(N as u64));
    run(&mut g, |v| v as u32);
    run(&mut g, |v| v);
    g.finish();
}

criterion_group!(benches, decode, gather, take_crossover, filter_gt, lookup, fsst);
criterion_main!(benches);
