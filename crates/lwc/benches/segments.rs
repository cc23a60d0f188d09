//! Segment-level operations on 65,536 `u32` of bit widths 3, 11 and 20, next to a plain `Vec<u32>` and
//! the `bitpacking` crate's BitPacker8x, all in the same run: full decode, get and take of 1,000 and
//! 1,000,000 random positions (sorted and unsorted), and the filter `x > c`; and encoding with `bitpack`,
//! `for`, `for_n` and the default objective, next to a plain copy and BitPacker8x's packing.
//!
//! Then one group for each encoding made for a kind of data (`pfor`, `varint`, `gcd`, `delta`, `sequence`,
//! `rle`, `delta2`), on that data next to `plain`, `for`, `for_n` or `bitpack`: decode, get and take of
//! 1,000 random positions, take of 1,000 sorted ones, `x > c` and the sum. `delta` runs at strides 16, 1,024
//! and 65,536 on sorted keys (l_orderkey-like), next to the run-length cascades.
//!
//! Last, scattered takes and lone gets from a column of 10 segments, or of 7 segments of 100,000 rows
//! (`column_take`), next to a plain gather.
//!
//! Run: `cargo bench -p lwc --bench segments`. Ratios between lines of one group are what to quote.

use std::time::Duration;

use bitpacking::{BitPacker, BitPacker8x};
use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use lwc::{encode_segment, Cascade, Encoding, Predicate, Segment};
use rand::{rngs::StdRng, Rng, SeedableRng};

use lwc_testdata::shapes;

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
        // Every decoder writes to the same 64-byte-aligned buffer: where the allocator happens to put
        // it would otherwise decide how many 32-byte stores split a cache line, for lwc and BP8x alike.
        let mut backing = vec![0u32; N + 16];
        let skip = backing.as_ptr().align_offset(64);
        let out = &mut backing[skip..skip + N];
        g.bench_function(BenchmarkId::new("plain_copy", w), |b| b.iter(|| out.copy_from_slice(black_box(&values))));
        for (name, enc) in [("bitpack", Encoding::Bitpack), ("for", Encoding::For)] {
            let bytes = encode_segment(&values, None, enc).unwrap();
            let seg = Segment::<u32>::open(&bytes).unwrap();
            g.bench_function(BenchmarkId::new(name, w), |b| {
                b.iter(|| seg.decode_into(0, black_box(&mut *out)).unwrap())
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

/// Encoding speed: `bitpack`, `for` and `for_n` forced, and the default objective's choice, next to a
/// plain copy into a fresh `Vec` and BitPacker8x packing into a reused buffer (issue 16, item 4).
fn encode(c: &mut Criterion) {
    let mut g = configure(c, "segment_encode");
    g.throughput(Throughput::Elements(N as u64));
    for w in WIDTHS {
        let values = data(w);
        g.bench_function(BenchmarkId::new("plain_copy", w), |b| b.iter(|| black_box(black_box(&values).to_vec())));
        let forced = [("bitpack", Encoding::Bitpack), ("for", Encoding::For), ("for_n", Encoding::FOR64)];
        for (name, enc) in forced {
            g.bench_function(BenchmarkId::new(name, w), |b| {
                b.iter(|| encode_segment(black_box(&values), None, enc).unwrap())
            });
        }
        g.bench_function(BenchmarkId::new("auto", w), |b| {
            b.iter(|| encode_segment(black_box(&values), None, Encoding::Auto).unwrap())
        });
        let packer = BitPacker8x::new();
        let mut packed = vec![0u8; N * 4];
        g.bench_function(BenchmarkId::new("bitpacker8x", w), |b| {
            b.iter(|| {
                let mut len = 0;
                for chunk in black_box(&values).chunks(BitPacker8x::BLOCK_LEN) {
                    len += packer.compress(chunk, &mut packed[len..], w as u8);
                }
                len
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

/// Decode, get, take and `x > median` of `values` in each encoding, as group `name`.
fn on_data(c: &mut Criterion, name: &str, values: &[u32], cascades: &[&str]) {
    let mut g = configure(c, name);
    let (unsorted, sorted) = (positions(1_000, false), positions(1_000, true));
    let mut median = values.to_vec();
    let median = *median.select_nth_unstable(N / 2).1;
    let mut out = vec![0u32; N];
    for &enc in cascades {
        let bytes = encode_segment(values, None, enc.parse::<Cascade>().unwrap()).unwrap();
        let seg = Segment::<u32>::open(&bytes).unwrap();
        let id =
            |op: &str| BenchmarkId::new(op, format!("{enc} ({:.3} of plain)", bytes.len() as f64 / (4 * N) as f64));
        g.throughput(Throughput::Elements(N as u64));
        g.bench_function(id("decode"), |b| b.iter(|| seg.decode_into(0, black_box(&mut out)).unwrap()));
        g.bench_function(id("filter_gt_median"), |b| b.iter(|| black_box(seg.filter(&Predicate::Gt(median)))));
        g.bench_function(id("sum"), |b| b.iter(|| black_box(seg.aggregate(None).unwrap())));
        g.throughput(Throughput::Elements(1_000));
        for (order, pos) in [("unsorted", &unsorted), ("sorted", &sorted)] {
            g.bench_function(id(&format!("take_1000_{order}")), |b| {
                b.iter(|| seg.take_into(black_box(pos), &mut out[..1_000]).unwrap())
            });
        }
        g.bench_function(id("get_loop_1000"), |b| {
            b.iter(|| {
                for (o, &p) in out.iter_mut().zip(black_box(&unsorted)) {
                    *o = seg.get(p as usize).unwrap().unwrap();
                }
            })
        });
    }
    g.finish();
}

fn made_for_their_data(c: &mut Criterion) {
    let d4 = shapes::d4(N);
    on_data(c, "pfor_d4", &d4, &["pfor", "for", "bitpack"]);
    on_data(c, "varint_d4", &d4, &["varint"]);
    let mut rng = StdRng::seed_from_u64(100);
    let cents: Vec<u32> = (0..N).map(|_| 100 * rng.gen_range(1..=5_000)).collect();
    on_data(c, "gcd_x100", &cents, &["gcd", "for", "bitpack"]);
    let keys =
        ["delta:16", "delta", "delta(bitpack)", "delta:65536", "rle(for_n, for_n)", "rle(delta(dict), delta)", "for_n"];
    on_data(c, "orderkeys", &shapes::l_orderkey(N), &keys);
    let row_ids: Vec<u32> = (0..N as u32).map(|i| 1_000 + 3 * i).collect();
    on_data(c, "sequence", &row_ids, &["sequence", "plain"]);
    on_data(c, "partkeys", &shapes::ps_partkey(N), &["rle(sequence, sequence)", "plain"]);
    // Timestamps a minute apart with a few seconds of jitter.
    let timestamps: Vec<u32> = (0..N as u32).map(|i| 1_700_000_000 + 60 * i + rng.gen_range(0..5)).collect();
    on_data(c, "timestamps", &timestamps, &["delta2", "delta", "for", "plain"]);
}

/// Prices of decimal origin as `f64` (the nearest double to each two-digit price, as parsing text gives):
/// decode, a 10 % range filter, the sum and a take, in `alp` and in the encodings of their latents.
fn floats(c: &mut Criterion) {
    let mut g = configure(c, "prices_f64");
    let mut rng = StdRng::seed_from_u64(7);
    let prices: Vec<f64> = (0..N).map(|_| rng.gen_range(90_000..10_500_000) as f64 / 100.0).collect();
    let sorted = positions(1_000, true);
    let mut out = vec![0f64; N];
    for enc in ["alp", "alp_rd", "for", "plain"] {
        let bytes = encode_segment(&prices, None, enc.parse::<Cascade>().unwrap()).unwrap();
        let seg = Segment::<f64>::open(&bytes).unwrap();
        let id =
            |op: &str| BenchmarkId::new(op, format!("{enc} ({:.3} of plain)", bytes.len() as f64 / (8 * N) as f64));
        g.throughput(Throughput::Elements(N as u64));
        g.bench_function(id("decode"), |b| b.iter(|| seg.decode_into(0, black_box(&mut out)).unwrap()));
        let range = Predicate::Between(50_000.0, 60_000.0);
        g.bench_function(id("filter_between_10pct"), |b| b.iter(|| black_box(seg.filter(&range))));
        g.bench_function(id("sum"), |b| b.iter(|| black_box(seg.aggregate(None).unwrap())));
        g.throughput(Throughput::Elements(1_000));
        g.bench_function(id("take_1000_sorted"), |b| {
            b.iter(|| seg.take_into(black_box(&sorted), &mut out[..1_000]).unwrap())
        });
    }
    g.finish();
}

/// Scattered takes from a column of many segments, as TPC-H's lineitem columns are stored: 600,572 `i64`
/// rows in 10 segments of 65,536 (or 7 of 100,000), 1,000 random rows, taken at once and got one by one,
/// next to a plain gather from a `Vec<i64>`.
fn column_take(c: &mut Criterion) {
    const ROWS: usize = 600_572;
    let mut g = configure(c, "column_take");
    g.throughput(Throughput::Elements(1_000));
    let mut rng = StdRng::seed_from_u64(16);
    let rows: Vec<u32> = (0..1_000).map(|_| rng.gen_range(0..ROWS as u32)).collect();
    let default = lwc::column::DEFAULT_SEGMENT_ROWS;
    let columns: [(&str, &str, usize, Vec<i64>); 6] = [
        ("21-bit values", "bitpack", default, (0..ROWS).map(|_| rng.gen_range(0..1i64 << 21)).collect()),
        ("dates", "for", default, (0..ROWS).map(|_| rng.gen_range(8_035..10_561)).collect()),
        ("ten prices", "dict(bitpack)", default, (0..ROWS).map(|_| 90_000 + 1_000 * rng.gen_range(0..10i64)).collect()),
        ("0-10", "radix", default, (0..ROWS).map(|_| rng.gen_range(0..11i64)).collect()),
        ("mixed widths", "bitpack", default, (0..ROWS).map(|i| rng.gen_range(0..1i64 << (8 + i / 65_536))).collect()),
        // Segments of a length not a power of two: each row's segment found by a multiply.
        (
            "21-bit values, 100,000-row segments",
            "bitpack",
            100_000,
            (0..ROWS).map(|_| rng.gen_range(0..1i64 << 21)).collect(),
        ),
    ];
    let mut out = vec![0i64; rows.len()];
    for (data, cascade, segment_rows, values) in &columns {
        let id = |name: &str| BenchmarkId::new(name, data);
        g.bench_function(id("plain_gather"), |b| {
            b.iter(|| {
                for (o, &r) in out.iter_mut().zip(black_box(&rows)) {
                    *o = values[r as usize];
                }
            })
        });
        let encoding = lwc::EncodeOptions::with_encoding(cascade.parse::<Cascade>().unwrap());
        let options = lwc::EncodeOptions { segment_rows: *segment_rows, ..encoding };
        let encoded = lwc::EncodedColumn::encode(values, None, options).unwrap();
        let column = encoded.open::<i64>().unwrap();
        g.bench_function(id(cascade), |b| b.iter(|| column.take_into(black_box(&rows), &mut out).unwrap()));
        // Lone lookups, one call a row.
        g.bench_function(id(&format!("{cascade} get")), |b| {
            b.iter(|| {
                for (o, &r) in out.iter_mut().zip(black_box(&rows)) {
                    *o = column.get(r as u64).unwrap().unwrap_or(0);
                }
            })
        });
    }
    g.finish();
}

criterion_group!(benches, decode, encode, take, filter, made_for_their_data, floats, column_take);
criterion_main!(benches);
