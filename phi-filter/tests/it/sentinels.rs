//! A sentinel per way a value reaches a log. In each run the planted PHI must appear in no
//! output, and the allowlisted fields must come through intact, so no test passes by printing
//! nothing.

use std::error::Error;
use std::fmt;

use phi_filter::{DEFAULT_MARKER, ERROR_MARKER, PhiPolicy};
use serde_json::json;
use tracing::{field, info, info_span, instrument};

use crate::support::{PHI, assert_no_phi, capture};

#[test]
fn event_fields_with_each_sigil() {
    let policy = PhiPolicy::default();
    let stats = policy.stats();
    let buf = capture(policy, || {
        info!(user_id = 42u64, request_id = "req-1", elapsed_ms = 7, note = PHI, shown = %PHI, dbg = ?PHI, "stored");
    });
    assert_no_phi(&buf.text());
    let line = &buf.json_lines()[0];
    let fields = &line["fields"];
    assert_eq!(fields["user_id"], json!(42));
    assert_eq!(fields["request_id"], json!("req-1"));
    assert_eq!(fields["elapsed_ms"], json!(7));
    assert_eq!(fields["message"], json!("stored"));
    for key in ["note", "shown", "dbg"] {
        assert_eq!(
            fields[key],
            json!(DEFAULT_MARKER),
            "{key} keeps its key, loses its value"
        );
    }
    assert_eq!(stats.snapshot().fields_redacted, 3);
}

#[test]
fn allowed_names_are_shape_checked() {
    let policy = PhiPolicy::default();
    let stats = policy.stats();
    let msg = format!("no such table: {PHI}");
    let buf = capture(policy, || {
        info!(error_type = %msg, user_id = %PHI.replace('-', " "), status = "ok", kind = ?std::io::ErrorKind::NotFound);
    });
    assert_no_phi(&buf.text());
    let fields = &buf.json_lines()[0]["fields"];
    assert_eq!(fields["error_type"], json!(DEFAULT_MARKER));
    assert_eq!(fields["user_id"], json!(DEFAULT_MARKER));
    assert_eq!(fields["status"], json!("ok"));
    assert_eq!(fields["kind"], json!("NotFound"));
    assert_eq!(stats.snapshot().shape_failures, 2);
}

#[test]
fn an_id_name_passes_only_an_opaque_id() {
    let policy = PhiPolicy::default();
    let stats = policy.stats();
    let buf = capture(policy, || {
        for login in ["jsmith", "alice@example.org", "Ann Smith"] {
            info!(user_id = %login, "login");
        }
        info!(
            user_id = "usr_01h8xg7k2m3n4p5q6r7s8t9v0w",
            request_id = "550e8400-e29b-41d4-a716-446655440000",
            trace_id = "9f3a7c21d4e5b6a8",
            record_id = "r-42",
            "opaque"
        );
        info!(elapsed_ms = "jsmith", "not an id, still a shape failure");
    });
    let text = buf.text();
    for leaked in ["jsmith", "alice", "Ann Smith"] {
        assert!(!text.contains(leaked), "{leaked} leaked:\n{text}");
    }
    let lines = buf.json_lines();
    for line in &lines[..3] {
        assert_eq!(line["fields"]["user_id"], json!(DEFAULT_MARKER));
    }
    let fields = &lines[3]["fields"];
    assert_eq!(fields["user_id"], json!("usr_01h8xg7k2m3n4p5q6r7s8t9v0w"));
    assert_eq!(
        fields["request_id"],
        json!("550e8400-e29b-41d4-a716-446655440000")
    );
    assert_eq!(fields["trace_id"], json!("9f3a7c21d4e5b6a8"));
    assert_eq!(fields["record_id"], json!("r-42"));
    let s = stats.snapshot();
    assert_eq!((s.shape_failures, s.id_shape_failures), (4, 3));
}

#[test]
fn a_message_longer_than_the_bound_is_cut() {
    let policy = PhiPolicy::default();
    let stats = policy.stats();
    let pad = "é".repeat(200); // 400 bytes of two-byte characters: the cut must respect them
    let buf = capture(policy, || info!(user_id = 1, "{pad}{}", PHI));
    assert_no_phi(&buf.text());
    let line = &buf.json_lines()[0];
    let message = line["fields"]["message"].as_str().expect("a message");
    assert!(message.starts_with("ééé"), "{message}");
    assert!(message.ends_with(" bytes cut]"), "{message}");
    assert!(message.len() < 300 + 40, "{}", message.len());
    assert_eq!(line["fields"]["user_id"], json!(1));
    assert_eq!(stats.snapshot().messages_cut, 1);
}

#[test]
fn span_fields_at_creation_and_in_a_nested_stack() {
    let buf = capture(PhiPolicy::default(), || {
        let outer = info_span!("visit", patient = PHI, visit_id = "v-9");
        let _o = outer.enter();
        let inner = info_span!("load", comment = %PHI, row_count = 3);
        let _i = inner.enter();
        info!(user_id = 5, "inside");
    });
    assert_no_phi(&buf.text());
    let line = &buf.json_lines()[0];
    assert_eq!(line["spans"][0]["visit_id"], json!("v-9"));
    assert_eq!(line["spans"][0]["patient"], json!(DEFAULT_MARKER));
    assert_eq!(line["spans"][1]["row_count"], json!(3));
    assert_eq!(line["spans"][1]["comment"], json!(DEFAULT_MARKER));
    assert_eq!(line["span"]["name"], json!("load"));
}

#[test]
fn values_set_later_with_span_record() {
    let buf = capture(PhiPolicy::default(), || {
        let span = info_span!("query", value = field::Empty, row_count = field::Empty);
        span.record("value", PHI);
        span.record("row_count", 12u64);
        span.record("value", format!("again {PHI}"));
        let _e = span.enter();
        info!(user_id = 5, "done");
    });
    assert_no_phi(&buf.text());
    let span = &buf.json_lines()[0]["span"];
    assert_eq!(span["row_count"], json!(12));
    assert_eq!(span["value"], json!(DEFAULT_MARKER));
}

#[instrument]
fn with_args(patient_name: &str, user_id: u64) {
    info!(row_count = 1, "in instrumented fn");
}

#[test]
fn instrument_arguments() {
    let buf = capture(PhiPolicy::default(), || with_args(PHI, 77));
    assert_no_phi(&buf.text());
    let span = &buf.json_lines()[0]["span"];
    assert_eq!(span["user_id"], json!(77));
    assert_eq!(span["patient_name"], json!(DEFAULT_MARKER));
    assert_eq!(buf.json_lines()[0]["fields"]["row_count"], json!(1));
}

#[derive(Debug)]
struct DbError(String);

impl fmt::Display for DbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "insert failed for {}", self.0)
    }
}

impl Error for DbError {}

#[instrument(err, ret, skip_all, fields(record_id = "r-1"))]
fn fails(fail: bool) -> Result<String, DbError> {
    if fail {
        Err(DbError(PHI.into()))
    } else {
        Ok(format!("comment: {PHI}"))
    }
}

#[test]
fn instrument_err_and_ret() {
    let policy = PhiPolicy::default();
    let stats = policy.stats();
    let buf = capture(policy, || {
        let _ = fails(false);
        let _ = fails(true);
    });
    assert_no_phi(&buf.text());
    let lines = buf.json_lines();
    assert_eq!(lines.len(), 2, "one `ret` event and one `err` event");
    assert_eq!(lines[0]["fields"]["return"], json!(DEFAULT_MARKER));
    assert_eq!(lines[1]["fields"]["error"], json!(ERROR_MARKER));
    assert_eq!(lines[1]["span"]["record_id"], json!("r-1"));
    assert_eq!(stats.snapshot().errors_scrubbed, 1);
}

#[test]
fn record_error_is_scrubbed_even_under_an_allowed_name() {
    let policy = PhiPolicy::default();
    let stats = policy.stats();
    let err = DbError(PHI.into());
    let buf = capture(policy, || {
        tracing::error!(
            error_kind = &err as &(dyn Error + 'static),
            user_id = 3,
            "failed"
        );
    });
    assert_no_phi(&buf.text());
    let fields = &buf.json_lines()[0]["fields"];
    assert_eq!(fields["error_kind"], json!(ERROR_MARKER));
    assert_eq!(fields["user_id"], json!(3));
    assert_eq!(stats.snapshot().errors_scrubbed, 1);
}

#[test]
fn log_records_through_the_bridge() {
    let _ = tracing_log::LogTracer::init();
    let pad = "x".repeat(320);
    let buf = capture(PhiPolicy::default(), || {
        log::info!(target: "app::store", "{pad} {PHI}");
    });
    assert_no_phi(&buf.text());
    let line = &buf.json_lines()[0];
    assert_eq!(line["fields"]["log.target"], json!("app::store"));
    assert!(
        line["fields"]["log.line"].is_u64(),
        "log.* metadata passes: {line}"
    );
    assert!(
        line["fields"]["message"]
            .as_str()
            .unwrap()
            .ends_with("bytes cut]")
    );

    // Within the bound, only the tripwire (or strict mode) keeps a message's PHI out.
    let policy = PhiPolicy::default().tripwire([PHI]);
    let stats = policy.stats();
    let buf = capture(policy, || {
        log::warn!("short message naming {PHI}");
        log::warn!("{pad} {PHI}");
    });
    assert_no_phi(&buf.text());
    for line in buf.json_lines() {
        assert_eq!(line["fields"]["message"], json!(phi_filter::CANARY_MARKER));
    }
    let s = stats.snapshot();
    assert_eq!(
        (s.messages_cut, s.canaries_blocked),
        (0, 2),
        "the whole message is scanned before the cut"
    );
}

#[test]
fn the_tripwire_blocks_allowed_values_too() {
    let policy = PhiPolicy::default().tripwire(["PHI-CANARY-3f9a"]);
    let stats = policy.stats();
    let buf = capture(policy, || {
        // `status` accepts the canary's shape (an id name would already refuse it).
        info!(status = "PHI-CANARY-3f9a", user_id = 4, "ok");
    });
    assert!(!buf.text().contains("PHI-CANARY-3f9a"));
    let fields = &buf.json_lines()[0]["fields"];
    assert_eq!(fields["status"], json!(phi_filter::CANARY_MARKER));
    assert_eq!(fields["user_id"], json!(4));
    assert_eq!(stats.snapshot().canaries_blocked, 1);
}

#[test]
fn strict_messages_name_the_callsite() {
    let buf = capture(PhiPolicy::default().strict_messages(true), || {
        info!(user_id = 4, "free text {}", PHI);
    });
    assert_no_phi(&buf.text());
    let message = buf.json_lines()[0]["fields"]["message"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(message.starts_with("event "), "{message}");
    assert!(message.contains("sentinels.rs"), "{message}");
}

#[test]
fn a_custom_marker_and_extra_names() {
    let policy = PhiPolicy::default()
        .marker("***")
        .allow_name("tool_name")
        .deny_stem("token");
    let buf = capture(policy, || {
        info!(
            tool_name = "query_health_indicators",
            token_count = 5,
            note = PHI
        );
    });
    assert_no_phi(&buf.text());
    let fields = &buf.json_lines()[0]["fields"];
    assert_eq!(fields["tool_name"], json!("query_health_indicators"));
    assert_eq!(fields["token_count"], json!("***"));
    assert_eq!(fields["note"], json!("***"));
}

struct Panicky;

impl fmt::Debug for Panicky {
    fn fmt(&self, _: &mut fmt::Formatter<'_>) -> fmt::Result {
        panic!("a Debug impl that panics");
    }
}

#[test]
fn the_layer_never_panics_on_a_value() {
    let buf = capture(PhiPolicy::default(), || {
        info!(kind = ?Panicky, user_id = 1, "still logged");
    });
    let fields = &buf.json_lines()[0]["fields"];
    assert_eq!(fields["kind"], json!(DEFAULT_MARKER));
    assert_eq!(fields["user_id"], json!(1));
}
