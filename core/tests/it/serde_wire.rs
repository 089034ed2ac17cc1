//! The envelope's wire form: it round-trips, and an unknown value of a closed field, or an
//! envelope whose parts contradict each other, does not deserialize.

use answers_protocol::{
    Assumption, AssumptionId, Envelope, ErrorClass, ErrorKind, GeneticsAssumption,
    MedicationsAssumption, PharmacogenomicsAssumption, ReadingsAssumption, TerminologyAssumption,
    WindowAssumption,
};
use serde_json::{Value, json};

use super::fixtures;

#[test]
fn every_fixture_round_trips() {
    for (name, env) in fixtures::all() {
        let text = serde_json::to_string(&env).unwrap();
        let back: Envelope = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(back, env, "{name}");
    }
}

/// `fixture` serialized, with `edit` applied, deserialized: the error text.
fn refused(fixture: &Envelope, edit: impl FnOnce(&mut Value)) -> String {
    let mut wire = serde_json::to_value(fixture).unwrap();
    edit(&mut wire);
    match serde_json::from_value::<Envelope>(wire) {
        Ok(env) => panic!("accepted: {env:?}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn an_unknown_closed_value_is_refused_by_name() {
    let ok = fixtures::raw_truncated();
    let err = fixtures::fault();
    let cases: Vec<(String, &str)> = vec![
        (
            refused(&ok, |w| {
                w["status"] = json!("failed");
            }),
            "`failed`",
        ),
        (
            refused(&ok, |w| {
                w["meta"]["view"] = json!("daily");
            }),
            "`daily`",
        ),
        (
            refused(&ok, |w| {
                w["meta"]["window_semantics"] = json!("approximate");
            }),
            "`approximate`",
        ),
        (
            refused(&err, |w| {
                w["error_kind"] = json!("exploded");
            }),
            "`exploded`",
        ),
        (
            refused(&err, |w| {
                w["error_class"] = json!("maybe");
            }),
            "`maybe`",
        ),
        (
            refused(&err, |w| {
                w["error"]["tool"] = json!("query_everything");
            }),
            "`query_everything`",
        ),
        (
            refused(&ok, |w| {
                w["provenance"]["Glucose [Moles/volume] in Blood"] = json!("elected:fridge");
            }),
            "`elected:fridge`",
        ),
        (
            refused(&ok, |w| {
                w["next_steps"][0]["action"] = json!("use_view_stats");
            }),
            "`use_view_stats`",
        ),
        (
            refused(&ok, |w| {
                w["assumptions"][0] = json!({"id": "condition_absent"});
            }),
            "`condition_absent`",
        ),
    ];
    for (message, value) in cases {
        assert!(message.contains(value), "{message:?} does not name {value}");
    }
}

#[test]
fn a_message_cannot_travel_in_an_error() {
    let err = fixtures::fault();
    let msg = refused(&err, |w| {
        w["error"]["message"] = json!("password authentication failed for user jane");
    });
    assert!(msg.contains("unknown field `message`"), "{msg}");
    let msg = refused(&err, |w| {
        w["error"]["type_name"] = json!("connection to 10.0.0.7 failed: timeout\n");
    });
    assert!(msg.contains("type name"), "{msg}");
}

#[test]
fn contradicting_parts_are_refused() {
    let ok = fixtures::latest();
    let msg = refused(&ok, |w| {
        w["error_kind"] = json!("store_fault");
    });
    assert!(msg.contains("exactly when the status is error"), "{msg}");
    let msg = refused(&ok, |w| {
        w["meta"]["row_count"] = json!(7);
    });
    assert!(msg.contains("row_count"), "{msg}");
    let msg = refused(&ok, |w| {
        w["data"][0]["rows"][0] = json!(["too", "short"]);
    });
    assert!(msg.contains("cells"), "{msg}");
    let msg = refused(&ok, |w| {
        w["meta"]["window"] = json!({"start": "2024-02-01", "end": "2024-01-01"});
    });
    assert!(msg.contains("before its start"), "{msg}");
    let msg = refused(&ok, |w| {
        w["surprise"] = json!(1);
    });
    assert!(msg.contains("unknown field `surprise`"), "{msg}");
}

#[test]
fn assumption_ids_on_the_wire_are_the_closed_ids() {
    let all = [
        Assumption::Readings(ReadingsAssumption::AbsenceNotEvidence),
        Assumption::Readings(ReadingsAssumption::WindowDatePadded),
        Assumption::Readings(ReadingsAssumption::Truncated { cap: 50 }),
        Assumption::Readings(ReadingsAssumption::StatsCountElectedDays),
        Assumption::Readings(ReadingsAssumption::ElectedSourcePerDay),
        Assumption::Readings(ReadingsAssumption::NewestReadingPerDay),
        Assumption::Readings(ReadingsAssumption::CutMeansNewestOnly),
        Assumption::Readings(ReadingsAssumption::CatalogueCut { cap: 100 }),
        Assumption::Readings(ReadingsAssumption::NoKeywordMatch),
        Assumption::Readings(ReadingsAssumption::NoIndicatorMatch),
        Assumption::Readings(ReadingsAssumption::SomeIndicatorsUnmatched { count: 2 }),
        Assumption::Readings(ReadingsAssumption::RenderCut { chars: 40_000 }),
        Assumption::Readings(ReadingsAssumption::UnitConverted),
        Assumption::Medications(MedicationsAssumption::PlanIsIntent),
        Assumption::Medications(MedicationsAssumption::MissingDoseNotEvidence),
        Assumption::Medications(MedicationsAssumption::LogDefaultWindow { days: 30 }),
        Assumption::Medications(MedicationsAssumption::LogDefaultWindowEmpty { days: 30 }),
        Assumption::Medications(MedicationsAssumption::NoMedicationRecorded),
        Assumption::Medications(MedicationsAssumption::NoMedicationMatch),
        Assumption::Medications(MedicationsAssumption::DoseLogCut { cap: 200 }),
        Assumption::Medications(MedicationsAssumption::DoseSlotsToday),
        Assumption::Genetics(GeneticsAssumption::GenotypesAsTyped),
        Assumption::Genetics(GeneticsAssumption::PositionsFromSiteIndex),
        Assumption::Genetics(GeneticsAssumption::RawCoordinates),
        Assumption::Genetics(GeneticsAssumption::NotTypedNotAbsent),
        Assumption::Genetics(GeneticsAssumption::NoGenotypeSet),
        Assumption::Genetics(GeneticsAssumption::CoverageIncomplete),
        Assumption::Genetics(GeneticsAssumption::ArraysMissStructural),
        Assumption::Genetics(GeneticsAssumption::GeneNotIndexed),
        Assumption::Pharmacogenomics(PharmacogenomicsAssumption::CpicPairsVersion),
        Assumption::Pharmacogenomics(PharmacogenomicsAssumption::NoCpicPair),
        Assumption::Pharmacogenomics(PharmacogenomicsAssumption::PgxActivePlans),
        Assumption::Pharmacogenomics(PharmacogenomicsAssumption::PgxNoActivePlan),
        Assumption::Pharmacogenomics(PharmacogenomicsAssumption::PgxUnmatched),
        Assumption::Terminology(TerminologyAssumption::CodingChosenByUnit),
        Assumption::Window(WindowAssumption::WindowAllRecorded),
    ];
    // Precondition: one of each template.
    let ids: Vec<AssumptionId> = all.iter().map(Assumption::id).collect();
    assert_eq!(ids, AssumptionId::ALL);
    for a in all {
        let wire = serde_json::to_value(a).unwrap();
        assert_eq!(wire["id"], a.id().as_str());
        // The nesting does not show on the wire: the note's id and its parameters only.
        let params = ["id", "cap", "days", "count", "chars"];
        assert!(
            wire.as_object()
                .unwrap()
                .keys()
                .all(|k| params.contains(&k.as_str())),
            "{wire}"
        );
        assert_eq!(serde_json::from_value::<Assumption>(wire).unwrap(), a);
        let text = a.text();
        assert!(
            !text.ends_with('.') && text.starts_with(char::is_lowercase),
            "{text}"
        );
    }
}

#[test]
fn error_kinds_have_the_classes_governance_expects() {
    use ErrorClass::{Recoverable, Unrecoverable};
    let expected = [
        (ErrorKind::InvalidArguments, Recoverable),
        (ErrorKind::NotFound, Recoverable),
        (ErrorKind::Unauthorized, Unrecoverable),
        (ErrorKind::StoreUnavailable, Recoverable),
        (ErrorKind::StoreFault, Unrecoverable),
        (ErrorKind::ToolPanic, Unrecoverable),
        (ErrorKind::Timeout, Recoverable),
        (ErrorKind::RepeatedCall, Unrecoverable),
        (ErrorKind::CallLimit, Unrecoverable),
    ];
    assert_eq!(expected.len(), ErrorKind::ALL.len());
    for (kind, class) in expected {
        assert_eq!(kind.default_class(), class, "{kind}");
    }
}
