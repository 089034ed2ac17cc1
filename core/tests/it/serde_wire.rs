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
    // The golden list: each note beside its wire form, written out, so a renamed variant or a
    // changed id fails here instead of changing the wire. The nesting does not show on the
    // wire: the note's id and its parameters only.
    let golden = [
        (
            Assumption::Readings(ReadingsAssumption::AbsenceNotEvidence),
            json!({"id": "absence_not_evidence"}),
        ),
        (
            Assumption::Readings(ReadingsAssumption::WindowDatePadded),
            json!({"id": "window_date_padded"}),
        ),
        (
            Assumption::Readings(ReadingsAssumption::Truncated { cap: 50 }),
            json!({"id": "truncated", "cap": 50}),
        ),
        (
            Assumption::Readings(ReadingsAssumption::StatsCountElectedDays),
            json!({"id": "stats_count_elected_days"}),
        ),
        (
            Assumption::Readings(ReadingsAssumption::ElectedSourcePerDay),
            json!({"id": "elected_source_per_day"}),
        ),
        (
            Assumption::Readings(ReadingsAssumption::NewestReadingPerDay),
            json!({"id": "newest_reading_per_day"}),
        ),
        (
            Assumption::Readings(ReadingsAssumption::CutMeansNewestOnly),
            json!({"id": "cut_means_newest_only"}),
        ),
        (
            Assumption::Readings(ReadingsAssumption::CatalogueCut { cap: 100 }),
            json!({"id": "catalogue_cut", "cap": 100}),
        ),
        (
            Assumption::Readings(ReadingsAssumption::NoKeywordMatch),
            json!({"id": "no_keyword_match"}),
        ),
        (
            Assumption::Readings(ReadingsAssumption::NoIndicatorMatch),
            json!({"id": "no_indicator_match"}),
        ),
        (
            Assumption::Readings(ReadingsAssumption::SomeIndicatorsUnmatched { count: 2 }),
            json!({"id": "some_indicators_unmatched", "count": 2}),
        ),
        (
            Assumption::Readings(ReadingsAssumption::RenderCut { chars: 40_000 }),
            json!({"id": "render_cut", "chars": 40_000}),
        ),
        (
            Assumption::Readings(ReadingsAssumption::UnitConverted),
            json!({"id": "unit_converted"}),
        ),
        (
            Assumption::Medications(MedicationsAssumption::PlanIsIntent),
            json!({"id": "plan_is_intent"}),
        ),
        (
            Assumption::Medications(MedicationsAssumption::MissingDoseNotEvidence),
            json!({"id": "missing_dose_not_evidence"}),
        ),
        (
            Assumption::Medications(MedicationsAssumption::LogDefaultWindow { days: 30 }),
            json!({"id": "log_default_window", "days": 30}),
        ),
        (
            Assumption::Medications(MedicationsAssumption::LogDefaultWindowEmpty { days: 30 }),
            json!({"id": "log_default_window_empty", "days": 30}),
        ),
        (
            Assumption::Medications(MedicationsAssumption::NoMedicationRecorded),
            json!({"id": "no_medication_recorded"}),
        ),
        (
            Assumption::Medications(MedicationsAssumption::NoMedicationMatch),
            json!({"id": "no_medication_match"}),
        ),
        (
            Assumption::Medications(MedicationsAssumption::DoseLogCut { cap: 200 }),
            json!({"id": "dose_log_cut", "cap": 200}),
        ),
        (
            Assumption::Medications(MedicationsAssumption::DoseSlotsToday),
            json!({"id": "dose_slots_today"}),
        ),
        (
            Assumption::Genetics(GeneticsAssumption::GenotypesAsTyped),
            json!({"id": "genotypes_as_typed"}),
        ),
        (
            Assumption::Genetics(GeneticsAssumption::PositionsFromSiteIndex),
            json!({"id": "positions_from_site_index"}),
        ),
        (
            Assumption::Genetics(GeneticsAssumption::RawCoordinates),
            json!({"id": "raw_coordinates"}),
        ),
        (
            Assumption::Genetics(GeneticsAssumption::NotTypedNotAbsent),
            json!({"id": "not_typed_not_absent"}),
        ),
        (
            Assumption::Genetics(GeneticsAssumption::NoGenotypeSet),
            json!({"id": "no_genotype_set"}),
        ),
        (
            Assumption::Genetics(GeneticsAssumption::CoverageIncomplete),
            json!({"id": "coverage_incomplete"}),
        ),
        (
            Assumption::Genetics(GeneticsAssumption::ArraysMissStructural),
            json!({"id": "arrays_miss_structural"}),
        ),
        (
            Assumption::Genetics(GeneticsAssumption::GeneNotIndexed),
            json!({"id": "gene_not_indexed"}),
        ),
        (
            Assumption::Pharmacogenomics(PharmacogenomicsAssumption::CpicPairsVersion),
            json!({"id": "cpic_pairs_version"}),
        ),
        (
            Assumption::Pharmacogenomics(PharmacogenomicsAssumption::NoCpicPair),
            json!({"id": "no_cpic_pair"}),
        ),
        (
            Assumption::Pharmacogenomics(PharmacogenomicsAssumption::PgxActivePlans),
            json!({"id": "pgx_active_plans"}),
        ),
        (
            Assumption::Pharmacogenomics(PharmacogenomicsAssumption::PgxNoActivePlan),
            json!({"id": "pgx_no_active_plan"}),
        ),
        (
            Assumption::Pharmacogenomics(PharmacogenomicsAssumption::PgxUnmatched),
            json!({"id": "pgx_unmatched"}),
        ),
        (
            Assumption::Terminology(TerminologyAssumption::CodingChosenByUnit),
            json!({"id": "coding_chosen_by_unit"}),
        ),
        (
            Assumption::Window(WindowAssumption::WindowAllRecorded),
            json!({"id": "window_all_recorded"}),
        ),
    ];
    // Precondition: one of each template.
    let ids: Vec<AssumptionId> = golden.iter().map(|(a, _)| a.id()).collect();
    assert_eq!(ids, AssumptionId::ALL);
    for (a, expected) in golden {
        let wire = serde_json::to_value(a).unwrap();
        assert_eq!(wire, expected, "{a:?}");
        assert_eq!(a.id().as_str(), expected["id"], "{a:?}");
        assert_eq!(a.id().as_str().parse::<AssumptionId>().unwrap(), a.id());
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
