//! `standardize_reading(name, value, unit, time?)`: a reading as printed to a FHIR R4
//! `Observation`.

use serde_json::Value;

use super::fhir::{self, CodedReading};
use super::rank;
use super::units::{self, Route};
use crate::args::ArgValue;
use crate::args::terminology::STANDARDIZE_READING;
use crate::envelope::Envelope;
use crate::envelope::assumption::{Assumption, TerminologyAssumption};
use crate::envelope::error::ArgProblem;
use crate::envelope::meta::Meta;
use crate::envelope::next_step::{NextAction, NextStep};
use crate::envelope::table::{Cell, Table};
use crate::fault::guarded;
use crate::tool::ToolId;
use crate::vocab::{CodeRef, CodeSystem, VocabEntry, Vocabulary};

const TOOL: ToolId = ToolId::StandardizeReading;

/// `standardize_reading(name, value, unit, time?)`: table `observation` (code, display, value,
/// ucum, effective, resource), where `resource` is the FHIR R4 `Observation` as JSON: status
/// `final`, `code.coding` with the LOINC code and its official name, `code.text` the name as
/// printed, `valueQuantity` with the value, the unit as printed and its UCUM code, and
/// `effectiveDateTime` when a time is given.
///
/// The name must be a name, synonym or code of a LOINC indicator (a device's, a lab report's,
/// English or Chinese). Where it reaches several codes, the first whose canonical unit the
/// reading's unit converts to is chosen, and the others are listed in `candidates`.
///
/// ```
/// use answers_tools::terminology::standardize_reading;
/// use serde_json::json;
///
/// let env = standardize_reading(&json!({"name": "空腹血糖", "value": 5.4, "unit": "mmol/l"}));
/// let obs = env.data()[0].rows()[0].last().unwrap().to_json();
/// assert_eq!(obs["code"]["coding"][0]["code"], "14771-0");
/// assert_eq!(obs["valueQuantity"]["code"], "mmol/L");
/// ```
#[must_use]
pub fn standardize_reading(args: &Value) -> Envelope {
    guarded(TOOL, Vec::new, || Ok(body(Vocabulary::bundled(), args)))
}

fn body(vocab: &Vocabulary, args: &Value) -> Envelope {
    let valid = match STANDARDIZE_READING.validate(args) {
        Ok(valid) => valid,
        Err(refusal) => return refusal,
    };
    let text = |name: &str| match valid.get(name) {
        Some(ArgValue::Text(s)) => Some(s.trim()),
        _ => None,
    };
    let (Some(name), Some(printed_unit)) = (text("name"), text("unit")) else {
        return Envelope::refusal(TOOL, None, ArgProblem::Missing);
    };
    let Some(ArgValue::Number(value)) = valid.get("value") else {
        return Envelope::refusal(TOOL, Some("value"), ArgProblem::NotNumber);
    };
    let effective = match text("time") {
        None => None,
        Some(time) => match fhir::effective_date_time(time) {
            Some(t) => Some(t),
            None => return Envelope::refusal(TOOL, Some("time"), ArgProblem::NotDateTime),
        },
    };
    let Some(unit) = units::normalize(vocab, printed_unit) else {
        return Envelope::refusal(TOOL, Some("unit"), ArgProblem::UnknownUnit).with_next_step(
            NextStep::new(NextAction::FixArguments, ToolId::NormalizeUnit).supply("unit"),
        );
    };
    let resolve_step =
        || NextStep::new(NextAction::FixArguments, ToolId::ResolveIndicator).supply("name");
    let codes: Vec<CodeRef> = rank::candidates(vocab, name, Some(CodeSystem::Loinc))
        .into_iter()
        .filter(|c| c.how == rank::Match::Exact)
        .map(|c| c.code)
        .collect();
    if codes.is_empty() {
        return Envelope::refusal(TOOL, Some("name"), ArgProblem::UnknownIndicator)
            .with_next_step(resolve_step());
    }
    let entries: Vec<&VocabEntry> = codes.iter().filter_map(|c| vocab.entry(c)).collect();
    let fits = |e: &&VocabEntry| {
        e.unit
            .as_deref()
            .and_then(|canonical| units::route(&unit.ucum, canonical))
            == Some(Route::Direct)
    };
    let fitting: Vec<&VocabEntry> = entries.iter().copied().filter(fits).collect();
    // A code with no canonical unit on record cannot be checked; it is taken only when no code
    // with one fits.
    let unchecked: Vec<&VocabEntry> = entries
        .iter()
        .copied()
        .filter(|e| e.unit.is_none())
        .collect();
    let chosen_from = if fitting.is_empty() {
        &unchecked
    } else {
        &fitting
    };
    let Some(chosen) = chosen_from.first() else {
        return Envelope::refusal(TOOL, Some("unit"), ArgProblem::UnitNotForIndicator)
            .with_next_step(resolve_step());
    };
    let observation = fhir::observation(&CodedReading {
        loinc: &chosen.code,
        display: &chosen.name,
        text: name,
        value: *value,
        unit: printed_unit,
        ucum: &unit.ucum,
        effective: effective.as_deref(),
    });
    let columns = ["code", "display", "value", "ucum", "effective", "resource"];
    let row = [
        chosen.code.as_str().into(),
        chosen.name.as_str().into(),
        (*value).into(),
        unit.ucum.as_str().into(),
        effective.clone().into(),
        Cell::Json(observation),
    ];
    let Ok(table) = Table::new("observation", columns).with_row(row) else {
        return Envelope::ok(Meta::none());
    };
    let mut env = Envelope::ok(Meta::none()).with_table(table);
    let others: Vec<&&VocabEntry> = chosen_from.iter().skip(1).collect();
    if !others.is_empty() {
        let mut candidates = Table::new("candidates", ["code", "display", "unit"]);
        for e in others {
            let _ = candidates.push_row([
                e.code.as_str().into(),
                e.name.as_str().into(),
                e.unit.as_deref().into(),
            ]);
        }
        env = env
            .with_table(candidates)
            .with_assumption(Assumption::Terminology(
                TerminologyAssumption::CodingChosenByUnit,
            ));
    }
    env
}
