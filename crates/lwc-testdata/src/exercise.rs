//! Runs every read operation on an opened segment, column or file and ignores the answers. Shared by the
//! corrupt-input tests, the corruption campaigns and the fuzz targets (fuzz/), where all that is asked is
//! that nothing panics or reads out of bounds: corrupt bytes that pass validation may give wrong answers
//! (checksums belong to the file layer, and may be turned off to reach the decoders below them).
//!
//! Work is bounded. A corrupt header may claim billions of rows that a constant stream (or one packed
//! at bit width 0) holds in a few bytes; that is valid data, but operations linear in the rows would
//! take minutes and gigabytes on it. Those run only up to `full_up_to` rows; larger views get windows
//! and samples.

use lwc::{Bitmap, Column, ColumnSelection, LwcInt, Predicate, Segment, Selection, SelectionPart, Value};
use lwc_file::{with_int_column, LwcFile};

/// Rows decoded from each end of a larger view.
const WINDOW: usize = 1024;

/// Every predicate variant, with constants around the claimed min and max and the type's extremes.
fn predicates<T: Value>(min: Option<T>, max: Option<T>) -> Vec<Predicate<T>> {
    let (smallest, largest) = (T::from_latent(T::Latent::MIN), T::from_latent(T::Latent::MAX));
    let (lo, hi) = (min.unwrap_or(smallest), max.unwrap_or(largest));
    vec![
        Predicate::Eq(lo),
        Predicate::Eq(T::default()),
        Predicate::NotEq(hi),
        Predicate::NotEq(smallest),
        Predicate::Lt(hi),
        Predicate::LtEq(lo),
        Predicate::Gt(lo),
        Predicate::GtEq(hi),
        Predicate::GtEq(T::default()),
        Predicate::Between(lo, hi),
        Predicate::Between(hi, lo),
        Predicate::Between(smallest, T::default()),
        Predicate::In(vec![lo]),
        Predicate::In(vec![lo, hi, T::default(), largest]),
        Predicate::IsNull,
        Predicate::IsNotNull,
    ]
}

/// A few positions below `rows` (none if it is zero): both ends, the middle and a pseudo-random spread.
fn sample(rows: u64, k: usize) -> Vec<u64> {
    if rows == 0 {
        return Vec::new();
    }
    let mut x = 0x9E37_79B9_7F4A_7C15u64 ^ rows;
    let mut out = vec![0, rows - 1, rows / 2];
    for _ in 0..k {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        out.push(x % rows);
    }
    out
}

/// Every operation of a segment; over every row when it has at most `full_up_to` rows.
pub fn exercise_segment<T: Value>(s: &Segment<'_, T>, full_up_to: usize) {
    let rows = s.rows();
    let _ = (s.null_count(), s.min(), s.max(), s.encoding(), s.encoded_len(), format!("{s:?}"));
    let window = rows.min(WINDOW);
    let _ = s.decode(0..window);
    let _ = s.decode(rows - window..rows);
    let _ = s.decode(rows / 2..rows / 2 + (rows - rows / 2).min(77));
    let _ = s.decode(0..rows.saturating_add(1));
    let _ = s.get(rows);

    let positions: Vec<u32> = sample(rows as u64, 64).into_iter().map(|p| p as u32).collect();
    for &p in &positions {
        let _ = s.get(p as usize);
    }
    let _ = s.take(&positions);
    let _ = s.take(&[rows as u32]);
    let _ = s.validity();
    let mut out = vec![T::default(); positions.len()];
    let _ = s.take_into(&positions, &mut out);
    let _ = s.take_into(&positions, &mut out[positions.len().min(1)..]); // too short unless empty
    let _ = s.decode_into(rows / 3, &mut out);
    let _ = s.decode_into(rows, &mut out);
    let _ = s.decode_into(usize::MAX, &mut out);
    let mut sorted = positions;
    sorted.sort_unstable();
    sorted.dedup();
    let _ = s.aggregate(Some(&Selection::Positions(sorted.clone())));
    if rows > 0 {
        // Long enough for the decode-everything path of short streams.
        let _ = s.take(&vec![rows as u32 - 1; 4 * rows.min(WINDOW) + 1]);
    }
    let _ = s.aggregate(Some(&Selection::Positions(vec![rows as u32])));
    if rows > full_up_to {
        return;
    }
    let _ = s.aggregate(Some(&Selection::Bitmap(Bitmap::new_set(rows + 1))));

    let _ = s.decode_all();
    for i in 0..rows {
        let _ = s.get(i);
    }
    let _ = s.aggregate(None);
    let _ = s.aggregate(Some(&Selection::Bitmap(Bitmap::from_positions(&sorted, rows))));
    let _ = s.aggregate(Some(&Selection::Bitmap(Bitmap::new_set(rows))));
    for p in predicates(s.min(), s.max()) {
        let selection = s.filter(&p);
        let _ = s.aggregate(Some(&selection));
        let _ = s.take(&selection.to_positions());
    }
}

/// Every operation of a column, and of its first segment; over every row when it has at most
/// `full_up_to` rows.
pub fn exercise_column<T: Value>(c: &Column<'_, T>, full_up_to: usize) {
    let rows = c.rows();
    let _ = (c.segments().len(), c.encoded_len(), c.encodings());
    let window = rows.min(WINDOW as u64);
    let _ = c.decode(0..window);
    let _ = c.decode(rows - window..rows);
    let _ = c.decode(0..rows.saturating_add(1));
    let _ = c.get(rows);
    let _ = c.get(u64::MAX);

    let positions = sample(rows, 64);
    for &p in &positions {
        let _ = c.get(p);
    }
    let _ = c.take(&positions);
    let _ = c.take(&[rows]);
    let part =
        |segment: usize, row: u32| SelectionPart { segment, first_row: 0, selection: Selection::Positions(vec![row]) };
    let _ = c.aggregate(Some(&ColumnSelection { parts: vec![part(0, 0)] }));
    let _ = c.aggregate(Some(&ColumnSelection { parts: vec![part(c.segments().len(), 0)] }));
    let _ = c.aggregate(Some(&ColumnSelection { parts: vec![part(0, u32::MAX)] }));
    if let Some(s) = c.segments().first() {
        exercise_segment(s, full_up_to);
    }
    if rows > full_up_to as u64 {
        return;
    }
    let _ = c.decode(0..rows);
    for i in 0..rows {
        let _ = c.get(i);
    }
    let _ = c.aggregate(None);
    let first = c.segments().first();
    for p in predicates(first.and_then(|s| s.min()), first.and_then(|s| s.max())) {
        let selection = c.filter(&p);
        let _ = c.aggregate(Some(&selection));
        let _ = c.take(&selection.row_ids());
    }
}

/// Every read of a file: the whole table to Arrow, `take` of rows of every column, integer columns through
/// lwc (`get`, `filter`, `aggregate`), and `verify`. Stops at the first error.
pub fn exercise_file(file: &LwcFile) -> lwc_file::Result<()> {
    file.read_batch()?;
    let rows = file.num_rows();
    let picks = sample(rows, 4);
    for c in 0..file.columns().len() {
        file.take(c, &picks)?;
        match file.int_column(c) {
            Ok(column) => with_int_column!(&column, col => {
                for &r in &picks {
                    col.get(r)?;
                }
                let all = col.aggregate(None)?;
                if let Some(min) = all.min {
                    let selection = col.filter(&Predicate::GtEq(min));
                    col.aggregate(Some(&selection))?;
                    col.filter(&Predicate::IsNull);
                }
            }),
            Err(lwc_file::Error::NotInteger { .. }) => {}
            Err(e) => return Err(e),
        }
    }
    file.verify()
}
