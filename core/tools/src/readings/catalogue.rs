//! The catalogue: what the record holds in the window, one row per series (code and unit), with
//! its name, code, unit, count, first and last date and latest value.
//!
//! Reported entries come first, as their own table (`reported`), then readings (`indicators`),
//! each most recently recorded first. Both share one budget, [`CATALOGUE_CAP`] rows, and the
//! answer reports how many series there are in all (`catalog_total`). A cut catalogue is told
//! to fetch by name or narrow the window, never to change the view: the catalogue has none.
//!
//! The series and their counts and dates come from the store's per-day summary
//! ([`Store::catalogue`](crate::store::Store::catalogue)), which equals a scan of the rows; the
//! latest value of each series shown is read per series.

use crate::args::health_indicators::IndicatorQuery;
use crate::envelope::Envelope;
use crate::envelope::assumption::{Assumption, ReadingsAssumption, WindowAssumption};
use crate::envelope::kinds::WindowSemantics;
use crate::envelope::meta::Meta;
use crate::envelope::table::{Cell, Table};
use crate::fault::ToolError;
use crate::readings::rows::{count_cell, unit_cell, value_cell};
use crate::readings::select::{Indicator, Labels};
use crate::readings::units::Units;
use crate::readings::views::latest_of;
use crate::readings::{CATALOGUE_CAP, Ctx};
use crate::store::{EntryKind, SeriesSummary, StoredValue};
use crate::vocab::{CodeRef, CodeSystem};

/// One series of the catalogue.
#[derive(Debug, Clone)]
struct Entry {
    kind: EntryKind,
    code: CodeRef,
    /// The unit answered ([`Units`]).
    unit: Option<String>,
    /// The units its rows were recorded in.
    stored: Vec<Option<String>>,
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
    let series = match only {
        None => ctx.store.catalogue(ctx.subject_id, &ctx.bounds)?,
        Some(indicators) => {
            let mut all = Vec::new();
            for i in indicators {
                all.extend(ctx.store.series_of(ctx.subject_id, &i.code, &ctx.bounds)?);
            }
            all
        }
    };
    let mut converted = false;
    for s in series.into_iter().filter(|s| ctx.entries.admits(s.kind)) {
        padded |= s.legacy;
        let e = entry(ctx, &mut labels, s)?;
        converted |= e.unit != e.stored[0];
        merge(&mut entries, e);
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
        env = env.with_assumption(Assumption::Window(WindowAssumption::WindowAllRecorded));
    }
    if padded {
        env = env.with_assumption(Assumption::Readings(ReadingsAssumption::WindowDatePadded));
    }
    if converted {
        env = env.with_assumption(Assumption::Readings(ReadingsAssumption::UnitConverted));
    }
    if cut {
        env = env
            .truncated()
            .with_assumption(Assumption::Readings(ReadingsAssumption::CatalogueCut {
                cap: u32::try_from(CATALOGUE_CAP).unwrap_or(u32::MAX),
            }))
            .with_next_steps(query.next_steps_when_truncated());
    }
    Ok(env.with_assumption(Assumption::Readings(ReadingsAssumption::AbsenceNotEvidence)))
}

/// Adds `e` to `entries`, as one series with an entry of the same kind, code and answered
/// unit: a reading recorded in another unit of the analyte is of the same series.
fn merge(entries: &mut Vec<Entry>, e: Entry) {
    match entries
        .iter_mut()
        .find(|o| (o.kind, &o.code, &o.unit) == (e.kind, &e.code, &e.unit))
    {
        Some(o) => {
            o.count += e.count;
            o.stored.extend(e.stored);
            if e.first < o.first {
                o.first = e.first;
            }
            if e.last > o.last {
                o.last = e.last;
            }
        }
        None => entries.push(e),
    }
}

/// A series of the summary as an entry, under the name its code answers by, in the unit it
/// answers in.
fn entry(ctx: &Ctx<'_>, labels: &mut Labels, s: SeriesSummary) -> Result<Entry, ToolError> {
    let label = labels
        .get(ctx, &s.code)?
        .ok_or(ToolError::Malformed { table: "series" })?;
    Ok(Entry {
        kind: s.kind,
        unit: Units::of(&s.code).unit_of(s.unit.as_deref()),
        stored: vec![s.unit],
        code: s.code,
        count: s.count,
        first: s.first_day,
        last: s.last_day,
        label,
    })
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
    let mut units = Units::of(&e.code);
    let mut newest: Option<StoredValue> = None;
    let mut newest_unit = None;
    for stored in &e.stored {
        let v =
            ctx.store
                .newest_in_unit(ctx.subject_id, &e.code, stored.as_deref(), &ctx.bounds)?;
        if let Some(v) = v
            && newest.as_ref().is_none_or(|n| v.start_utc > n.start_utc)
        {
            newest = Some(v);
            newest_unit = stored.as_deref();
        }
    }
    Ok(newest.map_or(Cell::Null, |v| {
        let (_, num) = units.convert(newest_unit, v.num);
        value_cell(num, v.text.as_deref())
    }))
}
