//! The same record on both backends answers every read the same, byte for byte: one generated
//! record written through the store into `SQLite` and into `PostgreSQL`, and every typed read
//! of it, rendered, compared.

use std::fmt::Write as _;

use crate::test_support::{OpenStore as _, TestDatabase};
use crate::{
    Bounds, ClosedReason, DoseStatus, DrugCode, Flow, Frequency, NameMatch, NewDose, NewPlan,
    NewReading, PlanStatus, Route, Store, StoreError,
};
use answers_protocol::{Source, Window};
use answers_vocab::{CodeRef, CodeSystem};

const SUBJECTS: [(&str, &str, &str); 3] = [
    ("subj-a", "alice", "Europe/Berlin"),
    ("subj-b", "bob", "Pacific/Kiritimati"),
    ("subj-c", "Carol", "America/New_York"),
];

/// A series: its code, the names it is recorded under, its units.
type Series = (
    &'static str,
    &'static [&'static str],
    &'static [Option<&'static str>],
);

const SERIES: [Series; 5] = [
    (
        "8867-4",
        &["Heart rate", "heart RATE", "Pulse É"],
        &[Some("/min")],
    ),
    ("41950-7", &["Steps", "steps 50%"], &[Some("steps"), None]),
    (
        "29463-7",
        &["Weight", "Body_weight"],
        &[Some("kg"), Some("lb")],
    ),
    ("8480-6", &["Systolic"], &[Some("mm[Hg]")]),
    ("2339-0", &["Glucose é"], &[Some("mg/dL"), Some("mmol/L")]),
];

const SOURCES: [Source; 7] = [
    Source::Watch,
    Source::Ring,
    Source::Phone,
    Source::Scale,
    Source::Cgm,
    Source::Manual,
    Source::Lab,
];

/// A small deterministic generator (an LCG): the same record on both backends.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        usize::try_from(self.0 >> 33).unwrap() % n
    }
}

fn record() -> Vec<Vec<NewReading>> {
    let mut rng = Lcg(7);
    let first: jiff::Timestamp = "2026-03-01T00:00:00Z".parse().unwrap();
    let mut batches = Vec::new();
    for (subject, ..) in SUBJECTS {
        for (code, names, units) in SERIES {
            let mut batch = Vec::new();
            for _ in 0..120 {
                let minutes = i64::try_from(rng.next(40 * 24 * 60)).unwrap();
                let start = first
                    .checked_add(jiff::SignedDuration::from_mins(minutes))
                    .unwrap();
                let value = f64::from(u32::try_from(rng.next(20_000)).unwrap()) / 7.0;
                let mut r = NewReading::measured(
                    subject,
                    names[rng.next(names.len())],
                    CodeRef::loinc(code),
                    value,
                    "x",
                    start,
                    SOURCES[rng.next(SOURCES.len())],
                );
                r.unit = units[rng.next(units.len())].map(str::to_owned);
                r.legacy = rng.next(10) == 0;
                if rng.next(20) == 0 {
                    r.comment = Some(format!("note {}", rng.next(1000)));
                }
                batch.push(r);
            }
            batches.push(batch);
        }
        let mut reported = Vec::new();
        for _ in 0..15 {
            let hours = i64::try_from(rng.next(40 * 24)).unwrap();
            let start = first
                .checked_add(jiff::SignedDuration::from_hours(hours))
                .unwrap();
            let mut r = NewReading::reported(subject, "Headache", CodeRef::icpc("N01"), start);
            r.value_text = Some(["mild", "strong", "ÄÖÜ"][rng.next(3)].to_owned());
            reported.push(r);
        }
        batches.push(reported);
    }
    batches
}

fn write(store: &mut Store) {
    for (id, handle, tz) in SUBJECTS {
        store.upsert_subject(id, handle, tz).unwrap();
    }
    for batch in record() {
        store.upsert_readings(&batch).unwrap();
    }
    // A rewrite moves rows between days and sources.
    let mut again = record().swap_remove(1);
    for r in &mut again {
        r.legacy = !r.legacy;
    }
    store.upsert_readings(&again[..40]).unwrap();
    let day = |s: &str| s.parse().unwrap();
    let old = NewPlan::active(
        "p1",
        "subj-a",
        "Atorvastatin",
        Frequency::OnceDaily,
        Route::Oral,
        day("2026-01-01"),
    )
    .closed(
        PlanStatus::Stopped,
        day("2026-03-17"),
        ClosedReason::SideEffect,
    );
    let mut new = NewPlan::active(
        "p2",
        "subj-a",
        "Rosuvastatin",
        Frequency::TwiceDaily,
        Route::Oral,
        day("2026-03-18"),
    );
    new.code = Some(DrugCode::atc("C10AA07"));
    new.dose = Some((10.0, "mg".into()));
    new.note = Some("with food".into());
    store.upsert_plans(&[old, new]).unwrap();
    let mut doses = Vec::new();
    for (i, at) in [
        "2026-03-01T22:30:00Z",
        "2026-03-18T07:00:00Z",
        "2026-03-18T19:00:00Z",
        "2026-03-19T07:00:00Z",
    ]
    .into_iter()
    .enumerate()
    {
        let plan = if i == 0 { "p1" } else { "p2" };
        let mut d = NewDose::taken(plan, "subj-a", at.parse().unwrap());
        if i == 2 {
            d.status = DoseStatus::Skipped;
        }
        doses.push(d);
    }
    store.upsert_doses(&doses).unwrap();
    let file = "# build 37\nrs4244285\t10\t96541616\tAG\nrs12248560\t10\t96521657\t--\n\
                rs1\t1\t100\tCC\nrs2\t1\t50\tAT\nrs3\tX\t7\tG\n";
    let reader = &mut answers_genetics::import::GenotypeReader::new(file.as_bytes());
    store.import_genotypes("subj-b", reader).unwrap();
    let repeated = "rs1\t1\t5\tAA\nrs2\t1\t6\tCC\nrs1\t1\t7\tGG\n";
    let reader = &mut answers_genetics::import::GenotypeReader::new(repeated.as_bytes());
    let refused = store.import_genotypes("subj-b", reader).unwrap_err();
    assert!(refused.to_string().contains("line 3"), "{refused}");
}

fn windows() -> Vec<Window> {
    let d = |s: &str| Some(s.parse().unwrap());
    vec![
        Window::ALL_RECORDED,
        Window::between(d("2026-03-05"), d("2026-03-19")).unwrap(),
        Window::between(None, d("2026-03-02")).unwrap(),
        Window::between(d("2026-04-08"), None).unwrap(),
    ]
}

/// Every read of the record, rendered.
fn answers(store: &Store) -> Result<String, StoreError> {
    let mut out = String::new();
    writeln!(out, "{:?}", store.subjects()?).unwrap();
    let mut codes: Vec<CodeRef> = SERIES.iter().map(|s| CodeRef::loinc(s.0)).collect();
    codes.push(CodeRef::icpc("N01"));
    codes.push(CodeRef::new(CodeSystem::Loinc, "0000-0"));
    for (subject, ..) in SUBJECTS {
        writeln!(out, "{subject} entries {}", store.has_entries(subject)?).unwrap();
        for word in [
            "heart rate",
            "HEART",
            "pulse é",
            "PULSE É",
            "50%",
            "_",
            "é",
            "steps",
        ] {
            for how in [NameMatch::Exact, NameMatch::Contains] {
                let found = store.codes_by_name(subject, word, how)?;
                writeln!(out, "{word:?} {how:?} {found:?}").unwrap();
            }
        }
        for window in windows() {
            let b = Bounds::of(&window);
            writeln!(out, "catalogue {:?}", store.catalogue(subject, &b)?).unwrap();
            for code in &codes {
                writeln!(
                    out,
                    "{code:?} series {:?}",
                    store.series_of(subject, code, &b)?
                )
                .unwrap();
                writeln!(out, "elected {:?}", store.elected_days(subject, code, &b)?).unwrap();
                writeln!(out, "name {:?}", store.recorded_name(subject, code)?).unwrap();
                for limit in [None, Some(3)] {
                    store.visit_newest_first(subject, code, &b, limit, |r| {
                        writeln!(out, "newest-first {r:?}").unwrap();
                        Ok::<_, StoreError>(Flow::Continue)
                    })?;
                }
                store.visit_legacy(subject, code, &b, |r| {
                    writeln!(out, "legacy {r:?}").unwrap();
                    Ok::<_, StoreError>(Flow::Continue)
                })?;
                store.visit_days(subject, code, ("2026-03-10", "2026-03-13"), |r| {
                    writeln!(out, "days {r:?}").unwrap();
                    Ok::<_, StoreError>(Flow::Continue)
                })?;
                store.visit_newest(subject, code, &b, |r, elected| {
                    writeln!(out, "newest {r:?} {elected}").unwrap();
                    Ok::<_, StoreError>(())
                })?;
                for unit in [None, Some("kg"), Some("/min"), Some("steps")] {
                    let v = store.newest_in_unit(subject, code, unit, &b)?;
                    writeln!(out, "in {unit:?} {v:?}").unwrap();
                }
            }
        }
    }
    for (subject, ..) in SUBJECTS {
        let who = store.subject_by_id(subject)?.unwrap();
        writeln!(out, "medications {}", crate::has_medications(store, &who)?).unwrap();
        writeln!(out, "last dose {:?}", store.last_dose_day(subject)?).unwrap();
        writeln!(out, "genotypes {}", crate::has_genotypes(store, &who)?).unwrap();
        if let Some(set) = store.genotype_set(subject)? {
            writeln!(out, "set {set:?}").unwrap();
            let calls = store.genotype_calls(&set, &["rs1", "rs12248560", "rs404", "rs3"])?;
            writeln!(out, "calls {calls:?}").unwrap();
            for (region, limit) in [((1, 1000), 10), ((0, u64::MAX), 1), ((60, 100), 5)] {
                let chromosomes = ["1".to_owned(), "X".to_owned(), "10".to_owned()];
                let found =
                    store.genotype_calls_in_raw_region(&set, &chromosomes, region, limit)?;
                writeln!(out, "region {found:?}").unwrap();
            }
        }
        for window in windows() {
            writeln!(out, "plans {:?}", store.plans_in_effect(subject, &window)?).unwrap();
            writeln!(out, "doses {:?}", store.doses_in_window(subject, &window)?).unwrap();
        }
    }
    for needle in ["note 1", "NOTE", "", "note 999x"] {
        writeln!(out, "{needle:?} {}", store.comment_contains(needle)?).unwrap();
    }
    Ok(out)
}

#[test]
fn every_read_answers_the_same_on_both_backends() {
    let mut sqlite = Store::open_in_memory().unwrap();
    write(&mut sqlite);
    let want = answers(&sqlite).unwrap();
    // The record is not empty where it matters: elected days, legacy rows, both name matches.
    assert!(want.contains("elected [ElectedDay"), "no elected day");
    assert!(want.contains("legacy ReadingRow"), "no legacy row");
    assert!(
        want.contains("\"PULSE É\" Exact [CodeRef"),
        "no exact match"
    );
    assert!(
        want.contains("\"pulse é\" Exact []"),
        "only ASCII is folded"
    );
    let Some(db) = TestDatabase::create() else {
        return;
    };
    let mut pg = db.open();
    write(&mut pg);
    let got = answers(&pg).unwrap();
    if got != want {
        let (w, g): (Vec<_>, Vec<_>) = (want.lines().collect(), got.lines().collect());
        let at = w
            .iter()
            .zip(&g)
            .position(|(a, b)| a != b)
            .unwrap_or(w.len().min(g.len()));
        panic!(
            "the backends differ at line {at}:\n sqlite:   {}\n postgres: {}",
            w.get(at).unwrap_or(&"<end>"),
            g.get(at).unwrap_or(&"<end>")
        );
    }
}
