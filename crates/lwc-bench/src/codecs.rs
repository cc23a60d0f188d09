//! lwc's encodings behind the same interface as the peers, so an experiment loops over both alike; and lwc's
//! string path, a column written to an in-memory `.lwc` file by `lwc-file`.

use std::fmt::Display;
use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{Field, Schema};
use lwc::{Cascade, Column, EncodeOptions, EncodedColumn, Encoding, EncodingId, Family};
use lwc_file::{ColumnInfo, LwcFile, WriteOptions};

use crate::peers::{Peer, PeerEncoded};

/// One lwc encoding or cascade (or the automatic choice), forced on every segment.
pub struct Lwc {
    pub name: &'static str,
    pub cascade: Cascade,
}

impl Lwc {
    /// `cascade` under `name`; panics on a malformed cascade (the names are the bench's own).
    pub fn new(name: &'static str, cascade: &str) -> Lwc {
        Lwc { name, cascade: cascade.parse().unwrap_or_else(|e| panic!("{name}: {e}")) }
    }
}

/// lwc's candidates: every integer encoding of the registry forced (in the registry's order, with its
/// default parameter), then the automatic choice. An encoding added to the registry joins every table.
pub fn all() -> Vec<Lwc> {
    EncodingId::ALL
        .iter()
        .filter(|id| id.family() == Family::Integers)
        .map(|&id| Encoding::from(id))
        .chain([Encoding::Auto])
        .map(|encoding| {
            let label = match encoding {
                Encoding::ForN { block } => format!("lwc for_n({block})"),
                e => format!("lwc {e}"),
            };
            // A handful of names once per run: leaked so they read as the peers' static names.
            Lwc { name: Box::leak(label.into_boxed_str()), cascade: encoding.into() }
        })
        .collect()
}

/// Forced cascades worth a row: the ones the catalog issue asks to reach on TPC-H keys, and patched
/// deltas for sorted data with outliers.
pub fn cascades() -> Vec<Lwc> {
    vec![
        Lwc::new("lwc delta(dict)", "delta(dict)"),
        Lwc::new("lwc delta(pfor)", "delta(pfor)"),
        Lwc::new("lwc rle(sequence, sequence)", "rle(sequence, sequence)"),
        Lwc::new("lwc rle(delta(dict), delta)", "rle(delta(dict), delta)"),
    ]
}

/// What lwc's automatic choice picked, as its explain record for now: each cascade and on how many of the
/// column's segments (`delta(for, for) on 90, bitpack on 2 of 92 segments`).
pub fn explain<T: lwc::Value>(column: &Column<T>) -> String {
    chosen(&column.cascades(), column.segments().len())
}

/// What lwc-file chose for a column of a file, in [`explain`]'s words (`dict(codes: bitpack) on 92 of 92
/// segments`).
pub fn explain_file(column: &ColumnInfo) -> String {
    chosen(&column.cascades, column.segments.len())
}

fn chosen(cascades: &[(impl Display, usize)], segments: usize) -> String {
    let used: Vec<String> = cascades.iter().map(|(c, n)| format!("{c} on {n}")).collect();
    format!("{} of {segments} segments", used.join(", "))
}

/// `array` (no nulls) as a batch of one column named `name`, as lwc-file takes it.
pub fn one_column(name: &str, array: ArrayRef) -> RecordBatch {
    let schema = Arc::new(Schema::new(vec![Field::new(name, array.data_type().clone(), false)]));
    RecordBatch::try_new(schema, vec![array]).expect("one column without nulls")
}

/// `batch` written by `lwc-file` in memory with the default `WriteOptions` (the selector's `balanced` objective;
/// segments are encoded in parallel on the current rayon pool), then opened with `LwcFile::from_bytes`.
pub fn write_file(batch: &RecordBatch) -> lwc_file::Result<LwcFile> {
    let bytes = lwc_file::write_to_bytes(batch.schema(), std::slice::from_ref(batch), WriteOptions::default())?;
    LwcFile::from_bytes(bytes)
}

/// The value types lwc columns are measured over, each with its opened-column type.
pub trait LwcValue: lwc::LwcInt {
    /// Opens `encoded` for reading in place; `None` if it does not open.
    fn open(encoded: EncodedColumn) -> Option<Box<dyn PeerEncoded<Self>>>;
}

impl<T: LwcValue> Peer<T> for Lwc {
    fn name(&self) -> &'static str {
        self.name
    }

    fn random_access(&self) -> bool {
        true
    }

    fn encode(&self, values: &[T]) -> Option<Box<dyn PeerEncoded<T>>> {
        // An encoding that does not apply (constant on varied data) is reported as missing.
        let encoded = EncodedColumn::encode(values, None, EncodeOptions::with_encoding(self.cascade.clone())).ok()?;
        T::open(encoded)
    }
}

/// An opened-column type for `$t` (`self_cell` takes no generic parameters, hence one type per value type).
macro_rules! open_column {
    ($t:ty, $open:ident, $column:ident) => {
        self_cell::self_cell!(
            /// The encoded bytes and the column opened over them (validated once, read in place).
            struct $open {
                owner: EncodedColumn,
                #[covariant]
                dependent: $column,
            }
        );

        type $column<'a> = Column<'a, $t>;

        impl LwcValue for $t {
            fn open(encoded: EncodedColumn) -> Option<Box<dyn PeerEncoded<Self>>> {
                Some(Box::new($open::try_new(encoded, |e| e.open::<$t>()).ok()?))
            }
        }

        impl PeerEncoded<$t> for $open {
            fn bytes(&self) -> usize {
                self.borrow_owner().as_bytes().len()
            }

            fn decode_into(&self, out: &mut [$t]) {
                self.borrow_dependent().decode_into(0, out).expect("rows checked by the caller");
            }

            // Through the column, as users take: with one segment (seed 000's setting) its `u32` positions
            // go to the segment as they are, as a Hyrise PosList's do.
            fn take_into(&self, positions: &[u32], out: &mut [$t], _: &mut Vec<$t>) {
                self.borrow_dependent().take_into(positions, out).expect("positions checked by the caller");
            }
        }
    };
}

open_column!(u32, OpenU32Column, U32Column);
open_column!(u64, OpenU64Column, U64Column);
