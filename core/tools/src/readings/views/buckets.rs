//! `minute` and `hour`: the mean of each bucket of local wall-clock time in the subject's zone,
//! newest first, at most [`BUCKET_CAP`] buckets per indicator and unit.
//!
//! Readings are scanned newest first and the scan stops once every unit seen holds more than
//! the cap of buckets and the readings are two days older than the oldest bucket kept: no
//! reading that old can fall into a kept bucket, whatever the zone's offset. So an hour view of
//! five years of minute data reads the newest sixty days of it, not all of it.

use std::collections::BTreeMap;

use jiff::civil::DateTime;

use super::{Group, Part};
use crate::envelope::assumption::{Assumption, ReadingsAssumption};
use crate::envelope::kinds::Provenance;
use crate::envelope::table::Cell;
use crate::fault::ToolError;
use crate::readings::clock::{hour_label, minute_label};
use crate::readings::rows::{count_cell, local_of, mean, unit_cell};
use crate::readings::select::Indicator;
use crate::readings::units::Units;
use crate::readings::{BUCKET_CAP, Ctx};
use crate::store::{EntryKind, Flow};

/// `minute`: one point per minute of local time.
pub(super) fn minute(ctx: &Ctx<'_>, indicators: &[Indicator]) -> Result<Part, ToolError> {
    answer(
        ctx,
        indicators,
        &["indicator", "code", "minute", "value", "unit", "count"],
        Width::Minute,
    )
}

/// `hour`: one point per hour of local time.
pub(super) fn hour(ctx: &Ctx<'_>, indicators: &[Indicator]) -> Result<Part, ToolError> {
    answer(
        ctx,
        indicators,
        &["indicator", "code", "hour", "value", "unit", "count"],
        Width::Hour,
    )
}

/// How wide a bucket is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Width {
    Minute,
    Hour,
}

impl Width {
    /// The start of the bucket `t` is in.
    fn start(self, t: DateTime) -> DateTime {
        let minute = match self {
            Width::Minute => t.minute(),
            Width::Hour => 0,
        };
        DateTime::new(t.year(), t.month(), t.day(), t.hour(), minute, 0, 0).unwrap_or(t)
    }

    fn label(self, start: DateTime) -> String {
        match self {
            Width::Minute => minute_label(start),
            Width::Hour => hour_label(start),
        }
    }
}

/// A bucket's running mean.
#[derive(Debug, Default, Clone, Copy)]
struct Acc {
    sum: f64,
    numbers: usize,
    count: usize,
}

/// One kind and unit's buckets by their local start, and once cut, the oldest bucket kept and
/// the instant (as text) before which no reading can reach it.
#[derive(Debug)]
struct Buckets {
    kind: EntryKind,
    unit: Option<String>,
    by_start: BTreeMap<DateTime, Acc>,
    floor: Option<DateTime>,
    done_before: Option<String>,
}

impl Buckets {
    fn older(&self, start_utc: &str) -> bool {
        self.done_before.as_deref().is_some_and(|t| start_utc < t)
    }
}

fn answer(
    ctx: &Ctx<'_>,
    indicators: &[Indicator],
    header: &'static [&'static str],
    width: Width,
) -> Result<Part, ToolError> {
    let mut part = Part::new(header);
    let mut clock = ctx.clock.clone();
    for (rank, indicator) in indicators.iter().enumerate() {
        // Rarely more than one kind and unit per code: a short list beats a map.
        let mut groups: Vec<Buckets> = Vec::new();
        let mut units = Units::of(&indicator.code);
        ctx.store
            .visit_newest_first(ctx.subject_id, &indicator.code, &ctx.bounds, None, |r| {
                let (unit, num) = units.convert(r.unit, r.num);
                let at = groups
                    .iter()
                    .position(|g| g.kind == r.kind && g.unit.as_deref() == unit);
                if at.is_some_and(|i| groups[i].older(r.start_utc)) {
                    if groups.iter().all(|g| g.older(r.start_utc)) {
                        return Ok(Flow::Stop);
                    }
                    return Ok(Flow::Continue);
                }
                let g = match at {
                    Some(i) => &mut groups[i],
                    None => {
                        groups.push(Buckets {
                            kind: r.kind,
                            unit: unit.map(str::to_owned),
                            by_start: BTreeMap::new(),
                            floor: None,
                            done_before: None,
                        });
                        groups.last_mut().unwrap_or_else(|| unreachable!())
                    }
                };
                let start = width.start(local_of(&r, &mut clock)?);
                if g.floor.is_some_and(|f| start < f) {
                    return Ok(Flow::Continue);
                }
                part.padded |= r.local_day.is_none();
                let acc = g.by_start.entry(start).or_default();
                acc.count += 1;
                if let Some(x) = num {
                    acc.sum += x;
                    acc.numbers += 1;
                }
                if g.by_start.len() > BUCKET_CAP {
                    g.by_start.pop_first();
                    part.cut_at(BUCKET_CAP);
                    let floor = g.by_start.keys().next().copied().unwrap_or(start);
                    g.done_before = floor
                        .date()
                        .checked_sub(jiff::Span::new().days(2))
                        .ok()
                        .map(|d| d.to_string());
                    g.floor = Some(floor);
                }
                Ok::<_, ToolError>(Flow::Continue)
            })?;
        if units.converted() {
            part.assumptions
                .push(Assumption::Readings(ReadingsAssumption::UnitConverted));
        }
        groups.sort_by(|a, b| (a.kind, &a.unit).cmp(&(b.kind, &b.unit)));
        for g in groups {
            for (start, acc) in g.by_start.iter().rev() {
                part.rows.push((
                    g.kind,
                    vec![
                        Cell::from(indicator.label.as_str()),
                        Cell::from(indicator.code.code.as_str()),
                        Cell::Text(width.label(*start)),
                        Cell::from(mean(acc.sum, acc.numbers)),
                        unit_cell(g.unit.as_deref()),
                        count_cell(acc.count),
                    ],
                ));
            }
            let group = Group {
                kind: g.kind,
                rank,
                unit: g.unit,
            };
            part.provenance.push((group, Provenance::Computed));
        }
    }
    Ok(part)
}
