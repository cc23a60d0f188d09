//! Conditions as text, the way the `lwc` command takes them: `> 10`, `between 3 and 9`, `like 'PROMO%'`.

use super::{CompareOp, Filter, Literal, Test};
use crate::error::{Error, Result};

const FORMS: &str = "use `> 10`, `<= 5`, `= 5`, `<> 5`, `between 3 and 9`, `in (1, 2, 3)`, `is null`, \
                     `is not null` or `like 'abc%'`";

/// Parses one condition on `column`; it may start with the column's name.
pub(super) fn parse(column: &str, text: &str) -> Result<Filter> {
    let bad = |why: String| Error::InvalidArgument(format!("cannot read the condition '{text}': {why}"));
    let mut rest = text.trim();
    if let Some(after) = rest.strip_prefix(column) {
        if after.starts_with(|c: char| c.is_whitespace() || "<>=!".contains(c)) {
            rest = after.trim_start();
        }
    }
    let lower = rest.to_ascii_lowercase();
    let words: Vec<&str> = lower.split_whitespace().collect();
    let test = if words == ["is", "null"] {
        Test::IsNull
    } else if words == ["is", "not", "null"] {
        Test::IsNotNull
    } else if let Some(body) = keyword(rest, &lower, "between") {
        let at = outside_quotes(body, " and ").next().ok_or_else(|| bad("between needs `between LO and HI`".into()))?;
        Test::Between(literal(&body[..at]).map_err(bad)?, literal(&body[at + 5..]).map_err(bad)?)
    } else if let Some(body) = keyword(rest, &lower, "in").filter(|b| b.trim_start().starts_with('(')) {
        let inner = body
            .trim()
            .strip_prefix('(')
            .and_then(|b| b.strip_suffix(')'))
            .ok_or_else(|| bad("a list needs `in (A, B, ...)`".into()))?;
        let mut cuts: Vec<usize> = outside_quotes(inner, ",").collect();
        cuts.push(inner.len());
        let mut from = 0;
        let mut items = Vec::with_capacity(cuts.len());
        for cut in cuts {
            items.push(literal(&inner[from..cut]).map_err(bad)?);
            from = cut + 1;
        }
        Test::In(items)
    } else if let Some(body) = keyword(rest, &lower, "like") {
        let pattern = unquote(body).ok_or_else(|| bad("a pattern needs quotes: `like 'abc%'`".into()))?;
        let prefix = pattern.strip_suffix('%').filter(|p| !p.contains(['%', '_'])).ok_or_else(|| {
            bad(format!("only prefix patterns run on the encoded form (`like 'abc%'`), not '{pattern}'"))
        })?;
        Test::StartsWith(prefix.as_bytes().to_vec())
    } else {
        let (op, value) = [
            ("<>", CompareOp::NotEq),
            ("!=", CompareOp::NotEq),
            ("<=", CompareOp::LtEq),
            (">=", CompareOp::GtEq),
            ("==", CompareOp::Eq),
            ("=", CompareOp::Eq),
            ("<", CompareOp::Lt),
            (">", CompareOp::Gt),
        ]
        .into_iter()
        .find_map(|(symbol, op)| rest.strip_prefix(symbol).map(|value| (op, value)))
        .ok_or_else(|| bad(FORMS.into()))?;
        Test::Compare(op, literal(value).map_err(bad)?)
    };
    Ok(Filter::column(column, test))
}

/// A whole expression: tests of columns joined by `and`, `or`, `not` and parentheses.
pub(super) fn parse_expression(text: &str) -> Result<Filter> {
    let mut parser = ExpressionParser { text, at: 0 };
    let filter = parser.or()?;
    parser.skip_space();
    if parser.at < text.len() {
        return Err(parser.error(&format!("unexpected '{}'", &text[parser.at..])));
    }
    Ok(filter)
}

/// Recursive descent over the expression's text; tests are cut out and read by [`parse`].
struct ExpressionParser<'a> {
    text: &'a str,
    at: usize,
}

impl ExpressionParser<'_> {
    fn error(&self, why: &str) -> Error {
        Error::InvalidArgument(format!("cannot read the filter '{}': {why}", self.text))
    }

    fn skip_space(&mut self) {
        let rest = &self.text[self.at..];
        self.at += rest.len() - rest.trim_start().len();
    }

    /// Consumes `word` (any case) when it comes next as a whole word.
    fn word(&mut self, word: &str) -> bool {
        self.skip_space();
        let rest = &self.text.as_bytes()[self.at..];
        let matches = rest.len() >= word.len()
            && rest[..word.len()].eq_ignore_ascii_case(word.as_bytes())
            && rest.get(word.len()).is_none_or(|&b| b.is_ascii_whitespace() || b == b'(' || b == b')');
        if matches {
            self.at += word.len();
        }
        matches
    }

    fn or(&mut self) -> Result<Filter> {
        let mut filter = self.and()?;
        while self.word("or") {
            filter = filter.or(self.and()?);
        }
        Ok(filter)
    }

    fn and(&mut self) -> Result<Filter> {
        let mut filter = self.unary()?;
        while self.word("and") {
            filter = filter.and(self.unary()?);
        }
        Ok(filter)
    }

    fn unary(&mut self) -> Result<Filter> {
        if self.word("not") {
            return Ok(self.unary()?.not());
        }
        self.skip_space();
        if self.text[self.at..].starts_with('(') {
            self.at += 1;
            let inner = self.or()?;
            self.skip_space();
            if !self.text[self.at..].starts_with(')') {
                return Err(self.error("a parenthesis is not closed"));
            }
            self.at += 1;
            return Ok(inner);
        }
        self.test()
    }

    /// `column condition`: the condition runs to the next `and`, `or` or unmatched `)` outside quotes and
    /// parentheses (the `and` of `between A and B` belongs to it).
    fn test(&mut self) -> Result<Filter> {
        let rest = &self.text[self.at..];
        let (column, name_len) = if let Some(quoted) = rest.strip_prefix('"') {
            let end = quoted.find('"').ok_or_else(|| self.error("a quoted column name is not closed"))?;
            (quoted[..end].to_string(), end + 2)
        } else {
            let len = rest.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.')).unwrap_or(rest.len());
            (rest[..len].to_string(), len)
        };
        if column.is_empty() {
            let what = if rest.is_empty() {
                "a test is missing at the end".to_string()
            } else {
                format!("expected a column name at '{rest}'")
            };
            return Err(self.error(&what));
        }
        let condition = &rest[name_len..];
        let mut between = condition.trim_start().to_ascii_lowercase().starts_with("between");
        let bytes = condition.as_bytes();
        let (mut depth, mut quote, mut end) = (0usize, None::<u8>, condition.len());
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            match quote {
                Some(q) if b == q => quote = None,
                Some(_) => {}
                None if b == b'\'' || b == b'"' => quote = Some(b),
                None if b == b'(' => depth += 1,
                None if b == b')' && depth == 0 => {
                    end = i;
                    break;
                }
                None if b == b')' => depth -= 1,
                None if depth == 0 && (i == 0 || bytes[i - 1].is_ascii_whitespace() || bytes[i - 1] == b')') => {
                    let word_at = |w: &str| {
                        bytes[i..].len() >= w.len()
                            && bytes[i..i + w.len()].eq_ignore_ascii_case(w.as_bytes())
                            && bytes.get(i + w.len()).is_none_or(|&c| c.is_ascii_whitespace() || c == b'(')
                    };
                    if word_at("and") && between {
                        between = false;
                    } else if word_at("and") || word_at("or") {
                        end = i;
                        break;
                    }
                }
                None => {}
            }
            i += 1;
        }
        let filter = parse(&column, &condition[..end])?;
        self.at += name_len + end;
        Ok(filter)
    }
}

/// The text after `word` when `rest` starts with it (any case) and a space or parenthesis follows.
fn keyword<'a>(rest: &'a str, lower: &str, word: &str) -> Option<&'a str> {
    let after = &lower.strip_prefix(word)?;
    after.starts_with(|c: char| c.is_whitespace() || c == '(').then(|| &rest[word.len()..])
}

/// Where `separator` (ASCII, matched in any case) occurs in `text` outside quotes, so that
/// `in ('a,b', 'c')` and `between 'x and y' and 'z'` split where they should.
fn outside_quotes<'a>(text: &'a str, separator: &'a str) -> impl Iterator<Item = usize> + 'a {
    let bytes = text.as_bytes();
    let mut quote: Option<u8> = None;
    (0..bytes.len()).filter(move |&i| {
        let b = bytes[i];
        match quote {
            Some(q) => {
                if b == q {
                    quote = None;
                }
                false
            }
            None if b == b'\'' || b == b'"' => {
                quote = Some(b);
                false
            }
            None => {
                bytes[i..].len() >= separator.len()
                    && bytes[i..i + separator.len()].eq_ignore_ascii_case(separator.as_bytes())
            }
        }
    })
}

/// Text between single or double quotes (a doubled single quote inside is one quote).
fn unquote(text: &str) -> Option<String> {
    let t = text.trim();
    if let Some(inner) = t.strip_prefix('\'').and_then(|t| t.strip_suffix('\'')).filter(|_| t.len() >= 2) {
        return Some(inner.replace("''", "'"));
    }
    t.strip_prefix('"').and_then(|t| t.strip_suffix('"')).filter(|_| t.len() >= 2).map(str::to_string)
}

/// A literal: quoted text as it is, unquoted text trimmed; `null` unquoted is NULL.
fn literal(text: &str) -> std::result::Result<Literal, String> {
    if let Some(quoted) = unquote(text) {
        return Ok(Literal::text(quoted));
    }
    match text.trim() {
        "" => Err("a value is missing".into()),
        t if t.eq_ignore_ascii_case("null") => Ok(Literal::null()),
        t => Ok(Literal::text(t)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn test_of(text: &str) -> Test {
        match parse("x", text).unwrap() {
            Filter::Column { test, .. } => test,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn separators_inside_quotes_stay_in_the_value() {
        assert_eq!(test_of("in ('a,b', 'c')"), Test::In(vec![Literal::text("a,b"), Literal::text("c")]));
        assert_eq!(test_of("between 'x and y' and 'z'"), Test::Between(Literal::text("x and y"), Literal::text("z")));
        assert_eq!(test_of("= 'it''s'"), Test::Compare(CompareOp::Eq, Literal::text("it's")));
    }

    #[test]
    fn conditions_parse() {
        let t = Literal::text;
        assert_eq!(test_of("> 10"), Test::Compare(CompareOp::Gt, t("10")));
        assert_eq!(test_of("x<=-3"), Test::Compare(CompareOp::LtEq, t("-3")));
        assert_eq!(test_of("<> 4"), Test::Compare(CompareOp::NotEq, t("4")));
        assert_eq!(test_of("!= 4"), Test::Compare(CompareOp::NotEq, t("4")));
        assert_eq!(test_of("= '1995-03-15'"), Test::Compare(CompareOp::Eq, t("1995-03-15")));
        assert_eq!(test_of("= 'O''Brien'"), Test::Compare(CompareOp::Eq, t("O'Brien")));
        assert_eq!(test_of("= ''"), Test::Compare(CompareOp::Eq, t("")));
        assert_eq!(test_of("between 3 and 9"), Test::Between(t("3"), t("9")));
        assert_eq!(test_of("x BETWEEN 3 AND 9"), Test::Between(t("3"), t("9")));
        assert_eq!(test_of("in (1, 2,3)"), Test::In(vec![t("1"), t("2"), t("3")]));
        assert_eq!(test_of("in ('a', null)"), Test::In(vec![t("a"), Literal::null()]));
        assert_eq!(test_of("IS NULL"), Test::IsNull);
        assert_eq!(test_of("is  not null"), Test::IsNotNull);
        assert_eq!(test_of("like 'PROMO%'"), Test::StartsWith(b"PROMO".to_vec()));
        assert_eq!(test_of("LIKE '%'"), Test::StartsWith(Vec::new()));
        assert_eq!(test_of("= between"), Test::Compare(CompareOp::Eq, t("between")));
    }

    #[test]
    fn expressions_combine_tests() {
        let t = Literal::text;
        let filter =
            parse_expression("a < 3 and (b in ('x)', 'or') or not c between 1 and 2) OR \"d e\" is null").unwrap();
        let want = Filter::compare("a", CompareOp::Lt, t("3"))
            .and(Filter::in_list("b", [t("x)"), t("or")]).or(Filter::between("c", t("1"), t("2")).not()))
            .or(Filter::is_null("d e"));
        assert_eq!(filter, want);
        assert_eq!(parse_expression("(x >= 'and')").unwrap(), Filter::compare("x", CompareOp::GtEq, t("and")));
        assert_eq!(parse_expression("brand = 'b' AND origin<>7").unwrap().columns(), ["brand", "origin"]);
        for bad in ["", "a < 3 and", "(a < 3", "a < 3)", "and a < 3", "a", "\"a < 3", "a < 3 or or b > 1"] {
            let e = parse_expression(bad).unwrap_err().to_string();
            assert!(e.contains("cannot read the"), "{bad}: {e}");
        }
    }

    #[test]
    fn bad_conditions_say_what_is_accepted() {
        for text in ["like 'a%b'", "like '%a'", "like a%", "between 3", ">", "= ", "in (1, )", "x", "contains 3"] {
            let e = parse("x", text).unwrap_err().to_string();
            assert!(e.contains("cannot read the condition"), "{text}: {e}");
        }
    }
}
