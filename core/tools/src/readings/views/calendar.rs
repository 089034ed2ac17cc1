//! `day`, `week` and `month`: one point per bucket, from the day authority
//! ([`days`](crate::readings::days)), newest first, at most [`BUCKET_CAP`] per indicator
//! and unit.
//!
//! A day's value is its elected value where the write side elected a source, else, as the
//! original takes it, the newest reading of that day (two typed-in blood pressures give the
//! evening's, not their mean); this is the dashboard's "one day, one number", and it equals
//! `latest` on that day. A day's `count` is how many readings it held. A week (starting Monday)
//! or a month is the mean of its days' values. The answer says which of the two a window's
//! points rest on: elected sources, newest readings, or both.

use std::collections::{BTreeMap, BTreeSet};

use super::{Group, Part, provenance_of};
use crate::envelope::assumption::{Assumption, ReadingsAssumption};
use crate::envelope::table::Cell;
use crate::fault::ToolError;
use crate::readings::days::Point;
use crate::readings::rows::{count_cell, mean, unit_cell, value_cell};
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

/// The value of one day: its elected value, else its newest reading.
#[derive(Debug)]
struct DayValue<'p> {
    point: &'p Point,
    /// The readings (or the elected value) the day held.
    count: usize,
}

/// The days of a series' points (in day and time order), each with its one value.
fn day_values<'p>(points: &[&'p Point]) -> Vec<DayValue<'p>> {
    let mut days: Vec<DayValue<'p>> = Vec::new();
    for &p in points {
        match days.last_mut() {
            Some(d) if d.point.day == p.day => {
                d.count += 1;
                // An elected value stands for its day; else the later reading is newer.
                if !d.point.elected {
                    d.point = p;
                }
            }
            _ => days.push(DayValue { point: p, count: 1 }),
        }
    }
    days
}

/// The values of one bucket.
#[derive(Debug, Default)]
struct Acc<'p> {
    sum: f64,
    numbers: usize,
    count: usize,
    days: BTreeSet<&'p str>,
    source: Seen<'p>,
    /// The value of the bucket's last day.
    last: Option<&'p Point>,
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
    fn add(&mut self, d: &DayValue<'p>) {
        let p = d.point;
        self.count += d.count;
        if let Some(x) = p.num {
            self.sum += x;
            self.numbers += 1;
        }
        self.days.insert(&p.day);
        self.last = Some(p);
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
        let points = part.points_of(ctx, indicator)?;
        for (group, points) in Group::series(&points, rank) {
            let days = day_values(&points);
            let mut buckets: BTreeMap<String, Acc<'_>> = BTreeMap::new();
            for d in &days {
                let label = calendar
                    .bucket(&d.point.day)
                    .ok_or(ToolError::Malformed { table: "series" })?;
                buckets.entry(label).or_default().add(d);
            }
            part.padded |= points.iter().any(|p| p.legacy);
            let elected: Vec<&str> = days
                .iter()
                .filter(|d| d.point.elected)
                .map(|d| d.point.source.as_str())
                .collect();
            let newest = days.len() - elected.len();
            let bucketed = calendar != Calendar::Day;
            part.provenance.push((
                group.clone(),
                provenance_of(elected.iter().copied(), newest, bucketed),
            ));
            if !elected.is_empty() {
                part.assumptions.push(Assumption::Readings(
                    ReadingsAssumption::ElectedSourcePerDay,
                ));
            }
            if newest > 0 {
                part.assumptions.push(Assumption::Readings(
                    ReadingsAssumption::NewestReadingPerDay,
                ));
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
                        day_cell(calendar, acc),
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

/// A bucket's value: a day's own value (a text one too), or the mean of its days' numbers.
fn day_cell(calendar: Calendar, acc: &Acc<'_>) -> Cell {
    match (calendar, acc.last) {
        (Calendar::Day, Some(p)) => value_cell(p.num, p.text.as_deref()),
        _ => Cell::from(mean(acc.sum, acc.numbers)),
    }
}
