//! Keyed pseudonyms: known-answer vectors from an independent implementation (Python's `hmac`),
//! the token in every sink path, the tripwire on the original text, and the refusal without a
//! key.

use phi_filter::{PhiPolicy, PolicyError, PseudonymKey, pseudonym};
use serde_json::json;
use tracing::{info, info_span};

use crate::support::{PHI, assert_no_phi, capture};

/// `(key hex, value, token)`, computed once with Python 3's standard library:
///
/// ```text
/// python3 -c "import hmac,hashlib,base64,sys; k=bytes.fromhex(sys.argv[1]); \
///   print('ps_'+base64.b32encode(hmac.new(k,sys.argv[2].encode(),hashlib.sha256).digest()).decode().lower()[:26])" KEY VALUE
/// ```
const VECTORS: &[(&str, &str, &str)] = &[
    (
        "0101010101010101010101010101010101010101010101010101010101010101",
        "MRN-0042",
        "ps_eude3p6twf66q2z6hjuezrl773",
    ),
    (
        "616e206578616d706c65206b6579206f66207468697274792d74776f20627974657321",
        "MRN-0042",
        "ps_ugue3tg5wsxbisoydwnz4zg4tw",
    ),
    (
        "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
        "42",
        "ps_px4yteslf27yqmwibabncij2ri",
    ),
    (
        "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
        "",
        "ps_2ofueclnqd2f7atlisu5kyd544",
    ),
    (
        "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f2021222324252627",
        "Ann Smith",
        "ps_jaukoemri7ddbmgxsrku3zpoc3",
    ),
];

fn key(hex: &str) -> PseudonymKey {
    PseudonymKey::from_hex(hex).expect("a valid test key")
}

#[test]
fn tokens_match_pythons_hmac() {
    for (k, value, token) in VECTORS {
        assert_eq!(pseudonym(&key(k), *value), *token, "{value:?} under {k}");
    }
}

/// With `PHI_PYTHON` set (a Python 3 interpreter), random values are checked against it too.
#[test]
fn tokens_match_python_when_available() {
    let Ok(python) = std::env::var("PHI_PYTHON") else {
        return;
    };
    let k = "5a".repeat(32);
    for value in [
        "",
        "x",
        "MRN-0042",
        "Ann Smith",
        "é ünïcode",
        &"y".repeat(300),
    ] {
        let out = std::process::Command::new(&python)
            .args([
                "-c",
                "import hmac,hashlib,base64,sys; k=bytes.fromhex(sys.argv[1]); print('ps_'+base64.b32encode(hmac.new(k,sys.argv[2].encode(),hashlib.sha256).digest()).decode().lower()[:26])",
                &k,
                value,
            ])
            .output()
            .expect("run PHI_PYTHON");
        let expected = String::from_utf8(out.stdout).expect("UTF-8");
        assert_eq!(pseudonym(&key(&k), value), expected.trim(), "{value:?}");
    }
}

#[test]
fn the_same_key_and_value_give_the_same_token_in_the_logs() {
    let k = key(VECTORS[0].0);
    let policy = PhiPolicy::default()
        .pseudonym_key(k.clone())
        .pseudonymize("mrn")
        .pseudonymize("patient_*")
        .tripwire(["PHI-CANARY-3f9a"]);
    let stats = policy.stats();
    let buf = capture(policy, || {
        info!(mrn = "MRN-0042", user_id = 7, "opened");
        info!(mrn = %"MRN-0042", patient_name = ?PHI, patient_age = 42u64, "again");
        let span = info_span!("visit", patient_name = PHI);
        span.in_scope(|| info!(mrn = "PHI-CANARY-3f9a", "tripwire"));
    });
    let text = buf.text();
    assert_no_phi(&text);
    assert!(!text.contains("MRN-0042"), "{text}");
    let lines = buf.json_lines();
    assert_eq!(lines[0]["fields"]["mrn"], json!(VECTORS[0].2));
    assert_eq!(lines[0]["fields"]["user_id"], json!(7));
    assert_eq!(
        lines[1]["fields"]["mrn"],
        json!(VECTORS[0].2),
        "Display text"
    );
    // `?PHI` is the Debug text: the string in quotes.
    let debug_text = format!("{PHI:?}");
    assert_eq!(
        lines[1]["fields"]["patient_name"],
        json!(pseudonym(&k, &debug_text))
    );
    assert_eq!(
        lines[1]["fields"]["patient_age"],
        json!(pseudonym(&k, "42"))
    );
    assert_eq!(lines[2]["span"]["patient_name"], json!(pseudonym(&k, PHI)));
    // The tripwire scans the original text, not the token.
    assert_eq!(lines[2]["fields"]["mrn"], json!(phi_filter::CANARY_MARKER));
    let s = stats.snapshot();
    assert_eq!((s.fields_pseudonymized, s.canaries_blocked), (5, 1));
}

#[test]
fn errors_stay_errors_under_a_pseudonymized_name() {
    let policy = PhiPolicy::default()
        .pseudonym_key(key(VECTORS[0].0))
        .pseudonymize("*");
    let e = std::io::Error::other(PHI);
    let buf = capture(policy, || {
        info!(cause = &e as &dyn std::error::Error, "failed");
    });
    assert_no_phi(&buf.text());
    assert_eq!(
        buf.json_lines()[0]["fields"]["cause"],
        json!(phi_filter::ERROR_MARKER)
    );
}

#[test]
fn a_pseudonymized_name_without_a_key_is_refused() {
    let refused = PhiPolicy::default().pseudonymize("patient_*").try_wrap(());
    assert_eq!(
        refused.err(),
        Some(PolicyError::NoKey("patient_*".to_owned()))
    );
    assert!(PhiPolicy::default().try_wrap(()).is_ok());
}
