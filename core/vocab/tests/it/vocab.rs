//! The bundled vocabularies: what the issue asks them to cover, the headache/头疼 path, units
//! and molar masses, and that the verbatim files stay verbatim.

use answers_vocab::{CodeRef, CodeSystem, Vocabulary};

fn v() -> &'static Vocabulary {
    Vocabulary::bundled()
}

#[test]
fn headache_finds_the_entry_written_in_chinese_through_its_code() {
    let code = v().resolve("headache");
    assert_eq!(code, [CodeRef::icpc("N01")]);
    for typed in ["头疼", "头痛", "Headache", " HEADACHE ", "N01"] {
        assert_eq!(v().resolve(typed), code, "{typed}");
    }
    assert_eq!(v().entry(&code[0]).unwrap().system, CodeSystem::Icpc);
}

#[test]
fn the_subset_covers_every_group_the_issue_names() {
    let groups: [(&str, &[&str]); 9] = [
        (
            "vitals",
            &["heart rate", "blood pressure", "SpO2", "body temperature"],
        ),
        ("activity", &["steps"]),
        ("sleep", &["sleep"]),
        ("body", &["weight", "height", "BMI", "waist"]),
        ("lipids", &["TC", "HDL", "LDL", "TG"]),
        ("glucose", &["glucose", "FBG", "HbA1c"]),
        ("kidney", &["creatinine", "BUN", "eGFR"]),
        ("liver", &["ALT", "AST", "ALP", "bilirubin", "albumin"]),
        (
            "cbc",
            &["WBC", "RBC", "hemoglobin", "hematocrit", "platelets"],
        ),
    ];
    for (group, keywords) in groups {
        for k in keywords {
            let codes = v().resolve(k);
            assert!(!codes.is_empty(), "{group}: {k}");
            assert!(
                codes.iter().all(|c| c.system == CodeSystem::Loinc),
                "{group}: {k}"
            );
        }
    }
}

#[test]
fn synonyms_cover_device_and_lab_report_names_in_english_and_chinese() {
    let cases = [
        ("dailyRestingHeartRates", "40443-4"),
        ("静息心率", "40443-4"),
        ("Glycated Hemoglobin-HbA1c", "4548-4"),
        ("糖化血红蛋白", "4548-4"),
        ("bodyMass", "29463-7"),
        ("体重", "29463-7"),
        ("sleepDuration", "93832-4"),
        ("stepCount", "41950-7"),
    ];
    for (keyword, code) in cases {
        assert!(
            v().resolve(keyword).contains(&CodeRef::loinc(code)),
            "{keyword}"
        );
    }
    // Official names reach their code too.
    assert_eq!(
        v().resolve("hemoglobin a1c/hemoglobin.total in blood"),
        [CodeRef::loinc("4548-4")]
    );
}

#[test]
fn the_loinc_file_keeps_loinc_field_names_and_only_loinc_fields() {
    let text = include_str!("../../../data/loinc.csv");
    let header = text.lines().next().unwrap();
    assert_eq!(
        header,
        "LOINC_NUM,LONG_COMMON_NAME,COMPONENT,PROPERTY,SYSTEM,SCALE_TYP,CLASS"
    );
    let rows = text.lines().skip(1).filter(|l| !l.is_empty()).count();
    let loinc = v().entries().filter(|e| e.system == CodeSystem::Loinc);
    assert_eq!(loinc.count(), rows);
    // A name with a comma survives the quoting verbatim.
    let egfr = v().entry(&CodeRef::loinc("98979-8")).unwrap();
    assert!(
        egfr.name.contains("Serum, Plasma or Blood"),
        "{}",
        egfr.name
    );
}

#[test]
fn every_canonical_unit_is_its_own_normal_form() {
    let mut checked = 0;
    for e in v().entries() {
        if let Some(unit) = &e.unit {
            assert_eq!(v().normalize_unit(unit), Some(unit.as_str()), "{}", e.code);
            checked += 1;
        }
    }
    assert!(checked >= 40, "{checked}");
    for (printed, ucum) in [
        ("mg/dl", "mg/dL"),
        ("bpm", "/min"),
        ("°C", "Cel"),
        ("lbs", "[lb_av]"),
    ] {
        assert_eq!(v().normalize_unit(printed), Some(ucum), "{printed}");
    }
}

#[test]
fn molar_masses_convert_the_demo_panel() {
    // mg/dL = mmol/L × g/mol ÷ 10
    let glucose = v().molar_mass("14771-0").unwrap();
    assert!((5.1 * glucose / 10.0 - 91.88).abs() < 0.01);
    let cholesterol = v().molar_mass("14647-2").unwrap();
    assert!((4.60 * cholesterol / 10.0 - 177.87).abs() < 0.01);
    assert_eq!(
        v().canonical_unit(&CodeRef::loinc("14771-0")),
        Some("mmol/L")
    );
    assert_eq!(
        v().molar_mass("4548-4"),
        None,
        "HbA1c % is not a molar conversion"
    );
}

#[test]
fn icpc_is_the_twelve_verified_icpc2_rubrics() {
    let icpc: Vec<_> = v()
        .entries()
        .filter(|e| e.system == CodeSystem::Icpc)
        .collect();
    assert_eq!(icpc.len(), 12);
    assert!(icpc.iter().all(|e| e.unit.is_none()));
}
