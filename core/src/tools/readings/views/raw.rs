//! `raw`: stored readings, newest first, at most [`ROW_CAP`] per indicator.

use std::collections::BTreeSet;

use rusqlite::named_params;

use super::{Group, Part};
use crate::envelope::kinds::Provenance;
use crate::envelope::table::Cell;
use crate::tools::fault::ToolError;
use crate::tools::readings::clock::time_label;
use crate::tools::readings::rows::{COLUMNS, Reading, unit_cell};
use crate::tools::readings::select::Indicator;
use crate::tools::readings::window::IN_WINDOW;
use crate::tools::readings::{Ctx, ROW_CAP};

const HEADER: &[&str] = &["indicator", "code", "date", "time", "value", "unit", "source"];

/// Every indicator's newest readings in the window, cut at [`ROW_CAP`].
pub(super) fn answer(ctx: &Ctx<'_>, indicators: &[Indicator]) -> Result<Part, ToolError> {
    let sql = format!(
        "SELECT {COLUMNS} FROM series s \
         WHERE s.subject_id = :subject AND s.code = :code AND s.system = :system AND {IN_WINDOW} \
         ORDER BY s.start_utc DESC LIMIT :limit"
    );
    let mut part = Part::new(HEADER);
    let mut clock = ctx.clock.clone();
    let b = &ctx.bounds;
    for (rank, indicator) in indicators.iter().enumerate() {
        let mut stmt = ctx.conn.prepare_cached(&sql)?;
        let mut rows = stmt.query(named_params! {
            ":subject": ctx.subject_id,
            ":code": &indicator.code.code,
            ":system": indicator.code.system.as_str(),
            ":utc_lo": &b.utc_lo,
            ":utc_hi": &b.utc_hi,
            ":day_lo": &b.day_lo,
            ":day_hi": &b.day_hi,
            ":limit": i64::try_from(ROW_CAP + 1).unwrap_or(i64::MAX),
        })?;
        let mut groups = BTreeSet::new();
        let mut kept = 0;
        while let Some(row) = rows.next()? {
            if kept == ROW_CAP {
                part.cut_at(ROW_CAP);
                break;
            }
            kept += 1;
            let r = Reading::from_row(row, &mut clock)?;
            part.padded |= r.legacy;
            let group = Group {
                kind: r.kind,
                rank,
                unit: r.unit.clone(),
            };
            let cells = vec![
                Cell::from(indicator.label.as_str()),
                Cell::from(indicator.code.code.as_str()),
                Cell::from(r.day.as_str()),
                Cell::from(time_label(r.local)),
                r.value(),
                unit_cell(r.unit.as_deref()),
                Cell::from(r.source.as_str()),
            ];
            groups.insert(group.clone());
            part.rows.push((group, cells));
        }
        part.provenance
            .extend(groups.into_iter().map(|g| (g, Provenance::Measured)));
    }
    Ok(part)
}
