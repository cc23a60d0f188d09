//! `dict` byte strings: the distinct values, sorted, stored once (their bytes back to back and their end
//! offsets as a child stream), and one code per row as a child stream of `u32`. Sorted, so the order of
//! codes is the order of values: `=`, `<>`, `<`, `<=`, `>`, `>=`, `between` and `in` become code ranges and
//! code sets, and a prefix (`LIKE 'abc%'`) is the run of entries that start with it; filters then run on
//! the codes' own encoded form (bit-packed codes are compared a block at a time). Null rows hold the code of
//! the row before, so runs of codes stay unbroken.
//!
//! Body: entry count (u32), data length (u64), the entry ends stream (`u64`), the codes stream (`u32`), the
//! entries' bytes (8-aligned).
//!
//! Opening decodes the entry ends once (the dictionary is at most as large as the rows, and every read
//! looks entries up) and checks that they ascend within the data; codes past the last entry read the last
//! entry.

use std::borrow::Cow;
use std::ops::Range;

use super::byte_strings::{Extremes, ByteArray, ByteProfile, BytesEncoder, BytesOps, BytesTest, OpenBytes};
use super::{Cascade, Children, Encoding, StreamOps, StreamView};
use crate::bitmap::Bitmap;
use crate::bytes::{Reader, Writer};
use crate::error::{Error, Result};
use crate::selection::Selection;

pub(crate) struct BytesDict;

/// The codes' encoding unless a cascade says otherwise: bit packing keeps every code one load away.
const CODES: Encoding = Encoding::Bitpack;
/// The entry ends' encoding unless a cascade says otherwise.
const ENDS: Encoding = Encoding::FOR64;

fn entry_ends(entries: &[&[u8]]) -> Vec<u64> {
    let mut end = 0u64;
    entries
        .iter()
        .map(|e| {
            end += e.len() as u64;
            end
        })
        .collect()
}

impl BytesEncoder for BytesDict {
    const CHILDREN: &'static [&'static str] = &["entry ends", "codes"];

    fn estimate(profile: &ByteProfile<'_>, children: &impl Children) -> Option<usize> {
        let dict = profile.dictionary()?;
        let data: usize = dict.entries.iter().map(|e| e.len()).sum();
        let ends = children.estimate(0, &entry_ends(&dict.entries), ENDS)?;
        Some(12 + ends + children.estimate(1, &dict.codes, CODES)? + data.next_multiple_of(8))
    }

    fn encode(profile: &ByteProfile<'_>, children: &impl Children, out: &mut Writer) -> Result<()> {
        let dict = profile.dictionary().ok_or_else(|| Error::NotApplicable {
            encoding: "dict",
            reason: "nearly every string is distinct".into(),
        })?;
        let data: usize = dict.entries.iter().map(|e| e.len()).sum();
        out.u32(dict.entries.len() as u32);
        out.u64(data as u64);
        children.encode(0, &entry_ends(&dict.entries), ENDS, out)?;
        children.encode(1, &dict.codes, CODES, out)?;
        out.align();
        out.packed(|buf| dict.entries.iter().for_each(|e| buf.extend_from_slice(e)));
        Ok(())
    }
}

pub(crate) struct BytesDictView<'a> {
    /// `entries + 1` offsets into `data`, ascending from 0.
    bounds: Vec<u64>,
    data: &'a [u8],
    ends_cascade: Cascade,
    codes: StreamView<'a, u32>,
}

impl<'a> OpenBytes<'a> for BytesDictView<'a> {
    fn open(r: &mut Reader<'a>, n: usize, depth: usize) -> Result<Self> {
        let entries = r.u32("dict entry count")? as usize;
        let len = r.u64("dict data length")?;
        // Entries are distinct: all but one (the empty string) take a byte at least; and a writer keeps only
        // entries some row uses. Checked before decoding, as a damaged count could claim billions.
        if entries > n || entries as u64 > len.saturating_add(1) {
            return Err(Error::Corrupt(format!("dict: {entries} entries for {n} rows and {len} bytes")));
        }
        let ends = StreamView::<u64>::open_nested(r, entries, depth + 1)?;
        let codes = StreamView::open_nested(r, n, depth + 1)?;
        r.align("dict entries")?;
        let data = r.take("dict entries", usize::try_from(len).unwrap_or(usize::MAX))?;
        let mut bounds = vec![0u64; entries + 1];
        ends.decode_into(0, &mut bounds[1..]);
        if bounds.windows(2).any(|w| w[0] > w[1]) || bounds[entries] != len {
            return Err(Error::Corrupt("dict: entry ends do not ascend to the data length".into()));
        }
        Ok(BytesDictView { bounds, data, ends_cascade: ends.cascade(), codes })
    }

    fn child_cascades(&self) -> Vec<Cascade> {
        vec![self.ends_cascade.clone(), self.codes.cascade()]
    }
}

impl<'a> BytesDictView<'a> {
    fn entries(&self) -> usize {
        self.bounds.len() - 1
    }

    /// Entry `k` (clamped to the last: a damaged code reads a real entry; no entries, as in a segment of
    /// nulls only, read as empty).
    #[inline]
    fn entry(&self, k: u32) -> &'a [u8] {
        let Some(last) = self.entries().checked_sub(1) else { return &[] };
        let k = (k as usize).min(last);
        &self.data[self.bounds[k] as usize..self.bounds[k + 1] as usize]
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

impl<'a> BytesOps<'a> for BytesDictView<'a> {
    fn len(&self) -> usize {
        self.codes.len()
    }

    #[inline]
    fn get(&self, i: usize) -> Cow<'a, [u8]> {
        Cow::Borrowed(self.entry(self.codes.get(i)))
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
        Some((Cow::Borrowed(self.entry(aggregate.min?)), Cow::Borrowed(self.entry(aggregate.max?))))
    }
}
