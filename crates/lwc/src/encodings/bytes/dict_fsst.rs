//! `dict_fsst` byte strings: `dict` with its entries FSST-compressed (as DuckDB's `dict_fsst`), for
//! dictionaries large enough that their text outweighs a symbol table: many distinct names, URLs or
//! comments that repeat. Codes, filters and reads are `dict`'s (see `dict.rs`): a read of a few rows
//! decompresses their entries alone, one of many decompresses them all once, and the reads after it cost
//! what `dict`'s do.
//!
//! What the entry store writes before the child streams: the symbol table (as `fsst` stores it) and the
//! stored codes' length (u64); the entry ends are ends in the codes, and the codes are the stored entries.

use super::byte_strings::ByteProfile;
use super::bytes_dict::{BytesDict, EntryStore};
use super::bytes_fsst::{read_table, write_table};
use crate::bytes::{Reader, Writer};
use crate::error::Result;
use crate::kernels::fsst::Decoder;

/// The `dict_fsst` encoding.
pub(crate) type BytesDictFsst = BytesDict<FsstEntries>;

/// Entries compressed one by one with one symbol table trained on them.
pub(crate) struct FsstEntries;

impl EntryStore for FsstEntries {
    const NAME: &'static str = "dict_fsst";
    const IN_PLACE: bool = false;
    /// An entry decompresses alone about as fast as among all of them; two, for the two ends read with it.
    const ALONE_COST: usize = 2;
    type Header = Decoder;

    fn store(profile: &ByteProfile<'_>, entries: &[&[u8]], out: &mut Writer) -> (Vec<u64>, Vec<u8>) {
        let table = profile.entry_table();
        let (mut ends, mut codes) = (Vec::with_capacity(entries.len()), Vec::new());
        table.compress_all(entries.iter().copied(), &mut codes, |end| ends.push(end as u64));
        write_table(table, out);
        out.u64(codes.len() as u64);
        (ends, codes)
    }

    fn read_header(r: &mut Reader<'_>, _: u64) -> Result<(Box<Decoder>, u64)> {
        let decoder = read_table(r)?;
        Ok((decoder, r.u64("dict_fsst codes length")?))
    }

    fn decode_entry(decoder: &Decoder, stored: &[u8], out: &mut Vec<u8>) {
        decoder.decompress_into(stored, out);
    }
}

#[cfg(test)]
mod tests {
    use crate::strings::{encode_bytes_segment, BytesPredicate, BytesSegment, BytesType};
    use crate::{EncodeOptions, Encoding, Objective, Predicate};

    /// 3,000 distinct URLs repeated over 30,000 rows: the compressed dictionary is smaller than `dict`'s,
    /// `auto` picks it, and it answers as `dict` does.
    #[test]
    fn a_large_dictionary_of_text_is_compressed_and_chosen() {
        let paths = ["products", "orders", "customers", "search", "account/settings"];
        let urls: Vec<String> = (0..3_000)
            .map(|i| format!("https://shop.example.com/{}/{}?page={}", paths[i % 5], i * 7919 % 10_007, i % 13))
            .collect();
        let rows: Vec<&[u8]> = (0..30_000).map(|i| urls[i * 31 % 3_000].as_bytes()).collect();
        let size = |encoding: Encoding| encode_bytes_segment(&rows, None, BytesType::Utf8, encoding).unwrap().len();
        let (plain_dict, fsst_dict) = (size(Encoding::BytesDict), size(Encoding::BytesDictFsst));
        assert!(fsst_dict * 10 < plain_dict * 9, "dict_fsst {fsst_dict} bytes, dict {plain_dict}");
        for objective in [Objective::Balanced, Objective::Size] {
            let chosen = encode_bytes_segment(&rows, None, BytesType::Utf8, EncodeOptions::with_objective(objective))
                .unwrap();
            assert_eq!(chosen.cascade().encoding(), Encoding::BytesDictFsst, "{objective}");
        }
        let encoded = encode_bytes_segment(&rows, None, BytesType::Utf8, Encoding::BytesDictFsst).unwrap();
        let segment = BytesSegment::open(&encoded).unwrap();
        assert_eq!(segment.get(12_345).unwrap().as_deref(), Some(rows[12_345]));
        let wanted = rows[77];
        let equal = segment.filter(&Predicate::Eq(wanted.to_vec()).into());
        assert_eq!(equal.count(), rows.iter().filter(|&&r| r == wanted).count());
        let prefix = segment.filter(&BytesPredicate::StartsWith(b"https://shop.example.com/orders/".to_vec()));
        assert_eq!(prefix.count(), rows.iter().filter(|r| r.starts_with(b"https://shop.example.com/orders/")).count());
    }

    /// Reads of a few rows read their entries alone (decompressing them, under `dict_fsst`), reads of many
    /// all of them: every read agrees with the rows whichever way it goes, before every entry is at hand
    /// and after, under `dict` as under `dict_fsst`.
    #[test]
    fn reads_agree_before_and_after_every_entry_is_read() {
        for encoding in [Encoding::BytesDict, Encoding::BytesDictFsst] {
            reads_agree_with_the_rows(encoding);
        }
    }

    fn reads_agree_with_the_rows(encoding: Encoding) {
        let words: Vec<String> = (0..2_000).map(|i| format!("comment {} about parcel {}", i * 37 % 2_000, i)).collect();
        let rows: Vec<Option<&[u8]>> =
            (0..20_000).map(|i| (i % 11 != 3).then(|| words[i * 7_919 % 2_000].as_bytes())).collect();
        let present: Vec<&[u8]> = rows.iter().map(|r| r.unwrap_or_default()).collect();
        let validity = crate::Bitmap::from_bools(&rows.iter().map(Option::is_some).collect::<Vec<_>>());
        let encoded =
            encode_bytes_segment(&present, Some(&validity), BytesType::Utf8, encoding).unwrap();
        let segment = BytesSegment::open(&encoded).unwrap();
        let row = |i: usize| rows[i].map(<[u8]>::to_vec);
        let few: Vec<u32> = vec![19_999, 0, 3, 12_345, 12_345, 7];
        let many: Vec<u32> = (0..20_000u32).rev().step_by(3).collect();
        for round in ["before", "after"] {
            let taken = segment.take(&few).unwrap();
            assert_eq!(taken.to_options(), few.iter().map(|&p| row(p as usize)).collect::<Vec<_>>());
            for p in [0usize, 3, 19_999, 4_321] {
                assert_eq!(segment.get(p).unwrap().map(|v| v.to_vec()), row(p), "get({p}) {round}");
            }
            let short = segment.decode(100..110).unwrap();
            assert_eq!(short.to_options(), (100..110).map(row).collect::<Vec<_>>(), "{round}");
            let wanted = words[1_234].as_bytes();
            let equal = segment.filter(&Predicate::Eq(wanted.to_vec()).into());
            assert_eq!(equal.count(), rows.iter().filter(|r| **r == Some(wanted)).count(), "{round}");
            let between = segment.filter(&Predicate::Between(b"comment 1".to_vec(), b"comment 2".to_vec()).into());
            let want = rows.iter().flatten().filter(|r| **r >= &b"comment 1"[..] && **r <= &b"comment 2"[..]);
            assert_eq!(between.count(), want.count(), "{round}");
            // Many rows: the entries are decompressed whole, and stay so for the next round.
            let taken = segment.take(&many).unwrap();
            assert_eq!(taken.to_options(), many.iter().map(|&p| row(p as usize)).collect::<Vec<_>>());
        }
        // Gets one by one, on a segment opened afresh: past half the dictionary's entries decoded alone, it
        // decompresses them all, and the gets after read them from there.
        let segment = BytesSegment::open(&encoded).unwrap();
        for p in (0..20_000).step_by(7) {
            assert_eq!(segment.get(p).unwrap().map(|v| v.to_vec()), row(p), "get({p})");
        }
    }
}
