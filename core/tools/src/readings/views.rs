//! The views, as a dispatch table: [`VIEWS`] maps every [`View`] to the function that answers
//! it, so adding a view without an implementation does not compile.
//!
//! | view | module | provenance |
//! |---|---|---|
//! | `raw` | [`raw`] | `measured` |
//! | `minute`, `hour` | [`buckets`] | `computed` |
//! | `day`, `week`, `month` | [`calendar`] | `elected:<source>` from the day authority |
//! | `stats` | [`stats`] | `computed` |
//! | `latest` | [`latest`] | `elected:<source>` or `measured` |

pub(crate) mod buckets;
mod calendar;
pub(crate) mod latest;
pub(crate) mod raw;
pub(crate) mod stats;

use std::collections::BTreeMap;

use crate::envelope::assumption::{Assumption, ReadingsAssumption};
use crate::envelope::kinds::{Provenance, Source, View, ViewTable};
use crate::envelope::table::Cell;
use crate::fault::ToolError;
use crate::readings::Ctx;
use crate::readings::days::Point;
use crate::readings::select::Indicator;
use crate::readings::units::Units;
use crate::store::EntryKind;

pub(crate) use self::latest::latest_of;

/// What a view answers with: the rows of both tables, in one column layout.
pub(crate) type ViewFn = fn(&Ctx<'_>, &[Indicator]) -> Result<Part, ToolError>;

/// Every view's implementation.
pub(crate) const VIEWS: ViewTable<ViewFn> = ViewTable {
    raw: raw::answer,
    minute: buckets::minute,
    hour: buckets::hour,
    day: calendar::day,
    week: calendar::week,
    month: calendar::month,
    stats: stats::answer,
    latest: latest::answer,
};

/// Answers `view` for `indicators`.
pub(crate) fn dispatch(
    ctx: &Ctx<'_>,
    view: View,
    indicators: &[Indicator],
) -> Result<Part, ToolError> {
    (VIEWS.get(view))(ctx, indicators)
}

/// One series as answered: an indicator's rows of one kind and one unit. Values in different
/// units are never mixed into one statistic.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct Group {
    pub(crate) kind: EntryKind,
    /// The indicator's position in the answer, so groups keep the order asked for.
    pub(crate) rank: usize,
    pub(crate) unit: Option<String>,
}

impl Group {
    /// The points of the indicator at `rank`, grouped into series by kind and unit; each
    /// series keeps the points' order.
    pub(crate) fn series(points: &[Point], rank: usize) -> BTreeMap<Group, Vec<&Point>> {
        let mut groups: BTreeMap<Group, Vec<&Point>> = BTreeMap::new();
        for p in points {
            let group = Group {
                kind: p.kind,
                rank,
                unit: p.unit.clone(),
            };
            groups.entry(group).or_default().push(p);
        }
        groups
    }
}

/// A view's answer before it becomes an envelope.
#[derive(Debug, Clone, Default)]
pub(crate) struct Part {
    /// The column names; the first names the indicator.
    pub(crate) columns: &'static [&'static str],
    /// Rows of both kinds, each with its kind: the table it goes in.
    pub(crate) rows: Vec<(EntryKind, Vec<Cell>)>,
    /// Where each group's values come from.
    pub(crate) provenance: Vec<(Group, Provenance)>,
    /// Some row had no stored local day.
    pub(crate) padded: bool,
    /// The cap that cut some group's rows, if one did.
    pub(crate) cut: Option<u32>,
    /// What the view's numbers rest on, beyond the notes every answer carries.
    pub(crate) assumptions: Vec<Assumption>,
}

impl Part {
    pub(crate) fn new(columns: &'static [&'static str]) -> Self {
        Self {
            columns,
            ..Self::default()
        }
    }

    /// Records that `cap` cut a group.
    pub(crate) fn cut_at(&mut self, cap: usize) {
        self.cut = Some(u32::try_from(cap).unwrap_or(u32::MAX));
    }

    /// Every point of `indicator` in the window ([`days::points`](crate::readings::days::points)),
    /// each in the unit of its code; a conversion is noted among the part's assumptions.
    pub(crate) fn points_of(
        &mut self,
        ctx: &Ctx<'_>,
        indicator: &Indicator,
    ) -> Result<Vec<Point>, ToolError> {
        let mut units = Units::of(&indicator.code);
        let points = crate::readings::days::points(ctx, &indicator.code, &mut units)?;
        if units.converted() {
            self.assumptions
                .push(Assumption::Readings(ReadingsAssumption::UnitConverted));
        }
        Ok(points)
    }
}

/// The provenance of values that came from the elected sources `sources` (one per elected day)
/// and from `readings` stored readings, where `bucketed` says whether a point is made of more
/// than one value.
///
/// One elected source throughout is `elected:<source>`; one stored reading per point is
/// `measured`; anything mixed, averaged, or elected from a source outside the closed set is
/// `computed`.
pub(crate) fn provenance_of<'a>(
    mut sources: impl Iterator<Item = &'a str>,
    readings: usize,
    bucketed: bool,
) -> Provenance {
    match sources.next() {
        None if !bucketed => Provenance::Measured,
        Some(first) if readings == 0 && sources.all(|s| s == first) => first
            .parse::<Source>()
            .map_or(Provenance::Computed, Provenance::Elected),
        None | Some(_) => Provenance::Computed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn provenance_says_where_values_come_from() {
        let elected = ["watch", "watch"];
        assert_eq!(
            provenance_of(elected.into_iter(), 0, true),
            Provenance::Elected(Source::Watch)
        );
        assert_eq!(
            provenance_of(["watch", "phone"].into_iter(), 0, true),
            Provenance::Computed
        );
        assert_eq!(
            provenance_of(["watch"].into_iter(), 2, false),
            Provenance::Computed
        );
        assert_eq!(
            provenance_of(["fitbit"].into_iter(), 0, false),
            Provenance::Computed
        );
        assert_eq!(
            provenance_of([].into_iter(), 3, false),
            Provenance::Measured
        );
        assert_eq!(provenance_of([].into_iter(), 3, true), Provenance::Computed);
    }
}
