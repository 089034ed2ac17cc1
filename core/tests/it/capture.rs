//! What a call leaves behind, captured for the tests that check it says no more than it must:
//! an envelope in every form it is sent in, and the log written through phi-filter.

use answers_protocol::{
    Envelope, ErrorClass, ErrorDetail, ErrorKind, Status, ToolId, render_compact, render_rest,
};
use tracing_subscriber::layer::SubscriberExt;

/// Everything an envelope says, in every form it is sent in.
pub(crate) fn all_text(env: &Envelope) -> String {
    format!(
        "{}\n{}\n{}\n{env:?}",
        render_compact(env),
        render_rest(env),
        serde_json::to_string(env).unwrap()
    )
}

/// Runs `f` with a subscriber that writes JSON log lines through phi-filter into memory.
pub(crate) fn logged<T>(f: impl FnOnce() -> T) -> (T, String) {
    let logs = phi_filter::MemoryWriter::default();
    let layer = phi_filter::PhiPolicy::default().wrap(phi_filter::json_layer(logs.clone()));
    let out = tracing::subscriber::with_default(tracing_subscriber::registry().with(layer), f);
    (out, logs.text())
}

/// Asserts `env` is an unrecoverable store fault told by the store error's type, that neither
/// the envelope (in any form) nor `log` carries any of `secrets`, and that the log tells the
/// fault by kind and type. Returns the tool the fault names.
pub(crate) fn assert_store_fault_kept_secret(
    env: &Envelope,
    log: &str,
    secrets: &[&str],
) -> ToolId {
    assert_eq!(env.status(), Status::Error);
    assert_eq!(env.error_kind(), Some(ErrorKind::StoreFault));
    assert_eq!(env.error_class(), Some(ErrorClass::Unrecoverable));
    let Some(ErrorDetail::Fault { tool, type_name }) = env.error_detail() else {
        panic!("not a fault: {env:?}");
    };
    assert_eq!(type_name.as_str(), "answers_store::StoreError");
    let text = all_text(env);
    for secret in secrets {
        assert!(!text.contains(secret), "{secret} in {text}");
        assert!(!log.contains(secret), "{secret} in the log: {log}");
    }
    assert!(
        log.contains("store_fault") && log.contains("answers_store::StoreError"),
        "{log}"
    );
    *tool
}
