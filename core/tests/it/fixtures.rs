//! A representative set of envelopes, built by hand with synthetic data: a catalogue, raw
//! readings cut by the cap, stats, latest values, faults and a refusal.

use answers_protocol::args::FromArgs;
use answers_protocol::args::health_indicators::{IndicatorQuery, QUERY_HEALTH_INDICATORS};
use answers_protocol::{
    Assumption, Cell, Envelope, ErrorKind, Meta, NextAction, NextStep, Provenance,
    ReadingsAssumption, Source, Table, ToolId, TypeName, View, Window, WindowAssumption,
    WindowSemantics,
};
use answers_tools::readings::{LATEST_COLUMNS, RAW_COLUMNS, STATS_COLUMNS};
use serde_json::json;

const TZ: &str = "Europe/Berlin";

fn window(start: &str, end: &str) -> Window {
    Window::between(Some(start.parse().unwrap()), Some(end.parse().unwrap())).unwrap()
}

fn table<const N: usize>(name: &str, columns: &[&str], rows: Vec<[Cell; N]>) -> Table {
    let mut t = Table::new(name, columns.iter().copied());
    for row in rows {
        t.push_row(row).unwrap();
    }
    t
}

/// The catalogue of all recorded data, cut: what the person reported first, then readings.
pub(crate) fn catalogue() -> Envelope {
    let query = IndicatorQuery::from_args(&json!({})).unwrap();
    let reported = table(
        "reported",
        &[
            "entry",
            "code",
            "system",
            "count",
            "first_date",
            "last_date",
        ],
        vec![
            [
                "Headache".into(),
                "N01".into(),
                "ICPC-3".into(),
                4.into(),
                "2023-11-02".into(),
                "2024-03-14".into(),
            ],
            [
                "Cough".into(),
                "R05".into(),
                "ICPC-3".into(),
                2.into(),
                "2024-01-20".into(),
                "2024-01-22".into(),
            ],
        ],
    );
    let indicators = table(
        "indicators",
        &[
            "indicator",
            "code",
            "system",
            "unit",
            "count",
            "first_date",
            "last_date",
        ],
        vec![
            [
                "Resting Heart Rate".into(),
                "40443-4".into(),
                "LOINC".into(),
                "/min".into(),
                412.into(),
                "2022-06-01".into(),
                "2024-03-31".into(),
            ],
            [
                "Body weight".into(),
                "29463-7".into(),
                "LOINC".into(),
                "kg".into(),
                96.into(),
                "2022-06-03".into(),
                "2024-03-30".into(),
            ],
            [
                "LDL Cholesterol".into(),
                "13457-7".into(),
                "LOINC".into(),
                "mg/dL".into(),
                5.into(),
                "2021-02-11".into(),
                "2024-02-20".into(),
            ],
            [
                "Glucose [Moles/volume] in Blood".into(),
                "15074-8".into(),
                "LOINC".into(),
                "mmol/L".into(),
                1840.into(),
                "2023-09-01".into(),
                "2024-03-31".into(),
            ],
        ],
    );
    Envelope::ok(
        Meta::new(Window::ALL_RECORDED, TZ, WindowSemantics::TzExact).with_catalog_total(212),
    )
    .with_table(reported)
    .with_table(indicators)
    .truncated()
    .with_assumption(Assumption::Window(WindowAssumption::WindowAllRecorded))
    .with_assumption(Assumption::Readings(ReadingsAssumption::AbsenceNotEvidence))
    .with_next_steps(query.next_steps_when_truncated())
}

/// Raw glucose readings from a CGM, newest first, cut at the cap.
pub(crate) fn raw_truncated() -> Envelope {
    let args = json!({"indicators": ["Glucose [Moles/volume] in Blood"], "view": "raw", "start": "2024-03-01", "end": "2024-03-31"});
    let query = IndicatorQuery::from_args(&args).unwrap();
    let glucose = |date: &str, time: &str, value: f64| -> [Cell; 7] {
        [
            "Glucose [Moles/volume] in Blood".into(),
            "15074-8".into(),
            date.into(),
            time.into(),
            value.into(),
            "mmol/L".into(),
            "cgm".into(),
        ]
    };
    let readings = table(
        "readings",
        RAW_COLUMNS,
        vec![
            glucose("2024-03-31", "07:45", 6.1),
            glucose("2024-03-31", "07:40", 6.3),
            glucose("2024-03-30", "22:15", 6.8),
            glucose("2024-03-30", "22:10", 7.4),
            glucose("2024-03-30", "22:05", 7.9),
        ],
    );
    Envelope::ok(
        Meta::new(
            window("2024-03-01", "2024-03-31"),
            TZ,
            WindowSemantics::TzExact,
        )
        .with_view(View::Raw),
    )
    .with_table(readings)
    .truncated()
    .with_provenance("Glucose [Moles/volume] in Blood", Provenance::Measured)
    .with_assumption(Assumption::Readings(ReadingsAssumption::Truncated {
        cap: 5,
    }))
    .with_assumption(Assumption::Readings(ReadingsAssumption::AbsenceNotEvidence))
    .with_next_steps(query.next_steps_when_truncated())
}

/// Lipid statistics over eighteen months, some rows found by padding their naive timestamp.
pub(crate) fn stats() -> Envelope {
    let lipids = table(
        "readings",
        STATS_COLUMNS,
        vec![
            [
                "LDL Cholesterol".into(),
                "13457-7".into(),
                "mg/dL".into(),
                4.into(),
                118.into(),
                146.into(),
                131.5.into(),
                146.into(),
                "2023-01-17".into(),
                118.into(),
                "2024-02-20".into(),
                (-28).into(),
            ],
            [
                "HDL Cholesterol".into(),
                "2085-9".into(),
                "mg/dL".into(),
                4.into(),
                48.into(),
                55.into(),
                51.25.into(),
                48.into(),
                "2023-01-17".into(),
                55.into(),
                "2024-02-20".into(),
                7.into(),
            ],
        ],
    );
    Envelope::ok(
        Meta::new(
            window("2023-01-01", "2024-06-30"),
            TZ,
            WindowSemantics::DatePaddedNaive,
        )
        .with_view(View::Stats),
    )
    .with_table(lipids)
    .with_provenance("HDL Cholesterol", Provenance::Measured)
    .with_provenance("LDL Cholesterol", Provenance::Measured)
    .with_assumption(Assumption::Readings(
        ReadingsAssumption::StatsCountElectedDays,
    ))
    .with_assumption(Assumption::Readings(ReadingsAssumption::WindowDatePadded))
    .with_assumption(Assumption::Readings(ReadingsAssumption::AbsenceNotEvidence))
}

/// The latest value of three indicators, each elected from its device, and one never recorded.
pub(crate) fn latest() -> Envelope {
    let rows = table(
        "readings",
        LATEST_COLUMNS,
        vec![
            [
                "Resting Heart Rate".into(),
                "40443-4".into(),
                "2024-03-31".into(),
                58.into(),
                "/min".into(),
                "watch".into(),
            ],
            [
                "Body weight".into(),
                "29463-7".into(),
                "2024-03-30".into(),
                81.4.into(),
                "kg".into(),
                "scale".into(),
            ],
            [
                "Systolic blood pressure".into(),
                "8480-6".into(),
                "2024-03-29".into(),
                128.into(),
                "mm[Hg]".into(),
                "cuff".into(),
            ],
        ],
    );
    Envelope::ok(
        Meta::new(Window::ALL_RECORDED, TZ, WindowSemantics::TzExact).with_view(View::Latest),
    )
    .with_table(rows)
    .with_provenance("Body weight", Provenance::Elected(Source::Scale))
    .with_provenance("Resting Heart Rate", Provenance::Elected(Source::Watch))
    .with_provenance("Systolic blood pressure", Provenance::Elected(Source::Cuff))
    .with_assumption(Assumption::Window(WindowAssumption::WindowAllRecorded))
    .with_assumption(Assumption::Readings(
        ReadingsAssumption::ElectedSourcePerDay,
    ))
    .with_assumption(Assumption::Readings(ReadingsAssumption::AbsenceNotEvidence))
}

/// The error type of a store that failed; its message would quote the SQL, so only its type
/// name may travel.
#[derive(Debug)]
pub(crate) struct StoreError {
    _sql: String,
}

/// A store fault: unrecoverable, told by the error's type.
pub(crate) fn fault() -> Envelope {
    let err = StoreError {
        _sql: "SELECT value FROM readings WHERE note = 'PHI-CANARY'".into(),
    };
    Envelope::fault(
        ToolId::QueryHealthIndicators,
        ErrorKind::StoreFault,
        TypeName::of_val(&err),
    )
}

/// The store is unreachable: recoverable, with the same call suggested for later.
pub(crate) fn unavailable() -> Envelope {
    let args = json!({"indicators": ["Body weight"], "view": "week"});
    let query = IndicatorQuery::from_args(&args).unwrap();
    let mut retry = NextStep::new(NextAction::RetryLater, ToolId::QueryHealthIndicators);
    if let Some(obj) = query.to_args().as_object() {
        for (k, v) in obj {
            retry = retry.arg(k.clone(), v.clone());
        }
    }
    Envelope::fault(
        ToolId::QueryHealthIndicators,
        ErrorKind::StoreUnavailable,
        TypeName::of::<std::io::Error>(),
    )
    .with_next_step(retry)
}

/// The original's example: a client that learned the draft's `kind`.
pub(crate) fn refusal() -> Envelope {
    QUERY_HEALTH_INDICATORS
        .validate(&json!({"kind": "medications", "view": "day"}))
        .unwrap_err()
}

/// Every fixture, by name.
pub(crate) fn all() -> Vec<(&'static str, Envelope)> {
    vec![
        ("catalogue", catalogue()),
        ("raw_truncated", raw_truncated()),
        ("stats", stats()),
        ("latest", latest()),
        ("fault", fault()),
        ("unavailable", unavailable()),
        ("refusal", refusal()),
    ]
}
