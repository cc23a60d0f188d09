//! The peer libraries, behind one interface so every experiment measures them the same way as lwc.
//!
//! A peer without random access answers `take` by decoding everything into `scratch` and gathering from
//! it, which is how seed 000 measured such codecs; [`Peer::random_access`] says which peers do that.

/// A codec from another library, measured on the same data as lwc.
pub trait Peer: Send + Sync {
    /// The name printed in tables and JSON (for example `"bitpacking BP128"`).
    fn name(&self) -> &'static str;
    /// Whether `take` reads single values in place (`false`: decode all, then gather).
    fn random_access(&self) -> bool;
    /// Encodes `values`; `None` when the codec cannot hold them (the table shows it as missing).
    fn encode(&self, values: &[u32]) -> Option<Box<dyn PeerEncoded>>;
}

/// Values encoded by a [`Peer`].
pub trait PeerEncoded: Send + Sync {
    /// Encoded size in bytes, everything needed to decode included.
    fn bytes(&self) -> usize;
    /// Decodes every value into `out` (`out.len()` is the number of values encoded).
    fn decode_into(&self, out: &mut [u32]);
    /// `out[k] = values[positions[k]]`; `scratch` is reusable space for peers that decode first.
    fn take_into(&self, positions: &[u32], out: &mut [u32], scratch: &mut Vec<u32>);
}

/// Every peer this build has, in table order.
pub fn all() -> Vec<Box<dyn Peer>> {
    Vec::new()
}
