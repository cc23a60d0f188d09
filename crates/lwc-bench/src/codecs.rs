//! lwc's encodings behind the same interface as the peers, so an experiment loops over both alike.

use lwc::{Column, EncodeOptions, EncodedColumn, Encoding};

use crate::peers::{Peer, PeerEncoded};

/// One lwc encoding (or the automatic choice), forced on every segment.
pub struct Lwc {
    pub name: &'static str,
    pub encoding: Encoding,
}

/// lwc's candidates in table order: each encoding forced, then the automatic choice.
pub fn all() -> Vec<Lwc> {
    let forced = [
        ("lwc plain", Encoding::Plain),
        ("lwc constant", Encoding::Constant),
        ("lwc bitpack", Encoding::Bitpack),
        ("lwc bytepack", Encoding::Bytepack),
        ("lwc for", Encoding::For),
        ("lwc for_n(64)", Encoding::ForN { block: 64 }),
        ("lwc dict", Encoding::Dict),
        ("lwc pfor", Encoding::Pfor),
        ("lwc varint", Encoding::Varint),
        ("lwc gcd", Encoding::Gcd),
        ("lwc delta", Encoding::DELTA),
        ("lwc lz4", Encoding::Lz4),
        ("lwc zstd", Encoding::Zstd),
        ("lwc auto", Encoding::Auto),
    ];
    forced.into_iter().map(|(name, encoding)| Lwc { name, encoding }).collect()
}

/// Encodings of the catalog issue that do not exist yet: tables list them as missing.
pub const MISSING: &[&str] = &["delta2", "sequence", "rle"];

self_cell::self_cell!(
    /// The encoded bytes and the column opened over them (validated once, read in place).
    struct OpenColumn {
        owner: EncodedColumn,
        #[covariant]
        dependent: U32Column,
    }
);

type U32Column<'a> = Column<'a, u32>;

impl Peer for Lwc {
    fn name(&self) -> &'static str {
        self.name
    }

    fn random_access(&self) -> bool {
        true
    }

    fn encode(&self, values: &[u32]) -> Option<Box<dyn PeerEncoded>> {
        // An encoding that does not apply (constant on varied data) is reported as missing.
        let encoded = EncodedColumn::encode(values, None, EncodeOptions::with_encoding(self.encoding)).ok()?;
        let open = OpenColumn::try_new(encoded, |e| e.open::<u32>()).ok()?;
        Some(Box::new(open))
    }
}

impl PeerEncoded for OpenColumn {
    fn bytes(&self) -> usize {
        self.borrow_owner().as_bytes().len()
    }

    fn decode_into(&self, out: &mut [u32]) {
        self.borrow_dependent().decode_into(0, out).expect("rows checked by the caller");
    }

    fn take_into(&self, positions: &[u32], out: &mut [u32], _: &mut Vec<u32>) {
        let column = self.borrow_dependent();
        match column.segments() {
            // One chunk (seed 000's setting): positions are the segment's own, as a Hyrise PosList is.
            [segment] => segment.take_into(positions, out),
            _ => column.take_into(positions, out),
        }
        .expect("positions checked by the caller");
    }
}
