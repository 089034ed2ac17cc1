//! The conversion table cross-checked against an independent UCUM implementation: `ucumvert`
//! (Python, a lark grammar of UCUM onto pint), run by `core/tests/oracle/ucum_oracle.py`.
//!
//! The Python comes from `PHI_PYTHON` (a virtual environment with
//! `core/tests/oracle/requirements.txt` installed). Without it the test fails, saying how to
//! set it, unless `PHI_SKIP_ORACLE=1`: CI cannot skip it silently.

use std::io::Write as _;
use std::process::{Command, Stdio};

use answers::tools::terminology::convert_unit;
use answers::vocab::Vocabulary;
use serde_json::{Value, json};

use super::{CONVERSIONS, cell, number};

/// The two implementations agree within this relative difference. `mm[Hg]` differs most: UCUM
/// defines it as 133.322 Pa, pint as 133.322387415 Pa (3e-6).
const TOLERANCE: f64 = 1e-5;

const HOW: &str = "set PHI_PYTHON to a python with core/tests/oracle/requirements.txt installed: \
    python3 -m venv .venv-oracle && .venv-oracle/bin/pip install -r core/tests/oracle/requirements.txt \
    && PHI_PYTHON=$PWD/.venv-oracle/bin/python cargo test -p answers --test it terminology \
    (or PHI_SKIP_ORACLE=1 to skip this test on purpose)";

#[test]
fn conversions_agree_with_ucumvert() {
    let Some(python) = std::env::var_os("PHI_PYTHON") else {
        if std::env::var("PHI_SKIP_ORACLE").as_deref() == Ok("1") {
            eprintln!("PHI_SKIP_ORACLE=1: the ucumvert cross-check did not run");
            return;
        }
        panic!("PHI_PYTHON is not set; {HOW}");
    };
    let vocab = Vocabulary::bundled();
    let mut cases = Vec::new();
    let mut ours = Vec::new();
    for &(value, from, to, indicator, _) in CONVERSIONS {
        let mut args = json!({"value": value, "from": from, "to": to});
        let mut molar_mass = Value::Null;
        if let Some(indicator) = indicator {
            args["indicator"] = indicator.into();
            let code = vocab
                .resolve(indicator)
                .into_iter()
                .find(|c| vocab.molar_mass(&c.code).is_some())
                .expect("the table's analytes have a molar mass");
            molar_mass = vocab.molar_mass(&code.code).into();
        }
        let env = convert_unit(&args);
        ours.push(number(&cell(&env, 0, "unrounded")));
        // The oracle gets the UCUM codes the tool normalised the units to.
        cases.push(json!({
            "value": value,
            "from": cell(&env, 0, "from").to_json(),
            "to": cell(&env, 0, "to").to_json(),
            "molar_mass": molar_mass,
        }));
    }
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/oracle/ucum_oracle.py");
    let mut child = Command::new(&python)
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run PHI_PYTHON ({e}); {HOW}"));
    child
        .stdin
        .take()
        .expect("piped")
        .write_all(Value::Array(cases.clone()).to_string().as_bytes())
        .expect("the oracle reads its cases");
    let out = child.wait_with_output().expect("the oracle runs");
    assert!(
        out.status.success(),
        "the oracle failed: {}; {HOW}",
        String::from_utf8_lossy(&out.stderr)
    );
    let theirs: Vec<Value> = serde_json::from_slice(&out.stdout).expect("the oracle writes JSON");
    assert_eq!(theirs.len(), ours.len());
    for ((case, ours), theirs) in cases.iter().zip(&ours).zip(&theirs) {
        let theirs = theirs
            .as_f64()
            .unwrap_or_else(|| panic!("{case}: the oracle refused: {theirs}"));
        let diff = (ours - theirs).abs() / theirs.abs().max(f64::MIN_POSITIVE);
        assert!(diff <= TOLERANCE, "{case}: ours {ours}, ucumvert {theirs}");
    }
}
