//! `dict_fsst` byte strings: `dict` with its entries FSST-compressed (as DuckDB's `dict_fsst`), for
//! dictionaries large enough that their text outweighs a symbol table: many distinct names, URLs or
//! comments that repeat. Codes, filters and reads are `dict`'s (see `dict.rs`); opening decompresses the
//! entries once, so every read after it costs what `dict`'s does.
//!
//! What the entry store writes before the child streams: the symbol table (as `fsst` stores it) and the
//! stored codes' length (u64); the entry ends are ends in the codes, and the codes are the stored entries.

use std::borrow::Cow;

use super::byte_strings::ByteProfile;
use super::bytes_dict::{BytesDict, EntryStore, Loaded};
use super::bytes_fsst::{read_table, write_table};
use crate::bytes::{Reader, Writer};
use crate::error::{Error, Result};
use crate::kernels::fsst::Decoder;

/// The `dict_fsst` encoding.
pub(crate) type BytesDictFsst = BytesDict<FsstEntries>;

/// Entries compressed one by one with one symbol table trained on them.
pub(crate) struct FsstEntries;

impl EntryStore for FsstEntries {
    const NAME: &'static str = "dict_fsst";
    type Header = Decoder;

    fn store(profile: &ByteProfile<'_>, entries: &[&[u8]], out: &mut Writer) -> (Vec<u64>, Vec<u8>) {
        let table = profile.entry_table();
        let (mut ends, mut codes) = (Vec::with_capacity(entries.len()), Vec::new());
        table.compress_all(entries.iter().copied(), &mut codes, |end| ends.push(end as u64));
        write_table(table, out);
        out.u64(codes.len() as u64);
        (ends, codes)
    }

    fn read_header(r: &mut Reader<'_>, _: u64) -> Result<(Decoder, u64)> {
        let decoder = read_table(r)?;
        Ok((decoder, r.u64("dict_fsst codes length")?))
    }

    fn load<'a>(decoder: &Decoder, stored: &'a [u8], code_bounds: Vec<u64>, len: u64) -> Result<Loaded<'a>> {
        let mut data = Vec::with_capacity(usize::try_from(len).unwrap_or(0).min(Decoder::decoded_len_bound(stored)));
        let mut bounds = Vec::with_capacity(code_bounds.len());
        bounds.push(0);
        for w in code_bounds.windows(2) {
            decoder.decompress_into(&stored[w[0] as usize..w[1] as usize], &mut data);
            bounds.push(data.len() as u64);
        }
        if data.len() as u64 != len {
            return Err(Error::Corrupt(format!("dict_fsst: entries decompress to {} bytes, not {len}", data.len())));
        }
        Ok((bounds, Cow::Owned(data)))
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
}
