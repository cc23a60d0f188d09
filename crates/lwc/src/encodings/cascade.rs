//! Cascades: an encoding together with the encodings of its child streams.
//!
//! Encodings with child streams (a dictionary's codes, run-length values and run ends, patched
//! exceptions, delta data points) store each child as an integer stream encoded by the same machinery,
//! so any encoding can sit below any other. A [`Cascade`] says which: `dict(rle(sequence, sequence))`
//! is a dictionary whose codes are run-length encoded, with runs values and ends each stored as a
//! sequence. Children left out take the parent's default for that child.
//!
//! Depth is bounded by [`MAX_CASCADE_DEPTH`]: at most three levels of child streams below the top one.
//! Each level costs an indirection on every read, and the reader bounds nesting anyway so that corrupt
//! bytes cannot recurse without end. Three levels are what TPC-H's `l_orderkey` needs to fit in 1 MB at
//! scale factor 1: `rle(delta(dict), delta)`, runs whose values step through a dictionary of two deltas.

use std::fmt;
use std::str::FromStr;

use super::{Encoding, EncodingId};
use crate::error::{Error, Result};

/// Streams a cascade may stack, the top one included (`dict(rle(for, for))` is 3 deep, `rle(delta(dict), for)`
/// 4: the dictionary's codes are a fourth stream).
pub const MAX_CASCADE_DEPTH: usize = 4;

/// An encoding and, for encodings with child streams, how each child is encoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cascade {
    encoding: Encoding,
    children: Vec<Cascade>,
}

impl Cascade {
    /// `encoding` with its children at their defaults.
    pub fn new(encoding: Encoding) -> Cascade {
        Cascade { encoding, children: Vec::new() }
    }

    /// `encoding` with the given children, in the encoding's child order (see [`Cascade::child_names`]);
    /// children past the ones given take their defaults. Fails if the encoding has fewer children, or the
    /// cascade would be deeper than [`MAX_CASCADE_DEPTH`].
    pub fn with_children(
        encoding: Encoding,
        children: impl IntoIterator<Item = impl Into<Cascade>>,
    ) -> Result<Cascade> {
        let cascade = Cascade { encoding, children: children.into_iter().map(Into::into).collect() };
        cascade.check()?;
        Ok(cascade)
    }

    /// `id` with its defaults for parameters and every child stream left to the selector
    /// ([`Encoding::Auto`]): what `Auto` writes once it has chosen `id`.
    pub fn chosen(id: EncodingId) -> Cascade {
        let children = id.child_names().iter().map(|_| Cascade::new(Encoding::Auto)).collect();
        Cascade { encoding: id.into(), children }
    }

    /// The top encoding.
    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// The children given (possibly fewer than the encoding has).
    pub fn children(&self) -> &[Cascade] {
        &self.children
    }

    /// Streams stacked, this one included. Children left out still take a level: their defaults are
    /// streams too (so `dict(dict(dict))` is 4 deep).
    pub fn depth(&self) -> usize {
        let implied = usize::from(!Cascade::child_names(self.encoding).is_empty());
        1 + self.children.iter().map(Cascade::depth).max().unwrap_or(0).max(implied)
    }

    /// What the children of an encoding hold, in order (empty for encodings without children).
    pub fn child_names(encoding: Encoding) -> &'static [&'static str] {
        match encoding.id() {
            Some(id) => id.child_names(),
            None => &[],
        }
    }

    /// Checks child counts and depth.
    pub fn check(&self) -> Result<()> {
        if self.depth() > MAX_CASCADE_DEPTH {
            return Err(Error::InvalidArgument(format!(
                "cascade {self} is {} streams deep; at most {MAX_CASCADE_DEPTH} are allowed",
                self.depth()
            )));
        }
        self.check_children()
    }

    fn check_children(&self) -> Result<()> {
        let names = Cascade::child_names(self.encoding);
        if self.children.len() > names.len() {
            let what = if names.is_empty() { "no child streams".to_string() } else { names.join(", ") };
            return Err(Error::InvalidArgument(format!(
                "{} takes {} child stream(s) ({what}), {} given in {self}",
                self.encoding,
                names.len(),
                self.children.len()
            )));
        }
        self.children.iter().try_for_each(Cascade::check_children)
    }

    /// A cascade as read from stored bytes (the reader has bounded its depth).
    pub(crate) fn read(encoding: Encoding, children: Vec<Cascade>) -> Cascade {
        Cascade { encoding, children }
    }

    /// Child `k`: the one given, or `default`.
    pub(crate) fn child(&self, k: usize, default: Encoding) -> Cascade {
        self.children.get(k).cloned().unwrap_or_else(|| Cascade::new(default))
    }
}

impl From<Encoding> for Cascade {
    fn from(encoding: Encoding) -> Cascade {
        Cascade::new(encoding)
    }
}

impl From<EncodingId> for Cascade {
    fn from(id: EncodingId) -> Cascade {
        Cascade::new(id.into())
    }
}

/// `name` for a leaf, `name(child, child)` otherwise, with the names of [`EncodingId::name`].
impl fmt::Display for Cascade {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.encoding)?;
        if let Some((first, rest)) = self.children.split_first() {
            write!(f, "({first}")?;
            for child in rest {
                write!(f, ", {child}")?;
            }
            f.write_str(")")?;
        }
        Ok(())
    }
}

/// Parses what [`Display`](fmt::Display) writes: `rle(delta, for)`, `dict(rle(sequence, sequence))`,
/// `for_n:128`. Whitespace is ignored.
impl FromStr for Cascade {
    type Err = Error;

    fn from_str(text: &str) -> Result<Cascade> {
        let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        let mut parser = Parser { text: &compact, at: 0 };
        let cascade = parser.cascade()?;
        if parser.at != compact.len() {
            return Err(parser.error("unexpected text after the cascade"));
        }
        cascade.check()?;
        Ok(cascade)
    }
}

struct Parser<'a> {
    text: &'a str,
    at: usize,
}

impl Parser<'_> {
    fn cascade(&mut self) -> Result<Cascade> {
        let rest = &self.text[self.at..];
        let len = rest.find(['(', ')', ',']).unwrap_or(rest.len());
        let name = &rest[..len];
        let encoding = Encoding::from_name(name).ok_or_else(|| self.error(&format!("unknown encoding '{name}'")))?;
        self.at += len;
        let mut children = Vec::new();
        if self.text[self.at..].starts_with('(') {
            loop {
                self.at += 1; // '(' or ','
                children.push(self.cascade()?);
                match self.text[self.at..].chars().next() {
                    Some(',') => continue,
                    Some(')') => {
                        self.at += 1;
                        break;
                    }
                    _ => return Err(self.error("expected ',' or ')'")),
                }
            }
        }
        Ok(Cascade { encoding, children })
    }

    fn error(&self, what: &str) -> Error {
        Error::InvalidArgument(format!("cascade '{}': {what} at character {}", self.text, self.at))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_what_it_prints() {
        for text in ["for", "dict(bitpack)", "dict(for_n:128)", "for_n:16"] {
            let cascade: Cascade = text.parse().unwrap();
            assert_eq!(cascade.to_string(), text);
        }
        let spaced: Cascade = " dict ( for ) ".parse().unwrap();
        assert_eq!(spaced, Cascade::with_children(Encoding::Dict, [Encoding::For]).unwrap());
        assert_eq!(spaced.depth(), 2);
        assert_eq!(Cascade::new(Encoding::Dict).depth(), 2);
    }

    #[test]
    fn bad_cascades_are_clear_errors() {
        let message = |text: &str| text.parse::<Cascade>().unwrap_err().to_string();
        assert!(message("zip").contains("unknown encoding 'zip'"), "{}", message("zip"));
        assert!(message("for(bitpack)").contains("for takes 0 child stream(s)"), "{}", message("for(bitpack)"));
        assert!(message("dict(for").contains("expected ',' or ')'"));
        assert!(message("dict(for))").contains("unexpected text"));
        assert!(message("dict(bitpack, for)").contains("dict takes 1 child stream(s) (codes)"));
        assert!(message("dict(dict(dict(dict(for))))").contains("5 streams deep"));
        // The innermost dictionary's codes would be a fifth stream, which readers reject.
        assert!(message("dict(dict(dict(dict)))").contains("5 streams deep"));
        assert_eq!("dict".parse::<Cascade>().unwrap().depth(), 2);
        assert!(message("").contains("unknown encoding ''"));
    }
}
