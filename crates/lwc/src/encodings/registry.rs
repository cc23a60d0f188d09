//! The registry macro: from one table of encodings (one line each, in `encodings/mod.rs`) it declares the
//! encoding modules and generates everything that lists encodings, so nothing else does:
//!
//! - [`EncodingId`] (the stable ids stored in bytes, in the table's order of preference) with each
//!   encoding's name and facts, read from its [`Encoder`](super::Encoder) implementation;
//! - [`Encoding`] (what callers ask for, parameters included, and `Auto`), parsed from and printed as the
//!   stable names (`for_n:128`);
//! - `StreamView`, the dispatch of the operation set over every encoding's view, its opening from bytes
//!   and the cascade it was written with;
//! - the dispatch of estimating and encoding by id.

/// See the module documentation; invoked once, in `encodings/mod.rs`.
macro_rules! registry {
    (
        integers {$(
            $(#[doc = $doc:literal])*
            $variant:ident $({ $param:ident })? = $id:literal, $name:literal, $path:literal,
                $module:ident :: { $encoder:ident, $view:ty };
        )*}
        bytes {$(
            $(#[doc = $bdoc:literal])*
            $bvariant:ident = $bid:literal, $bname:literal, $bpath:literal,
                $bmodule:ident :: { $bencoder:ident, $bview:ty };
        )*}
    ) => {
        $(
            #[path = $path]
            pub(crate) mod $module;
        )*
        $(
            #[path = $bpath]
            pub(crate) mod $bmodule;
        )*

        /// Stable identifiers of encodings, as stored in bytes and printed by tools. Add, never renumber.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        pub enum EncodingId {
            $( $(#[doc = $doc])* $variant = $id, )*
            $( $(#[doc = $bdoc])* $bvariant = $bid, )*
        }

        impl EncodingId {
            /// Every integer encoding, in the registry's order: the selector's order of preference on equal
            /// estimates (the cheaper to read first).
            pub const ALL: [EncodingId; [$($id),*].len()] = [$(EncodingId::$variant),*];

            /// Every byte-string encoding, in the registry's order of preference.
            pub const BYTES: [EncodingId; [$($bid),*].len()] = [$(EncodingId::$bvariant),*];

            /// The stable name (`"plain"`, `"for_n"`, ...). A byte-string encoding may share its name with
            /// an integer one (`plain`, `dict`): the values' type tells them apart.
            pub fn name(self) -> &'static str {
                match self {
                    $(EncodingId::$variant => $name,)*
                    $(EncodingId::$bvariant => $bname,)*
                }
            }

            /// What values the encoding stores.
            pub fn family(self) -> Family {
                match self {
                    $(EncodingId::$variant => Family::Integers,)*
                    $(EncodingId::$bvariant => Family::Bytes,)*
                }
            }

            /// Parses a stored id.
            pub fn from_id(id: u8) -> Result<EncodingId> {
                match id {
                    $($id => Ok(EncodingId::$variant),)*
                    $($bid => Ok(EncodingId::$bvariant),)*
                    _ => Err(Error::UnknownEncoding(id)),
                }
            }

            /// The integer encoding named `name` (without a parameter).
            pub fn from_name(name: &str) -> Option<EncodingId> {
                EncodingId::from_name_in(Family::Integers, name)
            }

            /// The encoding of `family` named `name` (without a parameter).
            pub fn from_name_in(family: Family, name: &str) -> Option<EncodingId> {
                match family {
                    Family::Integers => EncodingId::ALL.into_iter().find(|id| id.name() == name),
                    Family::Bytes => EncodingId::BYTES.into_iter().find(|id| id.name() == name),
                }
            }

            /// What each child stream holds, in order; empty for encodings without children.
            pub fn child_names(self) -> &'static [&'static str] {
                match self {
                    $(EncodingId::$variant => <$module::$encoder as Encoder>::CHILDREN,)*
                    $(EncodingId::$bvariant => <$bmodule::$bencoder as BytesEncoder>::CHILDREN,)*
                }
            }

            /// The parameter it takes, if any.
            pub fn parameter(self) -> Option<Parameter> {
                match self {
                    $(EncodingId::$variant => <$module::$encoder as Encoder>::PARAMETER,)*
                    $(EncodingId::$bvariant => None,)*
                }
            }

            /// What data it needs.
            pub fn requires(self) -> Requirement {
                match self {
                    $(EncodingId::$variant => <$module::$encoder as Encoder>::REQUIRES,)*
                    $(EncodingId::$bvariant => Requirement::Nothing,)*
                }
            }

            /// Whether one value reads without decompressing a block; [`Encoding::Auto`] chooses the others
            /// only for objectives without lookups ([`crate::Objective::reads_rows`]).
            pub fn random_access(self) -> bool {
                match self {
                    $(EncodingId::$variant => <$module::$encoder as Encoder>::RANDOM_ACCESS,)*
                    $(EncodingId::$bvariant => <$bmodule::$bencoder as BytesEncoder>::RANDOM_ACCESS,)*
                }
            }

            /// Whether its size follows from min, max and OR alone.
            pub(crate) fn sized_by_stats(self) -> bool {
                match self {
                    $(EncodingId::$variant => <$module::$encoder as Encoder>::SIZED_BY_STATS,)*
                    $(EncodingId::$bvariant => false,)*
                }
            }

            /// Whether the selector takes it at once when it applies.
            pub(crate) fn taken_at_once(self) -> bool {
                match self {
                    $(EncodingId::$variant => <$module::$encoder as Encoder>::TAKEN_AT_ONCE,)*
                    $(EncodingId::$bvariant => false,)*
                }
            }

            /// Why the selector took it at once, for the explain record.
            pub(crate) fn taken_because(self) -> &'static str {
                match self {
                    $(EncodingId::$variant => <$module::$encoder as Encoder>::TAKEN_BECAUSE,)*
                    $(EncodingId::$bvariant => "",)*
                }
            }

            /// Why `shape` rules it out, if it does.
            pub(crate) fn pruned(self, shape: &dyn Shape) -> Option<&'static str> {
                match self {
                    $(EncodingId::$variant => <$module::$encoder as Encoder>::pruned(shape),)*
                    $(EncodingId::$bvariant => Some("stores byte strings, not integers"),)*
                }
            }

            /// Whether it is estimated on every value of a stream of this shape, though sampled.
            pub(crate) fn estimated_whole(self, shape: &dyn Shape) -> bool {
                match self {
                    $(EncodingId::$variant => <$module::$encoder as Encoder>::estimated_whole(shape),)*
                    $(EncodingId::$bvariant => false,)*
                }
            }

            /// The width the cost model prices it at on a stream of this shape.
            pub(crate) fn cost_width(self, shape: &dyn Shape) -> u32 {
                match self {
                    $(EncodingId::$variant => <$module::$encoder as Encoder>::cost_width(shape),)*
                    $(EncodingId::$bvariant => shape.range_bits().max(1),)*
                }
            }

            /// Cache lines one lookup touches in the stream's own bytes (see [`Encoder::lines`]).
            pub(crate) fn lines(self, parameter: u32, width: u32) -> f64 {
                match self {
                    $(EncodingId::$variant => <$module::$encoder as Encoder>::lines(parameter, width),)*
                    $(EncodingId::$bvariant => <$bmodule::$bencoder as BytesEncoder>::LINES,)*
                }
            }

            /// Cache lines one position of a sparse take touches in the stream's own bytes (see
            /// [`Encoder::take_lines`]).
            pub(crate) fn take_lines(self, parameter: u32, width: u32) -> f64 {
                match self {
                    $(EncodingId::$variant => <$module::$encoder as Encoder>::take_lines(parameter, width),)*
                    $(EncodingId::$bvariant => <$bmodule::$bencoder as BytesEncoder>::LINES,)*
                }
            }

            /// Whether its streams at cost width `width` sum a run of values where they lie (see
            /// [`Encoder::sums_in_place`]).
            pub(crate) fn sums_in_place(self, width: u32) -> bool {
                match self {
                    $(EncodingId::$variant => <$module::$encoder as Encoder>::sums_in_place(width),)*
                    $(EncodingId::$bvariant => { let _ = width; false })*
                }
            }

            /// The encodings whose decodes it does on a stream of this shape, a pass each (see
            /// [`Encoder::decodes_as`]).
            pub(crate) fn decodes_as(self, shape: &dyn Shape) -> &'static [EncodingId] {
                match self {
                    $(EncodingId::$variant => <$module::$encoder as Encoder>::decodes_as(shape),)*
                    $(EncodingId::$bvariant => { let _ = shape; &[] })*
                }
            }

            /// The encoding it patches and its calibration's share of patched rows (see
            /// [`Encoder::patches`]).
            pub(crate) fn patches(self) -> Option<(EncodingId, f64)> {
                match self {
                    $(EncodingId::$variant => <$module::$encoder as Encoder>::patches(),)*
                    $(EncodingId::$bvariant => None,)*
                }
            }

            /// Lookups' worth of one search of its values (see [`Encoder::search_gets`]).
            pub(crate) fn search_gets(self) -> Option<f64> {
                match self {
                    $(EncodingId::$variant => <$module::$encoder as Encoder>::search_gets(),)*
                    $(EncodingId::$bvariant => None,)*
                }
            }

            /// What its calibration's data makes of child `k`, where that is not the default it is written
            /// with (see [`Encoder::calibrated_child`]).
            pub(crate) fn calibrated_child(self, k: usize) -> Option<Encoding> {
                match self {
                    $(EncodingId::$variant => <$module::$encoder as Encoder>::calibrated_child(k),)*
                    $(EncodingId::$bvariant => { let _ = k; None })*
                }
            }

            /// The child whose scattered takes its own cost, given its children's encodings (see
            /// [`Encoder::scattered_as_child`]).
            pub(crate) fn scattered_as_child(self, child: &dyn Fn(usize) -> Option<EncodingId>) -> Option<usize> {
                match self {
                    $(EncodingId::$variant => <$module::$encoder as Encoder>::scattered_as_child(child),)*
                    $(EncodingId::$bvariant => { let _ = child; None })*
                }
            }

            /// How one lookup of a stream of `rows` values reads its child `k` of `child_rows` values.
            pub fn child_reads(self, k: usize, parameter: u32, rows: usize, child_rows: usize) -> ChildReads {
                match self {
                    $(EncodingId::$variant =>
                        <$module::$encoder as Encoder>::child_reads(k, parameter, rows, child_rows),)*
                    $(EncodingId::$bvariant =>
                        <$bmodule::$bencoder as BytesEncoder>::child_reads(k, rows, child_rows),)*
                }
            }

            /// Values on which it is the natural choice at `width` bits, for calibration.
            pub(crate) fn calibration_values(self, width: u32, n: usize, rng: &mut SplitMix) -> Vec<u64> {
                match self {
                    $(EncodingId::$variant => <$module::$encoder as Encoder>::calibration_values(width, n, rng),)*
                    $(EncodingId::$bvariant => { let _ = (width, n, rng); Vec::new() })*
                }
            }

            /// Estimated body bytes of `values`, whose runs from far-apart rows meet at `seams` (see
            /// [`Encoder::estimate_with_seams`]; none outside samples), and whose profile, when the
            /// selector has one, is `shape` (see [`Encoder::estimate_profiled`]).
            pub(crate) fn estimate<T: LwcInt>(
                self,
                values: &[T],
                stats: &Stats<T>,
                parameter: u32,
                children: &impl Children,
                seams: &[usize],
                shape: Option<&dyn Shape>,
            ) -> Option<usize> {
                match (self, shape) {
                    $((EncodingId::$variant, None) => <$module::$encoder as Encoder>::estimate_with_seams(
                        values, stats, parameter, children, seams,
                    ),)*
                    $((EncodingId::$variant, Some(shape)) => <$module::$encoder as Encoder>::estimate_profiled(
                        values, stats, parameter, children, seams, shape,
                    ),)*
                    $((EncodingId::$bvariant, _) => { let _ = seams; None })*
                }
            }

            /// Estimated body bytes of a stream from a sample of it (see [`Encoder::estimate_from_sample`]).
            pub(crate) fn estimate_from_sample<T: LwcInt>(
                self,
                sample: &[T],
                stats: &Stats<T>,
                parameter: u32,
                children: &impl Children,
                shape: &dyn Shape,
            ) -> Option<usize> {
                match self {
                    $(EncodingId::$variant => <$module::$encoder as Encoder>::estimate_from_sample(
                        sample, stats, parameter, children, shape,
                    ),)*
                    $(EncodingId::$bvariant => None,)*
                }
            }

            /// Writes `values` as this encoding: the id byte, then the body.
            pub(crate) fn encode<T: LwcInt>(
                self,
                values: &[T],
                stats: &Stats<T>,
                parameter: u32,
                children: &impl Children,
                out: &mut Writer,
            ) -> Result<()> {
                out.u8(self as u8);
                match self {
                    $(EncodingId::$variant =>
                        <$module::$encoder as Encoder>::encode(values, stats, parameter, children, out),)*
                    $(EncodingId::$bvariant => Err(Error::InvalidArgument(format!(
                        "{} stores byte strings, not integers", $bname
                    ))),)*
                }
            }

            /// Estimated body bytes of byte strings written as this encoding (integer encodings: `None`).
            pub(crate) fn estimate_bytes(self, profile: &ByteProfile<'_>, children: &impl Children) -> Option<usize> {
                match self {
                    $(EncodingId::$bvariant => <$bmodule::$bencoder as BytesEncoder>::estimate(profile, children),)*
                    _ => None,
                }
            }

            /// Writes byte strings as this encoding: the id byte, then the body.
            pub(crate) fn encode_bytes(
                self,
                profile: &ByteProfile<'_>,
                children: &impl Children,
                out: &mut Writer,
            ) -> Result<()> {
                out.u8(self as u8);
                match self {
                    $(EncodingId::$bvariant => <$bmodule::$bencoder as BytesEncoder>::encode(profile, children, out),)*
                    other => Err(Error::InvalidArgument(format!("{other} stores integers, not byte strings"))),
                }
            }
        }

        impl std::fmt::Display for EncodingId {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }

        /// How to encode a stream: a fixed encoding (with its parameter), or `Auto`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
        pub enum Encoding {
            $(
                $(#[doc = $doc])*
                $variant $({
                    #[doc = concat!("The ", stringify!($param), ".")]
                    $param: u32
                })?,
            )*
            $(
                $(#[doc = $bdoc])*
                $bvariant,
            )*
            /// Chooses each stream's encoding from its data and the [`Objective`](crate::Objective).
            #[default]
            Auto,
        }

        impl Encoding {
            /// The stored encoding, `None` for [`Encoding::Auto`].
            pub fn id(self) -> Option<EncodingId> {
                match self {
                    $(Encoding::$variant { .. } => Some(EncodingId::$variant),)*
                    $(Encoding::$bvariant => Some(EncodingId::$bvariant),)*
                    Encoding::Auto => None,
                }
            }

            /// The parameter's value, for encodings that take one.
            pub fn parameter(self) -> Option<u32> {
                match self {
                    $($(Encoding::$variant { $param } => Some($param),)?)*
                    _ => None,
                }
            }

            /// `id` with its parameter set to `parameter` (ignored by encodings without one).
            pub fn with_parameter(id: EncodingId, parameter: u32) -> Encoding {
                match id {
                    $(EncodingId::$variant => {
                        let _ = parameter;
                        Encoding::$variant $({ $param: parameter })?
                    })*
                    $(EncodingId::$bvariant => Encoding::$bvariant,)*
                }
            }
        }

        /// A view over any encoded stream: dispatch of the operation set to the encoding's view.
        pub(crate) enum StreamView<'a, T: LwcInt> {
            $($variant($view),)*
        }

        impl<'a, T: LwcInt> StreamView<'a, T> {
            /// Validates and opens a stream of `n` values.
            pub fn open(r: &mut Reader<'a>, n: usize) -> Result<Self> {
                StreamView::open_nested(r, n, 0)
            }

            /// Opens a stream that sits `depth` child streams deep.
            pub fn open_nested(r: &mut Reader<'a>, n: usize, depth: usize) -> Result<Self> {
                // Children open recursively: bound the depth (writers stack at most MAX_CASCADE_DEPTH
                // streams), or a few bytes per level of corrupt input (dictionaries of dictionaries)
                // overflow the stack.
                if depth >= MAX_CASCADE_DEPTH {
                    return Err(Error::Corrupt(format!("streams nested deeper than {MAX_CASCADE_DEPTH} levels")));
                }
                Ok(match EncodingId::from_id(r.u8("stream encoding id")?)? {
                    $(EncodingId::$variant => StreamView::$variant(<$view as OpenStream<'a, T>>::open(r, n, depth)?),)*
                    $(EncodingId::$bvariant => {
                        return Err(Error::Corrupt(format!("{}: a byte-string encoding where integers are", $bname)))
                    })*
                })
            }

            /// See [`OpenStream::frame`].
            pub fn frame(&self) -> Option<Frame<'a, T>> {
                match self {
                    $(StreamView::$variant(v) => OpenStream::<'a, T>::frame(v),)*
                }
            }

            /// See [`OpenStream::in_place`].
            pub fn in_place(&self) -> Option<InPlace<'a, T>> {
                match self {
                    $(StreamView::$variant(v) => OpenStream::<'a, T>::in_place(v),)*
                }
            }

            /// The encoding of the stream.
            pub fn encoding(&self) -> EncodingId {
                match self {
                    $(StreamView::$variant(_) => EncodingId::$variant,)*
                }
            }

            /// The cascade the stream was written with, as its bytes say.
            pub fn cascade(&self) -> Cascade {
                match self {
                    $(StreamView::$variant(v) => {
                        let parameter = OpenStream::<'a, T>::parameter(v).unwrap_or(0);
                        Cascade::read(
                            Encoding::with_parameter(EncodingId::$variant, parameter),
                            OpenStream::<'a, T>::child_cascades(v),
                        )
                    })*
                }
            }
        }

        impl<T: LwcInt> StreamOps<T> for StreamView<'_, T> {
            fn len(&self) -> usize {
                match self {
                    $(StreamView::$variant(v) => v.len(),)*
                }
            }
            fn decode_into(&self, start: usize, out: &mut [T]) {
                match self {
                    $(StreamView::$variant(v) => v.decode_into(start, out),)*
                }
            }
            #[inline(always)]
            fn get(&self, i: usize) -> T {
                match self {
                    $(StreamView::$variant(v) => v.get(i),)*
                }
            }
            fn get_cost(&self) -> usize {
                match self {
                    $(StreamView::$variant(v) => v.get_cost(),)*
                }
            }
            fn wrapping_sum(&self, start: usize, len: usize) -> T {
                match self {
                    $(StreamView::$variant(v) => v.wrapping_sum(start, len),)*
                }
            }
            fn sums_in_place(&self) -> bool {
                match self {
                    $(StreamView::$variant(v) => v.sums_in_place(),)*
                }
            }
            // Priced as what the dispatched sorted take runs (`StreamOps::take_sorted_bounded`, below).
            fn sorted_take_cost(&self, k: usize, span: usize) -> usize {
                match self {
                    $(StreamView::$variant(v) => v.sorted_take_bounded_cost(k, span),)*
                }
            }
            fn unsorted_take_cost(&self, k: usize) -> usize {
                match self {
                    $(StreamView::$variant(v) => v.unsorted_take_cost(k),)*
                }
            }
            fn decode_cost(&self, rows: usize) -> usize {
                match self {
                    $(StreamView::$variant(v) => v.decode_cost(rows),)*
                }
            }
            fn rank(&self, value: T) -> usize {
                match self {
                    $(StreamView::$variant(v) => v.rank(value),)*
                }
            }
            fn rank_cost(&self) -> usize {
                match self {
                    $(StreamView::$variant(v) => v.rank_cost(),)*
                }
            }
            // Takes and aggregates go through their bounds (`StreamOps::take_bounded`): none costs much more than a
            // decode and a gather, whatever the encoding.
            fn take_into(&self, positions: &[u32], out: &mut [T]) {
                match self {
                    $(StreamView::$variant(v) => v.take_bounded(positions, out),)*
                }
            }
            fn take_sorted_into(&self, positions: &[u32], out: &mut [T]) {
                match self {
                    $(StreamView::$variant(v) => v.take_sorted_bounded(positions, out),)*
                }
            }
            fn filter_range(&self, lo: T, hi: T, out: &mut Bitmap) {
                match self {
                    $(StreamView::$variant(v) => v.filter_range(lo, hi, out),)*
                }
            }
            fn filter_in(&self, set: &[T], out: &mut Bitmap) {
                match self {
                    $(StreamView::$variant(v) => v.filter_in(set, out),)*
                }
            }
            fn sum(&self) -> i128 {
                match self {
                    $(StreamView::$variant(v) => v.sum(),)*
                }
            }
            fn aggregate(&self, selection: &Selection) -> SumMinMax<T> {
                match self {
                    $(StreamView::$variant(v) => v.aggregate_bounded(selection),)*
                }
            }
            fn decode_floats_into(&self, start: usize, out: &mut [T]) -> bool {
                match self {
                    $(StreamView::$variant(v) => v.decode_floats_into(start, out),)*
                }
            }
            fn float_sum(&self, selection: Option<&Selection>) -> Option<f64> {
                match self {
                    $(StreamView::$variant(v) => v.float_sum(selection),)*
                }
            }
            fn for_each_block(&self, f: impl FnMut(usize, &[T])) {
                match self {
                    $(StreamView::$variant(v) => v.for_each_block(f),)*
                }
            }
        }

        /// A view over any encoded byte-string stream: dispatch of its operation set.
        #[allow(clippy::enum_variant_names)] // named as the encodings are
        pub(crate) enum BytesView<'a> {
            $($bvariant($bview),)*
        }

        impl<'a> BytesView<'a> {
            /// Validates and opens a byte-string stream of `n` rows.
            pub fn open(r: &mut Reader<'a>, n: usize) -> Result<Self> {
                Ok(match EncodingId::from_id(r.u8("stream encoding id")?)? {
                    $(EncodingId::$bvariant => BytesView::$bvariant(<$bview as OpenBytes<'a>>::open(r, n, 0)?),)*
                    other => {
                        return Err(Error::Corrupt(format!("{other}: an integer encoding where byte strings are")))
                    }
                })
            }

            /// The encoding of the stream.
            pub fn encoding(&self) -> EncodingId {
                match self {
                    $(BytesView::$bvariant(_) => EncodingId::$bvariant,)*
                }
            }

            /// The cascade the stream was written with, as its bytes say.
            pub fn cascade(&self) -> Cascade {
                match self {
                    $(BytesView::$bvariant(v) => {
                        Cascade::read(Encoding::$bvariant, OpenBytes::child_cascades(v))
                    })*
                }
            }
        }

        impl<'a> BytesOps<'a> for BytesView<'a> {
            fn len(&self) -> usize {
                match self {
                    $(BytesView::$bvariant(v) => v.len(),)*
                }
            }
            #[inline]
            fn get(&self, i: usize) -> std::borrow::Cow<'a, [u8]> {
                match self {
                    $(BytesView::$bvariant(v) => v.get(i),)*
                }
            }
            fn push_row(&self, i: usize, out: &mut ByteArray) {
                match self {
                    $(BytesView::$bvariant(v) => v.push_row(i, out),)*
                }
            }
            fn decode_into(&self, range: std::ops::Range<usize>, out: &mut ByteArray) {
                match self {
                    $(BytesView::$bvariant(v) => v.decode_into(range, out),)*
                }
            }
            fn take_into(&self, positions: &[u32], out: &mut ByteArray) {
                match self {
                    $(BytesView::$bvariant(v) => v.take_into(positions, out),)*
                }
            }
            fn filter(&self, test: &BytesTest<'_>, out: &mut Bitmap) {
                match self {
                    $(BytesView::$bvariant(v) => v.filter(test, out),)*
                }
            }
            fn min_max(&self, selection: &Selection) -> Option<byte_strings::Extremes<'a>> {
                match self {
                    $(BytesView::$bvariant(v) => v.min_max(selection),)*
                }
            }
        }
    };
}
