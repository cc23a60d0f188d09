//! Writes seed inputs for every fuzz target into `corpus/<target>/`: real segments and columns of every
//! encoding (several types, with and without nulls), `.lwc` files of the realistic-table corpus, and
//! round-trip inputs. Seeds let the fuzzers start past the header checks.
//!
//! `cargo run --release --bin write_seeds` (from `fuzz/`; stable Rust is enough).

use std::path::Path;

use lwc::{encode_segment, Bitmap, EncodeOptions, EncodedColumn};
use lwc_fuzz::cascades;

fn write(target: &str, name: &str, bytes: &[u8]) {
    let dir = Path::new("corpus").join(target);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(name), bytes).unwrap();
}

fn main() {
    let mut count = 0;
    for (k, cascade) in cascades().into_iter().enumerate() {
        let text = cascade.to_string();
        for n in [1usize, 40, 300] {
            let values: Vec<u32> = match text.as_str() {
                "constant" => vec![9; n],
                "sequence" => (0..n as u32).map(|i| 5 + 3 * i).collect(),
                t if t.starts_with("gcd") => (0..n as u32).map(|i| 6 * (i * 7 % 50)).collect(),
                t if t.starts_with("rle") => (0..n as u32).map(|i| 1 + i / 4).collect(),
                _ => (0..n as u32).map(|i| (i * 2_654_435_761u32) >> (20 + k % 8)).collect(),
            };
            let nulls = Bitmap::from_bools(&(0..n).map(|i| i % 5 != 2).collect::<Vec<_>>());
            for validity in [None, Some(&nulls)].into_iter().filter(|v| v.is_none() || !text.contains("sequence")) {
                let tag = format!("{k:02}_{n}_{}", validity.is_some() as u8);
                if let Ok(bytes) = encode_segment(&values, validity, cascade.clone()) {
                    write("segment_decoder", &tag, &bytes);
                    count += 1;
                }
                let options = EncodeOptions { segment_rows: 128, ..EncodeOptions::with_encoding(cascade.clone()) };
                if let Ok(column) = EncodedColumn::encode(&values, validity, options) {
                    write("column_decoder", &tag, column.as_bytes());
                    count += 1;
                }
                let mut round_trip = vec![2u8, k as u8, 0, 2, u8::from(validity.is_some())];
                round_trip.extend(values.iter().flat_map(|v| v.to_le_bytes()));
                write("round_trip", &tag, &round_trip);
                count += 1;
            }
        }
    }
    for table in lwc_testdata::corpus().into_iter().filter(|t| t.batch.num_rows() < 10_000) {
        let mut options = lwc_file::WriteOptions::default();
        options.encode.segment_rows = 256;
        let small = table.batch.slice(0, table.batch.num_rows().min(600));
        let bytes = lwc_file::write_to_bytes(small.schema(), std::slice::from_ref(&small), options).unwrap();
        write("file_reader", table.name, &bytes);
        count += 1;
    }
    println!("wrote {count} seeds under corpus/");
}
