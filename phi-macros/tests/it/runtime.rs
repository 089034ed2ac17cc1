//! Runtime behaviour of every generated item: spellings, round-trips, refusals, schemas, tables.

use std::collections::BTreeMap;

use phi_macros::{ClosedEnum, ClosedFields};
use serde_json::json;

#[derive(ClosedEnum, Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Grain {
    Second,
    Minute,
    Hour,
    Day,
    Week,
    Month,
    Quarter,
    Year,
}

#[derive(ClosedEnum, Debug, Clone, Copy, PartialEq, Eq)]
enum WindowSemantics {
    TzExact,
    DatePaddedNaive,
}

#[derive(ClosedEnum, Debug, Clone, Copy, PartialEq, Eq)]
#[closed(rename_all = "SCREAMING_SNAKE_CASE")]
enum Code {
    NotFound,
    #[closed(rename = "E42")]
    Custom,
}

#[derive(ClosedEnum, Debug, Clone, Copy, PartialEq, Eq)]
enum Source {
    Watch,
    Phone,
    Lab,
}

#[derive(ClosedEnum, Debug, Clone, Copy, PartialEq, Eq)]
enum Provenance {
    Measured,
    Computed,
    Elected(Source),
}

#[derive(ClosedFields, serde::Serialize, serde::Deserialize, Debug, PartialEq)]
struct Meta {
    #[closed]
    view: Option<Grain>,
    #[closed]
    semantics: WindowSemantics,
    #[closed]
    provenance: BTreeMap<String, Provenance>,
    row_count: usize,
}

#[test]
fn spellings_follow_one_source() {
    assert_eq!(
        Grain::VARIANTS,
        [
            "second", "minute", "hour", "day", "week", "month", "quarter", "year"
        ]
    );
    assert_eq!(WindowSemantics::VARIANTS, ["tz_exact", "date_padded_naive"]);
    assert_eq!(Code::VARIANTS, ["NOT_FOUND", "E42"]);
    for (v, w) in Grain::ALL.iter().zip(Grain::VARIANTS) {
        assert_eq!(v.as_str(), *w);
        assert_eq!(v.to_string(), *w);
        assert_eq!(w.parse::<Grain>(), Ok(*v));
        assert_eq!(serde_json::to_value(v).unwrap(), json!(w));
        assert_eq!(serde_json::from_value::<Grain>(json!(w)).unwrap(), *v);
    }
    assert_eq!(Grain::ALL.len(), Grain::VARIANTS.len());
}

#[test]
fn unknown_values_are_refused_by_name() {
    let e = "hourly".parse::<Grain>().unwrap_err();
    assert_eq!(
        e,
        "`hourly` is not one of second, minute, hour, day, week, month, quarter, year"
    );
    let e = serde_json::from_value::<Grain>(json!("Second"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("`Second`"), "{e}");
    let e = serde_json::from_value::<Grain>(json!(3))
        .unwrap_err()
        .to_string();
    assert!(e.contains("a `Grain`: one of second, minute"), "{e}");
}

#[test]
fn data_variants_have_a_prefixed_wire_form() {
    let p = Provenance::Elected(Source::Lab);
    assert_eq!(p.to_string(), "elected:lab");
    assert_eq!("elected:lab".parse::<Provenance>(), Ok(p));
    assert_eq!(serde_json::to_value(p).unwrap(), json!("elected:lab"));
    assert_eq!(
        serde_json::from_value::<Provenance>(json!("computed")).unwrap(),
        Provenance::Computed
    );
    let e = "elected:fitbit".parse::<Provenance>().unwrap_err();
    assert!(
        e.contains("`fitbit` is not one of watch, phone, lab"),
        "{e}"
    );
    assert!("elected".parse::<Provenance>().is_err());
    assert_eq!(Provenance::VARIANTS, ["measured", "computed", "elected"]);
}

#[test]
fn schemas_are_inline_and_complete() {
    assert_eq!(
        WindowSemantics::json_schema(),
        json!({"type": "string", "enum": ["tz_exact", "date_padded_naive"]})
    );
    assert_eq!(
        Provenance::json_schema(),
        json!({"type": "string", "enum": ["measured", "computed", "elected:watch", "elected:phone", "elected:lab"]})
    );
    // Every value the schema lists parses, and nothing else does.
    for v in Provenance::json_schema()["enum"].as_array().unwrap() {
        assert!(v.as_str().unwrap().parse::<Provenance>().is_ok(), "{v}");
    }
}

#[test]
fn dispatch_tables_cover_every_variant() {
    let table = GrainTable {
        second: "rows",
        minute: "buckets",
        hour: "buckets",
        day: "authority",
        week: "authority",
        month: "authority",
        quarter: "summary",
        year: "year",
    };
    let got: Vec<&str> = Grain::ALL.iter().map(|v| *table.get(*v)).collect();
    assert_eq!(
        got,
        [
            "rows",
            "buckets",
            "buckets",
            "authority",
            "authority",
            "authority",
            "summary",
            "year"
        ]
    );
}

#[test]
fn closed_fields_round_trip() {
    let m = Meta {
        view: Some(Grain::Day),
        semantics: WindowSemantics::TzExact,
        provenance: BTreeMap::from([("steps".to_owned(), Provenance::Elected(Source::Watch))]),
        row_count: 3,
    };
    let v = serde_json::to_value(&m).unwrap();
    assert_eq!(
        v,
        json!({"view": "day", "semantics": "tz_exact", "provenance": {"steps": "elected:watch"}, "row_count": 3})
    );
    assert_eq!(serde_json::from_value::<Meta>(v).unwrap(), m);
    let bad = json!({"view": "daily", "semantics": "tz_exact", "provenance": {}, "row_count": 0});
    let e = serde_json::from_value::<Meta>(bad).unwrap_err().to_string();
    assert!(e.contains("`daily`"), "{e}");
}
