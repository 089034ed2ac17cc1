//! The terminology tools: database-free, the same bodies for both MCP surfaces.
//!
//! - [`resolve_indicator`]`(name)`: the LOINC (or, for a symptom, ICPC) code, official name,
//!   canonical UCUM unit and ranked candidates, through the bundled vocabulary.
//! - [`convert_unit`]`(value, from, to, indicator?)`: through UCUM; between mass and molar units
//!   through the analyte's molar mass, refused by name without one.
//! - [`normalize_unit`]`(unit)`: the canonical UCUM spelling.
//!
//! The original's shapes are accepted too, as it takes them: `resolve_indicator(names=[…])` and
//! `normalize_unit(units=[…])`, batches of up to 200 answered one row per item in order, a bad
//! item refusing the batch by its index (`names.3`); and `convert_unit(value, from_unit,
//! to_unit, loinc_code)`.
//! - [`standardize_reading`] and [`standardize_complaint`]: the vocabulary server's own (FHIR
//!   `Observation`; ICPC), not among the seven published tools.
//!
//! Each takes the arguments as JSON and answers with an [`Envelope`]; none raises. A panic
//! becomes a `tool_panic` fault told by its payload's type.
//!
//! ```
//! use answers_tools::terminology::convert_unit;
//! use answers_protocol::{Cell, Status};
//! use serde_json::json;
//!
//! let env = convert_unit(&json!({"value": 100, "from": "mg/dl", "to": "mmol/L", "indicator": "glucose"}));
//! assert_eq!(env.status(), Status::Ok);
//! let table = &env.data()[0];
//! let result = table.columns().iter().position(|c| c == "result").unwrap();
//! assert_eq!(table.rows()[0][result], Cell::Float(5.551));
//! ```

pub mod complaint;
pub mod fhir;
pub mod rank;
pub mod reading;
pub mod units;

use serde_json::Value;

use crate::args::terminology::{CONVERT_UNIT, NORMALIZE_UNIT, RESOLVE_INDICATOR};
use crate::envelope::Envelope;
use crate::envelope::error::ArgProblem;
use crate::envelope::meta::Meta;
use crate::envelope::next_step::{NextAction, NextStep};
use crate::envelope::table::{Cell, Table};
use crate::fault::guarded;
use crate::tool::ToolId;
use crate::vocab::{CodeSystem, Vocabulary};

pub use self::complaint::standardize_complaint;
pub use self::reading::standardize_reading;

/// `resolve_indicator(name)`: table `candidates` (rank, match, system, code, name, unit,
/// `molar_mass_g_per_mol`, matched key), best first; the first row is the resolution. A name
/// that reaches nothing is refused (`name: no indicator of that name …`).
///
/// `resolve_indicator(names=[…])`, the original's batch of up to
/// [`BATCH_MAX`](crate::args::BATCH_MAX): table `resolutions`, one row per name in order
/// (index, input, then the best candidate's columns). A name that reaches nothing refuses the
/// batch by its index (`names.3: no indicator of that name …`).
///
/// ```
/// use answers_tools::terminology::resolve_indicator;
/// use serde_json::json;
///
/// let env = resolve_indicator(&json!({"name": "Glycated Hemoglobin-HbA1c"}));
/// let text = answers_protocol::render_compact(&env);
/// assert!(text.contains("4548-4"), "{text}");
/// let batch = resolve_indicator(&json!({"names": ["HbA1c", "心率"]}));
/// assert_eq!(batch.data()[0].rows().len(), 2);
/// ```
#[must_use]
pub fn resolve_indicator(args: &Value) -> Envelope {
    guarded(ToolId::ResolveIndicator, Vec::new, || {
        Ok(resolve_body(Vocabulary::bundled(), args))
    })
}

/// The columns a candidate fills, after the batch's `index` and `input` or the rank's.
const CANDIDATE_COLUMNS: [&str; 7] = [
    "match",
    "system",
    "code",
    "name",
    "unit",
    "molar_mass_g_per_mol",
    "matched",
];

/// A candidate's cells, in [`CANDIDATE_COLUMNS`] order.
fn candidate_cells(vocab: &Vocabulary, c: &rank::Candidate) -> [Cell; 7] {
    let entry = vocab.entry(&c.code);
    let molar = match c.code.system {
        CodeSystem::Loinc => vocab.molar_mass(&c.code.code),
        CodeSystem::Icpc => None,
    };
    [
        c.how.as_str().into(),
        fhir::system_uri(c.code.system).into(),
        c.code.code.as_str().into(),
        entry.map(|e| e.name.as_str()).into(),
        entry.and_then(|e| e.unit.as_deref()).into(),
        molar.into(),
        c.key.as_str().into(),
    ]
}

/// The columns of a batch's table: `index`, `input`, then `rest`.
fn batch_columns(rest: &[&'static str]) -> Vec<&'static str> {
    ["index", "input"]
        .into_iter()
        .chain(rest.iter().copied())
        .collect()
}

/// A batch's row: the item's index and input, then `rest`.
fn batch_row(index: usize, input: &str, rest: impl IntoIterator<Item = Cell>) -> Vec<Cell> {
    let index = i64::try_from(index).unwrap_or(i64::MAX);
    [Cell::Int(index), input.into()]
        .into_iter()
        .chain(rest)
        .collect()
}

/// The refusal of a batch whose item `index` of `param` is `problem`, with a step to give the
/// batch again.
fn refuse_item(tool: ToolId, param: &'static str, index: usize, problem: ArgProblem) -> Envelope {
    Envelope::refusal(tool, Some(&format!("{param}.{index}")), problem)
        .with_next_step(NextStep::new(NextAction::FixArguments, tool).supply(param))
}

fn resolve_body(vocab: &Vocabulary, args: &Value) -> Envelope {
    let valid = match RESOLVE_INDICATOR.validate(args) {
        Ok(valid) => valid,
        Err(refusal) => return refusal,
    };
    if let Some(names) = valid.text_list("names") {
        return resolve_batch(vocab, names);
    }
    let name = valid.text("name").unwrap_or_default();
    let found = rank::candidates(vocab, name, None);
    if found.is_empty() {
        return Envelope::refusal(
            ToolId::ResolveIndicator,
            Some("name"),
            ArgProblem::UnknownIndicator,
        )
        .with_next_step(
            NextStep::new(NextAction::FixArguments, ToolId::ResolveIndicator).supply("name"),
        );
    }
    let columns: Vec<&str> = ["rank"].into_iter().chain(CANDIDATE_COLUMNS).collect();
    let mut table = Table::new("candidates", columns);
    for (rank, c) in (1_i64..).zip(&found) {
        let row: Vec<Cell> = [Cell::Int(rank)]
            .into_iter()
            .chain(candidate_cells(vocab, c))
            .collect();
        // The row has exactly the table's columns.
        let _ = table.push_row(row);
    }
    Envelope::ok(Meta::none()).with_table(table)
}

/// One row per name, the best candidate of each; the first name that reaches nothing refuses
/// the batch by its index.
fn resolve_batch(vocab: &Vocabulary, names: &[String]) -> Envelope {
    let mut table = Table::new("resolutions", batch_columns(&CANDIDATE_COLUMNS));
    for (index, name) in names.iter().enumerate() {
        let Some(best) = rank::candidates(vocab, name, None).into_iter().next() else {
            return refuse_item(
                ToolId::ResolveIndicator,
                "names",
                index,
                ArgProblem::UnknownIndicator,
            );
        };
        let _ = table.push_row(batch_row(index, name, candidate_cells(vocab, &best)));
    }
    Envelope::ok(Meta::none()).with_table(table)
}

/// `normalize_unit(unit)`: table `unit` (input, ucum, via, display). A unit neither the bundled
/// spellings nor UCUM know is refused (`unit: not a unit …`), with a step to supply another.
///
/// `normalize_unit(units=[…])`, the original's batch of up to
/// [`BATCH_MAX`](crate::args::BATCH_MAX): table `units`, one row per unit in order (index,
/// input, ucum, via, display); a unit nothing knows refuses the batch by its index
/// (`units.2: not a unit …`).
///
/// ```
/// use answers_tools::terminology::normalize_unit;
/// use serde_json::json;
///
/// let text = answers_protocol::render_compact(&normalize_unit(&json!({"unit": "bpm"})));
/// assert!(text.contains("bpm | /min | alias"), "{text}");
/// let text = answers_protocol::render_compact(&normalize_unit(&json!({"units": ["次/分", "mg/dl"]})));
/// assert!(text.contains("0 | 次/分 | /min"), "{text}");
/// ```
#[must_use]
pub fn normalize_unit(args: &Value) -> Envelope {
    guarded(ToolId::NormalizeUnit, Vec::new, || {
        Ok(normalize_body(Vocabulary::bundled(), args))
    })
}

/// The columns a normalised unit fills.
const UNIT_COLUMNS: [&str; 3] = ["ucum", "via", "display"];

/// A normalised unit's cells, in [`UNIT_COLUMNS`] order.
fn unit_cells(unit: &units::Unit) -> [Cell; 3] {
    [
        unit.ucum.as_str().into(),
        unit.via.as_str().into(),
        units::display(&unit.ucum).into(),
    ]
}

fn normalize_body(vocab: &Vocabulary, args: &Value) -> Envelope {
    let valid = match NORMALIZE_UNIT.validate(args) {
        Ok(valid) => valid,
        Err(refusal) => return refusal,
    };
    if let Some(batch) = valid.text_list("units") {
        let mut table = Table::new("units", batch_columns(&UNIT_COLUMNS));
        for (index, input) in batch.iter().enumerate() {
            let Some(unit) = units::normalize(vocab, input) else {
                return refuse_item(
                    ToolId::NormalizeUnit,
                    "units",
                    index,
                    ArgProblem::UnknownUnit,
                );
            };
            let _ = table.push_row(batch_row(index, input, unit_cells(&unit)));
        }
        return Envelope::ok(Meta::none()).with_table(table);
    }
    let input = valid.text("unit").unwrap_or_default();
    let Some(unit) = units::normalize(vocab, input) else {
        return Envelope::refusal(ToolId::NormalizeUnit, Some("unit"), ArgProblem::UnknownUnit)
            .with_next_step(
                NextStep::new(NextAction::FixArguments, ToolId::NormalizeUnit).supply("unit"),
            );
    };
    let row: Vec<Cell> = [Cell::from(input.trim())]
        .into_iter()
        .chain(unit_cells(&unit))
        .collect();
    let columns: Vec<&str> = ["input"].into_iter().chain(UNIT_COLUMNS).collect();
    match Table::new("unit", columns).with_row(row) {
        Ok(table) => Envelope::ok(Meta::none()).with_table(table),
        // Four cells for four columns: unreachable, and still an answer rather than a panic.
        Err(_) => Envelope::ok(Meta::none()),
    }
}

/// `convert_unit(value, from, to, indicator?)`: table `conversion` (value, from, to, result,
/// `significant_digits`, unrounded, indicator, `molar_mass_g_per_mol`); `from` and `to` are the
/// UCUM codes the units normalise to, `result` is rounded to
/// [`units::SIGNIFICANT_DIGITS`] significant digits and `unrounded` is not.
///
/// Refusals name what to fix: an unknown unit (`from` or `to`), units of different kinds of
/// quantity (`to`), and between mass and molar units a missing analyte, an unknown one, or one
/// without a molar mass (`indicator`).
///
/// ```
/// use answers_tools::terminology::convert_unit;
/// use answers_protocol::render_compact;
/// use serde_json::json;
///
/// let refused = convert_unit(&json!({"value": 100, "from": "mg/dL", "to": "mmol/L"}));
/// assert!(render_compact(&refused).starts_with(
///     "error (invalid_arguments): indicator: required to convert between mass and molar units"
/// ));
/// ```
#[must_use]
pub fn convert_unit(args: &Value) -> Envelope {
    guarded(ToolId::ConvertUnit, Vec::new, || {
        Ok(convert_body(Vocabulary::bundled(), args))
    })
}

fn convert_body(vocab: &Vocabulary, args: &Value) -> Envelope {
    let valid = match CONVERT_UNIT.validate(args) {
        Ok(valid) => valid,
        Err(refusal) => return refusal,
    };
    let value = valid.number("value").unwrap_or_default();
    // Each parameter under the name the caller used: ours, or the original's (the rules let
    // exactly one through).
    let spelled = |name: &'static str, original: &'static str| {
        if valid.has(original) {
            (original, valid.text(original))
        } else {
            (name, valid.text(name))
        }
    };
    let (from_param, from_text) = spelled("from", "from_unit");
    let (to_param, to_text) = spelled("to", "to_unit");
    // A missing analyte is asked for under the name set the caller writes in.
    let (indicator_param, indicator) = if !valid.has("indicator") && from_param == "from_unit" {
        ("loinc_code", valid.text("loinc_code"))
    } else {
        spelled("indicator", "loinc_code")
    };
    // The call again, with `param` for the caller to supply.
    let refuse = |param: &'static str, problem: ArgProblem| {
        let mut step = NextStep::new(NextAction::FixArguments, ToolId::ConvertUnit);
        for (name, v) in valid.iter() {
            step = step.arg(name, v.to_json());
        }
        Envelope::refusal(ToolId::ConvertUnit, Some(param), problem)
            .with_next_step(step.supply(param))
    };
    let Some(from) = units::normalize(vocab, from_text.unwrap_or_default()) else {
        return refuse(from_param, ArgProblem::UnknownUnit);
    };
    let Some(to) = units::normalize(vocab, to_text.unwrap_or_default()) else {
        return refuse(to_param, ArgProblem::UnknownUnit);
    };
    let Some(route) = units::route(&from.ucum, &to.ucum) else {
        return refuse(to_param, ArgProblem::NotConvertible);
    };
    let molar_mass = if route.needs_molar_mass() {
        let Some(indicator) = indicator else {
            return refuse(indicator_param, ArgProblem::NeedsAnalyte);
        };
        match molar_mass_of(vocab, indicator) {
            Ok(mass) => Some(mass),
            Err(problem) => return refuse(indicator_param, problem),
        }
    } else {
        None
    };
    let Ok(result) = units::convert(value, &from.ucum, &to.ucum, route, molar_mass) else {
        return refuse(to_param, ArgProblem::NotConvertible);
    };
    let columns = [
        "value",
        "from",
        "to",
        "result",
        "significant_digits",
        "unrounded",
        "indicator",
        "molar_mass_g_per_mol",
    ];
    let digits = i64::try_from(units::SIGNIFICANT_DIGITS).unwrap_or(i64::MAX);
    let row = [
        value.into(),
        from.ucum.as_str().into(),
        to.ucum.as_str().into(),
        units::round_significant(result).into(),
        Cell::Int(digits),
        result.into(),
        indicator.map(str::trim).into(),
        molar_mass.into(),
    ];
    match Table::new("conversion", columns).with_row(row) {
        Ok(table) => Envelope::ok(Meta::none()).with_table(table),
        Err(_) => Envelope::ok(Meta::none()),
    }
}

/// The molar mass (g/mol) of the analyte `indicator` names: every LOINC code the name reaches
/// that has one must agree.
fn molar_mass_of(vocab: &Vocabulary, indicator: &str) -> Result<f64, ArgProblem> {
    let codes: Vec<_> = vocab
        .resolve(indicator)
        .into_iter()
        .filter(|c| c.system == CodeSystem::Loinc)
        .collect();
    if codes.is_empty() {
        return Err(ArgProblem::UnknownIndicator);
    }
    let mut masses: Vec<f64> = codes
        .iter()
        .filter_map(|c| vocab.molar_mass(&c.code))
        .collect();
    masses.sort_by(f64::total_cmp);
    masses.dedup_by(|a, b| (*a - *b).abs() <= 1e-9 * b.abs());
    match masses.as_slice() {
        [] => Err(ArgProblem::NoMolarMass),
        [mass] => Ok(*mass),
        _ => Err(ArgProblem::AmbiguousAnalyte),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use answers_protocol::{ErrorDetail, ErrorKind};

    #[test]
    fn a_panicking_vocab_body_is_a_fault_without_its_message() {
        let env = guarded(
            ToolId::StandardizeReading,
            Vec::new,
            || -> Result<Envelope, _> { panic!("glucose 7.2 mmol/L") },
        );
        assert_eq!(env.error_kind(), Some(ErrorKind::ToolPanic));
        assert!(matches!(
            env.error_detail(),
            Some(ErrorDetail::Fault {
                tool: ToolId::StandardizeReading,
                ..
            })
        ));
        assert!(!format!("{env:?}").contains("7.2"));
    }

    #[test]
    fn molar_mass_needs_agreeing_codes() {
        let v = Vocabulary::bundled();
        assert_eq!(molar_mass_of(v, "glucose"), Ok(180.156));
        assert_eq!(
            molar_mass_of(v, "unobtainium"),
            Err(ArgProblem::UnknownIndicator)
        );
        assert_eq!(molar_mass_of(v, "heart rate"), Err(ArgProblem::NoMolarMass));
    }
}
