//! Plain-text tables for the terminal: a header, a rule, rows; numbers right-aligned.

/// A table being filled row by row.
pub struct Table {
    headers: Vec<String>,
    right: Vec<bool>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// A table with these column headers; a header starting with `>` is right-aligned (the `>` is dropped).
    pub fn new(headers: &[&str]) -> Self {
        Table {
            headers: headers.iter().map(|h| h.trim_start_matches('>').to_string()).collect(),
            right: headers.iter().map(|h| h.starts_with('>')).collect(),
            rows: Vec::new(),
        }
    }

    /// Appends a row (missing cells are empty).
    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    /// Appends a rule (a line of dashes), e.g. before a total.
    pub fn rule(&mut self) {
        self.rows.push(Vec::new());
    }

    /// The table as text, one line per row, each ending in a newline.
    pub fn render(&self) -> String {
        let n = self.headers.len();
        let mut widths: Vec<usize> = self.headers.iter().map(|h| h.chars().count()).collect();
        for row in &self.rows {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(cell.chars().count());
            }
        }
        let line = |cells: &[String]| {
            let mut out = String::new();
            for (i, width) in widths.iter().enumerate() {
                let cell = cells.get(i).map(String::as_str).unwrap_or("");
                let pad = width - cell.chars().count();
                if i > 0 {
                    out.push_str("  ");
                }
                if self.right[i] {
                    out.extend(std::iter::repeat_n(' ', pad));
                    out.push_str(cell);
                } else {
                    out.push_str(cell);
                    if i + 1 < n {
                        out.extend(std::iter::repeat_n(' ', pad));
                    }
                }
            }
            out.truncate(out.trim_end().len());
            out.push('\n');
            out
        };
        let rule: String = widths.iter().map(|&w| "-".repeat(w)).collect::<Vec<_>>().join("  ") + "\n";
        let mut out = line(&self.headers);
        out.push_str(&rule);
        for row in &self.rows {
            if row.is_empty() {
                out.push_str(&rule);
            } else {
                out.push_str(&line(row));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligns_text_left_and_numbers_right() {
        let mut t = Table::new(&["name", ">rows"]);
        t.row(vec!["a".into(), "1,000".into()]);
        t.rule();
        t.row(vec!["total".into(), "7".into()]);
        assert_eq!(t.render(), "name    rows\n-----  -----\na      1,000\n-----  -----\ntotal      7\n");
    }
}
