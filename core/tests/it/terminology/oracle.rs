//! The conversion table cross-checked against an independent UCUM implementation: `ucumvert`
//! (Python, a lark grammar of UCUM onto pint), run by `core/tests/oracle/ucum_oracle.py`.
//!
//! The Python is the test suite's own (`tests/it/python.rs`): `PHI_PYTHON`, or a virtual
//! environment with `core/tests/requirements.txt` built once. It is never skipped.

use std::io::Write as _;
use std::process::{Command, Stdio};

use answers_tools::terminology::convert_unit;
use answers_vocab::Vocabulary;
use serde_json::{Value, json};

use super::{CONVERSIONS, cell, number};

/// The two implementations agree within this relative difference. `mm[Hg]` differs most: UCUM
/// defines it as 133.322 Pa, pint as 133.322387415 Pa (3e-6).
const TOLERANCE: f64 = 1e-5;

const HOW: &str = "PHI_PYTHON, or python3 with core/tests/requirements.txt installable";

#[test]
fn conversions_agree_with_ucumvert() {
    let python = crate::python::python();
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
    let mut child = Command::new(python)
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run the Python ({e}); {HOW}"));
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
