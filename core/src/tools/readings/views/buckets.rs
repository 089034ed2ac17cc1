//! `minute` and `hour`: the mean of each bucket of local wall-clock time in the subject's zone,
//! newest first, at most [`BUCKET_CAP`] buckets per indicator and unit.
//!
//! Readings are scanned newest first and the scan stops once every unit seen holds more than
//! the cap of buckets and the readings are two days older than the oldest bucket kept: no
//! reading that old can fall into a kept bucket, whatever the zone's offset. So an hour view of
//! five years of minute data reads the newest sixty days of it, not all of it.

use std::collections::{BTreeMap, HashMap};

use jiff::civil::DateTime;
use rusqlite::named_params;

use super::{Group, Part};
use crate::envelope::kinds::Provenance;
use crate::envelope::table::Cell;
use crate::tools::fault::ToolError;
use crate::tools::readings::clock::{hour_label, minute_label};
use crate::tools::readings::rows::{COLUMNS, Reading, count_cell, mean, unit_cell};
use crate::tools::readings::select::Indicator;
use crate::tools::readings::window::{IN_WINDOW, parse_day};
use crate::tools::readings::{BUCKET_CAP, Ctx};

/// `minute`: one point per minute of local time.
pub(super) fn minute(ctx: &Ctx<'_>, indicators: &[Indicator]) -> Result<Part, ToolError> {
    answer(
        ctx,
        indicators,
        &["indicator", "code", "minute", "value", "unit", "count"],
        minute_label,
    )
}

/// `hour`: one point per hour of local time.
pub(super) fn hour(ctx: &Ctx<'_>, indicators: &[Indicator]) -> Result<Part, ToolError> {
    answer(
        ctx,
        indicators,
        &["indicator", "code", "hour", "value", "unit", "count"],
        hour_label,
    )
}

/// A bucket's running mean.
#[derive(Debug, Default, Clone, Copy)]
struct Acc {
    sum: f64,
    numbers: usize,
    count: usize,
}

/// One unit's buckets, and once cut, the oldest bucket kept and the instant (as text) older
/// readings cannot reach it from.
#[derive(Debug, Default)]
struct Buckets {
    by_label: BTreeMap<String, Acc>,
    floor: Option<String>,
    done_before: Option<String>,
}

fn answer(
    ctx: &Ctx<'_>,
    indicators: &[Indicator],
    header: &'static [&'static str],
    label: fn(DateTime) -> String,
) -> Result<Part, ToolError> {
    let sql = format!(
        "SELECT {COLUMNS} FROM series s \
         WHERE s.subject_id = :subject AND s.code = :code AND s.system = :system AND {IN_WINDOW} \
         ORDER BY s.start_utc DESC"
    );
    let mut part = Part::new(header);
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
        })?;
        let mut groups: HashMap<Group, Buckets> = HashMap::new();
        while let Some(row) = rows.next()? {
            let r = Reading::from_row(row, &mut clock)?;
            let group = Group {
                kind: r.kind,
                rank,
                unit: r.unit.clone(),
            };
            let older = |g: &Buckets| {
                g.done_before
                    .as_deref()
                    .is_some_and(|t| r.start_utc.as_str() < t)
            };
            if groups.get(&group).is_some_and(older) {
                if groups.values().all(older) {
                    break;
                }
                continue;
            }
            let g = groups.entry(group).or_default();
            let bucket = label(r.local);
            if g.floor.as_ref().is_some_and(|f| bucket < *f) {
                continue;
            }
            part.padded |= r.legacy;
            let acc = g.by_label.entry(bucket).or_default();
            acc.count += 1;
            if let Some(x) = r.num {
                acc.sum += x;
                acc.numbers += 1;
            }
            if g.by_label.len() > BUCKET_CAP {
                g.by_label.pop_first();
                part.cut_at(BUCKET_CAP);
                let floor = g.by_label.keys().next().cloned().unwrap_or_default();
                g.done_before = parse_day(&floor)
                    .and_then(|d| d.checked_sub(jiff::Span::new().days(2)).ok())
                    .map(|d| d.to_string());
                g.floor = Some(floor);
            }
        }
        let mut sorted: Vec<(Group, Buckets)> = groups.into_iter().collect();
        sorted.sort_by(|a, b| a.0.cmp(&b.0));
        for (group, buckets) in sorted {
            for (bucket, acc) in buckets.by_label.iter().rev() {
                part.rows.push((
                    group.clone(),
                    vec![
                        Cell::from(indicator.label.as_str()),
                        Cell::from(indicator.code.code.as_str()),
                        Cell::from(bucket.as_str()),
                        Cell::from(mean(acc.sum, acc.numbers)),
                        unit_cell(group.unit.as_deref()),
                        count_cell(acc.count),
                    ],
                ));
            }
            part.provenance.push((group, Provenance::Computed));
        }
    }
    Ok(part)
}
