//! Every mapped resource type, read back through the tools; the blood-pressure panel; units
//! that convert; NDJSON; and a re-import that changes nothing.

use answers_fhir::Skip;
use answers_protocol::render_rest;
use answers_tools::{query_health_indicators, query_medications};
use serde_json::{Value, json};

use crate::fixtures::{self, write_bundle, write_ndjson};
use crate::support::{Record, rows};

/// The rows of the REST rendering's first table, as objects.
fn rest_rows(env: &answers_protocol::Envelope) -> Vec<Value> {
    let rest = render_rest(env);
    let tables = rest["data"].as_array().cloned().unwrap_or_default();
    tables
        .iter()
        .flat_map(|t| t["rows"].as_array().cloned().unwrap_or_default())
        .collect()
}

#[test]
fn every_mapped_type_becomes_its_rows_and_the_rest_is_counted() {
    let mut r = Record::new();
    let path = write_bundle(r.dir.path(), "record.json", &fixtures::record());
    let s = r.import(&path).unwrap();
    assert_eq!(s.resources, 12);
    // Heart rate, the panel's two components, weight, glucose.
    assert_eq!(s.readings, 5);
    // The headache (Condition) and the cough (reported Observation).
    assert_eq!(s.journal, 2);
    assert_eq!((s.plans, s.doses), (2, 1));
    assert_eq!(s.skipped(Skip::ResourceType), 1, "the Patient");
    assert_eq!(s.skipped(Skip::UnknownLoincCode), 1);
    assert_eq!(s.skipped(Skip::UnknownUnit), 1);
    assert_eq!(s.skipped_total(), 3, "{s}");
    let dump = r.dump();
    assert_eq!(rows(&dump, "series"), 7);
    assert_eq!(rows(&dump, "medication_plan"), 2);
    assert_eq!(rows(&dump, "medication_dose"), 1);
    let plans = &dump.iter().find(|(n, _)| n == "medication_plan").unwrap().1;
    let plans = plans.join("\n");
    for want in [
        "twice_daily",
        "once_daily",
        "oral",
        "\"mg\"",
        "Real(50.0)",
        "2026-03-01",
    ] {
        assert!(plans.contains(want), "{want}: {plans}");
    }
    assert!(r.store.has_entries(&r.you.id).unwrap());

    // The journal, through the readings tool: both complaints, by their ICPC names.
    let env = query_health_indicators(
        &r.store,
        &r.you,
        &json!({"keywords": ["headache", "cough"], "view": "raw"}),
    );
    let text = serde_json::to_string(&render_rest(&env)).unwrap();
    assert!(text.contains("N01") && text.contains("R05"), "{text}");

    // The plans: the active prescription and the completed course, with their closed sets.
    let env = query_medications(&r.store, &r.you, &json!({"view": "history"}));
    let text = serde_json::to_string(&render_rest(&env)).unwrap();
    for want in [
        "Metoprolol tartrate",
        "6918",
        "Nitrofurantoin",
        "J01XE01",
        "course_completed",
    ] {
        assert!(text.contains(want), "{want}: {text}");
    }
}

#[test]
fn a_blood_pressure_panel_becomes_its_two_series_from_the_cuff() {
    let mut r = Record::new();
    let path = write_bundle(
        r.dir.path(),
        "bp.json",
        &[fixtures::blood_pressure(
            "2026-03-01T07:05:00+01:00",
            128.0,
            82.0,
        )],
    );
    assert_eq!(r.import(&path).unwrap().readings, 2);
    let env = query_health_indicators(
        &r.store,
        &r.you,
        &json!({"indicators": ["8480-6", "8462-4"], "view": "raw"}),
    );
    let found = rest_rows(&env);
    assert_eq!(
        found.len(),
        2,
        "{}",
        serde_json::to_string(&render_rest(&env)).unwrap()
    );
    let text = serde_json::to_string(&found).unwrap();
    // 07:05 at +01:00 is 07:05 in Berlin.
    for want in ["128", "82", "mm[Hg]", "cuff", "\"2026-03-01\"", "\"07:05\""] {
        assert!(text.contains(want), "{want}: {text}");
    }
}

#[test]
fn units_that_need_conversion_are_answered_in_the_codes_unit() {
    let mut r = Record::new();
    let path = write_bundle(
        r.dir.path(),
        "units.json",
        &[
            fixtures::weight_lb("2026-03-01T06:30:00Z", 154.3),
            fixtures::glucose_mg_dl("2026-03-02", 99.0),
        ],
    );
    assert_eq!(r.import(&path).unwrap().readings, 2);
    // Stored as recorded, in UCUM spelling.
    let dump = r.dump();
    let series = &dump.iter().find(|(n, _)| n == "series").unwrap().1;
    assert!(
        series.iter().any(|row| row.contains("[lb_av]")),
        "{series:?}"
    );
    // Answered in kg (154.3 lb = 69.99 kg) and mmol/L (99 mg/dL = 5.50 mmol/L).
    let env = query_health_indicators(
        &r.store,
        &r.you,
        &json!({"indicators": ["29463-7"], "view": "raw"}),
    );
    let weight = rest_rows(&env);
    let text = serde_json::to_string(&weight).unwrap();
    assert!(text.contains("\"kg\""), "{text}");
    let kg = weight[0]["value"].as_f64().unwrap();
    assert!((kg - 69.99).abs() < 0.01, "{kg}");
    let env = query_health_indicators(
        &r.store,
        &r.you,
        &json!({"indicators": ["15074-8"], "view": "raw"}),
    );
    let glucose = rest_rows(&env);
    let mmol = glucose[0]["value"].as_f64().unwrap();
    assert!((mmol - 5.495).abs() < 0.01, "{mmol}");
    // A date alone is the day's start in the subject's zone (Berlin, UTC+1 in March); a lab
    // performed it.
    let text = serde_json::to_string(&glucose).unwrap();
    for want in ["\"2026-03-02\"", "\"00:00\"", "\"lab\""] {
        assert!(text.contains(want), "{want}: {text}");
    }
}

#[test]
fn ndjson_imports_the_same_record_as_the_bundle() {
    let record = fixtures::record();
    let mut a = Record::new();
    let mut b = Record::new();
    let bundle = write_bundle(a.dir.path(), "record.json", &record);
    let ndjson = write_ndjson(b.dir.path(), "record.ndjson", &record);
    let sa = a.import(&bundle).unwrap();
    let sb = b.import(&ndjson).unwrap();
    assert_eq!(sa, sb);
    assert_eq!(a.dump(), b.dump());
}

#[test]
fn a_re_import_changes_no_row_of_any_table() {
    let mut r = Record::new();
    let path = write_ndjson(r.dir.path(), "record.ndjson", &fixtures::record());
    let first = r.import(&path).unwrap();
    let before = r.dump();
    assert!(
        before.iter().filter(|(_, rows)| !rows.is_empty()).count() >= 6,
        "{before:?}"
    );
    let again = r.import(&path).unwrap();
    assert_eq!(first, again);
    assert_eq!(before, r.dump());
}

#[test]
fn batches_cover_a_record_larger_than_one() {
    let mut r = Record::new();
    let n: u32 = u32::try_from(answers_fhir::BATCH).unwrap() + 7;
    let minutes: Vec<Value> = (0..n)
        .map(|i| {
            let at = jiff::Timestamp::from_second(1_772_352_000 + 60 * i64::from(i)).unwrap();
            fixtures::heart_rate(
                &format!("hr-{i}"),
                &at.strftime("%Y-%m-%dT%H:%M:%SZ").to_string(),
                60.0 + f64::from(i % 40),
            )
        })
        .collect();
    let path = write_ndjson(r.dir.path(), "minutes.ndjson", &minutes);
    assert_eq!(r.import(&path).unwrap().readings, u64::from(n));
    assert_eq!(rows(&r.dump(), "series"), n as usize);
}

#[test]
fn a_reported_finding_that_is_no_complaint_is_counted_not_guessed() {
    let mut r = Record::new();
    let mut rash = fixtures::reported_cough("2026-03-04T20:00:00Z");
    // Rash (SNOMED CT 271807003): not a complaint of the bundled subset.
    rash["code"] = json!({"coding": [{"system": "http://snomed.info/sct", "code": "271807003"}]});
    let mut cough = fixtures::reported_cough("2026-03-05T20:00:00Z");
    cough["id"] = json!("survey-2");
    cough["code"] = json!({"coding": [{"system": "http://snomed.info/sct", "code": "49727002"}]});
    let path = write_bundle(r.dir.path(), "reported.json", &[rash, cough]);
    let s = r.import(&path).unwrap();
    assert_eq!(
        (s.journal, s.skipped(Skip::UnknownComplaintCode)),
        (1, 1),
        "{s}"
    );
    assert_eq!(s.skipped_total(), 1, "{s}");
}

#[test]
fn a_day_ends_a_period_whole_and_a_coarse_onset_falls_back_to_the_recorded_date() {
    let mut r = Record::new();
    // A period from a time to a day: the day counts whole, so it does not end before it starts.
    let mut hr = fixtures::heart_rate("hr-period", "2026-03-01T10:00:00Z", 61.0);
    hr.as_object_mut().unwrap().remove("effectiveDateTime");
    hr["effectivePeriod"] = json!({"start": "2026-03-01T10:00:00Z", "end": "2026-03-01"});
    // A year-only onset places no day: the recorded date stands in.
    let mut coarse = fixtures::headache("2019");
    coarse["recordedDate"] = json!("2026-03-02");
    // Recorded only after it abated: dated by its record, the earlier end left out.
    let mut late = fixtures::headache("2026-03-01T09:00:00Z");
    late["id"] = json!("cond-2");
    late.as_object_mut().unwrap().remove("onsetDateTime");
    late["recordedDate"] = json!("2026-03-10");
    late["abatementDateTime"] = json!("2026-03-05");
    // A day-only abatement after a timed onset on that day ends with the day.
    let mut same_day = fixtures::headache("2026-03-03T09:00:00Z");
    same_day["id"] = json!("cond-3");
    same_day["abatementDateTime"] = json!("2026-03-03");
    let resources = [hr, coarse, late, same_day];
    let path = write_bundle(r.dir.path(), "days.json", &resources);
    let (valid, out, err) = crate::valid::validate(&[&path]);
    assert!(valid, "{out}{err}");
    let s = r.import(&path).unwrap();
    assert_eq!((s.readings, s.journal), (1, 3), "{s}");
    assert_eq!(s.skipped_total(), 0, "{s}");
}

#[test]
fn a_quantity_without_a_value_and_a_dose_without_a_unit_are_counted_not_refused() {
    let mut r = Record::new();
    let mut hr = fixtures::heart_rate("hr-no-value", "2026-03-01T10:00:00Z", 61.0);
    hr["valueQuantity"].as_object_mut().unwrap().remove("value");
    let mut plan = fixtures::metoprolol_request();
    plan["dosageInstruction"][0]["doseAndRate"][0]["doseQuantity"] = json!({"value": 50});
    let path = write_bundle(r.dir.path(), "partial.json", &[hr, plan]);
    let (valid, out, err) = crate::valid::validate(&[&path]);
    assert!(valid, "{out}{err}");
    let s = r.import(&path).unwrap();
    assert_eq!((s.readings, s.plans), (0, 1), "{s}");
    assert_eq!(s.skipped(Skip::NotAQuantity), 1, "{s}");
}

#[test]
fn a_byte_order_mark_before_either_format_is_read_past() {
    let record = fixtures::record();
    let mut plain = Record::new();
    let want = plain
        .import(&write_ndjson(plain.dir.path(), "plain.ndjson", &record))
        .unwrap();
    for (name, path) in [
        (
            "bom.json",
            write_bundle(plain.dir.path(), "bom.json", &record),
        ),
        (
            "bom.ndjson",
            write_ndjson(plain.dir.path(), "bom.ndjson", &record),
        ),
    ] {
        let mut bytes = b"\xEF\xBB\xBF".to_vec();
        bytes.extend(std::fs::read(&path).unwrap());
        std::fs::write(&path, &bytes).unwrap();
        let mut r = Record::new();
        let got = r.import(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(got, want, "{name}");
        assert_eq!(r.dump(), plain.dump(), "{name}");
    }
}

#[test]
fn a_byte_order_mark_is_only_read_past_at_the_start_of_the_file() {
    let mut r = Record::new();
    let path = write_ndjson(r.dir.path(), "mid.ndjson", &fixtures::record());
    let text = std::fs::read_to_string(&path).unwrap();
    let (first, rest) = text.split_once('\n').unwrap();
    std::fs::write(&path, format!("{first}\n\u{feff}{rest}")).unwrap();
    let err = r.import(&path).unwrap_err();
    assert!(err.to_string().starts_with("line 2: "), "{err}");
}

#[test]
fn a_device_that_names_no_one_kind_is_counted_not_guessed() {
    let mut r = Record::new();
    let hr = |id: &str, device: Value| {
        let mut o = fixtures::heart_rate(id, "2026-03-01T07:00:00Z", 61.0);
        o["device"] = device;
        o
    };
    let path = write_bundle(
        r.dir.path(),
        "devices.json",
        &[
            // "ring" inside "monitoring" names no ring.
            hr("hr-1", json!({"display": "home monitoring hub"})),
            hr("hr-2", json!({"reference": "Device/d-1"})),
            hr("hr-3", json!({"display": "watch and ring bridge"})),
            hr("hr-4", json!({"display": "Oura smart ring"})),
        ],
    );
    let (ok, _, stderr) = crate::valid::validate(&[&path]);
    assert!(ok, "{stderr}");
    let s = r.import(&path).unwrap();
    assert_eq!(s.readings, 1, "{s}");
    assert_eq!(s.skipped(Skip::UnknownDevice), 3, "{s}");
    let series = &r.dump().into_iter().find(|(n, _)| n == "series").unwrap().1;
    assert!(
        series.iter().any(|row| row.contains("\"ring\"")),
        "{series:?}"
    );
}
