//! Selections: which rows of a segment a filter kept. Sorted positions (Hyrise's PosList, Umbra's match
//! vector) when few rows match, a bitmap when many do.

use crate::bitmap::Bitmap;

/// Rows of one segment chosen by a filter, or given by the caller to restrict an aggregate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selection {
    /// Ascending, distinct row positions.
    Positions(Vec<u32>),
    /// One bit per row of the segment.
    Bitmap(Bitmap),
}

impl Selection {
    /// Picks the smaller form: positions take 32 bits per selected row, a bitmap one bit per row.
    pub fn from_bitmap(bitmap: Bitmap) -> Self {
        if bitmap.count_ones() * 32 < bitmap.len() {
            Selection::Positions(bitmap.to_positions())
        } else {
            Selection::Bitmap(bitmap)
        }
    }

    /// Number of selected rows.
    pub fn count(&self) -> usize {
        match self {
            Selection::Positions(p) => p.len(),
            Selection::Bitmap(b) => b.count_ones(),
        }
    }

    /// Whether no row is selected.
    pub fn is_empty(&self) -> bool {
        self.count() == 0
    }

    /// Whether row `row` is selected (rows past a bitmap's end are not).
    pub fn contains(&self, row: u32) -> bool {
        match self {
            Selection::Positions(p) => p.binary_search(&row).is_ok(),
            Selection::Bitmap(b) => (row as usize) < b.len() && b.get(row as usize),
        }
    }

    /// The selected positions, ascending.
    pub fn to_positions(&self) -> Vec<u32> {
        match self {
            Selection::Positions(p) => p.clone(),
            Selection::Bitmap(b) => b.to_positions(),
        }
    }

    /// The selection as a bitmap of `rows` bits.
    pub fn to_bitmap(&self, rows: usize) -> Bitmap {
        match self {
            Selection::Positions(p) => Bitmap::from_positions(p, rows),
            Selection::Bitmap(b) => b.clone(),
        }
    }

    /// Iterates the selected positions, ascending.
    pub fn iter(&self) -> Box<dyn Iterator<Item = u32> + '_> {
        match self {
            Selection::Positions(p) => Box::new(p.iter().copied()),
            Selection::Bitmap(b) => Box::new(b.ones().map(|p| p as u32)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn density_picks_the_form() {
        let sparse = Bitmap::from_positions(&[3], 1000);
        assert!(matches!(Selection::from_bitmap(sparse), Selection::Positions(ref p) if p == &[3]));
        let dense = Bitmap::new_set(1000);
        let s = Selection::from_bitmap(dense);
        assert!(matches!(s, Selection::Bitmap(_)));
        assert_eq!(s.count(), 1000);
        assert_eq!(s.to_bitmap(1000).count_ones(), 1000);
    }
}
