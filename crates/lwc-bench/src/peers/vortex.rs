//! The Vortex peer (cargo feature `vortex`).

#![cfg(feature = "vortex")]

use super::*;

mod vortex_peer {
    use vortex::array::arrays::PrimitiveArray;
    use vortex::array::serde::SerializeOptions;
    use vortex::array::session::ArraySessionExt;
    use vortex::array::validity::Validity;
    use vortex::array::{ArrayContext, ArrayRef, IntoArray, VortexSessionExecute};
    use vortex::buffer::Buffer;
    use vortex::compressor::BtrBlocksCompressor;
    use vortex::encodings::{
        alp, bytebool, datetime_parts, decimal_byte_parts, fastlanes, fsst, pco, runend, sequence, sparse, zigzag,
    };
    use vortex::session::VortexSession;
    use vortex::VortexSessionDefault;

    use super::{Peer, PeerEncoded};

    /// The `vortex` crate's default compressor (BtrBlocks-style cascades, chosen by sampling) on one array of all
    /// the values. Decode and take execute to a fresh `PrimitiveArray` and copy it out; take pushes the positions
    /// down to the encodings' own take kernels.
    pub struct VortexPeer {
        session: VortexSession,
    }

    impl Default for VortexPeer {
        /// The default session plus the encodings a default Vortex file session registers (its `files` feature,
        /// a larger build, would add them; zstd and onpair, for strings, aside). The compressor keeps only the
        /// schemes whose encodings the session knows: without these it leaves integers uncompressed.
        fn default() -> Self {
            let session = VortexSession::default();
            for initialize in [
                alp::initialize,
                bytebool::initialize,
                datetime_parts::initialize,
                decimal_byte_parts::initialize,
                fastlanes::initialize,
                fsst::initialize,
                runend::initialize,
                sequence::initialize,
                sparse::initialize,
                zigzag::initialize,
            ] {
                initialize(&session);
            }
            session.arrays().register(pco::Pco);
            VortexPeer { session }
        }
    }

    impl Peer for VortexPeer {
        fn name(&self) -> &'static str {
            "vortex"
        }

        fn random_access(&self) -> bool {
            true
        }

        fn encode(&self, values: &[u32]) -> Option<Box<dyn PeerEncoded>> {
            let array = PrimitiveArray::new(Buffer::copy_from(values), Validity::NonNullable).into_array();
            let mut ctx = self.session.create_execution_ctx();
            let array = BtrBlocksCompressor::from_session(&self.session).compress(&array, &mut ctx).ok()?;
            // The serialized size: buffers, and the encoding tree's metadata (all a sequence or a run of
            // sequences needs, which own no buffer).
            let serialized =
                array.serialize(&ArrayContext::empty(), &self.session, &SerializeOptions::default()).ok()?;
            let bytes = serialized.iter().map(|buffer| buffer.len()).sum();
            Some(Box::new(VortexEncoded { array, bytes, session: self.session.clone() }))
        }
    }

    /// A compressed vortex array.
    struct VortexEncoded {
        array: ArrayRef,
        bytes: usize,
        session: VortexSession,
    }

    impl VortexEncoded {
        /// Executes `array` (this one, or a take of it) into `out`.
        fn execute_into(&self, array: ArrayRef, out: &mut [u32]) {
            let mut ctx = self.session.create_execution_ctx();
            let decoded: PrimitiveArray = array.execute(&mut ctx).expect("vortex decodes what it encoded");
            out.copy_from_slice(decoded.as_slice::<u32>());
        }
    }

    impl PeerEncoded for VortexEncoded {
        fn bytes(&self) -> usize {
            self.bytes
        }

        fn decode_into(&self, out: &mut [u32]) {
            self.execute_into(self.array.clone(), out);
        }

        fn take_into(&self, positions: &[u32], out: &mut [u32], _: &mut Vec<u32>) {
            let indices = PrimitiveArray::new(Buffer::copy_from(positions), Validity::NonNullable).into_array();
            self.execute_into(self.array.take(indices).expect("positions in range"), out);
        }
    }
}
