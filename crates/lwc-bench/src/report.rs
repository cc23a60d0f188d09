//! What an experiment produces: markdown tables for people, raw records for `--json`, and figures for
//! `--svg`, plus a progress line on stderr while it runs.

use std::fmt::Write as _;
use std::io::{IsTerminal, Write as _};

/// A markdown table with a title and notes under it.
pub struct Table {
    title: String,
    header: Vec<String>,
    rows: Vec<Vec<String>>,
    notes: Vec<String>,
}

impl Table {
    pub fn new(title: impl Into<String>, header: &[&str]) -> Self {
        Table {
            title: title.into(),
            header: header.iter().map(|h| h.to_string()).collect(),
            rows: Vec::new(),
            notes: Vec::new(),
        }
    }

    pub fn row(&mut self, cells: Vec<String>) {
        debug_assert_eq!(cells.len(), self.header.len());
        self.rows.push(cells);
    }

    pub fn note(&mut self, text: impl Into<String>) {
        self.notes.push(text.into());
    }

    pub fn render(&self) -> String {
        let mut s =
            format!("### {}\n\n| {} |\n|{}\n", self.title, self.header.join(" | "), "---|".repeat(self.header.len()));
        for r in &self.rows {
            let _ = writeln!(s, "| {} |", r.join(" | "));
        }
        if !self.notes.is_empty() {
            s.push('\n');
            for n in &self.notes {
                let _ = writeln!(s, "{n}");
            }
        }
        s
    }
}

/// One raw figure, for `--json`.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Record {
    pub experiment: &'static str,
    pub data: String,
    pub codec: String,
    pub measure: String,
    pub value: f64,
    pub unit: &'static str,
    /// The same measure for plain data, in the same run, divided into this one's (times only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ratio_to_plain: Option<f64>,
}

/// A scatter plot: one labelled point per codec.
pub struct Figure {
    pub name: String,
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub points: Vec<(String, f64, f64)>,
}

impl Figure {
    /// The plot as a standalone SVG document (axes from zero, y in log scale when it spans a decade).
    pub fn to_svg(&self) -> String {
        const W: f64 = 720.0;
        const H: f64 = 480.0;
        const M: f64 = 64.0;
        let pts: Vec<_> = self.points.iter().filter(|p| p.1.is_finite() && p.2.is_finite() && p.2 > 0.0).collect();
        let x_max = pts.iter().map(|p| p.1).fold(0.0, f64::max).max(1e-9) * 1.1;
        let (y_lo, y_hi) = pts.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), p| (lo.min(p.2), hi.max(p.2)));
        let log = y_hi / y_lo > 10.0;
        let fy = |y: f64| if log { y.ln() } else { y };
        let (y0, y1) = if log { (fy(y_lo) - 0.2, fy(y_hi) + 0.2) } else { (0.0, y_hi * 1.1) };
        let sx = |x: f64| M + x / x_max * (W - 2.0 * M);
        let sy = |y: f64| H - M - (fy(y) - y0) / (y1 - y0).max(1e-9) * (H - 2.0 * M);
        let mut s = format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{W}\" height=\"{H}\" font-family=\"sans-serif\" font-size=\"11\">\n\
             <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
             <text x=\"{}\" y=\"24\" text-anchor=\"middle\" font-size=\"14\">{}</text>\n\
             <line x1=\"{M}\" y1=\"{b}\" x2=\"{r}\" y2=\"{b}\" stroke=\"black\"/>\n\
             <line x1=\"{M}\" y1=\"{M}\" x2=\"{M}\" y2=\"{b}\" stroke=\"black\"/>\n\
             <text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n\
             <text x=\"16\" y=\"{}\" transform=\"rotate(-90 16 {})\" text-anchor=\"middle\">{}{}</text>\n",
            W / 2.0,
            escape(&self.title),
            W / 2.0,
            H - 16.0,
            escape(&self.x_label),
            H / 2.0,
            H / 2.0,
            escape(&self.y_label),
            if log { " (log scale)" } else { "" },
            b = H - M,
            r = W - M,
        );
        for k in 0..=4 {
            let x = x_max / 1.1 * k as f64 / 4.0;
            let _ = writeln!(s, "<text x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\">{x:.2}</text>", sx(x), H - M + 16.0);
            let y = if log { (y0 + (y1 - y0) * k as f64 / 4.0).exp() } else { y1 / 1.1 * k as f64 / 4.0 };
            let _ =
                writeln!(s, "<text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>", M - 4.0, sy(y) + 4.0, short(y));
        }
        for (label, x, y) in pts {
            let (px, py) = (sx(*x), sy(*y));
            let _ = writeln!(s, "<circle cx=\"{px:.1}\" cy=\"{py:.1}\" r=\"4\" fill=\"steelblue\"/>");
            let _ = writeln!(s, "<text x=\"{:.1}\" y=\"{:.1}\">{}</text>", px + 6.0, py - 4.0, escape(label));
        }
        s.push_str("</svg>\n");
        s
    }
}

fn short(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 1.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// Everything an experiment produced.
#[derive(Default)]
pub struct Report {
    pub tables: Vec<Table>,
    pub records: Vec<Record>,
    pub figures: Vec<Figure>,
}

/// A one-line status on stderr: rewritten in place on a terminal, one line each otherwise.
pub struct Progress {
    experiment: &'static str,
    tty: bool,
}

impl Progress {
    pub fn new(experiment: &'static str) -> Self {
        Progress { experiment, tty: std::io::stderr().is_terminal() }
    }

    pub fn say(&self, what: impl AsRef<str>) {
        let mut err = std::io::stderr().lock();
        let _ = if self.tty {
            write!(err, "\r\x1b[K[{}] {}", self.experiment, what.as_ref())
        } else {
            writeln!(err, "[{}] {}", self.experiment, what.as_ref())
        };
    }

    pub fn done(&self) {
        if self.tty {
            let _ = write!(std::io::stderr(), "\r\x1b[K");
        }
    }
}

/// `x` as a ratio (`0.93x`), or `-` when not measured.
pub fn ratio(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.2}x")
    } else {
        "-".into()
    }
}

/// A time in the unit that reads best.
pub fn time(ns: f64) -> String {
    if !ns.is_finite() {
        "-".into()
    } else if ns < 1e3 {
        format!("{ns:.1} ns")
    } else if ns < 1e6 {
        format!("{:.1} µs", ns / 1e3)
    } else if ns < 1e9 {
        format!("{:.1} ms", ns / 1e6)
    } else {
        format!("{:.2} s", ns / 1e9)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_render_as_markdown() {
        let mut t = Table::new("T", &["a", "b"]);
        t.row(vec!["1".into(), "2".into()]);
        t.note("n");
        assert_eq!(t.render(), "### T\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nn\n");
    }

    #[test]
    fn figures_are_well_formed_svg() {
        let f = Figure {
            name: "f".into(),
            title: "a < b".into(),
            x_label: "x".into(),
            y_label: "y".into(),
            points: vec![("p".into(), 0.5, 2.0), ("q".into(), 1.0, 300.0), ("nan".into(), f64::NAN, 1.0)],
        };
        let svg = f.to_svg();
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>\n"));
        assert_eq!(svg.matches("<circle").count(), 2);
        assert!(svg.contains("a &lt; b") && svg.contains("log scale"));
    }

    #[test]
    fn numbers_read_well() {
        assert_eq!(ratio(1.234), "1.23x");
        assert_eq!(ratio(f64::NAN), "-");
        assert_eq!(time(1500.0), "1.5 µs");
        assert_eq!(time(2.5e9), "2.50 s");
    }
}
