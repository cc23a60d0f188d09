use lwc::*;
use std::time::Instant;
#[path = "../tests/common/shapes.rs"]
mod shapes;
fn run<T: LwcInt>(name: &str, values: &[T]) {
    for obj in [Objective::Size, Objective::Balanced, Objective::Scan, Objective::Random] {
        let t = Instant::now();
        let (col, ex) = EncodedColumn::encode_explained(values, None, EncodeOptions::with_objective(obj)).unwrap();
        let el = t.elapsed();
        let choose: u64 = ex.iter().map(|e| e.choose_ns).sum();
        let enc: u64 = ex.iter().map(|e| e.encode_ns).sum();
        let c = col.open::<T>().unwrap();
        let casc: Vec<String> = c.cascades().iter().take(2).map(|(c, k)| format!("{c}×{k}")).collect();
        println!("{name:12} {obj:9} {:>10} B  choose {:5.1}% of {:7.1} ms  {}", col.as_bytes().len(), 100.0 * choose as f64 / enc as f64, el.as_secs_f64()*1e3, casc.join(" "));
    }
}
fn main() {
    run("l_orderkey", &shapes::l_orderkey(6_001_215));
    run("o_orderkey", &shapes::o_orderkey(1_500_000));
    run("ps_partkey", &shapes::ps_partkey(800_000));
    run("d4", &shapes::d4(1 << 20));
    let r: Vec<u32> = (0..1u32<<20).map(|i| i.wrapping_mul(2654435761)).collect();
    run("random32", &r);
    let few: Vec<u32> = (0..1u32<<20).map(|i| (i.wrapping_mul(2654435761) >> 7) % 50 * 1000).collect();
    run("few", &few);
    let seq: Vec<u64> = (0..100_000_000u64).collect();
    run("0..1e8", &seq);
}
