//! How near the selector's estimates, made on a sample of each segment, come to the bytes each candidate
//! writes: every segment of TPC-H's l_orderkey at scale factor 1 (6,001,215 rows, 92 segments of 65,536),
//! under `balanced` (the default) and `size`. For each candidate with children or its own sample logic,
//! the segments estimated within ±30 % of what writing it with its children left to the selector takes,
//! the geometric mean of the misses, and the smallest, median and largest ratio of estimate to bytes.
//! Then each objective's column: bytes written and the cascades chosen.
//!
//! Run: `cargo run --release -p lwc --example sample_estimates`.

use std::collections::BTreeMap;

use lwc::{encode_segment, Cascade, EncodeOptions, EncodedColumn, EncodingId, Objective};
use lwc_testdata::shapes;

const L_ORDERKEY_ROWS: usize = 6_001_215;
const ESTIMATED_ON_A_SAMPLE: [EncodingId; 5] =
    [EncodingId::Rle, EncodingId::Delta, EncodingId::Pfor, EncodingId::ForN, EncodingId::Delta2];

fn main() -> Result<(), lwc::Error> {
    let keys = shapes::l_orderkey(L_ORDERKEY_ROWS);
    for objective in [Objective::Balanced, Objective::Size] {
        let mut ratios: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
        for segment in keys.chunks(lwc::DEFAULT_SEGMENT_ROWS) {
            let chosen = encode_segment(segment, None, EncodeOptions::with_objective(objective).explained())?;
            let explain = chosen.explain().expect("explained");
            for candidate in explain.candidates.iter().filter(|c| ESTIMATED_ON_A_SAMPLE.contains(&c.encoding)) {
                let Some(estimated) = candidate.estimated_bytes else { continue };
                let forced =
                    EncodeOptions { objective, ..EncodeOptions::with_encoding(Cascade::chosen(candidate.encoding)) };
                let written = encode_segment(segment, None, forced)?.as_bytes().len();
                ratios.entry(candidate.encoding.name()).or_default().push(estimated as f64 / written as f64);
            }
        }
        println!("{objective}: estimate / bytes written, per segment");
        for (name, mut r) in ratios {
            r.sort_by(f64::total_cmp);
            let within = r.iter().filter(|x| (0.7..=1.3).contains(*x)).count();
            let miss = (r.iter().map(|x| x.ln().abs()).sum::<f64>() / r.len() as f64).exp();
            let (low, median, high) = (r[0], r[r.len() / 2], r[r.len() - 1]);
            println!(
                "  {name:<7} {within:>3} of {:>3} within ±30 %, geometric mean miss {miss:.3}x, {low:.2} / {median:.2} / {high:.2}",
                r.len()
            );
        }
        let encoded = EncodedColumn::encode(&keys, None, EncodeOptions::with_objective(objective))?;
        let cascades: Vec<String> =
            encoded.open::<u32>()?.cascades().iter().map(|(cascade, n)| format!("{cascade} x{n}")).collect();
        println!("  column: {} bytes as {}", encoded.as_bytes().len(), cascades.join(", "));
    }
    Ok(())
}
