//! The catalogue: what the record holds in the window, one row per series (code and unit), with
//! its name, code, unit, count, first and last date and latest value.
//!
//! Reported entries come first, as their own table (`reported`), then readings (`indicators`),
//! each most recently recorded first. Both share one budget, [`CATALOGUE_CAP`] rows, and the
//! answer reports how many series there are in all (`catalog_total`). A cut catalogue is told
//! to fetch by name or narrow the window, never to change the view: the catalogue has none.

use std::sync::LazyLock;

use rusqlite::named_params;

use crate::args::health_indicators::IndicatorQuery;
use crate::envelope::Envelope;
use crate::envelope::assumption::Assumption;
use crate::envelope::kinds::WindowSemantics;
use crate::envelope::meta::Meta;
use crate::envelope::table::{Cell, Table};
use crate::store::EntryKind;
use crate::fault::ToolError;
use crate::readings::rows::{OF_CODE, count_cell, unit_cell, value_cell};
use crate::readings::select::{Indicator, Labels};
use crate::readings::views::latest_of;
use crate::readings::window::IN_WINDOW;
use crate::readings::{CATALOGUE_CAP, Ctx};
use crate::vocab::{CodeRef, CodeSystem};

/// One series of the catalogue.
#[derive(Debug, Clone)]
struct Entry {
    kind: EntryKind,
    code: CodeRef,
    unit: Option<String>,
    count: usize,
    first: String,
    last: String,
    label: String,
}

/// The columns after the first (`indicator` or `entry`).
const COLUMNS: [&str; 7] = [
    "code",
    "system",
    "unit",
    "count",
    "first_date",
    "last_date",
    "latest",
];

/// The catalogue of the window, of every series or only of `only`'s codes.
pub(crate) fn answer(
    ctx: &Ctx<'_>,
    query: &IndicatorQuery,
    only: Option<&[Indicator]>,
) -> Result<Envelope, ToolError> {
    let mut padded = false;
    let mut entries = Vec::new();
    let mut labels = Labels::default();
    match only {
        None => {
            for code in mixed_codes(ctx, &mut labels, &mut entries, &mut padded)? {
                read(ctx, &code, &mut labels, &mut entries, &mut padded)?;
            }
        }
        Some(indicators) => {
            for i in indicators {
                read(ctx, &i.code, &mut labels, &mut entries, &mut padded)?;
            }
        }
    }
    let total = entries.len();
    entries.sort_by(|a, b| {
        (a.kind == EntryKind::Measured, &b.last, &a.label, &a.code).cmp(&(
            b.kind == EntryKind::Measured,
            &a.last,
            &b.label,
            &b.code,
        ))
    });
    let cut = total > CATALOGUE_CAP;
    entries.truncate(CATALOGUE_CAP);

    let mut reported = Table::new("reported", std::iter::once("entry").chain(COLUMNS));
    let mut readings = Table::new("indicators", std::iter::once("indicator").chain(COLUMNS));
    for e in &entries {
        let latest = latest_cell(ctx, e)?;
        let system = match e.code.system {
            CodeSystem::Loinc => "LOINC",
            CodeSystem::Icpc => "ICPC",
        };
        let row = [
            Cell::from(e.label.as_str()),
            Cell::from(e.code.code.as_str()),
            Cell::from(system),
            unit_cell(e.unit.as_deref()),
            count_cell(e.count),
            Cell::from(e.first.as_str()),
            Cell::from(e.last.as_str()),
            latest,
        ];
        let table = match e.kind {
            EntryKind::Reported => &mut reported,
            EntryKind::Measured => &mut readings,
        };
        // Rows are built to the header above, so they always fit.
        table
            .push_row(row)
            .map_err(|_| ToolError::Malformed { table: "series" })?;
    }

    let semantics = if padded {
        WindowSemantics::DatePaddedNaive
    } else {
        WindowSemantics::TzExact
    };
    let meta = Meta::new(query.window, ctx.tz, semantics).with_catalog_total(total);
    let mut env = Envelope::ok(meta);
    for table in [reported, readings] {
        if !table.rows().is_empty() {
            env = env.with_table(table);
        }
    }
    if query.window.is_all_recorded() {
        env = env.with_assumption(Assumption::WindowAllRecorded);
    }
    if padded {
        env = env.with_assumption(Assumption::WindowDatePadded);
    }
    if cut {
        env = env
            .truncated()
            .with_assumption(Assumption::CatalogueCut {
                cap: u32::try_from(CATALOGUE_CAP).unwrap_or(u32::MAX),
            })
            .with_next_steps(query.next_steps_when_truncated());
    }
    Ok(env.with_assumption(Assumption::AbsenceNotEvidence))
}

/// The series of the window of every code whose rows share one system, kind and unit, and
/// the codes whose rows do not (their series are read one code at a time).
///
/// The codes are found by skipping through the `(subject_id, code, local_day)` index, one
/// probe per code; each code is then summed over the window's rows on the
/// `(subject_id, code, start_utc)` index, grouped by code alone, so nothing is sorted and a
/// windowed catalogue reads only the window.
fn mixed_codes(
    ctx: &Ctx<'_>,
    labels: &mut Labels,
    entries: &mut Vec<Entry>,
    padded: &mut bool,
) -> Result<Vec<CodeRef>, ToolError> {
    let mut codes: Vec<String> = Vec::new();
    {
        let mut stmt = ctx.conn.prepare_cached(CODES)?;
        let mut rows = stmt.query(named_params! { ":subject": ctx.subject_id })?;
        while let Some(row) = rows.next()? {
            codes.push(row.get(0)?);
        }
    }
    let sql = code_sql();
    let b = &ctx.bounds;
    let mut mixed = Vec::new();
    for code in &codes {
        let mut stmt = ctx.conn.prepare_cached(sql)?;
        let mut rows = stmt.query(named_params! {
            ":subject": ctx.subject_id,
            ":code": code,
            ":utc_lo": &b.utc_lo,
            ":utc_hi": &b.utc_hi,
            ":day_lo": &b.day_lo,
            ":day_hi": &b.day_hi,
        })?;
        if let Some(row) = rows.next()? {
            summary(ctx, row, labels, entries, padded, &mut mixed)?;
        }
    }
    Ok(mixed)
}

/// Adds one code's summary row as an entry, or the code to `mixed` if its rows differ in
/// system, kind or unit.
fn summary(
    ctx: &Ctx<'_>,
    row: &rusqlite::Row<'_>,
    labels: &mut Labels,
    entries: &mut Vec<Entry>,
    padded: &mut bool,
    mixed: &mut Vec<CodeRef>,
) -> Result<(), ToolError> {
    let malformed = || ToolError::Malformed { table: "series" };
    let code: String = row.get(0)?;
    let system = |i: usize| -> Result<CodeSystem, ToolError> {
        row.get::<_, String>(i)?.parse().map_err(|_| malformed())
    };
    let same =
        |lo: usize| -> Result<bool, ToolError> { Ok(row.get_ref(lo)? == row.get_ref(lo + 1)?) };
    let (with_unit, count): (i64, i64) = (row.get(7)?, row.get(8)?);
    if !same(1)? {
        // One code on both systems: two codes, each read on its own.
        mixed.push(CodeRef::new(system(1)?, &code));
        mixed.push(CodeRef::new(system(2)?, &code));
        return Ok(());
    }
    let code = CodeRef::new(system(1)?, &code);
    if !same(3)? || !same(5)? || (with_unit != 0 && with_unit != count) {
        mixed.push(code);
        return Ok(());
    }
    let kind: String = row.get(3)?;
    *padded |= row.get::<_, bool>(11)?;
    entries.push(Entry {
        kind: kind.parse().map_err(|_| malformed())?,
        label: labels.get(ctx, &code)?.ok_or_else(malformed)?,
        code,
        unit: row.get(5)?,
        count: usize::try_from(count).map_err(|_| malformed())?,
        first: row.get(9)?,
        last: row.get(10)?,
    });
    Ok(())
}

/// The series of the window of one code.
fn read(
    ctx: &Ctx<'_>,
    code: &CodeRef,
    labels: &mut Labels,
    entries: &mut Vec<Entry>,
    padded: &mut bool,
) -> Result<(), ToolError> {
    let sql = series_sql();
    let b = &ctx.bounds;
    let mut stmt = ctx.conn.prepare_cached(sql)?;
    let mut rows = stmt.query(named_params! {
        ":subject": ctx.subject_id,
        ":code": &code.code,
        ":system": code.system.as_str(),
        ":utc_lo": &b.utc_lo,
        ":utc_hi": &b.utc_hi,
        ":day_lo": &b.day_lo,
        ":day_hi": &b.day_hi,
    })?;
    while let Some(row) = rows.next()? {
        let malformed = || ToolError::Malformed { table: "series" };
        let kind: String = row.get(0)?;
        let system: String = row.get(1)?;
        let code = CodeRef::new(
            system.parse().map_err(|_| malformed())?,
            &row.get::<_, String>(2)?,
        );
        let count: i64 = row.get(4)?;
        *padded |= row.get::<_, bool>(7)?;
        let label = labels.get(ctx, &code)?.ok_or_else(malformed)?;
        entries.push(Entry {
            kind: kind.parse().map_err(|_| malformed())?,
            code,
            unit: row.get(3)?,
            count: usize::try_from(count).map_err(|_| malformed())?,
            first: row.get(5)?,
            last: row.get(6)?,
            label,
        });
    }
    Ok(())
}

/// The latest value of a series: the indicator's latest where it is in the series' unit, else
/// the series' newest reading.
fn latest_cell(ctx: &Ctx<'_>, e: &Entry) -> Result<Cell, ToolError> {
    let indicator = Indicator {
        code: e.code.clone(),
        label: e.label.clone(),
    };
    if let Some(latest) = latest_of(ctx, &indicator)?
        && latest.unit == e.unit
    {
        return Ok(latest.value);
    }
    let sql = newest_in_unit_sql();
    let b = &ctx.bounds;
    let mut stmt = ctx.conn.prepare_cached(sql)?;
    let mut rows = stmt.query(named_params! {
        ":subject": ctx.subject_id,
        ":code": &e.code.code,
        ":system": e.code.system.as_str(),
        ":unit": e.unit.as_deref(),
        ":utc_lo": &b.utc_lo,
        ":utc_hi": &b.utc_hi,
        ":day_lo": &b.day_lo,
        ":day_hi": &b.day_hi,
    })?;
    Ok(match rows.next()? {
        Some(row) => value_cell(row.get(0)?, row.get::<_, Option<String>>(1)?.as_deref()),
        None => Cell::Null,
    })
}

/// Every code the subject's record holds, one index probe each (a loose index scan).
pub(crate) const CODES: &str = "\
WITH RECURSIVE c(code) AS (
    SELECT (SELECT min(code) FROM series WHERE subject_id = :subject)
    UNION ALL
    SELECT (SELECT min(code) FROM series WHERE subject_id = :subject AND code > c.code)
      FROM c WHERE c.code IS NOT NULL
)
SELECT code FROM c WHERE code IS NOT NULL";

/// One code in the window, with what tells whether its rows share one system, kind and unit
/// (each as its least and greatest, and how many rows have a unit), and its count and dates.
/// No row when the window holds none of it.
pub(crate) fn code_sql() -> &'static str {
    static SQL: LazyLock<String> = LazyLock::new(|| {
        format!(
            "SELECT s.code, min(s.system), max(s.system), min(s.kind), max(s.kind),
                    min(s.unit), max(s.unit), count(s.unit), count(*),
                    min(coalesce(s.local_day, substr(s.start_utc, 1, 10))),
                    max(coalesce(s.local_day, substr(s.start_utc, 1, 10))),
                    max(s.local_day IS NULL)
               FROM series s
              WHERE s.subject_id = :subject AND s.code = :code AND {IN_WINDOW}
              GROUP BY s.code"
        )
    });
    &SQL
}

/// The series of the window of one code (`:code`, `:system`), with their counts and dates.
pub(crate) fn series_sql() -> &'static str {
    static SQL: LazyLock<String> = LazyLock::new(|| {
        format!(
            "SELECT s.kind, s.system, s.code, s.unit, count(*),
                    min(coalesce(s.local_day, substr(s.start_utc, 1, 10))),
                    max(coalesce(s.local_day, substr(s.start_utc, 1, 10))),
                    max(s.local_day IS NULL)
               FROM series s
              WHERE {OF_CODE} AND {IN_WINDOW}
              GROUP BY s.kind, s.system, s.code, s.unit"
        )
    });
    &SQL
}

/// The newest value of one code in one unit (`:unit`, null for none) in the window.
pub(crate) fn newest_in_unit_sql() -> &'static str {
    static SQL: LazyLock<String> = LazyLock::new(|| {
        format!(
            "SELECT s.value_num, s.value_text FROM series s
              WHERE {OF_CODE} AND s.unit IS :unit AND {IN_WINDOW}
              ORDER BY s.start_utc DESC LIMIT 1"
        )
    });
    &SQL
}
