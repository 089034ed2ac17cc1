//! `latest`: the most recent value per indicator in the window, from the day authority.
//!
//! The newest day wins. If the write side elected a source for it, its elected value is the
//! answer (`elected:<source>`), which is what `day` shows for that day: one day, one number. A
//! newer day nothing elected answers with its newest reading (`measured`).

use std::sync::LazyLock;

use rusqlite::named_params;

use super::{Group, Part, provenance_of};
use crate::envelope::assumption::Assumption;
use crate::envelope::kinds::Provenance;
use crate::envelope::table::Cell;
use crate::store::EntryKind;
use crate::fault::ToolError;
use crate::readings::Ctx;
use crate::readings::rows::{COLUMNS, OF_CODE, RowRef, unit_cell, value_cell};
use crate::readings::select::Indicator;
use crate::readings::window::IN_WINDOW;

const HEADER: &[&str] = &["indicator", "code", "date", "value", "unit", "source"];

/// An indicator's most recent value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Latest {
    pub(crate) kind: EntryKind,
    pub(crate) day: String,
    pub(crate) value: Cell,
    pub(crate) unit: Option<String>,
    pub(crate) source: String,
    pub(crate) provenance: Provenance,
    pub(crate) legacy: bool,
}

/// The latest value of every indicator.
pub(super) fn answer(ctx: &Ctx<'_>, indicators: &[Indicator]) -> Result<Part, ToolError> {
    let mut part = Part::new(HEADER);
    for (rank, indicator) in indicators.iter().enumerate() {
        let Some(latest) = latest_of(ctx, indicator)? else {
            continue;
        };
        part.padded |= latest.legacy;
        if matches!(latest.provenance, Provenance::Elected(_)) {
            part.assumptions.push(Assumption::ElectedSourcePerDay);
        }
        let group = Group {
            kind: latest.kind,
            rank,
            unit: latest.unit.clone(),
        };
        part.rows.push((
            group.kind,
            vec![
                Cell::from(indicator.label.as_str()),
                Cell::from(indicator.code.code.as_str()),
                Cell::Text(latest.day),
                latest.value,
                unit_cell(latest.unit.as_deref()),
                Cell::Text(latest.source),
            ],
        ));
        part.provenance.push((group, latest.provenance));
    }
    Ok(part)
}

/// The most recent value of `indicator` in the window, if it has one.
pub(crate) fn latest_of(ctx: &Ctx<'_>, indicator: &Indicator) -> Result<Option<Latest>, ToolError> {
    let b = &ctx.bounds;
    let code = &indicator.code;
    let sql = newest_sql();
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
    let mut clock = ctx.clock.clone();
    let (mut elected, mut reading) = (None, None);
    while let Some(row) = rows.next()? {
        let r = RowRef::read(row)?;
        let was_elected: bool = row.get(7)?;
        let local = r.local(&mut clock)?;
        let latest = Latest {
            kind: r.kind,
            day: r.day(local),
            value: value_cell(r.num, r.text),
            unit: r.unit.map(str::to_owned),
            source: r.source.to_owned(),
            provenance: if was_elected {
                provenance_of(std::iter::once(r.source), 0, false)
            } else {
                Provenance::Measured
            },
            legacy: r.local_day.is_none(),
        };
        if was_elected {
            elected = Some(latest);
        } else {
            reading = Some(latest);
        }
    }
    // A newer day nothing elected answers with its newest reading; else the elected day.
    Ok(match (elected, reading) {
        (Some(e), Some(r)) if r.day > e.day => Some(r),
        (Some(e), _) => Some(e),
        (None, r) => r,
    })
}

/// The newest elected day and the newest reading of a code in the window, in the shape of
/// [`COLUMNS`] and a last column saying which is which (an elected day's time is its
/// midnight, unused).
pub(crate) fn newest_sql() -> &'static str {
    static SQL: LazyLock<String> = LazyLock::new(|| {
        format!(
            "SELECT * FROM (
               SELECT 'measured', e.unit, e.local_day, e.local_day || 'T00:00:00Z', e.value, NULL,
                      e.source, 1
                 FROM day_elected e
                WHERE e.subject_id = :subject AND e.system = :system AND e.code = :code
                  AND e.local_day BETWEEN :day_lo AND :day_hi
                ORDER BY e.local_day DESC LIMIT 1)
             UNION ALL
             SELECT * FROM (
               SELECT {COLUMNS}, 0 FROM series s
                WHERE {OF_CODE} AND {IN_WINDOW}
                ORDER BY s.start_utc DESC LIMIT 1)"
        )
    });
    &SQL
}
