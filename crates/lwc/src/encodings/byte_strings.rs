//! What the byte-string encodings share: their writing half ([`BytesEncoder`]), the facts they are chosen
//! by ([`ByteProfile`]), the operation set of an opened stream ([`BytesOps`]) and the arrays reads fill
//! ([`ByteArray`]). Their child streams (codes, ends) are integer streams, encoded by the integer
//! encodings through the same [`Children`] sink.

use std::borrow::Cow;
use std::cell::OnceCell;
use std::hash::Hash;
use std::ops::Range;
use std::sync::Arc;

use super::{Cascade, Children, Encoding, StreamOps, StreamView};
use crate::bitmap::Bitmap;
use crate::bytes::{Reader, Writer};
use crate::error::Result;
use crate::hashing::{short_key, KeyMap, KeySet, SHORT_KEY_BYTES};
use crate::kernels::fsst::SymbolTable;
use crate::selection::Selection;

/// Byte strings as offsets and one buffer, like an Arrow string array: row `i` is
/// `data[offsets[i]..offsets[i + 1]]`. What reads of byte-string segments produce.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ByteArray {
    /// `rows + 1` offsets into `data`, from 0, never decreasing.
    pub offsets: Vec<u64>,
    /// The rows' bytes, back to back.
    pub data: Vec<u8>,
    /// `None` when no row is null; a null row holds no bytes.
    pub validity: Option<Bitmap>,
}

impl ByteArray {
    /// An empty array with room for `rows` rows.
    pub fn with_capacity(rows: usize) -> ByteArray {
        let mut offsets = Vec::with_capacity(rows + 1);
        offsets.push(0);
        ByteArray { offsets, data: Vec::new(), validity: None }
    }

    /// Rows.
    pub fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Row `i`'s bytes, `None` if null. Panics if `i >= len()`.
    pub fn get(&self, i: usize) -> Option<&[u8]> {
        let valid = self.validity.as_ref().is_none_or(|v| v.get(i));
        valid.then(|| &self.data[self.offsets[i] as usize..self.offsets[i + 1] as usize])
    }

    /// Every row, `None` for nulls.
    pub fn to_options(&self) -> Vec<Option<Vec<u8>>> {
        (0..self.len()).map(|i| self.get(i).map(<[u8]>::to_vec)).collect()
    }

    /// Appends one row's bytes.
    pub fn push(&mut self, bytes: &[u8]) {
        self.data.extend_from_slice(bytes);
        self.offsets.push(self.data.len() as u64);
    }
}

/// What the selector knows about a segment's byte strings before choosing: counted once, shared by the
/// estimates and the encoder that wins.
pub(crate) struct ByteProfile<'a> {
    /// Every row's bytes (null rows: empty).
    pub rows: &'a [&'a [u8]],
    pub validity: Option<&'a Bitmap>,
    /// Bytes of the non-null rows.
    pub total_bytes: usize,
    /// The distinct non-null values, sorted, and each row's code: built on first use (`None` when a probe
    /// of spread rows finds no repeat, which makes a dictionary pointless and hashing every row wasted).
    dictionary: OnceCell<Option<Dictionary<'a>>>,
    /// An FSST symbol table trained on the rows, on first use, or the one a segment before trained.
    symbol_table: OnceCell<Arc<SymbolTable>>,
    /// An FSST symbol table trained on the dictionary's entries, on first use.
    entry_table: OnceCell<SymbolTable>,
}

/// Sorted distinct values and the code of every row (null rows: the code of the row before, so runs of
/// codes stay unbroken).
pub(crate) struct Dictionary<'a> {
    pub entries: Vec<&'a [u8]>,
    pub codes: Vec<u32>,
}

/// Rows probed for repeats before a dictionary is built.
const PROBE: usize = 1024;

impl<'a> ByteProfile<'a> {
    pub fn of(rows: &'a [&'a [u8]], validity: Option<&'a Bitmap>) -> Self {
        let valid = |i: usize| validity.is_none_or(|v| v.get(i));
        let total_bytes = rows.iter().enumerate().filter(|&(i, _)| valid(i)).map(|(_, r)| r.len()).sum();
        let (dictionary, symbol_table, entry_table) = (OnceCell::new(), OnceCell::new(), OnceCell::new());
        ByteProfile { rows, validity, total_bytes, dictionary, symbol_table, entry_table }
    }

    fn valid(&self, i: usize) -> bool {
        self.validity.is_none_or(|v| v.get(i))
    }

    /// The non-null rows' bytes, in order.
    pub fn valid_rows(&self) -> impl Iterator<Item = &'a [u8]> + '_ {
        self.rows.iter().enumerate().filter(|&(i, _)| self.valid(i)).map(|(_, &r)| r)
    }

    /// Where each row ends in the non-null rows' bytes back to back (a null row ends where the one before
    /// does).
    pub fn row_ends(&self) -> Vec<u64> {
        let mut end = 0u64;
        (0..self.rows.len())
            .map(|i| {
                if self.valid(i) {
                    end += self.rows[i].len() as u64;
                }
                end
            })
            .collect()
    }

    /// An FSST symbol table for the rows, trained on first use (on a sample: see the kernel), unless
    /// given ([`ByteProfile::with_symbol_table`]).
    pub fn symbol_table(&self) -> &SymbolTable {
        self.symbol_table.get_or_init(|| Arc::new(SymbolTable::train(self.rows)))
    }

    /// The profile with `table` for its rows' symbol table: a segment that keeps the FSST its column chose
    /// compresses with the chooser's table instead of training its own.
    pub fn with_symbol_table(self, table: Arc<SymbolTable>) -> Self {
        let symbol_table = OnceCell::from(table);
        ByteProfile { symbol_table, ..self }
    }

    /// The rows' symbol table, if one was trained (or given).
    pub fn trained_symbol_table(&self) -> Option<Arc<SymbolTable>> {
        self.symbol_table.get().cloned()
    }

    /// An FSST symbol table for the dictionary's entries (empty without a dictionary), trained on first use.
    pub fn entry_table(&self) -> &SymbolTable {
        self.entry_table.get_or_init(|| SymbolTable::train(self.dictionary().map_or(&[], |d| &d.entries)))
    }

    /// The dictionary of the rows, built on first use; `None` when most rows are distinct.
    pub fn dictionary(&self) -> Option<&Dictionary<'a>> {
        self.dictionary.get_or_init(|| self.build_dictionary()).as_ref()
    }

    fn build_dictionary(&self) -> Option<Dictionary<'a>> {
        let n = self.rows.len();
        if n > 4 * PROBE {
            // Spread rows all distinct: nearly every row is, once a few percent repeat two probes would meet.
            let mut seen = KeySet::with_capacity_and_hasher(PROBE, Default::default());
            if (0..PROBE).map(|k| k * n / PROBE).filter(|&i| self.valid(i)).all(|i| seen.insert(self.rows[i])) {
                return None;
            }
        }
        // Short strings (flags, modes, priorities: most low-cardinality text) are keyed by one word each.
        let (first_seen, mut codes) = if self.rows.iter().all(|r| r.len() <= SHORT_KEY_BYTES) {
            self.codes_by_first_sight(short_key)
        } else {
            self.codes_by_first_sight(|r| r)
        };
        // Sorted, so the order of codes is the order of values: ranges and prefixes become code ranges.
        let mut order: Vec<u32> = (0..first_seen.len() as u32).collect();
        order.sort_unstable_by(|&a, &b| first_seen[a as usize].cmp(first_seen[b as usize]));
        let mut rank = vec![0u32; order.len()];
        for (r, &o) in order.iter().enumerate() {
            rank[o as usize] = r as u32;
        }
        for c in &mut codes {
            if let Some(&r) = rank.get(*c as usize) {
                *c = r;
            }
        }
        let entries = order.iter().map(|&o| first_seen[o as usize]).collect();
        Some(Dictionary { entries, codes })
    }

    /// The distinct non-null rows in the order they first appear, and each row's index among them (a null
    /// row: the code of the row before), the rows told apart by `key`.
    fn codes_by_first_sight<K: Hash + Eq>(&self, key: impl Fn(&'a [u8]) -> K) -> (Vec<&'a [u8]>, Vec<u32>) {
        let mut index: KeyMap<K, u32> = KeyMap::default();
        let mut first_seen: Vec<&'a [u8]> = Vec::new();
        let mut codes = Vec::with_capacity(self.rows.len());
        let mut last = 0u32;
        for (i, &r) in self.rows.iter().enumerate() {
            if self.valid(i) {
                let next = first_seen.len() as u32;
                last = *index.entry(key(r)).or_insert_with(|| {
                    first_seen.push(r);
                    next
                });
            }
            codes.push(last);
        }
        (first_seen, codes)
    }
}

/// The encoding of a stream of row ends unless a cascade says otherwise: frame of reference per 64 rows
/// keeps every end one load away and their residuals as narrow as 64 rows are long.
pub(crate) const ENDS: Encoding = Encoding::FOR64;

/// Where rows `range` (not empty) begin and end in a stream of end offsets: `range.len() + 1` bounds, from
/// the end of the row before (0 for row 0), in one decode.
pub(crate) fn row_bounds(ends: &StreamView<'_, u64>, range: Range<usize>) -> Vec<u64> {
    let mut bounds = vec![0u64; range.len() + 1];
    match range.start {
        0 => ends.decode_into(0, &mut bounds[1..]),
        s => ends.decode_into(s - 1, &mut bounds),
    }
    bounds
}

/// Where each row at `positions` (any order, each below the stream's length) begins and ends in a stream
/// of end offsets: one take of the ends, each row's and the one before it side by side. Takes are bounded
/// by a decode of the ends and walk sorted lists forward, so ends whose gets walk (`delta`, which the
/// `size` and `balanced` objectives pick) cost one walk or decode per take, not two seeks per row; the
/// rows' ends taken apart from the ones before them cost two.
pub(crate) fn row_spans(ends: &StreamView<'_, u64>, positions: &[u32]) -> Vec<Range<usize>> {
    let pairs: Vec<u32> = positions.iter().flat_map(|&p| [p.saturating_sub(1), p]).collect();
    let mut bounds = vec![0u64; pairs.len()];
    // Ascending rows give ascending pairs unless a row repeats.
    if pairs.is_sorted() {
        ends.take_sorted_into(&pairs, &mut bounds);
    } else {
        ends.take_into(&pairs, &mut bounds);
    }
    let spans = positions.iter().zip(bounds.chunks_exact(2));
    spans.map(|(&p, b)| if p == 0 { 0 } else { b[0] as usize }..b[1] as usize).collect()
}

/// Where row `i` begins and ends in a stream of end offsets.
#[inline]
pub(crate) fn row_span(ends: &StreamView<'_, u64>, i: usize) -> Range<usize> {
    let start = if i == 0 { 0 } else { ends.get(i - 1) };
    start as usize..ends.get(i) as usize
}

/// The writing half of a byte-string encoding.
pub(crate) trait BytesEncoder {
    /// What each child stream holds, in order.
    const CHILDREN: &'static [&'static str] = &[];
    /// Whether one row reads without decompressing a block (see [`super::Encoder::RANDOM_ACCESS`]).
    const RANDOM_ACCESS: bool = true;
    /// Cache lines one row's lookup touches in the stream's own bytes (see [`super::Encoder::lines`]).
    const LINES: f64 = 1.0;

    /// How one row's lookup reads child `k` (see [`super::Encoder::child_reads`]): by default the row's
    /// start and end, two lookups of the ends.
    fn child_reads(_k: usize, _rows: usize, _child_rows: usize) -> super::ChildReads {
        super::ChildReads { gets: 2.0, ..super::ChildReads::NONE }
    }

    /// Encoded body bytes, or `None` when it does not apply (estimated: child streams as the sink
    /// estimates them).
    fn estimate(profile: &ByteProfile<'_>, children: &impl Children) -> Option<usize>;

    /// Appends the body; child streams go through `children`.
    fn encode(profile: &ByteProfile<'_>, children: &impl Children, out: &mut Writer) -> Result<()>;
}

/// A byte-string stream's view opened from bytes, for `n` rows, `depth` streams deep.
pub(crate) trait OpenBytes<'a>: Sized {
    fn open(r: &mut Reader<'a>, n: usize, depth: usize) -> Result<Self>;

    /// The cascades of the child streams, in the encoding's child order.
    fn child_cascades(&self) -> Vec<Cascade>;
}

/// A comparison against byte strings, once a segment's zone map has had its say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum BytesTest<'p> {
    /// `lo <= x <= hi` (byte-wise), either bound open when `None`, each inclusive or not.
    Range { lo: Option<(&'p [u8], bool)>, hi: Option<(&'p [u8], bool)> },
    /// `x` is one of these (sorted, distinct).
    Set(&'p [Vec<u8>]),
    /// `x` starts with these bytes.
    Prefix(&'p [u8]),
}

impl BytesTest<'_> {
    /// Whether `value` passes.
    pub fn matches(&self, value: &[u8]) -> bool {
        match self {
            BytesTest::Range { lo, hi } => {
                lo.is_none_or(|(b, inclusive)| if inclusive { value >= b } else { value > b })
                    && hi.is_none_or(|(b, inclusive)| if inclusive { value <= b } else { value < b })
            }
            BytesTest::Set(set) => set.binary_search_by(|s| s.as_slice().cmp(value)).is_ok(),
            BytesTest::Prefix(p) => value.starts_with(p),
        }
    }
}

/// The smallest and the largest of some rows' bytes.
pub(crate) type Extremes<'a> = (Cow<'a, [u8]>, Cow<'a, [u8]>);

/// The operations every opened byte-string stream answers. Rows passed in are `< len()`; callers check.
pub(crate) trait BytesOps<'a> {
    /// Rows in the stream.
    fn len(&self) -> usize;

    /// Row `i`'s bytes: borrowed from the stream where it holds them as they are, decoded otherwise (null
    /// rows hold whatever the writer put there).
    fn get(&self, i: usize) -> Cow<'a, [u8]>;

    /// Appends row `i` to `out`.
    fn push_row(&self, i: usize, out: &mut ByteArray) {
        out.push(&self.get(i));
    }

    /// Appends rows `range` to `out`.
    fn decode_into(&self, range: Range<usize>, out: &mut ByteArray) {
        for i in range {
            self.push_row(i, out);
        }
    }

    /// Appends the rows at `positions` (any order) to `out`.
    fn take_into(&self, positions: &[u32], out: &mut ByteArray) {
        for &p in positions {
            self.push_row(p as usize, out);
        }
    }

    /// Sets bit `i` of `out` (all clear on entry) for every row whose bytes pass `test`.
    fn filter(&self, test: &BytesTest<'_>, out: &mut Bitmap) {
        for i in 0..self.len() {
            if test.matches(&self.get(i)) {
                out.set(i);
            }
        }
    }

    /// The smallest and largest bytes among the selected rows.
    fn min_max(&self, selection: &Selection) -> Option<Extremes<'a>> {
        let mut iter = selection.iter().map(|i| self.get(i as usize));
        let first = iter.next()?;
        Some(iter.fold((first.clone(), first), |(lo, hi), v| match (v < lo, v > hi) {
            (true, _) => (v, hi),
            (_, true) => (lo, v),
            _ => (lo, hi),
        }))
    }
}
