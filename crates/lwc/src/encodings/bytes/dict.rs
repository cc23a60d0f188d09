//! `dict` byte strings: the distinct values, sorted, stored once (their bytes back to back and their end
//! offsets as a child stream), and one code per row as a child stream of `u32`. Sorted, so the order of
//! codes is the order of values: `=`, `<>`, `<`, `<=`, `>`, `>=`, `between` and `in` become code ranges and
//! code sets, and a prefix (`LIKE 'abc%'`) is the run of entries that start with it; filters then run on
//! the codes' own encoded form (bit-packed codes are compared a block at a time). Null rows hold the code of
//! the row before, so runs of codes stay unbroken.
//!
//! Body: entry count (u32), data length (u64), what the entry store writes (nothing for `dict`), the entry
//! ends stream (`u64`, ends in the stored entries), the codes stream (`u32`), the stored entries
//! (8-aligned). `dict_fsst` is the same dictionary with its entries FSST-compressed (see `dict_fsst.rs`):
//! [`EntryStore`] is all they differ in.
//!
//! Opening reads the entry ends' stream, not the ends: a read that needs few entries (a take of a few
//! rows, a get, the binary searches of a filter) reads each entry's two ends, and decodes the entry where it
//! is stored compressed. A read that needs many, or reads one by one that add up to many, decode every end
//! (and entry) once, kept for the reads after. A point lookup then costs one entry's read, not the
//! dictionary's. Ends are clamped to the stored bytes, an end below the one before it reads as an empty
//! entry, and codes past the last entry read the last entry, so damaged ends or codes read other entries,
//! never out of bounds, and the same entries whichever way they are read.

use std::borrow::Cow;
use std::marker::PhantomData;
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

use super::byte_strings::{ByteArray, ByteProfile, BytesEncoder, BytesOps, BytesTest, Extremes, OpenBytes};
use super::{Cascade, ChildReads, Children, Encoding, StreamOps, StreamView};
use crate::bitmap::Bitmap;
use crate::bytes::{Reader, Writer};
use crate::error::{Error, Result};
use crate::selection::Selection;

/// The `dict` encoding; `BytesDict<E>` stores its entries as `E` says.
pub(crate) struct BytesDict<E = PlainEntries>(PhantomData<E>);

/// The codes' encoding unless a cascade says otherwise: bit packing keeps every code one load away.
const CODES: Encoding = Encoding::Bitpack;
/// The entry ends' encoding unless a cascade says otherwise.
const ENDS: Encoding = Encoding::FOR64;

/// Where each of `entries` ends in their bytes back to back.
pub(crate) fn entry_ends<E: AsRef<[u8]>>(entries: &[E]) -> Vec<u64> {
    let mut end = 0u64;
    entries
        .iter()
        .map(|e| {
            end += e.as_ref().len() as u64;
            end
        })
        .collect()
}

/// How a dictionary stores its sorted entries.
pub(crate) trait EntryStore {
    /// The encoding's name, for messages.
    const NAME: &'static str;
    /// Entries are stored as they are, and read in place.
    const IN_PLACE: bool;
    /// Where entries are not stored as they are: what decoding one alone costs, in entries of a decode
    /// of all of them (see [`BytesDictView::reads_whole`]).
    const ALONE_COST: usize;
    /// What reading the stored entries needs, read before the child streams.
    type Header: Send + Sync;

    /// Writes what precedes the child streams; returns where each stored entry ends and the stored bytes.
    fn store(profile: &ByteProfile<'_>, entries: &[&[u8]], out: &mut Writer) -> (Vec<u64>, Vec<u8>);

    /// Reads what [`EntryStore::store`] wrote before the child streams, for entries of `len` bytes in
    /// all; returns it, boxed (the view keeps it so), and the stored bytes' length.
    fn read_header(r: &mut Reader<'_>, len: u64) -> Result<(Box<Self::Header>, u64)>;

    /// Appends the entry stored as `stored` to `out`. Takes any bytes.
    fn decode_entry(header: &Self::Header, stored: &[u8], out: &mut Vec<u8>);
}

/// `dict`'s entries: stored as they are, read in place.
pub(crate) struct PlainEntries;

impl EntryStore for PlainEntries {
    const NAME: &'static str = "dict";
    const IN_PLACE: bool = true;
    const ALONE_COST: usize = 0;
    type Header = ();

    fn store(_: &ByteProfile<'_>, entries: &[&[u8]], _: &mut Writer) -> (Vec<u64>, Vec<u8>) {
        (entry_ends(entries), entries.concat())
    }

    fn read_header(_: &mut Reader<'_>, len: u64) -> Result<(Box<()>, u64)> {
        Ok((Box::new(()), len))
    }

    fn decode_entry(_: &(), stored: &[u8], out: &mut Vec<u8>) {
        out.extend_from_slice(stored);
    }
}

impl<E: EntryStore> BytesEncoder for BytesDict<E> {
    const CHILDREN: &'static [&'static str] = &["entry ends", "codes"];

    /// A row's code, then its entry's start and end.
    fn child_reads(k: usize, _: usize, _: usize) -> ChildReads {
        match k {
            0 => ChildReads { gets: 2.0, ..ChildReads::NONE },
            _ => ChildReads::ONE_GET,
        }
    }

    fn estimate(profile: &ByteProfile<'_>, children: &impl Children) -> Option<usize> {
        let dict = profile.dictionary()?;
        let mut header = Writer::new();
        let (ends, stored) = E::store(profile, &dict.entries, &mut header);
        let ends = children.estimate(0, &ends, ENDS)?;
        Some(12 + header.len() + ends + children.estimate(1, &dict.codes, CODES)? + stored.len().next_multiple_of(8))
    }

    fn encode(profile: &ByteProfile<'_>, children: &impl Children, out: &mut Writer) -> Result<()> {
        let dict = profile.dictionary().ok_or_else(|| Error::NotApplicable {
            encoding: E::NAME,
            reason: "nearly every string is distinct".into(),
        })?;
        out.u32(dict.entries.len() as u32);
        out.u64(dict.entries.iter().map(|e| e.len() as u64).sum());
        let (ends, stored) = E::store(profile, &dict.entries, out);
        children.encode(0, &ends, ENDS, out)?;
        children.encode(1, &dict.codes, CODES, out)?;
        out.align();
        out.packed(|buf| buf.extend_from_slice(&stored));
        Ok(())
    }
}

pub(crate) struct BytesDictView<'a, E: EntryStore = PlainEntries> {
    entries: usize,
    /// Where each stored entry ends in `stored`, read through the stream until reads need many ends.
    ends: StreamView<'a, u64>,
    /// Every end at hand, once reads needed many: `entries + 1` bounds into `stored` from 0, each
    /// clamped to the stored bytes.
    bounds: OnceLock<Vec<u64>>,
    /// The stored entries back to back.
    stored: &'a [u8],
    /// Boxed: an FSST table is 2 KiB, and every view of byte strings is as large as the largest.
    header: Box<E::Header>,
    /// Where entries are not stored as they are: every entry decoded, once reads needed many, and their
    /// bounds.
    decoded: OnceLock<(Vec<u64>, Vec<u8>)>,
    /// Entries read one by one so far (see [`BytesDictView::reads_whole`]).
    read_alone: AtomicUsize,
    /// The entries' bytes in all, as the writer counted them (a capacity for `decoded`).
    len: u64,
    codes: StreamView<'a, u32>,
}

impl<'a, E: EntryStore> OpenBytes<'a> for BytesDictView<'a, E> {
    fn open(r: &mut Reader<'a>, n: usize, depth: usize) -> Result<Self> {
        let entries = r.u32("dict entry count")? as usize;
        let len = r.u64("dict data length")?;
        // Entries are distinct: all but one (the empty string) take a byte at least; and a writer keeps only
        // entries some row uses. Checked before decoding, as a damaged count could claim billions.
        if entries > n || entries as u64 > len.saturating_add(1) {
            return Err(Error::Corrupt(format!("{}: {entries} entries for {n} rows and {len} bytes", E::NAME)));
        }
        let (header, stored_len) = E::read_header(r, len)?;
        let ends = StreamView::<u64>::open_nested(r, entries, depth + 1)?;
        let codes = StreamView::open_nested(r, n, depth + 1)?;
        r.align("dict entries")?;
        let stored = r.take("dict entries", usize::try_from(stored_len).unwrap_or(usize::MAX))?;
        // The last end is checked here; the others are read where a read needs them, and clamped to ascend
        // within the stored bytes (see `stored_span`), so that opening costs the same for 10 entries as for
        // 60,000.
        let last = entries.checked_sub(1).map_or(0, |k| ends.get(k));
        if last != stored_len {
            return Err(Error::Corrupt(format!("{}: entry ends do not come to the data length", E::NAME)));
        }
        let read_alone = AtomicUsize::new(0);
        let (bounds, decoded) = (OnceLock::new(), OnceLock::new());
        Ok(BytesDictView { entries, ends, bounds, stored, header, decoded, read_alone, len, codes })
    }

    fn child_cascades(&self) -> Vec<Cascade> {
        vec![self.ends.cascade(), self.codes.cascade()]
    }
}

/// Entry `k`'s place among `bounds` (clamped to the last: a damaged code reads a real entry; no
/// entries, as in a segment of nulls only, read as empty). An end below the one before it (damaged ends)
/// reads as empty, here as in [`BytesDictView::stored_span`], so that every read of an entry agrees.
#[inline]
fn span(bounds: &[u64], k: u32) -> Range<usize> {
    let Some(last) = bounds.len().checked_sub(2) else { return 0..0 };
    let k = (k as usize).min(last);
    let end = bounds[k + 1];
    bounds[k].min(end) as usize..end as usize
}

impl<'a, E: EntryStore> BytesDictView<'a, E> {
    fn entries(&self) -> usize {
        self.entries
    }

    /// Stored entry `k`'s place in `stored`: from the ends at hand, or from its two ends read through
    /// their stream, clamped as [`span`] clamps them and to the stored bytes (damaged ends read other
    /// bytes, never past them).
    #[inline]
    fn stored_span(&self, k: u32) -> Range<usize> {
        if let Some(bounds) = self.bounds.get() {
            return span(bounds, k);
        }
        let Some(last) = self.entries.checked_sub(1) else { return 0..0 };
        let k = (k as usize).min(last);
        let stored_len = self.stored.len() as u64;
        let end = self.ends.get(k).min(stored_len);
        let start = if k == 0 { 0 } else { self.ends.get(k - 1).min(end) };
        start as usize..end as usize
    }

    /// Every end, decoded once and kept, each clamped to the stored bytes: read through [`span`], they
    /// give what [`BytesDictView::stored_span`] gives from the stream.
    fn stored_bounds(&self) -> &[u64] {
        self.bounds.get_or_init(|| {
            let mut bounds = vec![0u64; self.entries + 1];
            self.ends.decode_into(0, &mut bounds[1..]);
            let stored_len = self.stored.len() as u64;
            bounds.iter_mut().for_each(|end| *end = (*end).min(stored_len));
            bounds
        })
    }

    /// Every entry, as bounds and bytes: the stored ones where they are stored as they are, else all of
    /// them decoded (once, kept for the reads after).
    fn readable(&self) -> (&[u64], &[u8]) {
        if E::IN_PLACE {
            return (self.stored_bounds(), self.stored);
        }
        let (bounds, data) = self.decoded.get_or_init(|| {
            let ends = self.stored_bounds();
            // A damaged table may decode to another length than `len`: the bounds are where the entries
            // really end, so reads stay within what was decoded.
            let capacity = usize::try_from(self.len).unwrap_or(0).min(self.stored.len().saturating_mul(8));
            let (mut bounds, mut data) = (Vec::with_capacity(ends.len()), Vec::with_capacity(capacity));
            bounds.push(0);
            for k in 0..self.entries {
                E::decode_entry(&self.header, &self.stored[span(ends, k as u32)], &mut data);
                bounds.push(data.len() as u64);
            }
            (bounds, data)
        });
        (bounds, data)
    }

    /// Whether a read of `n` entries reads them from every entry at hand. Entries read alone are counted
    /// over the view's life. Once they have cost what decoding every end once costs (a read alone reads
    /// two ends through their stream, each [`StreamOps::get_cost`] values, twice the cost of a decoded
    /// end), the ends are decoded and kept. Where entries are not stored as they are, once they have cost
    /// what decoding every entry once costs ([`EntryStore::ALONE_COST`]), so are the entries. So many short
    /// reads cost at most about twice reading everything once.
    fn reads_whole(&self, n: usize) -> bool {
        let at_hand = if E::IN_PLACE { self.bounds.get().is_some() } else { self.decoded.get().is_some() };
        if at_hand {
            return true;
        }
        let reads = self.read_alone.fetch_add(n, Ordering::Relaxed).saturating_add(n);
        if self.bounds.get().is_none() && reads.saturating_mul(4 * self.ends.get_cost()) >= self.entries {
            self.stored_bounds();
        }
        if E::IN_PLACE {
            self.bounds.get().is_some()
        } else {
            reads.saturating_mul(E::ALONE_COST) >= self.entries
        }
    }

    /// Entry `k`, read alone where the entries are not at hand.
    #[inline]
    fn entry(&self, k: u32) -> Cow<'_, [u8]> {
        if self.reads_whole(1) {
            let (bounds, data) = self.readable();
            return Cow::Borrowed(&data[span(bounds, k)]);
        }
        let stored = &self.stored[self.stored_span(k)];
        if E::IN_PLACE {
            return Cow::Borrowed(stored);
        }
        let mut one = Vec::new();
        E::decode_entry(&self.header, stored, &mut one);
        Cow::Owned(one)
    }

    /// Entry `k`, borrowed from the stream where it holds the entries as they are.
    #[inline]
    fn entry_cow(&self, k: u32) -> Cow<'a, [u8]> {
        if E::IN_PLACE {
            if let Some(bounds) = self.bounds.get() {
                return Cow::Borrowed(&self.stored[span(bounds, k)]);
            }
            // Counted as a read alone, so that many gets decode the ends once (see `reads_whole`).
            self.reads_whole(1);
            return Cow::Borrowed(&self.stored[self.stored_span(k)]);
        }
        Cow::Owned(self.entry(k).into_owned())
    }

    /// Appends the entries of `codes` to `out`, in order.
    fn push_entries(&self, codes: &[u32], out: &mut ByteArray) {
        if self.reads_whole(codes.len()) {
            let (bounds, data) = self.readable();
            out.data.reserve(codes.iter().map(|&c| span(bounds, c).len()).sum());
            codes.iter().for_each(|&c| out.push(&data[span(bounds, c)]));
            return;
        }
        for &c in codes {
            E::decode_entry(&self.header, &self.stored[self.stored_span(c)], &mut out.data);
            out.offsets.push(out.data.len() as u64);
        }
    }

    /// The first entry for which `before` is false (entries are sorted, `before` true on a prefix).
    fn first_not(&self, before: impl Fn(&[u8]) -> bool) -> u32 {
        let (mut lo, mut hi) = (0usize, self.entries());
        while lo < hi {
            let mid = (lo + hi) / 2;
            if before(&self.entry(mid as u32)) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo as u32
    }

    /// The codes whose entries pass a range or prefix test: one run of codes, `None` if empty.
    fn code_range(&self, test: &BytesTest<'_>) -> Option<Range<u32>> {
        let range = match test {
            BytesTest::Range { lo, hi } => {
                let start = lo.map_or(0, |(b, inclusive)| self.first_not(|e| if inclusive { e < b } else { e <= b }));
                let end = hi.map_or(self.entries() as u32, |(b, inclusive)| {
                    self.first_not(|e| if inclusive { e <= b } else { e < b })
                });
                start..end
            }
            BytesTest::Prefix(p) => self.first_not(|e| e < *p)..self.first_not(|e| e < *p || e.starts_with(p)),
            BytesTest::Set(_) => return None, // sets are looked up entry by entry
        };
        (range.start < range.end).then_some(range)
    }
}

impl<'a, E: EntryStore> BytesOps<'a> for BytesDictView<'a, E> {
    fn len(&self) -> usize {
        self.codes.len()
    }

    #[inline]
    fn get(&self, i: usize) -> Cow<'a, [u8]> {
        self.entry_cow(self.codes.get(i))
    }

    fn push_row(&self, i: usize, out: &mut ByteArray) {
        self.push_entries(&[self.codes.get(i)], out);
    }

    fn decode_into(&self, range: Range<usize>, out: &mut ByteArray) {
        let mut codes = vec![0u32; range.len()];
        self.codes.decode_into(range.start, &mut codes);
        self.push_entries(&codes, out);
    }

    fn take_into(&self, positions: &[u32], out: &mut ByteArray) {
        let mut codes = vec![0u32; positions.len()];
        self.codes.take_into(positions, &mut codes);
        self.push_entries(&codes, out);
    }

    fn filter(&self, test: &BytesTest<'_>, out: &mut Bitmap) {
        match test {
            BytesTest::Set(set) => {
                let codes: Vec<u32> = set
                    .iter()
                    .filter_map(|v| {
                        let k = self.first_not(|e| e < v.as_slice());
                        ((k as usize) < self.entries() && *self.entry(k) == *v.as_slice()).then_some(k)
                    })
                    .collect();
                if !codes.is_empty() {
                    self.codes.filter_in(&codes, out);
                }
            }
            _ => {
                if let Some(codes) = self.code_range(test) {
                    self.codes.filter_range(codes.start, codes.end - 1, out);
                }
            }
        }
    }

    fn min_max(&self, selection: &Selection) -> Option<Extremes<'a>> {
        // Codes order as entries do: the smallest and largest selected code are the answer.
        let aggregate = self.codes.aggregate(selection);
        Some((self.entry_cow(aggregate.min?), self.entry_cow(aggregate.max?)))
    }
}
