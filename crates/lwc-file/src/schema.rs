//! Logical types: which Arrow types a `.lwc` file stores, how each is stored ([`Storage`]), and the
//! footer's encoding of a schema (field names, types with their parameters, nullability, metadata).

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};
use lwc::strings::BytesType;
use lwc::ValueType;

use crate::codec::{ByteReader, ByteWriter};
use crate::error::{Error, Result};

/// How a column's values are stored: one tag per column in the footer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Storage {
    /// lwc segments of fixed-width values of this type: integers, dates, times, timestamps, durations,
    /// decimals up to precision 18 as scaled integers, booleans as `u8` 0/1, nulls-only columns as `u8`;
    /// and floats, through their order-preserving integer latents.
    Values(ValueType),
    /// lwc segments of byte strings (a sorted dictionary or plain bytes per segment).
    Bytes(BytesType),
    /// Strings and binaries as version 1 files store them: a dictionary or plain bytes per segment, in a
    /// layout of its own. Read only.
    LegacyBytes,
    /// Fixed-width values stored plain with a validity bitmap: `f16`, decimals above 18 digits, and the
    /// floats of version 1 files; the width in bytes.
    Plain(u8),
}

impl Storage {
    /// The footer's tag and parameter byte.
    pub(crate) fn tag(self) -> (u8, u8) {
        match self {
            Storage::Values(t) if t.is_float() => (4, t as u8),
            Storage::Values(t) => (1, t as u8),
            Storage::LegacyBytes => (2, 0),
            Storage::Plain(w) => (3, w),
            Storage::Bytes(kind) => (5, kind as u8),
        }
    }

    /// Parses the footer's tag and parameter byte.
    pub(crate) fn from_tag(tag: u8, param: u8) -> Option<Storage> {
        match tag {
            1 => ValueType::from_id(param).filter(|t| !t.is_float()).map(Storage::Values),
            2 if param == 0 => Some(Storage::LegacyBytes),
            3 if matches!(param, 2 | 4 | 8 | 16) => Some(Storage::Plain(param)),
            4 => ValueType::from_id(param).filter(|t| t.is_float()).map(Storage::Values),
            5 => [BytesType::Utf8, BytesType::Binary].into_iter().find(|k| *k as u8 == param).map(Storage::Bytes),
            _ => None,
        }
    }

    /// Whether its segments are lwc segments that filters and aggregates run on in place.
    pub fn is_encoded(self) -> bool {
        matches!(self, Storage::Values(_) | Storage::Bytes(_))
    }
}

impl std::fmt::Display for Storage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Storage::Values(t) => write!(f, "{t}"),
            Storage::Bytes(_) => f.write_str("bytes"),
            Storage::LegacyBytes => f.write_str("bytes (v1)"),
            Storage::Plain(2) => f.write_str("plain f16"),
            Storage::Plain(16) => f.write_str("plain i128"),
            Storage::Plain(w) => write!(f, "plain f{}", w as u32 * 8),
        }
    }
}

/// The type a column of `data_type` is written as: string and binary views become plain strings and
/// binaries, dictionaries their value type; every other type stays (the writer rejects what it cannot
/// store). Readers get this type back.
pub fn storable_type(data_type: &DataType) -> DataType {
    match data_type {
        DataType::Utf8View => DataType::Utf8,
        DataType::BinaryView => DataType::Binary,
        DataType::Dictionary(_, value) => storable_type(value),
        other => other.clone(),
    }
}

/// [`storable_type`] for every field (the same `Arc` when nothing changes).
pub fn storable_schema(schema: &SchemaRef) -> SchemaRef {
    let fields: Vec<Field> =
        schema.fields().iter().map(|f| f.as_ref().clone().with_data_type(storable_type(f.data_type()))).collect();
    let storable = Schema::new_with_metadata(fields, schema.metadata().clone());
    if storable == **schema {
        schema.clone()
    } else {
        Arc::new(storable)
    }
}

/// Casts a batch's columns to the types of `schema` (one from [`storable_schema`]).
pub fn cast_to_schema(batch: &RecordBatch, schema: &SchemaRef) -> Result<RecordBatch> {
    let columns = batch
        .columns()
        .iter()
        .zip(schema.fields())
        .map(|(c, f)| if c.data_type() == f.data_type() { Ok(c.clone()) } else { arrow_cast::cast(c, f.data_type()) })
        .collect::<std::result::Result<Vec<_>, _>>()?;
    Ok(RecordBatch::try_new(schema.clone(), columns)?)
}

/// The storage this version writes for an Arrow type, `None` if `.lwc` files cannot store it.
pub(crate) fn storage_for(data_type: &DataType) -> Option<Storage> {
    use DataType::*;
    Some(match data_type {
        Int8 => Storage::Values(ValueType::I8),
        Int16 => Storage::Values(ValueType::I16),
        Int32 => Storage::Values(ValueType::I32),
        Int64 => Storage::Values(ValueType::I64),
        // Null columns (a CSV column with no values) are all-null u8 segments: a few bytes each.
        UInt8 | Boolean | Null => Storage::Values(ValueType::U8),
        UInt16 => Storage::Values(ValueType::U16),
        UInt32 => Storage::Values(ValueType::U32),
        UInt64 => Storage::Values(ValueType::U64),
        Date32 | Time32(_) | Decimal32(_, _) => Storage::Values(ValueType::I32),
        Date64 | Timestamp(_, _) | Time64(_) | Duration(_) | Decimal64(_, _) => Storage::Values(ValueType::I64),
        Decimal128(p, _) if *p <= 18 => Storage::Values(ValueType::I64),
        Decimal128(_, _) => Storage::Plain(16),
        Float16 => Storage::Plain(2),
        Float32 => Storage::Values(ValueType::F32),
        Float64 => Storage::Values(ValueType::F64),
        Utf8 | LargeUtf8 => Storage::Bytes(BytesType::Utf8),
        Binary | LargeBinary => Storage::Bytes(BytesType::Binary),
        _ => return None,
    })
    .filter(|_| parameters_valid(data_type))
}

/// Whether a type's parameters are ones Arrow accepts (time units, decimal precision and scale).
fn parameters_valid(data_type: &DataType) -> bool {
    use DataType::*;
    let decimal = |p: u8, s: i8, max: u8| (1..=max).contains(&p) && s <= p as i8;
    match *data_type {
        Time32(u) => matches!(u, TimeUnit::Second | TimeUnit::Millisecond),
        Time64(u) => matches!(u, TimeUnit::Microsecond | TimeUnit::Nanosecond),
        Decimal32(p, s) => decimal(p, s, 9),
        Decimal64(p, s) => decimal(p, s, 18),
        Decimal128(p, s) => decimal(p, s, 38),
        _ => true,
    }
}

/// Whether a footer may hold `storage` for `data_type`: what this version writes, or what version 1 wrote
/// (floats stored plain, strings in their own layout).
pub(crate) fn readable_as(storage: Storage, data_type: &DataType) -> bool {
    use DataType::*;
    let legacy = match data_type {
        Float32 => Some(Storage::Plain(4)),
        Float64 => Some(Storage::Plain(8)),
        Utf8 | LargeUtf8 | Binary | LargeBinary => Some(Storage::LegacyBytes),
        _ => None,
    };
    Some(storage) == storage_for(data_type) || Some(storage) == legacy
}

/// Fails with [`Error::UnsupportedType`] on the first field `.lwc` files cannot store.
pub(crate) fn check_schema(schema: &Schema) -> Result<Vec<Storage>> {
    schema
        .fields()
        .iter()
        .map(|f| {
            storage_for(f.data_type())
                .ok_or_else(|| Error::UnsupportedType { column: f.name().clone(), data_type: f.data_type().clone() })
        })
        .collect()
}

fn unit_id(u: TimeUnit) -> u8 {
    match u {
        TimeUnit::Second => 0,
        TimeUnit::Millisecond => 1,
        TimeUnit::Microsecond => 2,
        TimeUnit::Nanosecond => 3,
    }
}

fn unit_from_id(id: u8) -> Result<TimeUnit> {
    Ok(match id {
        0 => TimeUnit::Second,
        1 => TimeUnit::Millisecond,
        2 => TimeUnit::Microsecond,
        3 => TimeUnit::Nanosecond,
        _ => return Err(Error::Corrupt(format!("schema: unknown time unit {id}"))),
    })
}

/// Writes a type tag and its parameters. The type must pass [`storage_for`].
fn write_type(w: &mut ByteWriter, data_type: &DataType) {
    use DataType::*;
    match data_type {
        Int8 => w.u8(1),
        Int16 => w.u8(2),
        Int32 => w.u8(3),
        Int64 => w.u8(4),
        UInt8 => w.u8(5),
        UInt16 => w.u8(6),
        UInt32 => w.u8(7),
        UInt64 => w.u8(8),
        Float16 => w.u8(10),
        Float32 => w.u8(11),
        Float64 => w.u8(12),
        Boolean => w.u8(13),
        Null => w.u8(14),
        Date32 => w.u8(20),
        Date64 => w.u8(21),
        Timestamp(unit, tz) => {
            w.u8(22);
            w.u8(unit_id(*unit));
            match tz {
                None => w.u8(0),
                Some(tz) => {
                    w.u8(1);
                    w.str(tz);
                }
            }
        }
        Time32(unit) | Time64(unit) | Duration(unit) => {
            w.u8(match data_type {
                Time32(_) => 23,
                Time64(_) => 24,
                _ => 25,
            });
            w.u8(unit_id(*unit));
        }
        Decimal32(p, s) | Decimal64(p, s) | Decimal128(p, s) => {
            w.u8(match data_type {
                Decimal32(..) => 30,
                Decimal64(..) => 31,
                _ => 32,
            });
            w.u8(*p);
            w.u8(*s as u8);
        }
        Utf8 => w.u8(40),
        LargeUtf8 => w.u8(41),
        Binary => w.u8(42),
        LargeBinary => w.u8(43),
        // check_schema rejects every other type before anything is written.
        _ => w.u8(0),
    }
}

fn read_type(r: &mut ByteReader<'_>) -> Result<DataType> {
    use DataType::*;
    let tag = r.u8("type tag")?;
    let data_type = match tag {
        1 => Int8,
        2 => Int16,
        3 => Int32,
        4 => Int64,
        5 => UInt8,
        6 => UInt16,
        7 => UInt32,
        8 => UInt64,
        10 => Float16,
        11 => Float32,
        12 => Float64,
        13 => Boolean,
        14 => Null,
        20 => Date32,
        21 => Date64,
        22 => {
            let unit = unit_from_id(r.u8("timestamp unit")?)?;
            let tz = match r.u8("timestamp timezone flag")? {
                0 => None,
                1 => Some(Arc::from(r.str("timestamp timezone")?)),
                f => return Err(Error::Corrupt(format!("schema: timezone flag {f}"))),
            };
            Timestamp(unit, tz)
        }
        23 => Time32(unit_from_id(r.u8("time unit")?)?),
        24 => Time64(unit_from_id(r.u8("time unit")?)?),
        25 => Duration(unit_from_id(r.u8("duration unit")?)?),
        30..=32 => {
            let p = r.u8("decimal precision")?;
            let s = r.u8("decimal scale")? as i8;
            match tag {
                30 => Decimal32(p, s),
                31 => Decimal64(p, s),
                _ => Decimal128(p, s),
            }
        }
        40 => Utf8,
        41 => LargeUtf8,
        42 => Binary,
        43 => LargeBinary,
        _ => return Err(Error::Corrupt(format!("schema: unknown type tag {tag}"))),
    };
    if storage_for(&data_type).is_none() {
        return Err(Error::Corrupt(format!("schema: invalid type parameters {data_type}")));
    }
    Ok(data_type)
}

fn write_metadata(w: &mut ByteWriter, metadata: &HashMap<String, String>) {
    let mut entries: Vec<_> = metadata.iter().collect();
    entries.sort();
    w.u32(entries.len() as u32);
    for (k, v) in entries {
        w.str(k);
        w.str(v);
    }
}

fn read_metadata(r: &mut ByteReader<'_>) -> Result<HashMap<String, String>> {
    let n = r.u32("metadata entries")?;
    let mut metadata = HashMap::new();
    for _ in 0..n {
        let k = r.str("metadata key")?.to_string();
        let v = r.str("metadata value")?.to_string();
        metadata.insert(k, v);
    }
    Ok(metadata)
}

/// Writes a schema (every field must pass [`check_schema`]).
pub(crate) fn write_schema(w: &mut ByteWriter, schema: &Schema) {
    w.u32(schema.fields().len() as u32);
    for field in schema.fields() {
        w.str(field.name());
        w.u8(field.is_nullable() as u8);
        write_type(w, field.data_type());
        write_metadata(w, field.metadata());
    }
    write_metadata(w, schema.metadata());
}

/// Reads a schema written by [`write_schema`].
pub(crate) fn read_schema(r: &mut ByteReader<'_>) -> Result<Schema> {
    let n = r.u32("field count")?;
    let mut fields = Vec::new();
    for _ in 0..n {
        let name = r.str("field name")?.to_string();
        let nullable = match r.u8("field nullable")? {
            0 => false,
            1 => true,
            f => return Err(Error::Corrupt(format!("schema: nullable flag {f} of field '{name}'"))),
        };
        let data_type = read_type(r)?;
        let metadata = read_metadata(r)?;
        fields.push(Field::new(name, data_type, nullable).with_metadata(metadata));
    }
    let metadata = read_metadata(r)?;
    Ok(Schema::new(fields).with_metadata(metadata))
}
