//! Tool arguments: one declaration per tool gives its flat, closed JSON Schema and a validator
//! that answers bad arguments with a structured refusal, never a panic.
//!
//! A tool declares its parameters once, as a [`ToolSchema`]. From it come:
//! - [`ToolSchema::json_schema`]: one flat object with `additionalProperties: false` and enums
//!   inline (no `$ref`, no `oneOf`), published verbatim to MCP;
//! - [`ToolSchema::validate`]: the arguments as [`ValidArgs`], or an error [`Envelope`]
//!   (`invalid_arguments`, recoverable) that names the parameter and carries next steps the
//!   validator itself accepts.

pub mod genetics;
pub mod health_indicators;
pub mod lenient;
pub mod medications;
pub mod repair;
pub mod terminology;
pub mod valid;
pub mod validate;

use phi_macros::ClosedEnum;
use serde_json::{Map, Value, json};

pub use self::valid::{ArgValue, ValidArgs};
pub use self::validate::Refused;
use crate::envelope::Envelope;
use crate::envelope::kinds::View;
use crate::tool::{ToolId, ToolIdTable};
use crate::window::Window;

/// A closed set a parameter's value is chosen from.
///
/// Naming the set, rather than holding its values, lets a refusal say which set it was
/// (`not_one_of:view`) and still be a closed value itself.
///
/// ```
/// use answers_protocol::Domain;
///
/// assert_eq!(Domain::View.values()[0], "raw");
/// assert_eq!(Domain::View.value_schema()["enum"][0], "raw");
/// ```
#[derive(ClosedEnum, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Domain {
    /// [`View`]
    View,
    /// [`MedicationView`](medications::MedicationView)
    MedicationView,
    /// [`Build`](answers_genetics::Build)
    Build,
}

impl Domain {
    /// The set's wire values.
    ///
    /// ```
    /// assert_eq!(answers_protocol::Domain::View.values(), answers_protocol::View::VARIANTS);
    /// ```
    #[must_use]
    pub fn values(self) -> &'static [&'static str] {
        const VALUES: DomainTable<&'static [&'static str]> = DomainTable {
            view: View::VARIANTS,
            medication_view: medications::MedicationView::VARIANTS,
            build: answers_genetics::Build::VARIANTS,
        };
        VALUES.get(self)
    }

    /// The inline JSON Schema of the set's values, `{"type":"string","enum":[…]}`.
    /// (`Domain::json_schema` is the schema of the domain names themselves.)
    #[must_use]
    pub fn value_schema(self) -> Value {
        const SCHEMAS: DomainTable<fn() -> Value> = DomainTable {
            view: View::json_schema,
            medication_view: medications::MedicationView::json_schema,
            build: answers_genetics::Build::json_schema,
        };
        (SCHEMAS.get(self))()
    }
}

/// The type of a parameter.
///
/// ```
/// use answers_protocol::{Domain, ParamType};
///
/// assert_eq!(ParamType::TextList.json_schema()["type"], "array");
/// assert_eq!(ParamType::OneOf(Domain::View).json_schema()["enum"][6], "stats");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ParamType {
    /// A string with a non-space character.
    Text,
    /// A non-empty list of strings with a non-space character. Leniently, also a string holding a
    /// JSON array, or a bare string split on commas.
    TextList,
    /// A local date, `YYYY-MM-DD`.
    Date,
    /// A finite number.
    Number,
    /// One value of a closed set.
    OneOf(Domain),
    /// A batch of 1 to [`BATCH_MAX`] strings with a non-space character, each answered by a row
    /// of its own, in order: repeats are kept, and a bad item is refused by its index
    /// (`names.3: empty`). Leniently, also a string holding a JSON array, or one bare string (a
    /// batch of one).
    TextBatch,
}

impl ParamType {
    /// The inline JSON Schema of a value of this type.
    #[must_use]
    pub fn json_schema(self) -> Value {
        match self {
            ParamType::Text => {
                json!({"type": "string", "pattern": "\\S", "maxLength": TEXT_MAX})
            }
            ParamType::TextList => json!({
                "type": "array",
                "items": {"type": "string", "pattern": "\\S", "maxLength": TEXT_MAX},
                "minItems": 1,
                "maxItems": LIST_MAX,
            }),
            ParamType::Date => json!({
                "type": "string",
                "format": "date",
                "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$",
                "maxLength": DATE_MAX,
            }),
            ParamType::Number => json!({"type": "number"}),
            ParamType::OneOf(domain) => domain.value_schema(),
            ParamType::TextBatch => json!({
                "type": "array",
                "items": {"type": "string", "pattern": "\\S", "maxLength": TEXT_MAX},
                "minItems": 1,
                "maxItems": BATCH_MAX,
            }),
        }
    }
}

/// One parameter of a tool.
///
/// ```
/// use answers_protocol::{Param, ParamType};
///
/// const START: Param = Param::optional("start", ParamType::Date, "first local day, inclusive");
/// assert!(!START.required);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Param {
    /// The name, as published.
    pub name: &'static str,
    /// What it holds.
    pub ty: ParamType,
    /// Whether a call must give it.
    pub required: bool,
    /// What it means, for the model.
    pub description: &'static str,
}

impl Param {
    /// A required parameter.
    ///
    /// ```
    /// use answers_protocol::{Param, ParamType};
    ///
    /// assert!(Param::required("rsids", ParamType::TextList, "rsids to look up").required);
    /// ```
    #[must_use]
    pub const fn required(name: &'static str, ty: ParamType, description: &'static str) -> Self {
        Self {
            name,
            ty,
            required: true,
            description,
        }
    }

    /// An optional parameter.
    #[must_use]
    pub const fn optional(name: &'static str, ty: ParamType, description: &'static str) -> Self {
        Self {
            name,
            ty,
            required: false,
            description,
        }
    }
}

/// A tool's published arguments: parameters, the rules between them, and examples.
///
/// ```
/// use answers_protocol::args::health_indicators::QUERY_HEALTH_INDICATORS;
/// use serde_json::json;
///
/// let schema = QUERY_HEALTH_INDICATORS.json_schema();
/// assert_eq!(schema["additionalProperties"], false);
/// assert!(QUERY_HEALTH_INDICATORS.validate(&json!({"indicators": ["Body weight"]})).is_ok());
/// ```
#[derive(Debug, Clone, Copy)]
pub struct ToolSchema {
    /// The tool.
    pub tool: ToolId,
    /// What the tool does, for the model.
    pub description: &'static str,
    /// The parameters, in the order they are published and rendered.
    pub params: &'static [Param],
    /// The rules between parameters (the argument matrix), run on arguments whose every value
    /// is valid. A violation says which parameter, why, and how a call could be repaired.
    pub rules: fn(&ValidArgs) -> Result<(), Refused>,
    /// Calls the tool accepts, as JSON text; published in the schema and tested against it.
    pub examples: &'static [&'static str],
    /// Whether a refusal carries the next steps that repair it. The vocabulary server's own two
    /// tools suggest none: a reading or a complaint as printed is the caller's to correct.
    pub repairs: bool,
}

impl ToolSchema {
    /// The parameter called `name`.
    ///
    /// ```
    /// use answers_protocol::args::health_indicators::QUERY_HEALTH_INDICATORS;
    /// use answers_protocol::ParamType;
    ///
    /// assert_eq!(QUERY_HEALTH_INDICATORS.param("start").unwrap().ty, ParamType::Date);
    /// assert!(QUERY_HEALTH_INDICATORS.param("kind").is_none());
    /// ```
    #[must_use]
    pub fn param(&self, name: &str) -> Option<&'static Param> {
        self.params.iter().find(|p| p.name == name)
    }

    /// The flat, closed JSON Schema of the arguments, with the examples.
    ///
    /// ```
    /// use answers_protocol::args::health_indicators::QUERY_HEALTH_INDICATORS;
    ///
    /// let schema = QUERY_HEALTH_INDICATORS.json_schema();
    /// assert_eq!(schema["properties"]["view"]["enum"][7], "latest");
    /// assert_eq!(schema["properties"]["indicators"]["type"], "array");
    /// ```
    #[must_use]
    pub fn json_schema(&self) -> Value {
        closed_object_schema(self.description, self.params, self.examples)
    }

    /// The arguments as [`ValidArgs`], or a refusal envelope naming the first problem, with the
    /// next steps that repair it.
    ///
    /// Never panics, whatever `args` holds.
    ///
    /// ```
    /// use answers_protocol::args::health_indicators::QUERY_HEALTH_INDICATORS;
    /// use answers_protocol::{ErrorKind, render_compact};
    /// use serde_json::json;
    ///
    /// let refused = QUERY_HEALTH_INDICATORS.validate(&json!({"view": "hourly"})).unwrap_err();
    /// assert_eq!(refused.error_kind(), Some(ErrorKind::InvalidArguments));
    /// assert!(render_compact(&refused).starts_with("error (invalid_arguments): view: expected one of raw,"));
    /// ```
    // The refusal is the answer a tool returns as it is; boxing it would only make every caller
    // unbox it.
    #[allow(clippy::result_large_err)]
    pub fn validate(&self, args: &Value) -> Result<ValidArgs, Envelope> {
        validate::check(self, args).map_err(|refused| {
            let refusal =
                Envelope::refusal(self.tool, refused.parameter.as_deref(), refused.problem);
            if self.repairs {
                refusal.with_next_steps(repair::next_steps(self, args))
            } else {
                refusal
            }
        })
    }
}

/// The flat, closed JSON Schema of a tool's parameters (`additionalProperties: false`), with
/// the examples that parse: what every tool of either MCP surface publishes.
pub(crate) fn closed_object_schema(
    description: &str,
    params: &[Param],
    examples: &[&str],
) -> Value {
    let mut properties = Map::new();
    for p in params {
        let mut schema = p.ty.json_schema();
        if let Some(obj) = schema.as_object_mut() {
            obj.insert("description".into(), p.description.into());
        }
        properties.insert(p.name.into(), schema);
    }
    let required: Vec<&str> = params
        .iter()
        .filter(|p| p.required)
        .map(|p| p.name)
        .collect();
    let examples: Vec<Value> = examples
        .iter()
        .filter_map(|e| serde_json::from_str(e).ok())
        .collect();
    json!({
        "type": "object",
        "description": description,
        "properties": properties,
        "required": required,
        "additionalProperties": false,
        "examples": examples,
    })
}

/// Items a list argument (`indicators`, `keywords`, `rsids`, `drugs`, `genes`) holds at most:
/// a longer list is refused by name, before any tool runs, so one call cannot hold the store for
/// long.
///
/// ```
/// use answers_protocol::args::health_indicators::QUERY_HEALTH_INDICATORS;
/// use serde_json::json;
///
/// let many: Vec<String> = (0..=answers_protocol::args::LIST_MAX).map(|i| format!("x{i}")).collect();
/// assert!(QUERY_HEALTH_INDICATORS.validate(&json!({"indicators": many})).is_err());
/// ```
pub const LIST_MAX: usize = 100;

/// Items a batch argument of a terminology tool (`resolve_indicator(names)`,
/// `normalize_unit(units)`) holds at most, as the original's batches: each item answers with a
/// row of its own, so a batch is bounded by work the vocabulary does in memory, not by the store.
///
/// ```
/// use answers_protocol::args::terminology::NORMALIZE_UNIT;
/// use serde_json::json;
///
/// let units = vec!["mg/dl"; answers_protocol::args::BATCH_MAX];
/// assert!(NORMALIZE_UNIT.validate(&json!({"units": units})).is_ok());
/// let units = vec!["mg/dl"; answers_protocol::args::BATCH_MAX + 1];
/// assert!(NORMALIZE_UNIT.validate(&json!({"units": units})).is_err());
/// ```
pub const BATCH_MAX: usize = 200;

/// Characters a string argument (a name, keyword, code, unit, gene or rsid, or one item of a
/// list) holds at most, after trimming: published as `maxLength`, and a longer one is refused
/// by name (`too_long`, `invalid_arguments`) before any tool runs, so a 50,000-byte keyword
/// never reaches the store. The longest LOINC long common name is under 200 characters.
///
/// JSON Schema counts characters, not bytes, and so does the check: at most 1,024 bytes of
/// UTF-8.
///
/// ```
/// use answers_protocol::args::health_indicators::QUERY_HEALTH_INDICATORS;
/// use answers_protocol::args::TEXT_MAX;
/// use serde_json::json;
///
/// let long = "x".repeat(TEXT_MAX + 1);
/// assert!(QUERY_HEALTH_INDICATORS.validate(&json!({"keywords": [long]})).is_err());
/// let schema = QUERY_HEALTH_INDICATORS.json_schema();
/// assert_eq!(schema["properties"]["keywords"]["items"]["maxLength"], TEXT_MAX);
/// ```
pub const TEXT_MAX: usize = 256;

/// Characters of a date argument (`YYYY-MM-DD`), published as its `maxLength`.
pub const DATE_MAX: usize = 10;

/// The [`ToolSchema`] of a tool.
///
/// ```
/// use answers_protocol::{ToolId, args::schema_for};
///
/// assert_eq!(schema_for(ToolId::StandardizeReading).tool, ToolId::StandardizeReading);
/// ```
#[must_use]
pub fn schema_for(tool: ToolId) -> &'static ToolSchema {
    const SCHEMAS: ToolIdTable<&'static ToolSchema> = ToolIdTable {
        query_health_indicators: &health_indicators::QUERY_HEALTH_INDICATORS,
        query_medications: &medications::QUERY_MEDICATIONS,
        query_genetic_data: &genetics::QUERY_GENETIC_DATA,
        query_pharmacogenomics: &genetics::QUERY_PHARMACOGENOMICS,
        standardize_reading: &terminology::STANDARDIZE_READING,
        standardize_complaint: &terminology::STANDARDIZE_COMPLAINT,
        resolve_indicator: &terminology::RESOLVE_INDICATOR,
        convert_unit: &terminology::CONVERT_UNIT,
        normalize_unit: &terminology::NORMALIZE_UNIT,
    };
    SCHEMAS.get(tool)
}

/// The optional `start` of a tool's window, a local date.
pub const WINDOW_START: Param = Param::optional(
    "start",
    ParamType::Date,
    "first local day of the window, YYYY-MM-DD, inclusive",
);

/// The optional `end` of a tool's window, a local date.
pub const WINDOW_END: Param = Param::optional(
    "end",
    ParamType::Date,
    "last local day of the window, YYYY-MM-DD, inclusive",
);

/// Writes the bounds `window` has as [`WINDOW_START`] and [`WINDOW_END`] into `args`.
fn insert_window(args: &mut Map<String, Value>, window: &Window) {
    for (name, day) in [("start", window.start()), ("end", window.end())] {
        if let Some(day) = day {
            args.insert(name.into(), day.to_string().into());
        }
    }
}

/// A tool's call read from its arguments: validated by the tool's [`ToolSchema`], then read
/// from the strict form.
///
/// ```
/// use answers_protocol::args::FromArgs;
/// use answers_protocol::args::medications::MedicationQuery;
/// use serde_json::json;
///
/// assert!(MedicationQuery::from_args(&json!({"start": "2026-13-01"})).is_err());
/// assert!(MedicationQuery::from_args(&json!({"start": "2026-03-01"})).is_ok());
/// ```
pub trait FromArgs: Sized {
    /// The schema the arguments must pass.
    const SCHEMA: &'static ToolSchema;

    /// Reads arguments that passed [`SCHEMA`](Self::SCHEMA).
    fn from_valid(args: &ValidArgs) -> Self;

    /// Validates `args` and reads them, or refuses them.
    // The refusal is the answer a tool returns as it is; boxing it would only make every caller
    // unbox it.
    #[allow(clippy::result_large_err)]
    fn from_args(args: &Value) -> Result<Self, Envelope> {
        let valid = Self::SCHEMA.validate(args)?;
        Ok(Self::from_valid(&valid))
    }
}

impl ValidArgs {
    /// The window from `start` to `end`, all recorded data when neither is given.
    ///
    /// The schemas refuse `end` before `start`, so a window that cannot be built does not occur
    /// for validated arguments; it would read as all recorded data.
    #[must_use]
    pub fn window(&self) -> Window {
        Window::between(self.date("start"), self.date("end")).unwrap_or_default()
    }
}
