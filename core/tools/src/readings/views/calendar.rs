//! `day`, `week` and `month`: one point per bucket, from the day authority
//! ([`days`](crate::readings::days)), newest first, at most [`BUCKET_CAP`] per indicator
//! and unit.
//!
//! A day's point is its elected value where the write side elected a source, else the mean of
//! every reading of that day; this is the dashboard's "one day, one number", and it equals
//! `latest` on that day. A week (starting Monday) or a month is the mean of the values its days
//! count, the same values `stats` counts over that week or month.

use std::collections::{BTreeMap, BTreeSet};

use super::{Group, Part, provenance_of};
use crate::envelope::assumption::Assumption;
use crate::envelope::table::Cell;
use crate::fault::ToolError;
use crate::readings::days::{Point, points};
use crate::readings::rows::{count_cell, mean, unit_cell};
use crate::readings::select::Indicator;
use crate::readings::window::{month_of, week_of};
use crate::readings::{BUCKET_CAP, Ctx};

/// `day`: one point per local day.
pub(super) fn day(ctx: &Ctx<'_>, indicators: &[Indicator]) -> Result<Part, ToolError> {
    answer(ctx, indicators, Calendar::Day)
}

/// `week`: one point per week, starting Monday.
pub(super) fn week(ctx: &Ctx<'_>, indicators: &[Indicator]) -> Result<Part, ToolError> {
    answer(ctx, indicators, Calendar::Week)
}

/// `month`: one point per calendar month.
pub(super) fn month(ctx: &Ctx<'_>, indicators: &[Indicator]) -> Result<Part, ToolError> {
    answer(ctx, indicators, Calendar::Month)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Calendar {
    Day,
    Week,
    Month,
}

impl Calendar {
    fn header(self) -> &'static [&'static str] {
        match self {
            Calendar::Day => &[
                "indicator",
                "code",
                "date",
                "value",
                "unit",
                "count",
                "source",
            ],
            Calendar::Week => &[
                "indicator",
                "code",
                "week",
                "value",
                "unit",
                "count",
                "days",
            ],
            Calendar::Month => &[
                "indicator",
                "code",
                "month",
                "value",
                "unit",
                "count",
                "days",
            ],
        }
    }

    fn bucket(self, day: &str) -> Option<String> {
        match self {
            Calendar::Day => Some(day.to_owned()),
            Calendar::Week => week_of(day),
            Calendar::Month => month_of(day),
        }
    }
}

/// The values of one bucket.
#[derive(Debug, Default)]
struct Acc<'p> {
    sum: f64,
    numbers: usize,
    count: usize,
    days: BTreeSet<&'p str>,
    source: Seen<'p>,
}

/// The sources of a bucket's values, so far.
#[derive(Debug, Default, Clone, Copy)]
enum Seen<'p> {
    #[default]
    Nothing,
    One(&'p str),
    Several,
}

impl<'p> Acc<'p> {
    fn add(&mut self, p: &'p Point) {
        self.count += 1;
        if let Some(x) = p.num {
            self.sum += x;
            self.numbers += 1;
        }
        self.days.insert(&p.day);
        self.source = match self.source {
            Seen::Nothing => Seen::One(&p.source),
            Seen::One(s) if s == p.source => Seen::One(s),
            Seen::One(_) | Seen::Several => Seen::Several,
        };
    }
}

fn answer(ctx: &Ctx<'_>, indicators: &[Indicator], calendar: Calendar) -> Result<Part, ToolError> {
    let mut part = Part::new(calendar.header());
    for (rank, indicator) in indicators.iter().enumerate() {
        let points = points(ctx, &indicator.code)?;
        for (group, points) in Group::series(&points, rank) {
            let mut buckets: BTreeMap<String, Acc<'_>> = BTreeMap::new();
            for p in &points {
                let label = calendar
                    .bucket(&p.day)
                    .ok_or(ToolError::Malformed { table: "series" })?;
                buckets.entry(label).or_default().add(p);
                part.padded |= p.legacy;
            }
            let elected: Vec<&str> = points
                .iter()
                .filter(|p| p.elected)
                .map(|p| p.source.as_str())
                .collect();
            let readings = points.len() - elected.len();
            let bucketed = calendar != Calendar::Day || buckets.values().any(|a| a.count > 1);
            part.provenance.push((
                group.clone(),
                provenance_of(elected.iter().copied(), readings, bucketed),
            ));
            if !elected.is_empty() {
                part.assumptions.push(Assumption::ElectedSourcePerDay);
            }
            if buckets.len() > BUCKET_CAP {
                part.cut_at(BUCKET_CAP);
            }
            for (label, acc) in buckets.iter().rev().take(BUCKET_CAP) {
                let last = match calendar {
                    Calendar::Day => match acc.source {
                        Seen::One(s) => Cell::from(s),
                        Seen::Nothing | Seen::Several => Cell::Null,
                    },
                    Calendar::Week | Calendar::Month => count_cell(acc.days.len()),
                };
                part.rows.push((
                    group.kind,
                    vec![
                        Cell::from(indicator.label.as_str()),
                        Cell::from(indicator.code.code.as_str()),
                        Cell::from(label.as_str()),
                        Cell::from(mean(acc.sum, acc.numbers)),
                        unit_cell(group.unit.as_deref()),
                        count_cell(acc.count),
                        last,
                    ],
                ));
            }
        }
    }
    Ok(part)
}
