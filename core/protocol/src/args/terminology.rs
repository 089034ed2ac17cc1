//! The closed schemas of the terminology tools (`resolve_indicator`, `convert_unit`,
//! `normalize_unit`, published by both MCP surfaces) and of the vocabulary server's own tools
//! (`standardize_reading`, `standardize_complaint`, with no rules between parameters and no
//! repair steps).
//!
//! ```
//! use answers_protocol::args::terminology::{CONVERT_UNIT, STANDARDIZE_READING};
//! use serde_json::json;
//!
//! assert!(CONVERT_UNIT.validate(&json!({"value": 100, "from": "mg/dL", "to": "mmol/L"})).is_ok());
//! let schema = STANDARDIZE_READING.json_schema();
//! assert_eq!(schema["additionalProperties"], false);
//! assert_eq!(schema["required"], json!(["name", "value", "unit"]));
//! ```

use super::repair::Repair;
use super::{Param, ParamType, Refused, ToolSchema, ValidArgs};
use crate::envelope::error::ArgProblem;
use crate::envelope::next_step::NextAction;
use crate::tool::ToolId;

/// One item (`one`) or a batch (`batch`), exactly one of them: neither is `one` missing, both is
/// the batch given twice.
fn one_or_batch(args: &ValidArgs, one: &'static str, batch: &'static str) -> Result<(), Refused> {
    match (args.has(one), args.has(batch)) {
        (false, false) => Err(Refused::new(Some(one), ArgProblem::Missing)
            .repair(Repair::new(NextAction::FixArguments).supply(one))
            .repair(Repair::new(NextAction::FixArguments).supply(batch))),
        (true, true) => Err(Refused::new(Some(batch), ArgProblem::GivenTwice)
            .repair(Repair::new(NextAction::RemoveParameter).remove(batch))
            .repair(Repair::new(NextAction::RemoveParameter).remove(one))),
        _ => Ok(()),
    }
}

/// A parameter under its name or the original's (`from` or `from_unit`): exactly one of them
/// when `required`, at most one otherwise.
fn one_spelling(
    args: &ValidArgs,
    name: &'static str,
    original: &'static str,
    required: bool,
) -> Result<(), Refused> {
    match (args.has(name), args.has(original)) {
        (false, false) if required => Err(Refused::new(Some(name), ArgProblem::Missing)
            .repair(Repair::new(NextAction::FixArguments).supply(name))),
        (true, true) => Err(Refused::new(Some(original), ArgProblem::GivenTwice)
            .repair(Repair::new(NextAction::RemoveParameter).remove(original))),
        _ => Ok(()),
    }
}

fn resolve_rules(args: &ValidArgs) -> Result<(), Refused> {
    one_or_batch(args, "name", "names")
}

fn normalize_rules(args: &ValidArgs) -> Result<(), Refused> {
    one_or_batch(args, "unit", "units")
}

fn convert_rules(args: &ValidArgs) -> Result<(), Refused> {
    one_spelling(args, "from", "from_unit", true)?;
    one_spelling(args, "to", "to_unit", true)?;
    one_spelling(args, "indicator", "loinc_code", false)
}

/// `resolve_indicator(name)`, or a batch `resolve_indicator(names=[…])` as the original takes it.
///
/// ```
/// use answers_protocol::args::terminology::RESOLVE_INDICATOR;
/// use answers_protocol::render_compact;
/// use serde_json::json;
///
/// assert!(RESOLVE_INDICATOR.validate(&json!({"name": "血糖"})).is_ok());
/// assert!(RESOLVE_INDICATOR.validate(&json!({"names": ["血糖", "HbA1c"]})).is_ok());
/// assert!(RESOLVE_INDICATOR.validate(&json!({"name": "x", "kind": "lab"})).is_err());
/// let refused = RESOLVE_INDICATOR.validate(&json!({"names": ["血糖", ""]})).unwrap_err();
/// assert!(render_compact(&refused).starts_with("error (invalid_arguments): names.1: empty"));
/// ```
pub static RESOLVE_INDICATOR: ToolSchema = ToolSchema {
    tool: ToolId::ResolveIndicator,
    description: "Resolve an indicator or symptom name (a device's name, a lab report's name, a \
        plain English or Chinese word, or a code) to its code: LOINC for a measurement, ICPC for \
        a symptom, with the official name and canonical UCUM unit, and ranked candidates. Give \
        name, or names for a batch of up to 200 (one row per name, in order).",
    params: &[
        Param::optional(
            "name",
            ParamType::Text,
            "the name as written, e.g. \"fasting glucose\", \"血糖\", \"HbA1c\", \"headache\"; not with names",
        ),
        Param::optional(
            "names",
            ParamType::TextBatch,
            "a batch of names, answered one row each (the best candidate); not with name",
        ),
    ],
    rules: resolve_rules,
    examples: &[
        r#"{"name": "blood glucose"}"#,
        r#"{"name": "Glycated Hemoglobin-HbA1c"}"#,
        r#"{"name": "头疼"}"#,
        r#"{"names": ["HbA1c", "心率", "LDL-C"]}"#,
    ],
    repairs: true,
};

/// `convert_unit(value, from, to, indicator?)`, also under the original's names
/// `convert_unit(value, from_unit, to_unit, loinc_code?)`.
///
/// ```
/// use answers_protocol::args::terminology::CONVERT_UNIT;
/// use serde_json::json;
///
/// let refused = CONVERT_UNIT.validate(&json!({"value": 5.5, "from": "mmol/L"})).unwrap_err();
/// assert!(answers_protocol::render_compact(&refused).starts_with("error (invalid_arguments): to: required but missing"));
/// let original = json!({"value": 5.5, "from_unit": "mmol/L", "to_unit": "mg/dL", "loinc_code": "2345-7"});
/// assert!(CONVERT_UNIT.validate(&original).is_ok());
/// ```
pub static CONVERT_UNIT: ToolSchema = ToolSchema {
    tool: ToolId::ConvertUnit,
    description: "Convert a value from one unit to another through UCUM. Units may be written \
        as printed (mg/dl, mmHg, bpm, °C, 毫摩尔每升) or as UCUM codes. Between mass and molar \
        units (mg/dL and mmol/L) give indicator, the analyte, whose molar mass is used. The \
        original's names from_unit, to_unit and loinc_code are accepted for from, to and \
        indicator.",
    params: &[
        Param::required("value", ParamType::Number, "the value to convert"),
        Param::optional(
            "from",
            ParamType::Text,
            "the unit the value is in, e.g. mg/dL (or from_unit)",
        ),
        Param::optional(
            "to",
            ParamType::Text,
            "the unit wanted, e.g. mmol/L (or to_unit)",
        ),
        Param::optional(
            "indicator",
            ParamType::Text,
            "the analyte (a name or LOINC code, e.g. glucose); needed between mass and molar units (or loinc_code)",
        ),
        Param::optional("from_unit", ParamType::Text, "the original's name for from"),
        Param::optional("to_unit", ParamType::Text, "the original's name for to"),
        Param::optional(
            "loinc_code",
            ParamType::Text,
            "the original's name for indicator: the analyte's LOINC code, e.g. 2345-7",
        ),
    ],
    rules: convert_rules,
    examples: &[
        r#"{"value": 98.6, "from": "[degF]", "to": "Cel"}"#,
        r#"{"value": 126, "from": "mg/dL", "to": "mmol/L", "indicator": "glucose"}"#,
        r#"{"value": 120, "from": "mmHg", "to": "kPa"}"#,
        r#"{"value": 5.5, "from_unit": "mmol/L", "to_unit": "mg/dL", "loinc_code": "2345-7"}"#,
    ],
    repairs: true,
};

/// `normalize_unit(unit)`, or a batch `normalize_unit(units=[…])` as the original takes it.
///
/// ```
/// use answers_protocol::args::terminology::NORMALIZE_UNIT;
/// use serde_json::json;
///
/// assert!(NORMALIZE_UNIT.validate(&json!({"unit": "bpm"})).is_ok());
/// assert!(NORMALIZE_UNIT.validate(&json!({"units": ["bpm", "次/分"]})).is_ok());
/// assert!(NORMALIZE_UNIT.validate(&json!({"unit": "bpm", "units": ["bpm"]})).is_err());
/// ```
pub static NORMALIZE_UNIT: ToolSchema = ToolSchema {
    tool: ToolId::NormalizeUnit,
    description: "Give the canonical UCUM spelling of a unit as printed: mg/dl becomes mg/dL, \
        bpm and 次/分 become /min, mmHg becomes mm[Hg], °C becomes Cel. Give unit, or units for \
        a batch of up to 200 (one row per unit, in order).",
    params: &[
        Param::optional(
            "unit",
            ParamType::Text,
            "the unit as printed; not with units",
        ),
        Param::optional(
            "units",
            ParamType::TextBatch,
            "a batch of units as printed, answered one row each; not with unit",
        ),
    ],
    rules: normalize_rules,
    examples: &[
        r#"{"unit": "mg/dl"}"#,
        r#"{"unit": "bpm"}"#,
        r#"{"units": ["mg/dl", "次/分", "毫摩尔每升"]}"#,
    ],
    repairs: true,
};

/// The rules of a tool whose parameters are independent: none.
// The signature is the one every `ToolSchema::rules` has.
#[allow(clippy::unnecessary_wraps)]
fn no_rules(_: &ValidArgs) -> Result<(), Refused> {
    Ok(())
}

/// `standardize_reading(name, value, unit, time?)`.
pub static STANDARDIZE_READING: ToolSchema = ToolSchema {
    tool: ToolId::StandardizeReading,
    description: "Turn a reading as printed (a name as a device, a lab report or a person writes \
        it, in English or Chinese; a value; a unit as printed) into a FHIR R4 Observation with \
        its LOINC coding and a UCUM valueQuantity.",
    params: &[
        Param::required(
            "name",
            ParamType::Text,
            "the indicator's name as printed, e.g. \"Glucose\", \"空腹血糖\", \"Glycated Hemoglobin-HbA1c\"",
        ),
        Param::required("value", ParamType::Number, "the value as printed"),
        Param::required(
            "unit",
            ParamType::Text,
            "the unit as printed, e.g. mg/dl, mmol/L, bpm, mmHg",
        ),
        Param::optional(
            "time",
            ParamType::Text,
            "when it was measured: YYYY-MM-DD, or a date-time with its offset (2024-03-01T08:30:00+01:00)",
        ),
    ],
    rules: no_rules,
    examples: &[
        r#"{"name": "fasting glucose", "value": 5.4, "unit": "mmol/l"}"#,
        r#"{"name": "血糖", "value": 98, "unit": "mg/dl", "time": "2024-03-01"}"#,
    ],
    repairs: false,
};

/// `standardize_complaint(text)`.
///
/// ```
/// use answers_protocol::args::terminology::STANDARDIZE_COMPLAINT;
/// use serde_json::json;
///
/// let refused = STANDARDIZE_COMPLAINT.validate(&json!({"text": "头疼", "lang": "zh"})).unwrap_err();
/// let text = answers_protocol::render_compact(&refused);
/// assert!(text.starts_with("error (invalid_arguments): lang: unknown parameter"));
/// assert!(refused.next_steps().is_empty());
/// ```
pub static STANDARDIZE_COMPLAINT: ToolSchema = ToolSchema {
    tool: ToolId::StandardizeComplaint,
    description: "Code a complaint as the person said it (English or Chinese, e.g. \"headache\", \
        \"头疼\") on ICPC: the code and title from the bundled subset, with ranked candidates.",
    params: &[Param::required(
        "text",
        ParamType::Text,
        "the complaint as said, e.g. \"I have a headache\", \"头疼\"",
    )],
    rules: no_rules,
    examples: &[r#"{"text": "headache"}"#, r#"{"text": "我头疼"}"#],
    repairs: false,
};
