//! The string segments of version 1 files, read only: a dictionary (codes as an lwc `u32` segment, the
//! entries' ends as an lwc `u64` segment, the entries' bytes) or plain bytes (ends as an lwc `u64` segment,
//! the bytes), in the multi-part layout of `format.rs`. Version 2 stores strings as lwc byte-string
//! segments.

use std::ops::Range;

use arrow_array::ArrayRef;
use arrow_schema::DataType;
use lwc::{Bitmap, Segment};

use crate::chunk::{bytes_array, nulls_of, ChunkRef};
use crate::error::Result;
use crate::format::{read_parts, KIND_DICT, KIND_PLAIN};

/// Checks that `ends` never decrease and stay within `limit`.
fn check_ends(chunk: &ChunkRef<'_>, ends: &[u64], limit: usize) -> Result<()> {
    let mut prev = 0;
    for &e in ends {
        if e < prev || e > limit as u64 {
            return Err(chunk.corrupt(format!("offset {e} after {prev} (value bytes: {limit})")));
        }
        prev = e;
    }
    Ok(())
}

pub(crate) fn decode_bytes(chunk: &ChunkRef<'_>, data_type: &DataType, range: Range<usize>) -> Result<ArrayRef> {
    let (kind, parts) = read_parts(chunk.bytes, &|| chunk.what())?;
    let mut offsets = Vec::with_capacity(range.len() + 1);
    offsets.push(0u64);
    let mut out = Vec::new();
    match (kind, &parts[..]) {
        (KIND_DICT, &[codes, ends, dict]) => {
            let codes = chunk.open_values::<u32>(codes, chunk.rows, Some(chunk.nulls))?;
            let ends_seg = Segment::<u64>::open(ends).map_err(|e| chunk.core_error(e))?;
            // Entries are distinct, so all but one (the empty string) take a byte at least; and a writer
            // keeps only the entries its rows use. Checked before decoding, as a damaged count can claim
            // billions of entries that a few bytes of a constant stream would hold.
            let entries = ends_seg.rows();
            if entries > dict.len() + 1 || entries > chunk.rows {
                return Err(chunk.corrupt(format!(
                    "{entries} dictionary entries for {} rows and {} bytes of values",
                    chunk.rows,
                    dict.len()
                )));
            }
            let ends = ends_seg.decode_all().values;
            check_ends(chunk, &ends, dict.len())?;
            let picked = codes.decode(range).map_err(|e| chunk.core_error(e))?;
            let valid = |i: usize| picked.validity.as_ref().is_none_or(|v| v.get(i));
            // Entry `code` spans `dict[entry(code)]`; null rows take no bytes.
            let entry = |code: u32| -> Result<Range<usize>> {
                let code = code as usize;
                match ends.get(code) {
                    Some(&end) => Ok(if code == 0 { 0 } else { ends[code - 1] as usize }..end as usize),
                    None => Err(chunk.corrupt(format!("code {code} past the {}-entry dictionary", ends.len()))),
                }
            };
            // Sized first, so the bytes are copied once into a buffer that never grows.
            let mut total = 0;
            for (i, &code) in picked.values.iter().enumerate() {
                if valid(i) {
                    total += entry(code)?.len();
                }
            }
            out.reserve_exact(total);
            for (i, &code) in picked.values.iter().enumerate() {
                if valid(i) {
                    out.extend_from_slice(&dict[entry(code)?]);
                }
                offsets.push(out.len() as u64);
            }
            bytes_array(data_type, offsets, out, nulls_of(picked.validity))
        }
        (KIND_PLAIN, &[ends, values]) => {
            let ends = chunk.open_values::<u64>(ends, chunk.rows, Some(chunk.nulls))?;
            let all = ends.decode_all();
            let valid = |i: usize| all.validity.as_ref().is_none_or(|v| v.get(i));
            let mut prev = 0u64;
            let mut first = 0u64;
            for i in 0..range.end {
                if i == range.start {
                    first = prev;
                }
                if valid(i) {
                    let e = all.values[i];
                    if e < prev || e > values.len() as u64 {
                        return Err(chunk.corrupt(format!("offset {e} after {prev} (value bytes: {})", values.len())));
                    }
                    prev = e;
                }
                if i >= range.start {
                    offsets.push(prev - first);
                }
            }
            if range.is_empty() {
                first = prev;
            }
            let out = values[first as usize..prev as usize].to_vec();
            let validity =
                all.validity.map(|v| Bitmap::from_bools(&range.clone().map(|i| v.get(i)).collect::<Vec<_>>()));
            bytes_array(data_type, offsets, out, nulls_of(validity))
        }
        _ => Err(chunk.corrupt(format!("segment kind {kind} with {} parts is not a string segment", parts.len()))),
    }
}
