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
//! Opening decodes the entry ends once (the dictionary is at most as large as the rows, and every read
//! looks entries up) and checks that they ascend within the data; codes past the last entry read the last
//! entry.

use std::borrow::Cow;
use std::marker::PhantomData;
use std::ops::Range;

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
    /// What reading the stored entries needs, read before the child streams.
    type Header;

    /// Writes what precedes the child streams; returns where each stored entry ends and the stored bytes.
    fn store(profile: &ByteProfile<'_>, entries: &[&[u8]], out: &mut Writer) -> (Vec<u64>, Vec<u8>);

    /// Reads what [`EntryStore::store`] wrote before the child streams, for entries of `len` bytes in
    /// all; returns it and the stored bytes' length.
    fn read_header(r: &mut Reader<'_>, len: u64) -> Result<(Self::Header, u64)>;

    /// The entries' bytes back to back and their `entries + 1` bounds, from the stored bytes and theirs
    /// (ascending within `stored`); an error unless they come to `len` bytes.
    fn load<'a>(header: &Self::Header, stored: &'a [u8], bounds: Vec<u64>, len: u64) -> Result<Loaded<'a>>;
}

/// A dictionary's entries as reads use them: bounds, then bytes.
pub(crate) type Loaded<'a> = (Vec<u64>, Cow<'a, [u8]>);

/// `dict`'s entries: stored as they are, read in place.
pub(crate) struct PlainEntries;

impl EntryStore for PlainEntries {
    const NAME: &'static str = "dict";
    type Header = ();

    fn store(_: &ByteProfile<'_>, entries: &[&[u8]], _: &mut Writer) -> (Vec<u64>, Vec<u8>) {
        (entry_ends(entries), entries.concat())
    }

    fn read_header(_: &mut Reader<'_>, len: u64) -> Result<((), u64)> {
        Ok(((), len))
    }

    fn load<'a>(_: &(), stored: &'a [u8], bounds: Vec<u64>, _: u64) -> Result<Loaded<'a>> {
        Ok((bounds, Cow::Borrowed(stored)))
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

pub(crate) struct BytesDictView<'a, E = PlainEntries> {
    /// `entries + 1` offsets into `data`, ascending from 0.
    bounds: Vec<u64>,
    /// The entries back to back: borrowed from the stream where it stores them as they are.
    data: Cow<'a, [u8]>,
    ends_cascade: Cascade,
    codes: StreamView<'a, u32>,
    store: PhantomData<E>,
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
        let mut bounds = vec![0u64; entries + 1];
        ends.decode_into(0, &mut bounds[1..]);
        if bounds.windows(2).any(|w| w[0] > w[1]) || bounds[entries] != stored_len {
            return Err(Error::Corrupt(format!("{}: entry ends do not ascend to the data length", E::NAME)));
        }
        let (bounds, data) = E::load(&header, stored, bounds, len)?;
        Ok(BytesDictView { bounds, data, ends_cascade: ends.cascade(), codes, store: PhantomData })
    }

    fn child_cascades(&self) -> Vec<Cascade> {
        vec![self.ends_cascade.clone(), self.codes.cascade()]
    }
}

impl<'a, E> BytesDictView<'a, E> {
    fn entries(&self) -> usize {
        self.bounds.len() - 1
    }

    /// Entry `k` (clamped to the last: a damaged code reads a real entry; no entries, as in a segment of
    /// nulls only, read as empty).
    #[inline]
    fn entry(&self, k: u32) -> &[u8] {
        &self.data[self.span(k)]
    }

    #[inline]
    fn span(&self, k: u32) -> Range<usize> {
        let Some(last) = self.entries().checked_sub(1) else { return 0..0 };
        let k = (k as usize).min(last);
        self.bounds[k] as usize..self.bounds[k + 1] as usize
    }

    /// Entry `k`, borrowed from the stream where it holds the entries as they are.
    #[inline]
    fn entry_cow(&self, k: u32) -> Cow<'a, [u8]> {
        match &self.data {
            Cow::Borrowed(data) => Cow::Borrowed(&data[self.span(k)]),
            Cow::Owned(data) => Cow::Owned(data[self.span(k)].to_vec()),
        }
    }

    /// The first entry for which `before` is false (entries are sorted, `before` true on a prefix).
    fn first_not(&self, before: impl Fn(&[u8]) -> bool) -> u32 {
        let (mut lo, mut hi) = (0usize, self.entries());
        while lo < hi {
            let mid = (lo + hi) / 2;
            if before(self.entry(mid as u32)) {
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

impl<'a, E> BytesOps<'a> for BytesDictView<'a, E> {
    fn len(&self) -> usize {
        self.codes.len()
    }

    #[inline]
    fn get(&self, i: usize) -> Cow<'a, [u8]> {
        self.entry_cow(self.codes.get(i))
    }

    fn push_row(&self, i: usize, out: &mut ByteArray) {
        out.push(self.entry(self.codes.get(i)));
    }

    fn decode_into(&self, range: Range<usize>, out: &mut ByteArray) {
        let mut codes = vec![0u32; range.len()];
        self.codes.decode_into(range.start, &mut codes);
        let bytes: usize = codes.iter().map(|&c| self.entry(c).len()).sum();
        out.data.reserve(bytes);
        codes.iter().for_each(|&c| out.push(self.entry(c)));
    }

    fn take_into(&self, positions: &[u32], out: &mut ByteArray) {
        let mut codes = vec![0u32; positions.len()];
        self.codes.take_into(positions, &mut codes);
        codes.iter().for_each(|&c| out.push(self.entry(c)));
    }

    fn filter(&self, test: &BytesTest<'_>, out: &mut Bitmap) {
        match test {
            BytesTest::Set(set) => {
                let codes: Vec<u32> = set
                    .iter()
                    .filter_map(|v| {
                        let k = self.first_not(|e| e < v.as_slice());
                        ((k as usize) < self.entries() && self.entry(k) == v.as_slice()).then_some(k)
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
