//! Segment-level operations on 65,536 `u32` of bit widths 3, 11 and 20, next to a plain `Vec<u32>` and
//! the `bitpacking` crate's BitPacker8x, all in the same run: full decode, get and take of 1,000 and
//! 1,000,000 random positions (sorted and unsorted), and the filter `x > c`. Then one group per
//! encoding made for one shape of data, on that shape and next to `plain` on the same data: decode, get
//! and take of 1,000 random positions, and a filter that about half the rows pass.
//!
//! Run: `cargo bench -p lwc --bench segments`. Ratios between lines of one group are what to quote.

use std::time::Duration;

use bitpacking::{BitPacker, BitPacker8x};
use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use lwc::{encode_segment, Cascade, Encoding, Predicate, Segment};
use rand::{rngs::StdRng, Rng, SeedableRng};

const N: usize = 1 << 16;
const WIDTHS: [u32; 3] = [3, 11, 20];

fn data(w: u32) -> Vec<u32> {
    let mut rng = StdRng::seed_from_u64(w as u64);
    (0..N).map(|_| rng.gen_range(0..1u32 << w)).collect()
}

fn positions(k: usize, sorted: bool) -> Vec<u32> {
    let mut rng = StdRng::seed_from_u64(k as u64);
    let mut p: Vec<u32> = (0..k).map(|_| rng.gen_range(0..N as u32)).collect();
    if sorted {
        p.sort_unstable();
    }
    p
}

fn configure<'a>(c: &'a mut Criterion, name: &str) -> criterion::BenchmarkGroup<'a, criterion::measurement::WallTime> {
    let mut g = c.benchmark_group(name);
    g.measurement_time(Duration::from_secs(2)).warm_up_time(Duration::from_millis(500)).sample_size(20);
    g
}

fn decode(c: &mut Criterion) {
    let mut g = configure(c, "segment_decode");
    g.throughput(Throughput::Elements(N as u64));
    for w in WIDTHS {
        let values = data(w);
        let mut out = vec![0u32; N];
        g.bench_function(BenchmarkId::new("plain_copy", w), |b| b.iter(|| out.copy_from_slice(black_box(&values))));
        for (name, enc) in [("bitpack", Encoding::Bitpack), ("for", Encoding::For)] {
            let bytes = encode_segment(&values, None, enc).unwrap();
            let seg = Segment::<u32>::open(&bytes).unwrap();
            g.bench_function(BenchmarkId::new(name, w), |b| {
                b.iter(|| seg.decode_into(0, black_box(&mut out)).unwrap())
            });
        }
        let packer = BitPacker8x::new();
        let mut packed = vec![0u8; N * 4];
        let mut len = 0;
        for chunk in values.chunks(BitPacker8x::BLOCK_LEN) {
            len += packer.compress(chunk, &mut packed[len..], w as u8);
        }
        g.bench_function(BenchmarkId::new("bitpacker8x", w), |b| {
            b.iter(|| {
                let mut at = 0;
                for chunk in out.chunks_mut(BitPacker8x::BLOCK_LEN) {
                    at += packer.decompress(black_box(&packed[at..]), chunk, w as u8);
                }
            })
        });
    }
    g.finish();
}

fn take(c: &mut Criterion) {
    let mut g = configure(c, "segment_take");
    for k in [1_000usize, 1_000_000] {
        g.throughput(Throughput::Elements(k as u64));
        for sorted in [false, true] {
            let pos = positions(k, sorted);
            let order = if sorted { "sorted" } else { "unsorted" };
            for w in WIDTHS {
                let values = data(w);
                let id = |name: &str| BenchmarkId::new(format!("{name}/{k}/{order}"), w);
                let mut out = vec![0u32; k];
                g.bench_function(id("plain_gather"), |b| {
                    b.iter(|| {
                        for (o, &p) in out.iter_mut().zip(black_box(&pos)) {
                            *o = values[p as usize];
                        }
                    })
                });
                for (name, enc) in [("bitpack", Encoding::Bitpack), ("for", Encoding::For)] {
                    let bytes = encode_segment(&values, None, enc).unwrap();
                    let seg = Segment::<u32>::open(&bytes).unwrap();
                    g.bench_function(id(&format!("{name}_take")), |b| {
                        b.iter(|| seg.take_into(black_box(&pos), &mut out).unwrap())
                    });
                    if k == 1_000 {
                        g.bench_function(id(&format!("{name}_get_loop")), |b| {
                            b.iter(|| {
                                for (o, &p) in out.iter_mut().zip(black_box(&pos)) {
                                    *o = seg.get(p as usize).unwrap().unwrap();
                                }
                            })
                        });
                    }
                }
            }
        }
    }
    g.finish();
}

fn filter(c: &mut Criterion) {
    let mut g = configure(c, "segment_filter_gt");
    g.throughput(Throughput::Elements(N as u64));
    for w in WIDTHS {
        let values = data(w);
        let c = 1u32 << (w - 1); // about half the rows pass
        let mut out = vec![0u32; N];
        g.bench_function(BenchmarkId::new("plain_compare", w), |b| {
            b.iter(|| black_box(&values).iter().filter(|&&v| v > c).count())
        });
        for (name, enc) in [("bitpack", Encoding::Bitpack), ("for", Encoding::For)] {
            let bytes = encode_segment(&values, None, enc).unwrap();
            let seg = Segment::<u32>::open(&bytes).unwrap();
            g.bench_function(BenchmarkId::new(format!("{name}_filter"), w), |b| {
                b.iter(|| black_box(seg.filter(&Predicate::Gt(c))))
            });
            g.bench_function(BenchmarkId::new(format!("{name}_decode_then_compare"), w), |b| {
                b.iter(|| {
                    seg.decode_into(0, &mut out).unwrap();
                    black_box(out.iter().filter(|&&v| v > c).count())
                })
            });
        }
    }
    g.finish();
}

/// Data of the shape each encoding is made for, with the cascade to bench.
fn shaped_data() -> Vec<(&'static str, &'static str, Vec<u32>)> {
    let mut rng = StdRng::seed_from_u64(9);
    vec![
        ("sequence", "sequence", (0..N as u32).map(|i| 1_000 + 3 * i).collect()),
        // TPC-H ps_partkey: each key four times.
        ("rle", "rle(sequence, sequence)", (0..N as u32).map(|i| i / 4 + 1).collect()),
        // Runs of 1 to 7 rows of sparse ascending keys (TPC-H l_orderkey).
        ("rle_orderkey", "rle(for_n, for_n)", {
            let mut keys = Vec::with_capacity(N + 7);
            for order in 0u32.. {
                if keys.len() >= N {
                    break;
                }
                keys.extend(std::iter::repeat_n(order / 8 * 32 + order % 8 + 1, rng.gen_range(1..=7)));
            }
            keys.truncate(N);
            keys
        }),
        // Timestamps a minute apart with a few seconds of jitter.
        ("delta2", "delta2", (0..N as u32).map(|i| 1_700_000_000 + 60 * i + rng.gen_range(0..5)).collect()),
    ]
}

fn shaped(c: &mut Criterion) {
    for (name, cascade, values) in shaped_data() {
        let mut g = configure(c, &format!("encoding_{name}"));
        let threshold = values[N / 2];
        for (line, cascade) in [("plain", Cascade::from(Encoding::Plain)), (name, cascade.parse().unwrap())] {
            let bytes = encode_segment(&values, None, cascade).unwrap();
            let seg = Segment::<u32>::open(&bytes).unwrap();
            let mut out = vec![0u32; N];
            g.throughput(Throughput::Elements(N as u64));
            g.bench_function(BenchmarkId::new("decode", line), |b| {
                b.iter(|| seg.decode_into(0, black_box(&mut out)).unwrap())
            });
            g.bench_function(BenchmarkId::new("filter_gt", line), |b| {
                b.iter(|| black_box(seg.filter(&Predicate::Gt(threshold))))
            });
            g.throughput(Throughput::Elements(1_000));
            for sorted in [false, true] {
                let pos = positions(1_000, sorted);
                let op = if sorted { "take_1000_sorted" } else { "take_1000" };
                g.bench_function(BenchmarkId::new(op, line), |b| {
                    b.iter(|| seg.take_into(black_box(&pos), &mut out[..1_000]).unwrap())
                });
            }
            let pos = positions(1_000, false);
            g.bench_function(BenchmarkId::new("get_loop_1000", line), |b| {
                b.iter(|| {
                    black_box(&pos).iter().map(|&p| seg.get(p as usize).unwrap().unwrap()).fold(0, u32::wrapping_add)
                })
            });
        }
        g.finish();
    }
}

criterion_group!(benches, decode, take, filter, shaped);
criterion_main!(benches);
