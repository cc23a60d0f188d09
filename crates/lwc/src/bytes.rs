//! Writing and reading the little-endian, 8-byte aligned sections every encoded stream is made of.
//!
//! Arrays inside encoded bytes start at multiples of 8 from the start of the buffer, so a reader whose
//! buffer starts 8-aligned (a `Vec<u64>`-backed [`AlignedBytes`], or a page of a memory-mapped file) views
//! them in place, with no copy.

use bytemuck::Pod;

use crate::error::{Error, Result};

#[cfg(target_endian = "big")]
compile_error!("lwc reads its little-endian format in place and supports little-endian targets only");

/// Bytes stored at an 8-byte aligned address, so encoded data can be viewed in place.
#[derive(Clone, Default)]
pub struct AlignedBytes {
    storage: Storage,
    len: usize,
}

#[derive(Clone)]
enum Storage {
    /// A copy into words, aligned by their type.
    Words(Vec<u64>),
    /// A byte buffer the allocator happened to place 8-aligned, kept without a copy. It is never
    /// changed again, so its address stays aligned.
    Bytes(Vec<u8>),
}

impl Default for Storage {
    fn default() -> Self {
        Storage::Words(Vec::new())
    }
}

impl AlignedBytes {
    /// Copies `bytes` into aligned storage.
    pub fn copy_from(bytes: &[u8]) -> Self {
        let mut words = vec![0u64; bytes.len().div_ceil(8)];
        bytemuck::cast_slice_mut::<u64, u8>(&mut words)[..bytes.len()].copy_from_slice(bytes);
        AlignedBytes { storage: Storage::Words(words), len: bytes.len() }
    }

    /// Takes `bytes` as they are when the allocator placed them 8-aligned (as common allocators do),
    /// and copies them otherwise.
    fn from_vec(mut bytes: Vec<u8>) -> Self {
        if bytes.capacity() > bytes.len() + bytes.len() / 8 {
            // Growth by doubling may have left up to half the buffer unused.
            bytes.shrink_to_fit();
        }
        match bytes.as_ptr().align_offset(8) {
            0 => AlignedBytes { len: bytes.len(), storage: Storage::Bytes(bytes) },
            _ => AlignedBytes::copy_from(&bytes),
        }
    }

    /// The bytes.
    pub fn as_bytes(&self) -> &[u8] {
        match &self.storage {
            Storage::Words(words) => &bytemuck::cast_slice::<u64, u8>(words)[..self.len],
            Storage::Bytes(bytes) => bytes,
        }
    }

    /// Number of bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no bytes.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// Equal when the bytes are, however they are stored.
impl PartialEq for AlignedBytes {
    fn eq(&self, other: &Self) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl Eq for AlignedBytes {}

impl std::ops::Deref for AlignedBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl std::fmt::Debug for AlignedBytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "AlignedBytes({} bytes)", self.len)
    }
}

/// Appends sections to a byte buffer that starts 8-aligned.
#[derive(Default)]
pub(crate) struct Writer {
    buf: Vec<u8>,
}

impl Writer {
    pub fn new() -> Self {
        Writer::default()
    }

    /// A writer with room for `bytes` before it grows: a buffer that doubles as it fills copies itself
    /// each time, and each fresh large allocation faults its pages in again.
    pub fn with_capacity(bytes: usize) -> Self {
        Writer { buf: Vec::with_capacity(bytes) }
    }

    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// Makes room for `bytes` more without growing again.
    pub fn reserve(&mut self, bytes: usize) {
        self.buf.reserve(bytes);
    }

    /// What was written so far.
    pub fn as_bytes(&self) -> &[u8] {
        &self.buf
    }

    /// Writes `bytes` over those at `at` (written before: a header filled in once its contents are known).
    pub fn write_at(&mut self, at: usize, bytes: &[u8]) {
        self.buf[at..at + bytes.len()].copy_from_slice(bytes);
    }

    /// Drops what was written after the first `len` bytes (an encoder that gave up).
    pub fn truncate(&mut self, len: usize) {
        self.buf.truncate(len);
    }

    pub fn u8(&mut self, v: u8) {
        self.buf.push(v);
    }

    pub fn zeros(&mut self, n: usize) {
        self.buf.extend(std::iter::repeat_n(0u8, n));
    }

    pub fn u32(&mut self, v: u32) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }

    pub fn u64(&mut self, v: u64) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }

    /// Pads with zeros to the next multiple of 8.
    pub fn align(&mut self) {
        let pad = self.buf.len().next_multiple_of(8) - self.buf.len();
        self.buf.extend(std::iter::repeat_n(0u8, pad));
    }

    /// Writes an array at the next 8-aligned offset.
    pub fn array<P: Pod>(&mut self, values: &[P]) {
        self.align();
        self.buf.extend_from_slice(bytemuck::cast_slice(values));
    }

    /// Lets `fill` append raw bytes (packed streams need no alignment).
    pub fn packed(&mut self, fill: impl FnOnce(&mut Vec<u8>)) {
        fill(&mut self.buf)
    }

    pub fn into_aligned(self) -> AlignedBytes {
        AlignedBytes::from_vec(self.buf)
    }
}

/// Reads sections from a buffer, checking every length before it trusts it.
#[derive(Clone)]
pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Reader { bytes, pos: 0 }
    }

    pub fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    pub fn take(&mut self, what: &'static str, n: usize) -> Result<&'a [u8]> {
        if n > self.remaining() {
            return Err(Error::Truncated { what, offset: self.pos, needed: n, available: self.remaining() });
        }
        let s = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    pub fn u8(&mut self, what: &'static str) -> Result<u8> {
        Ok(self.take(what, 1)?[0])
    }

    pub fn u32(&mut self, what: &'static str) -> Result<u32> {
        Ok(u32::from_le_bytes(self.take(what, 4)?.try_into().expect("4 bytes")))
    }

    pub fn u64(&mut self, what: &'static str) -> Result<u64> {
        Ok(u64::from_le_bytes(self.take(what, 8)?.try_into().expect("8 bytes")))
    }

    /// Skips the padding to the next multiple of 8.
    pub fn align(&mut self, what: &'static str) -> Result<()> {
        let pad = self.pos.next_multiple_of(8) - self.pos;
        self.take(what, pad).map(|_| ())
    }

    /// Views `len` values of `P` at the next 8-aligned offset, in place.
    pub fn array<P: Pod>(&mut self, what: &'static str, len: usize) -> Result<&'a [P]> {
        self.align(what)?;
        let offset = self.pos;
        let n =
            len.checked_mul(size_of::<P>()).ok_or_else(|| Error::Corrupt(format!("{what}: length {len} overflows")))?;
        let bytes = self.take(what, n)?;
        bytemuck::try_cast_slice(bytes).map_err(|_| Error::Misaligned { what, offset, align: align_of::<P>() })
    }

    /// Fails unless every byte was consumed (trailing bytes mean the header lied about a length).
    pub fn finish(&self, what: &'static str) -> Result<()> {
        if self.remaining() != 0 {
            return Err(Error::Corrupt(format!("{what}: {} unexpected trailing bytes", self.remaining())));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrays_round_trip_at_aligned_offsets() {
        let mut w = Writer::new();
        w.u8(3);
        w.array(&[1u32, 2, 3]);
        w.u64(9);
        let bytes = w.into_aligned();
        let mut r = Reader::new(&bytes);
        assert_eq!(r.u8("a").unwrap(), 3);
        assert_eq!(r.array::<u32>("b", 3).unwrap(), &[1, 2, 3]);
        assert_eq!(r.u64("c").unwrap(), 9);
        r.finish("end").unwrap();
    }

    #[test]
    fn kept_or_copied_bytes_are_aligned_and_compare_by_content() {
        for n in [0usize, 1, 7, 8, 100, 4_097] {
            let bytes: Vec<u8> = (0..n).map(|i| i as u8).collect();
            let kept = AlignedBytes::from_vec(bytes.clone());
            let copied = AlignedBytes::copy_from(&bytes);
            assert_eq!(kept.as_bytes(), &bytes[..]);
            assert_eq!(kept, copied);
            assert_eq!(kept.as_ptr().align_offset(8), 0);
            assert_eq!(copied.as_ptr().align_offset(8), 0);
        }
        assert_ne!(AlignedBytes::copy_from(&[1]), AlignedBytes::from_vec(vec![2]));
    }

    #[test]
    fn truncation_and_misalignment_are_errors() {
        let bytes = AlignedBytes::copy_from(&[0u8; 12]);
        let mut r = Reader::new(&bytes);
        assert!(matches!(r.array::<u64>("x", 2), Err(Error::Truncated { .. })));
        let mut r = Reader::new(&bytes[1..]);
        assert!(matches!(r.array::<u32>("x", 2), Err(Error::Misaligned { .. })));
        let mut r = Reader::new(&bytes);
        assert!(matches!(r.array::<u64>("x", usize::MAX), Err(Error::Corrupt(_))));
    }
}
