//! The footer's primitive codec: little-endian integers, length-prefixed strings and blobs, read with every
//! length checked (running past the end is [`Error::Corrupt`]).

use crate::error::{Error, Result};

/// Appends little-endian values to the footer.
#[derive(Default)]
pub(crate) struct ByteWriter {
    pub(crate) bytes: Vec<u8>,
}

impl ByteWriter {
    pub(crate) fn u8(&mut self, v: u8) {
        self.bytes.push(v);
    }
    pub(crate) fn u32(&mut self, v: u32) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }
    pub(crate) fn u64(&mut self, v: u64) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }
    /// A length-prefixed (u32) UTF-8 string.
    pub(crate) fn str(&mut self, s: &str) {
        self.u32(s.len() as u32);
        self.bytes.extend_from_slice(s.as_bytes());
    }
    /// A length-prefixed (u64) byte string.
    pub(crate) fn blob(&mut self, b: &[u8]) {
        self.u64(b.len() as u64);
        self.bytes.extend_from_slice(b);
    }
}

/// Reads little-endian values from the footer; running past the end is [`Error::Corrupt`].
pub(crate) struct ByteReader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> ByteReader<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        ByteReader { bytes, pos: 0 }
    }
    pub(crate) fn take(&mut self, what: &str, n: u64) -> Result<&'a [u8]> {
        let left = (self.bytes.len() - self.pos) as u64;
        if n > left {
            return Err(Error::Corrupt(format!(
                "footer truncated: {what} needs {n} bytes at footer offset {}, {left} remain",
                self.pos
            )));
        }
        let s = &self.bytes[self.pos..self.pos + n as usize];
        self.pos += n as usize;
        Ok(s)
    }
    pub(crate) fn u8(&mut self, what: &str) -> Result<u8> {
        Ok(self.take(what, 1)?[0])
    }
    pub(crate) fn u32(&mut self, what: &str) -> Result<u32> {
        Ok(u32::from_le_bytes(self.take(what, 4)?.try_into().expect("4 bytes")))
    }
    pub(crate) fn u64(&mut self, what: &str) -> Result<u64> {
        Ok(u64::from_le_bytes(self.take(what, 8)?.try_into().expect("8 bytes")))
    }
    pub(crate) fn str(&mut self, what: &str) -> Result<&'a str> {
        let n = self.u32(what)?;
        std::str::from_utf8(self.take(what, n as u64)?)
            .map_err(|_| Error::Corrupt(format!("footer: {what} is not valid UTF-8")))
    }
    pub(crate) fn blob(&mut self, what: &str) -> Result<&'a [u8]> {
        let n = self.u64(what)?;
        self.take(what, n)
    }
    pub(crate) fn finish(&self) -> Result<()> {
        if self.pos != self.bytes.len() {
            return Err(Error::Corrupt(format!("{} unexpected bytes after the footer", self.bytes.len() - self.pos)));
        }
        Ok(())
    }
}
