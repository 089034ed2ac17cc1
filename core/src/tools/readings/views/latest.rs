//! `latest`: the most recent value per indicator in the window, from the day authority.
//!
//! The newest day wins. If the write side elected a source for it, its elected value is the
//! answer (`elected:<source>`), which is what `day` shows for that day: one day, one number. A
//! newer day nothing elected answers with its newest reading (`measured`).

use rusqlite::{OptionalExtension, named_params};

use super::{Group, Part, provenance_of};
use crate::envelope::assumption::Assumption;
use crate::envelope::kinds::Provenance;
use crate::envelope::table::Cell;
use crate::store::EntryKind;
use crate::tools::fault::ToolError;
use crate::tools::readings::Ctx;
use crate::tools::readings::rows::{COLUMNS, Reading, unit_cell, value_cell};
use crate::tools::readings::select::Indicator;
use crate::tools::readings::window::IN_WINDOW;

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
            group.clone(),
            vec![
                Cell::from(indicator.label.as_str()),
                Cell::from(indicator.code.code.as_str()),
                Cell::from(latest.day.as_str()),
                latest.value,
                unit_cell(latest.unit.as_deref()),
                Cell::from(latest.source.as_str()),
            ],
        ));
        part.provenance.push((group, latest.provenance));
    }
    Ok(part)
}

const NEWEST_ELECTED: &str = "\
SELECT e.local_day, e.value, e.source, e.unit
  FROM day_elected e
 WHERE e.subject_id = :subject AND e.system = :system AND e.code = :code
   AND e.local_day BETWEEN :day_lo AND :day_hi
 ORDER BY e.local_day DESC
 LIMIT 1";

/// The most recent value of `indicator` in the window, if it has one.
pub(crate) fn latest_of(ctx: &Ctx<'_>, indicator: &Indicator) -> Result<Option<Latest>, ToolError> {
    let b = &ctx.bounds;
    let code = &indicator.code;
    let elected = ctx
        .conn
        .prepare_cached(NEWEST_ELECTED)?
        .query_row(
            named_params! {
                ":subject": ctx.subject_id,
                ":system": code.system.as_str(),
                ":code": &code.code,
                ":day_lo": &b.day_lo,
                ":day_hi": &b.day_hi,
            },
            |row| {
                Ok(Latest {
                    kind: EntryKind::Measured,
                    day: row.get(0)?,
                    value: value_cell(Some(row.get(1)?), None),
                    source: row.get(2)?,
                    unit: row.get(3)?,
                    provenance: Provenance::Computed,
                    legacy: false,
                })
            },
        )
        .optional()?
        .map(|mut l| {
            l.provenance = provenance_of(std::iter::once(l.source.as_str()), 0, false);
            l
        });
    let sql = format!(
        "SELECT {COLUMNS} FROM series s \
         WHERE s.subject_id = :subject AND s.code = :code AND s.system = :system AND {IN_WINDOW} \
         ORDER BY s.start_utc DESC LIMIT 1"
    );
    let mut stmt = ctx.conn.prepare_cached(&sql)?;
    let mut rows = stmt.query(named_params! {
        ":subject": ctx.subject_id,
        ":code": &code.code,
        ":system": code.system.as_str(),
        ":utc_lo": &b.utc_lo,
        ":utc_hi": &b.utc_hi,
        ":day_lo": &b.day_lo,
        ":day_hi": &b.day_hi,
    })?;
    let reading = match rows.next()? {
        Some(row) => Some(Reading::from_row(row, &mut ctx.clock.clone())?),
        None => None,
    };
    Ok(match (elected, reading) {
        (Some(e), Some(r)) if r.day <= e.day => Some(e),
        (Some(e), None) => Some(e),
        (_, Some(r)) => Some(Latest {
            kind: r.kind,
            value: r.value(),
            day: r.day,
            unit: r.unit,
            source: r.source,
            provenance: Provenance::Measured,
            legacy: r.legacy,
        }),
        (None, None) => None,
    })
}
