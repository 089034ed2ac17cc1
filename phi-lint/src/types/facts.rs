//! What a type tells about the values it holds.

use phi_filter::names::NameClass;

use super::{Ty, TypeDef, Types};

/// What a resolved type says about a value, for the verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Fact {
    /// Proves an opaque id: `Uuid`, `Ulid`, and newtypes named `…Id` over an id or an integer.
    Id,
    /// Proves a duration: `Duration`, `TimeDelta`, a difference of `Instant`s.
    Duration,
    /// Proves a status: `StatusCode`, a `tracing` `Level`.
    Status,
    /// Text compiled into the program: a `&'static str` (a literal, a `const`, a `static`),
    /// whatever a function took to choose it (`fn yes_no(b: bool) -> &'static str`).
    Constant,
    /// An integer: safe only under a name of a safe class.
    Integer,
    /// A float: safe only under a name of a safe class.
    Float,
    /// A bool: safe only under a name of a safe class.
    Bool,
    /// A fieldless enum (its name is given): safe only under a status, kind, state or level
    /// name.
    FieldlessEnum(String),
    /// A point in time (`Instant`, `SystemTime`): not a class.
    Instant,
    /// Free text (`String`, `str`, or a newtype over it): refutes an id, status or count name.
    Text(String),
    /// A struct, an enum with data, a map or a collection: refutes an id, status or count name.
    Composite(String),
    /// A type whose own name is in a safe class and whose content agrees with it: a newtype
    /// over a number (`RecordIdx(u64)`, `SchemaVersion(i16)`), a text newtype named as a type
    /// name (`AttributeName(String)`), a fieldless enum named as a state or kind (`SearchMode`).
    /// The type's name is given.
    Classed(String),
    /// An error type whose message is fixed text: it never quotes its input.
    FixedError,
    /// Another error type (`io::Error`, `anyhow::Error`, a struct named `…Error`): its message
    /// can quote the data it failed on, whatever the value is called.
    Error,
    /// Not known: today's name rules apply.
    Unknown,
}

/// Error types of the standard library and common crates whose `Display` and `Debug` print fixed
/// text (and numbers), never the input they failed on: `"invalid digit found in string"`,
/// `"deadline has elapsed"`, `"channel closed"`. `serde_json::Error`, `io::Error` and
/// `anyhow::Error` are not here: they can quote input, paths or anything a caller attached. Nor is
/// `FromUtf8Error`: its `Display` is fixed, but its `Debug` prints every byte it failed on.
const FIXED_MESSAGE_ERRORS: &[&str] = &[
    "ParseIntError",
    "ParseFloatError",
    "ParseBoolError",
    "ParseCharError",
    "TryFromIntError",
    "TryFromSliceError",
    "Utf8Error",
    "RecvError",
    "TryRecvError",
    "RecvTimeoutError",
    "Elapsed",
    "AcquireError",
    "TryAcquireError",
    "SystemTimeError",
    "ErrorKind",
];

/// How the index names `&'static str` (see [`Ty::from_syn`](super::Ty::from_syn)).
pub(crate) const STATIC_STR: &str = "&'static str";

impl Fact {
    /// Whether the type alone proves the value safe, under any name: an id, a duration, a
    /// status code, text compiled into the program.
    pub(crate) fn proves_class(&self) -> bool {
        matches!(
            self,
            Fact::Id | Fact::Duration | Fact::Status | Fact::Constant | Fact::Classed(_)
        )
    }
}

/// The fact of a type, through the index's definitions.
pub(crate) fn fact_of(ty: &Ty, index: &Types<'_>) -> Fact {
    fact_depth(ty, index, 0)
}

fn fact_depth(ty: &Ty, index: &Types<'_>, depth: u8) -> Fact {
    if depth > 4 {
        return Fact::Unknown;
    }
    // `type RecordIdx = u64`: an alias named in a safe class over a number claims the class,
    // as a newtype of that name does.
    let resolved = index.resolve(ty);
    if let Ty::Named(alias, _) = ty
        && resolved != *ty
        && type_name_class(alias).is_some()
        && matches!(
            fact_depth(&resolved, index, depth + 1),
            Fact::Integer | Fact::Float | Fact::Bool
        )
    {
        return Fact::Classed(alias.to_string());
    }
    let ty = resolved;
    let (name, args) = match &ty {
        Ty::Named(n, a) => (n.as_str(), a),
        Ty::Tuple(t) if t.is_empty() => return Fact::Unknown,
        Ty::Tuple(_) | Ty::Slice(_) => return Fact::Composite("a collection".into()),
        Ty::Unknown => return Fact::Unknown,
    };
    // An error type the tree defines itself under a fixed-message error's name (its own
    // `ErrorKind` carrying a `String`) is judged by its definition, not by the name. Only
    // those: the index keeps a type's last segment, so a tree's own `Uuid(String)` would also
    // claim every `uuid::Uuid` its other crates name.
    let own = FIXED_MESSAGE_ERRORS.contains(&name)
        && matches!(
            index.def(name),
            Some(TypeDef::Struct { .. } | TypeDef::Enum { .. })
        );
    match name {
        // A trait object proves nothing of its own (`Box<dyn Error>` is judged by its name).
        n if n.starts_with(super::DYN) => return Fact::Unknown,
        STATIC_STR => return Fact::Constant,
        "Uuid" | "Ulid" | "TraceId" | "SpanId" => return Fact::Id,
        "u8" | "u16" | "u32" | "u64" | "u128" | "usize" | "i8" | "i16" | "i32" | "i64" | "i128"
        | "isize" | "NonZeroU8" | "NonZeroU16" | "NonZeroU32" | "NonZeroU64" | "NonZeroUsize"
        | "NonZeroI32" | "NonZeroI64" | "{integer}" => return Fact::Integer,
        "f32" | "f64" | "{float}" => return Fact::Float,
        "bool" => return Fact::Bool,
        "Duration" | "TimeDelta" => return Fact::Duration,
        "Instant" | "SystemTime" => return Fact::Instant,
        "StatusCode" | "Level" | "LevelFilter" => return Fact::Status,
        "String" | "str" | "OsString" | "OsStr" | "SmolStr" | "CompactString" | "ArcStr" => {
            return Fact::Text(name.to_owned());
        }
        // `Debug` of a `Result` prints its `Err` as well as its `Ok`: the error decides unless
        // its type proves it fixed text (`Result<u64, ParseIntError>` is a number). A `Result<T>`
        // of an alias the index does not know (`anyhow::Result<T>`) holds an error of a type
        // nobody can check.
        "Result" if !args.is_empty() => {
            let err = args
                .get(1)
                .map_or(Fact::Error, |e| fact_depth(e, index, depth + 1));
            return match err {
                Fact::FixedError
                | Fact::FieldlessEnum(_)
                | Fact::Id
                | Fact::Duration
                | Fact::Status
                | Fact::Constant
                | Fact::Classed(_) => fact_depth(&args[0], index, depth + 1),
                _ => Fact::Error,
            };
        }
        // A range holds two values of its type (`Range<RecordIdx>` is two record indices).
        "Option" | "Result" | "NonNull" | "Mutex" | "RwLock" | "Range" | "RangeInclusive" => {
            return args
                .first()
                .map_or(Fact::Unknown, |a| fact_depth(a, index, depth + 1));
        }
        "HashMap" | "BTreeMap" | "IndexMap" | "HashSet" | "BTreeSet" | "IndexSet" | "Vec"
        | "VecDeque" => return Fact::Composite(name.to_owned()),
        n if FIXED_MESSAGE_ERRORS.contains(&n) && !own => return Fact::FixedError,
        _ => {}
    }
    match index.def(name) {
        Some(TypeDef::Enum {
            fieldless: true, ..
        }) => match type_name_class(name) {
            Some(_) => Fact::Classed(name.to_owned()),
            None if is_state_type_name(name) => Fact::Classed(name.to_owned()),
            None => Fact::FieldlessEnum(name.to_owned()),
        },
        Some(TypeDef::Struct {
            fields,
            tuple: true,
        }) if fields.is_empty() => {
            // A unit struct holds nothing; as an error its message is fixed text.
            Fact::FixedError
        }
        Some(TypeDef::Struct {
            fields,
            tuple: true,
        }) if fields.len() == 1 => {
            let inner = fact_depth(&fields[0].1, index, depth + 1);
            match (inner, type_name_class(name)) {
                (Fact::Id | Fact::Integer, _) if is_id_type_name(name) => Fact::Id,
                // `RecordIdx(u64)`, `SchemaVersion(i16)`: the type's name claims a class and a
                // number agrees with any class, as it does under a field of that name.
                // `AttributeName(String)`: text is a type name's content; under an id, status or
                // count name (`LoginId(String)`) it stays free text, which refutes the name.
                (Fact::Integer | Fact::Float | Fact::Bool | Fact::FieldlessEnum(_), Some(_))
                | (Fact::Text(_), Some(NameClass::TypeName | NameClass::Duration)) => {
                    Fact::Classed(name.to_owned())
                }
                (Fact::Text(_), _) => Fact::Text(name.to_owned()),
                (other, _) => other,
            }
        }
        // A struct, or an enum with data.
        Some(TypeDef::Struct { fields, .. } | TypeDef::Enum { fields, .. }) => {
            if !is_error_type_name(name) {
                Fact::Composite(name.to_owned())
            } else if fields
                .iter()
                .all(|(field, ty)| is_safe_error_field(field, ty, index, depth))
            {
                // An error of this tree that holds nothing that can carry input: whatever its
                // `Display` or `Debug` prints is fixed text and safe values.
                Fact::FixedError
            } else {
                Fact::Error
            }
        }
        Some(TypeDef::Alias(_)) | None if is_error_type_name(name) => Fact::Error,
        Some(TypeDef::Alias(_)) | None => Fact::Unknown,
    }
}

/// Whether a field of an error type is safe to print with it: a type that proves a class (an id,
/// a duration, a status code, an error that never quotes input, checked to a few levels), or a
/// number, bool or fieldless enum under a name of a safe class (`len`, `status`, `attempt_count`).
/// A positional number is not safe: nothing says it is not a reading.
fn is_safe_error_field(field: &str, ty: &Ty, index: &Types<'_>, depth: u8) -> bool {
    match fact_depth(ty, index, depth + 1) {
        Fact::Id
        | Fact::Duration
        | Fact::Status
        | Fact::Constant
        | Fact::Classed(_)
        | Fact::FixedError => true,
        Fact::Integer | Fact::Bool | Fact::FieldlessEnum(_) => {
            !field.starts_with(|c: char| c.is_ascii_digit())
                && phi_filter::names::name_class(&phi_filter::names::to_snake(field)).is_some()
        }
        _ => false,
    }
}

/// The safe class a type's own name claims (`RecordIdx` a count, `SchemaVersion` and
/// `AttributeName` type names, `JobStatus` a status), unless the name carries a deny stem
/// (`PatientIdx`, `BloodType`, `DisplayName`). Built-in stems only: the index is shared by every
/// configuration.
fn type_name_class(name: &str) -> Option<NameClass> {
    let snake = phi_filter::names::to_snake(name);
    if phi_filter::names::deny_stem(&snake, phi_filter::names::DEFAULT_DENY_STEMS).is_some() {
        return None;
    }
    phi_filter::names::name_class(&snake)
}

/// A fieldless enum named as a state (`SearchMode`, `SyncPhase`), unless a deny stem says it is
/// about a person (`PregnancyState`). A stage is not a state here: `SleepStage` and
/// `CancerStage` are health facts with a closed set of values.
fn is_state_type_name(name: &str) -> bool {
    let snake = phi_filter::names::to_snake(name);
    let last = snake.rsplit('_').next().unwrap_or(&snake);
    snake.len() > last.len()
        && matches!(last, "state" | "mode" | "phase" | "direction")
        && phi_filter::names::deny_stem(&snake, phi_filter::names::DEFAULT_DENY_STEMS).is_none()
}

/// `Error` (the last segment of `io::Error`), `DbError`, `SqlxError`.
fn is_error_type_name(name: &str) -> bool {
    name.ends_with("Error")
}

/// `UserId`, `EventUuid`, `RowID`.
fn is_id_type_name(name: &str) -> bool {
    name.ends_with("Id") || name.ends_with("ID") || name.ends_with("Uuid")
}
