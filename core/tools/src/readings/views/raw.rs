//! `raw`: stored readings, newest first, at most the call's row budget per indicator
//! ([`ROW_CAP`](crate::readings::ROW_CAP) for a model).

use std::sync::LazyLock;

use rusqlite::named_params;

use super::{Group, Part};
use crate::envelope::kinds::Provenance;
use crate::envelope::table::Cell;
use crate::fault::ToolError;
use crate::readings::Ctx;
use crate::readings::clock::time_label;
use crate::readings::rows::{COLUMNS, OF_CODE, RowRef, unit_cell, value_cell};
use crate::readings::select::Indicator;
use crate::readings::window::IN_WINDOW;

const HEADER: &[&str] = &[
    "indicator",
    "code",
    "date",
    "time",
    "value",
    "unit",
    "source",
];

/// Every indicator's newest readings in the window, cut at the call's row budget.
pub(super) fn answer(ctx: &Ctx<'_>, indicators: &[Indicator]) -> Result<Part, ToolError> {
    let sql = raw_sql();
    let mut part = Part::new(HEADER);
    let mut clock = ctx.clock.clone();
    let b = &ctx.bounds;
    let cap = ctx.budget.rows();
    for (rank, indicator) in indicators.iter().enumerate() {
        let mut stmt = ctx.conn.prepare_cached(sql)?;
        let mut rows = stmt.query(named_params! {
            ":subject": ctx.subject_id,
            ":code": &indicator.code.code,
            ":system": indicator.code.system.as_str(),
            ":utc_lo": &b.utc_lo,
            ":utc_hi": &b.utc_hi,
            ":day_lo": &b.day_lo,
            ":day_hi": &b.day_hi,
            ":limit": i64::try_from(cap + 1).unwrap_or(i64::MAX),
        })?;
        // The (kind, unit) pairs seen, in order; rarely more than one.
        let mut groups: Vec<Group> = Vec::new();
        let mut kept = 0;
        while let Some(row) = rows.next()? {
            if kept == cap {
                part.cut_at(cap);
                break;
            }
            kept += 1;
            let r = RowRef::read(row)?;
            let local = r.local(&mut clock)?;
            part.padded |= r.local_day.is_none();
            if !groups
                .iter()
                .any(|g| g.kind == r.kind && g.unit.as_deref() == r.unit)
            {
                groups.push(Group {
                    kind: r.kind,
                    rank,
                    unit: r.unit.map(str::to_owned),
                });
            }
            let cells = vec![
                Cell::from(indicator.label.as_str()),
                Cell::from(indicator.code.code.as_str()),
                Cell::Text(r.day(local)),
                Cell::Text(time_label(local)),
                value_cell(r.num, r.text),
                unit_cell(r.unit),
                Cell::from(r.source),
            ];
            part.rows.push((r.kind, cells));
        }
        part.provenance
            .extend(groups.into_iter().map(|g| (g, Provenance::Measured)));
    }
    Ok(part)
}

/// The newest readings of a code in the window, at most `:limit`.
pub(crate) fn raw_sql() -> &'static str {
    static SQL: LazyLock<String> = LazyLock::new(|| {
        format!(
            "SELECT {COLUMNS} FROM series s \
             WHERE {OF_CODE} AND {IN_WINDOW} \
             ORDER BY s.start_utc DESC LIMIT :limit"
        )
    });
    &SQL
}
