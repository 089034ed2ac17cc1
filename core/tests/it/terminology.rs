//! The terminology tools: conversions and normalisations against exact values, refusals that
//! name what to fix, candidates, complaints, the FHIR Observation, and the oracle cross-check.

mod fhir;
mod oracle;
mod props;

use answers_protocol::{
    ArgProblem, Cell, Envelope, ErrorDetail, ErrorKind, NextAction, Status, ToolId, render_compact,
};
use answers_tools::registry::vocab_call;
use answers_tools::terminology::{
    convert_unit, normalize_unit, resolve_indicator, standardize_complaint,
};
use serde_json::{Value, json};

/// The cell of `column` in row `row` of the envelope's first table.
fn cell(env: &Envelope, row: usize, column: &str) -> Cell {
    let table = env.data().first().expect("a table");
    let c = table
        .columns()
        .iter()
        .position(|c| c == column)
        .unwrap_or_else(|| panic!("no column {column} in {:?}", table.columns()));
    table.rows()[row][c].clone()
}

fn number(cell: &Cell) -> f64 {
    match cell {
        Cell::Float(x) => *x,
        #[allow(clippy::cast_precision_loss)] // small test integers
        Cell::Int(i) => *i as f64,
        other => panic!("not a number: {other:?}"),
    }
}

/// The refused parameter and problem of a refusal from either surface's tools.
fn refused(env: &Envelope) -> (Option<String>, ArgProblem) {
    assert_eq!(env.status(), Status::Error, "{}", render_compact(env));
    assert_eq!(env.error_kind(), Some(ErrorKind::InvalidArguments));
    match env.error_detail() {
        Some(ErrorDetail::Refusal {
            parameter, problem, ..
        }) => (parameter.as_ref().map(|p| p.as_str().to_owned()), *problem),
        other => panic!("not a refusal: {other:?}"),
    }
}

/// (value, from, to, indicator, expected result rounded to 4 significant digits).
pub(crate) const CONVERSIONS: &[(f64, &str, &str, Option<&str>, f64)] = &[
    (100.0, "mg/dL", "g/L", None, 1.0),
    (98.6, "[degF]", "Cel", None, 37.0),
    (37.0, "Cel", "[degF]", None, 98.6),
    (120.0, "mm[Hg]", "kPa", None, 16.0),
    (70.0, "kg", "[lb_av]", None, 154.3),
    (180.0, "cm", "[in_i]", None, 70.87),
    (72.0, "/min", "/s", None, 1.2),
    (7.5, "10*9/L", "10*3/uL", None, 7.5),
    (2.0, "h", "min", None, 120.0),
    // Mass and molar units, through the analyte's molar mass.
    (100.0, "mg/dL", "mmol/L", Some("glucose"), 5.551),
    (5.5, "mmol/L", "mg/dL", Some("glucose"), 99.09),
    (126.0, "mg/dL", "mmol/L", Some("2345-7"), 6.994),
    (1.0, "mg/dL", "umol/L", Some("creatinine"), 88.4),
    (200.0, "mg/dL", "mmol/L", Some("cholesterol"), 5.172),
    (7.0, "mmol/L", "mg/dL", Some("血糖"), 126.1),
];

#[test]
fn the_conversion_table_has_exact_rounded_results() {
    for &(value, from, to, indicator, expected) in CONVERSIONS {
        let mut args = json!({"value": value, "from": from, "to": to});
        if let Some(indicator) = indicator {
            args["indicator"] = indicator.into();
        }
        let env = convert_unit(&args);
        assert_eq!(env.status(), Status::Ok, "{args}: {}", render_compact(&env));
        assert_eq!(cell(&env, 0, "result"), Cell::Float(expected), "{args}");
        let unrounded = number(&cell(&env, 0, "unrounded"));
        assert!(
            (unrounded - expected).abs() <= expected.abs() * 5e-4,
            "{args}: {unrounded}"
        );
        assert_eq!(cell(&env, 0, "significant_digits"), Cell::Int(4));
    }
}

#[test]
fn glucose_round_trips_through_its_molar_mass() {
    let there = convert_unit(
        &json!({"value": 100, "from": "mg/dl", "to": "mmol/l", "indicator": "glucose"}),
    );
    assert_eq!(cell(&there, 0, "from"), Cell::from("mg/dL"));
    assert_eq!(cell(&there, 0, "to"), Cell::from("mmol/L"));
    assert_eq!(
        cell(&there, 0, "molar_mass_g_per_mol"),
        Cell::Float(180.156)
    );
    let mmol = number(&cell(&there, 0, "unrounded"));
    assert!((mmol - 1000.0 / 180.156).abs() < 1e-12, "{mmol}");
    let back = convert_unit(
        &json!({"value": mmol, "from": "mmol/L", "to": "mg/dL", "indicator": "glucose"}),
    );
    assert!((number(&cell(&back, 0, "unrounded")) - 100.0).abs() < 1e-9);
    let text = render_compact(&there);
    assert!(text.starts_with("conversion: 1 row\n"), "{text}");
    assert!(!text.contains("window:"), "{text}");
}

#[test]
fn mass_to_molar_is_refused_by_name_without_a_known_analyte() {
    let base = json!({"value": 100, "from": "mg/dL", "to": "mmol/L"});
    let missing = convert_unit(&base);
    assert_eq!(
        refused(&missing),
        (Some("indicator".into()), ArgProblem::NeedsAnalyte)
    );
    // The step keeps the call and asks for the analyte.
    let step = &missing.next_steps()[0];
    assert_eq!(
        (step.action, step.tool),
        (NextAction::FixArguments, ToolId::ConvertUnit)
    );
    assert_eq!(step.supply, ["indicator"]);
    assert_eq!(step.args["from"], json!("mg/dL"));
    assert!(render_compact(&missing).contains("convert_unit(value=100, from=\"mg/dL\""));

    let mut unknown = base.clone();
    unknown["indicator"] = "unobtainium".into();
    assert_eq!(
        refused(&convert_unit(&unknown)),
        (Some("indicator".into()), ArgProblem::UnknownIndicator)
    );
    let mut massless = base;
    massless["indicator"] = "heart rate".into();
    let env = convert_unit(&massless);
    assert_eq!(
        refused(&env),
        (Some("indicator".into()), ArgProblem::NoMolarMass)
    );
    assert!(
        render_compact(&env).starts_with(
            "error (invalid_arguments): indicator: the vocabulary holds no molar mass"
        )
    );
}

#[test]
fn units_of_different_kinds_are_refused() {
    for (from, to) in [("mg/dL", "kg"), ("mmol/mol", "%"), ("mmol/L", "10*9/L")] {
        let env =
            convert_unit(&json!({"value": 1, "from": from, "to": to, "indicator": "glucose"}));
        assert_eq!(
            refused(&env),
            (Some("to".into()), ArgProblem::NotConvertible),
            "{from} → {to}"
        );
    }
}

#[test]
fn unknown_units_are_refused_with_a_step() {
    let env = convert_unit(&json!({"value": 1, "from": "furlongs", "to": "m"}));
    assert_eq!(
        refused(&env),
        (Some("from".into()), ArgProblem::UnknownUnit)
    );
    assert_eq!(env.next_steps()[0].supply, ["from"]);

    let env = normalize_unit(&json!({"unit": "smoots per jiffy"}));
    assert_eq!(
        refused(&env),
        (Some("unit".into()), ArgProblem::UnknownUnit)
    );
    let step = &env.next_steps()[0];
    assert_eq!(
        (step.action, step.tool),
        (NextAction::FixArguments, ToolId::NormalizeUnit)
    );
    insta::assert_snapshot!("normalize_unknown", render_compact(&env));
}

/// (as printed, UCUM code, via).
const NORMALISATIONS: &[(&str, &str, &str)] = &[
    ("mg/dl", "mg/dL", "alias"),
    ("MG/DL", "mg/dL", "alias"),
    ("bpm", "/min", "alias"),
    ("beats per minute", "/min", "alias"),
    ("mmHg", "mm[Hg]", "alias"),
    ("mm Hg", "mm[Hg]", "alias"),
    ("°C", "Cel", "alias"),
    ("℉", "[degF]", "alias"),
    ("mmol/l", "mmol/L", "alias"),
    ("µmol/L", "umol/L", "alias"),
    ("lbs", "[lb_av]", "alias"),
    ("kg/m²", "kg/m2", "alias"),
    ("x10^9/L", "10*9/L", "alias"),
    ("steps", "{steps}", "alias"),
    ("ng/mL", "ng/mL", "ucum"),
    ("kPa", "kPa", "ucum"),
    ("  mg/dL  ", "mg/dL", "alias"),
];

#[test]
fn the_normalisation_table() {
    for &(printed, ucum, via) in NORMALISATIONS {
        let env = normalize_unit(&json!({ "unit": printed }));
        assert_eq!(
            env.status(),
            Status::Ok,
            "{printed}: {}",
            render_compact(&env)
        );
        assert_eq!(cell(&env, 0, "ucum"), Cell::from(ucum), "{printed}");
        assert_eq!(cell(&env, 0, "via"), Cell::from(via), "{printed}");
        assert!(
            matches!(cell(&env, 0, "display"), Cell::Text(ref d) if !d.is_empty()),
            "{printed}"
        );
    }
    insta::assert_snapshot!(
        "normalize_bpm",
        render_compact(&normalize_unit(&json!({"unit": "bpm"})))
    );
}

#[test]
fn every_bundled_spelling_normalises_to_valid_ucum() {
    let data = include_str!("../../data/ucum_units.csv");
    for line in data.lines().skip(1) {
        let (printed, canonical) = line.split_once(',').expect("two columns");
        let env = normalize_unit(&json!({ "unit": printed }));
        assert_eq!(cell(&env, 0, "ucum"), Cell::from(canonical), "{printed}");
    }
}

#[test]
fn resolve_indicator_ranks_exact_names_first_with_code_name_and_unit() {
    let env = resolve_indicator(&json!({"name": "HbA1c"}));
    assert_eq!(cell(&env, 0, "code"), Cell::from("4548-4"));
    assert_eq!(cell(&env, 0, "match"), Cell::from("exact"));
    assert_eq!(cell(&env, 0, "system"), Cell::from("http://loinc.org"));
    assert_eq!(
        cell(&env, 0, "name"),
        Cell::from("Hemoglobin A1c/Hemoglobin.total in Blood")
    );
    assert_eq!(cell(&env, 0, "unit"), Cell::from("%"));

    let glucose = resolve_indicator(&json!({"name": "血糖"}));
    let rows = glucose.data()[0].rows().len();
    let exact: Vec<Cell> = (0..rows)
        .filter(|&r| cell(&glucose, r, "match") == Cell::from("exact"))
        .map(|r| cell(&glucose, r, "code"))
        .collect();
    assert_eq!(exact.len(), 4, "{}", render_compact(&glucose));
    assert_eq!(
        cell(&glucose, 0, "molar_mass_g_per_mol"),
        Cell::Float(180.156)
    );

    // A symptom resolves to its ICPC code.
    let headache = resolve_indicator(&json!({"name": "headache"}));
    assert_eq!(cell(&headache, 0, "code"), Cell::from("N01"));
    assert_eq!(
        cell(&headache, 0, "system"),
        Cell::from("http://hl7.org/fhir/sid/icpc-2")
    );

    // A partial name lists candidates, none of them exact.
    let partial = resolve_indicator(&json!({"name": "cholest"}));
    assert_eq!(partial.status(), Status::Ok);
    assert_eq!(cell(&partial, 0, "match"), Cell::from("prefix"));

    let none = resolve_indicator(&json!({"name": "unobtainium"}));
    assert_eq!(
        refused(&none),
        (Some("name".into()), ArgProblem::UnknownIndicator)
    );
    insta::assert_snapshot!("resolve_hba1c", render_compact(&env));
}

#[test]
fn complaints_code_to_icpc_in_english_and_chinese() {
    for text in [
        "headache",
        "头疼",
        "头痛",
        "I have a headache",
        "我今天头疼",
    ] {
        let env = standardize_complaint(&json!({ "text": text }));
        assert_eq!(env.status(), Status::Ok, "{text}");
        assert_eq!(cell(&env, 0, "code"), Cell::from("N01"), "{text}");
        assert_eq!(cell(&env, 0, "title"), Cell::from("Headache"));
        assert_eq!(cell(&env, 0, "edition"), Cell::from("ICPC-2"));
    }
    assert_eq!(
        cell(&standardize_complaint(&json!({"text": "咳嗽"})), 0, "code"),
        Cell::from("R05")
    );
    let env = standardize_complaint(&json!({"text": "unobtainium"}));
    assert_eq!(
        refused(&env),
        (Some("text".into()), ArgProblem::UnknownComplaint)
    );
    assert!(matches!(
        env.error_detail(),
        Some(ErrorDetail::Refusal {
            tool: ToolId::StandardizeComplaint,
            ..
        })
    ));
    insta::assert_snapshot!(
        "complaint_zh",
        render_compact(&standardize_complaint(&json!({"text": "我头疼"})))
    );
}

#[test]
fn every_vocab_tool_refuses_an_unknown_parameter_by_name() {
    let calls: [(ToolId, Value); 5] = [
        (
            ToolId::StandardizeReading,
            json!({"name": "pulse", "value": 60, "unit": "bpm", "bogus": 1}),
        ),
        (
            ToolId::StandardizeComplaint,
            json!({"text": "headache", "bogus": 1}),
        ),
        (
            ToolId::ResolveIndicator,
            json!({"name": "pulse", "bogus": 1}),
        ),
        (
            ToolId::ConvertUnit,
            json!({"value": 1, "from": "kg", "to": "g", "bogus": 1}),
        ),
        (ToolId::NormalizeUnit, json!({"unit": "kg", "bogus": 1})),
    ];
    for (tool, args) in calls {
        let env = vocab_call(tool.as_str(), &args).expect("served");
        assert_eq!(
            refused(&env),
            (Some("bogus".into()), ArgProblem::UnknownParameter),
            "{tool}"
        );
        assert_eq!(env.error_detail().unwrap().tool(), tool);
    }
    assert!(vocab_call("standardize_report", &json!({})).is_none());
    assert!(vocab_call("not json object", &json!([])).is_none());
    let env = vocab_call("convert_unit", &json!([1, "kg", "g"])).unwrap();
    assert_eq!(refused(&env), (None, ArgProblem::NotAnObject));
}

#[test]
fn the_record_surface_serves_the_three_terminology_tools() {
    let store = answers_store::Store::open_in_memory().unwrap();
    let you = store
        .upsert_subject("subj-you-1", "you", "Europe/Berlin")
        .unwrap();
    let call = |tool: &str, args: Value| answers_tools::registry::call(&store, &you, tool, &args);
    let env = call(
        "convert_unit",
        json!({"value": 120, "from": "mmHg", "to": "kPa"}),
    )
    .unwrap();
    assert_eq!(cell(&env, 0, "result"), Cell::Float(16.0));
    let env = call("normalize_unit", json!({"unit": "mg/dl"})).unwrap();
    assert_eq!(cell(&env, 0, "ucum"), Cell::from("mg/dL"));
    let env = call("resolve_indicator", json!({"name": "pulse"})).unwrap();
    assert_eq!(cell(&env, 0, "code"), Cell::from("8867-4"));
    // The vocabulary server's own tools are not record tools.
    assert!(call("standardize_reading", json!({})).is_none());
    // Every published terminology tool has a closed schema.
    for tool in [
        ToolId::ResolveIndicator,
        ToolId::ConvertUnit,
        ToolId::NormalizeUnit,
    ] {
        let schema = answers_protocol::args::schema_for(tool);
        assert_eq!(schema.json_schema()["additionalProperties"], false);
    }
}

/// The cells of `column` down every row of the envelope's first table.
fn column(env: &Envelope, name: &str) -> Vec<Cell> {
    let rows = env.data().first().expect("a table").rows().len();
    (0..rows).map(|r| cell(env, r, name)).collect()
}

#[test]
fn the_originals_batches_answer_one_row_per_item_in_order() {
    let env = resolve_indicator(&json!({"names": ["HbA1c", "心率", "HbA1c", "LDL-C"]}));
    assert_eq!(env.status(), Status::Ok, "{}", render_compact(&env));
    assert_eq!(env.data()[0].name(), "resolutions");
    assert_eq!(
        column(&env, "index"),
        [Cell::Int(0), Cell::Int(1), Cell::Int(2), Cell::Int(3)]
    );
    assert_eq!(
        column(&env, "input"),
        ["HbA1c", "心率", "HbA1c", "LDL-C"].map(Cell::from),
        "in order, repeats kept"
    );
    assert_eq!(cell(&env, 0, "code"), Cell::from("4548-4"));
    assert_eq!(cell(&env, 1, "code"), Cell::from("8867-4"));
    assert_eq!(cell(&env, 2, "code"), Cell::from("4548-4"));
    // One name and a batch of one give the same best candidate.
    let one = resolve_indicator(&json!({"name": "LDL-C"}));
    assert_eq!(cell(&env, 3, "code"), cell(&one, 0, "code"));

    let env = normalize_unit(&json!({"units": ["mg/dl", "次/分", "毫摩尔每升", "bpm"]}));
    assert_eq!(env.data()[0].name(), "units");
    assert_eq!(
        column(&env, "ucum"),
        ["mg/dL", "/min", "mmol/L", "/min"].map(Cell::from)
    );
    let full = vec!["mmHg"; answers_protocol::args::BATCH_MAX];
    let env = normalize_unit(&json!({ "units": full }));
    assert_eq!(env.data()[0].rows().len(), 200);
}

#[test]
fn a_bad_item_refuses_the_batch_by_its_index() {
    let env = resolve_indicator(&json!({"names": ["HbA1c", "glucose", "unobtainium"]}));
    assert_eq!(
        refused(&env),
        (Some("names.2".into()), ArgProblem::UnknownIndicator)
    );
    assert!(
        render_compact(&env).starts_with("error (invalid_arguments): names.2: no indicator"),
        "{}",
        render_compact(&env)
    );
    let env = normalize_unit(&json!({"units": ["mg/dl", "furlongs"]}));
    assert_eq!(
        refused(&env),
        (Some("units.1".into()), ArgProblem::UnknownUnit)
    );
    let env = normalize_unit(&json!({"units": ["mg/dl", " "]}));
    assert_eq!(refused(&env), (Some("units.1".into()), ArgProblem::Empty));
    let env = normalize_unit(&json!({"units": ["mg/dl", 7]}));
    assert_eq!(refused(&env), (Some("units.1".into()), ArgProblem::NotText));
    let over = vec!["mmHg"; answers_protocol::args::BATCH_MAX + 1];
    let env = normalize_unit(&json!({ "units": over }));
    assert_eq!(
        refused(&env),
        (Some("units".into()), ArgProblem::TooManyInBatch)
    );
    let env = normalize_unit(&json!({"unit": "bpm", "units": ["bpm"]}));
    assert_eq!(
        refused(&env),
        (Some("units".into()), ArgProblem::GivenTwice)
    );
    let env = resolve_indicator(&json!({}));
    assert_eq!(refused(&env), (Some("name".into()), ArgProblem::Missing));
    assert!(
        !env.next_steps().is_empty(),
        "a step supplies name or names"
    );
}

#[test]
fn convert_unit_takes_the_originals_parameter_names() {
    let ours = convert_unit(
        &json!({"value": 100, "from": "mg/dL", "to": "mmol/L", "indicator": "2345-7"}),
    );
    let original = convert_unit(
        &json!({"value": 100, "from_unit": "mg/dL", "to_unit": "mmol/L", "loinc_code": "2345-7"}),
    );
    assert_eq!(
        original.status(),
        Status::Ok,
        "{}",
        render_compact(&original)
    );
    assert_eq!(cell(&original, 0, "result"), cell(&ours, 0, "result"));
    assert_eq!(cell(&original, 0, "result"), Cell::Float(5.551));
    // A refusal names the spelling the caller used.
    let env = convert_unit(&json!({"value": 100, "from_unit": "mg/dL", "to_unit": "mmol/L"}));
    assert_eq!(
        refused(&env),
        (Some("loinc_code".into()), ArgProblem::NeedsAnalyte)
    );
    let env = convert_unit(&json!({"value": 1, "from": "kg", "from_unit": "kg", "to": "g"}));
    assert_eq!(
        refused(&env),
        (Some("from_unit".into()), ArgProblem::GivenTwice)
    );
}

#[test]
fn chinese_spellings_of_the_bundled_units_normalise_and_convert() {
    for (printed, ucum) in [
        ("毫摩尔每升", "mmol/L"),
        ("毫摩尔/升", "mmol/L"),
        ("次/分", "/min"),
        ("次/分钟", "/min"),
        ("毫克/分升", "mg/dL"),
        ("毫米汞柱", "mm[Hg]"),
        ("千克", "kg"),
        ("公斤", "kg"),
        ("厘米", "cm"),
        ("摄氏度", "Cel"),
    ] {
        let env = normalize_unit(&json!({ "unit": printed }));
        assert_eq!(cell(&env, 0, "ucum"), Cell::from(ucum), "{printed}");
    }
    let env = convert_unit(
        &json!({"value": 100, "from": "毫克/分升", "to": "毫摩尔每升", "indicator": "glucose"}),
    );
    assert_eq!(cell(&env, 0, "result"), Cell::Float(5.551));
    let env = convert_unit(&json!({"value": 120, "from": "毫米汞柱", "to": "kPa"}));
    assert_eq!(cell(&env, 0, "result"), Cell::Float(16.0));
    let env = convert_unit(&json!({"value": 1.70, "from": "米", "to": "厘米"}));
    assert_eq!(
        refused(&env),
        (Some("from".into()), ArgProblem::UnknownUnit),
        "a spelling the data leaves out is refused"
    );
}
