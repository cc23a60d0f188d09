//! Predicates, and their normalization against a segment's zone map (min, max, nulls) into the few
//! shapes encodings evaluate.

/// A filter on one column. Comparisons never select NULLs (SQL semantics).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Predicate<T> {
    /// `x = c`
    Eq(T),
    /// `x <> c`
    NotEq(T),
    /// `x < c`
    Lt(T),
    /// `x <= c`
    LtEq(T),
    /// `x > c`
    Gt(T),
    /// `x >= c`
    GtEq(T),
    /// `lo <= x <= hi` (empty when `lo > hi`)
    Between(T, T),
    /// `x IN (...)`
    In(Vec<T>),
    /// `x IS NULL`
    IsNull,
    /// `x IS NOT NULL`
    IsNotNull,
}

/// What a predicate asks of one segment once its min and max are known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Normalized<T> {
    /// No row.
    Nothing,
    /// Every non-null row.
    AllValid,
    /// The null rows.
    Nulls,
    /// Non-null rows with `lo <= x <= hi`, a range strictly inside `[min, max]`'s coverage.
    Range(T, T),
    /// Non-null rows outside `[lo, hi]`.
    NotRange(T, T),
    /// Non-null rows whose value is in the set (sorted, distinct, within `[min, max]`, two or more).
    Set(Vec<T>),
}

/// What a segment's zone map (its min, max and null count) settles of a filter before the segment is
/// read: a scan skips segments where no row can match and keeps whole ones where every row does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ZoneVerdict {
    /// No row matches.
    NoRow,
    /// Every row matches.
    EveryRow,
    /// Some rows may match: the segment must be read to tell which.
    SomeRows,
}

impl ZoneVerdict {
    /// The verdict for a filter that selects exactly the non-null rows of `rows` rows, `nulls` of them null.
    pub fn valid_rows(rows: usize, nulls: usize) -> ZoneVerdict {
        match nulls {
            _ if nulls == rows => ZoneVerdict::NoRow,
            0 => ZoneVerdict::EveryRow,
            _ => ZoneVerdict::SomeRows,
        }
    }

    /// The verdict for a filter that selects exactly the null rows of `rows` rows, `nulls` of them null.
    pub fn null_rows(rows: usize, nulls: usize) -> ZoneVerdict {
        match nulls {
            0 => ZoneVerdict::NoRow,
            _ if nulls == rows => ZoneVerdict::EveryRow,
            _ => ZoneVerdict::SomeRows,
        }
    }
}

impl<V: crate::types::Value> Predicate<V> {
    /// What a zone map settles: `min_max` bounds the non-null values of `rows` rows, `nulls` of which
    /// are null (`None` when all are).
    ///
    /// ```
    /// use lwc::{Predicate, ZoneVerdict};
    /// assert_eq!(Predicate::Gt(20).zone_verdict(Some((10, 20)), 100, 0), ZoneVerdict::NoRow);
    /// assert_eq!(Predicate::Gt(9).zone_verdict(Some((10, 20)), 100, 0), ZoneVerdict::EveryRow);
    /// assert_eq!(Predicate::Gt(9).zone_verdict(Some((10, 20)), 100, 3), ZoneVerdict::SomeRows); // not the nulls
    /// assert_eq!(Predicate::Gt(15).zone_verdict(Some((10, 20)), 100, 0), ZoneVerdict::SomeRows);
    /// ```
    pub fn zone_verdict(&self, min_max: Option<(V, V)>, rows: usize, nulls: usize) -> ZoneVerdict {
        let latents = min_max.map(|(lo, hi)| (lo.to_latent(), hi.to_latent()));
        match self.to_latents().normalize(latents) {
            Normalized::Nothing => ZoneVerdict::NoRow,
            Normalized::AllValid => ZoneVerdict::valid_rows(rows, nulls),
            Normalized::Nulls => ZoneVerdict::null_rows(rows, nulls),
            Normalized::Range(..) | Normalized::NotRange(..) | Normalized::Set(_) => ZoneVerdict::SomeRows,
        }
    }

    /// Whether a row holding `value` (`None`: NULL) is selected: the plain semantics every encoded
    /// filter reproduces. Floats compare in IEEE's total order (NaN above +inf, -0.0 below +0.0), as
    /// Arrow's comparison kernels do.
    ///
    /// ```
    /// use lwc::Predicate;
    /// assert!(Predicate::Between(3u8, 5).matches(Some(4)));
    /// assert!(!Predicate::NotEq(3i32).matches(None)); // comparisons never select NULLs
    /// assert!(Predicate::<u16>::IsNull.matches(None));
    /// assert!(Predicate::Gt(1e300).matches(Some(f64::NAN)));
    /// ```
    pub fn matches(&self, value: Option<V>) -> bool {
        self.to_latents().matches_latent(value.map(V::to_latent))
    }

    /// The same predicate on latents: the encodings' domain, where latents order as values do.
    pub(crate) fn to_latents(&self) -> Predicate<V::Latent> {
        let l = |v: &V| v.to_latent();
        match self {
            Predicate::Eq(c) => Predicate::Eq(l(c)),
            Predicate::NotEq(c) => Predicate::NotEq(l(c)),
            Predicate::Lt(c) => Predicate::Lt(l(c)),
            Predicate::LtEq(c) => Predicate::LtEq(l(c)),
            Predicate::Gt(c) => Predicate::Gt(l(c)),
            Predicate::GtEq(c) => Predicate::GtEq(l(c)),
            Predicate::Between(lo, hi) => Predicate::Between(l(lo), l(hi)),
            Predicate::In(set) => Predicate::In(set.iter().map(l).collect()),
            Predicate::IsNull => Predicate::IsNull,
            Predicate::IsNotNull => Predicate::IsNotNull,
        }
    }
}

impl<T: crate::types::LwcInt> Predicate<T> {
    fn matches_latent(&self, value: Option<T>) -> bool {
        let Some(x) = value else {
            return matches!(self, Predicate::IsNull);
        };
        match self {
            Predicate::NotEq(c) => x != *c,
            Predicate::In(set) => set.contains(&x),
            Predicate::IsNull => false,
            Predicate::IsNotNull => true,
            _ => self.range().is_some_and(|(lo, hi)| lo <= x && x <= hi),
        }
    }

    /// The inclusive range a comparison selects, `None` if empty.
    fn range(&self) -> Option<(T, T)> {
        match *self {
            Predicate::Eq(c) => Some((c, c)),
            Predicate::Lt(c) => c.checked_pred().map(|c| (T::MIN, c)),
            Predicate::LtEq(c) => Some((T::MIN, c)),
            Predicate::Gt(c) => c.checked_succ().map(|c| (c, T::MAX)),
            Predicate::GtEq(c) => Some((c, T::MAX)),
            Predicate::Between(lo, hi) => (lo <= hi).then_some((lo, hi)),
            _ => None,
        }
    }

    /// Normalizes against a segment whose non-null values lie in `[min, max]` (`None` if all are null).
    pub(crate) fn normalize(&self, min_max: Option<(T, T)>) -> Normalized<T> {
        match self {
            Predicate::IsNull => return Normalized::Nulls,
            Predicate::IsNotNull => return Normalized::AllValid,
            _ => {}
        }
        let Some((min, max)) = min_max else {
            return Normalized::Nothing;
        };
        let clip = |(lo, hi): (T, T)| {
            let (lo, hi) = (lo.max(min), hi.min(max));
            (lo <= hi).then_some((lo, hi))
        };
        match self {
            Predicate::NotEq(c) => match clip((*c, *c)) {
                None => Normalized::AllValid,
                Some(_) if min == max => Normalized::Nothing,
                Some((c, _)) => Normalized::NotRange(c, c),
            },
            Predicate::In(set) => {
                // A set built sorted (lwc-file's plans sort theirs once) is sliced, not sorted per segment.
                let set: Vec<T> = match set.windows(2).all(|w| w[0] < w[1]) {
                    true => set[set.partition_point(|v| *v < min)..set.partition_point(|v| *v <= max)].to_vec(),
                    false => {
                        let mut set: Vec<T> = set.iter().copied().filter(|v| (min..=max).contains(v)).collect();
                        set.sort_unstable();
                        set.dedup();
                        set
                    }
                };
                match set.len() {
                    0 => Normalized::Nothing,
                    1 if min == max => Normalized::AllValid,
                    1 => Normalized::Range(set[0], set[0]),
                    _ => Normalized::Set(set),
                }
            }
            _ => match self.range().and_then(clip) {
                None => Normalized::Nothing,
                Some((lo, hi)) if lo == min && hi == max => Normalized::AllValid,
                Some((lo, hi)) => Normalized::Range(lo, hi),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zone_maps_decide_what_they_can() {
        let mm = Some((10u32, 20u32));
        assert_eq!(Predicate::Gt(20).normalize(mm), Normalized::Nothing);
        assert_eq!(Predicate::Gt(9).normalize(mm), Normalized::AllValid);
        assert_eq!(Predicate::Gt(15).normalize(mm), Normalized::Range(16, 20));
        assert_eq!(Predicate::Lt(0).normalize(mm), Normalized::Nothing);
        assert_eq!(Predicate::Lt(u32::MIN).normalize(mm), Normalized::Nothing);
        assert_eq!(Predicate::Gt(u32::MAX).normalize(mm), Normalized::Nothing);
        assert_eq!(Predicate::NotEq(5).normalize(mm), Normalized::AllValid);
        assert_eq!(Predicate::NotEq(12).normalize(mm), Normalized::NotRange(12, 12));
        assert_eq!(Predicate::Between(30, 1).normalize(mm), Normalized::Nothing);
        assert_eq!(Predicate::In(vec![1, 12, 12, 30]).normalize(mm), Normalized::Range(12, 12));
        assert_eq!(Predicate::In(vec![11, 12]).normalize(mm), Normalized::Set(vec![11, 12]));
        assert_eq!(Predicate::Eq(3).normalize(None), Normalized::Nothing);
        assert_eq!(Predicate::<u32>::IsNull.normalize(None), Normalized::Nulls);
    }
}
