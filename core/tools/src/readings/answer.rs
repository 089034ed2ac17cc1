//! From a validated query to an envelope: which selector answers how, and how a view's rows
//! become the `readings` and `reported` tables with their meta, provenance, assumptions and
//! next steps.

use std::collections::{BTreeMap, HashMap};

use answers_protocol::render_compact;

use crate::args::health_indicators::{IndicatorQuery, Selector};
use crate::envelope::Envelope;
use crate::envelope::assumption::{Assumption, ReadingsAssumption, WindowAssumption};
use crate::envelope::kinds::{View, WindowSemantics};
use crate::envelope::meta::Meta;
use crate::envelope::next_step::{NextAction, NextStep};
use crate::envelope::table::{Cell, Table};
use crate::fault::ToolError;
use crate::readings::select::{Indicator, resolve_exact, resolve_keywords};
use crate::readings::views::{Group, Part, dispatch};
use crate::readings::{Ctx, catalogue};
use crate::store::EntryKind;
use crate::tool::ToolId;

/// The view `indicators` answer with when the call names none.
pub(crate) const DEFAULT_VIEW: View = View::Raw;

/// Answers `query`, its rendered text bounded by the budget's
/// ([`TEXT_MAX`](crate::readings::TEXT_MAX) for a model).
pub(crate) fn answer(ctx: &Ctx<'_>, query: &IndicatorQuery) -> Result<Envelope, ToolError> {
    let env = selected(ctx, query)?;
    Ok(match ctx.budget.text() {
        Some(max) => bound(env, query, max),
        None => env,
    })
}

/// Answers `query`, unbounded.
fn selected(ctx: &Ctx<'_>, query: &IndicatorQuery) -> Result<Envelope, ToolError> {
    let listing = || IndicatorQuery {
        selector: Selector::Catalogue,
        view: None,
        ..query.clone()
    };
    match &query.selector {
        Selector::Catalogue => catalogue::answer(ctx, query, None),
        Selector::Keywords(words) => {
            let found = resolve_keywords(ctx, words)?;
            if found.is_empty() {
                let env = catalogue::answer(ctx, &listing(), None)?;
                return Ok(
                    env.with_assumption(Assumption::Readings(ReadingsAssumption::NoKeywordMatch))
                );
            }
            match query.view {
                None => catalogue::answer(ctx, query, Some(&found)),
                Some(view) => values(ctx, query, view, &found),
            }
        }
        Selector::Indicators(names) => {
            let exact = resolve_exact(ctx, names)?;
            if exact.found.is_empty() {
                // As the original does: names that match nothing answer with the catalogue
                // and say so, so the next call can use a name it lists.
                let env = catalogue::answer(ctx, &listing(), None)?;
                return Ok(
                    env.with_assumption(Assumption::Readings(ReadingsAssumption::NoIndicatorMatch))
                );
            }
            let env = values(ctx, query, query.view.unwrap_or(DEFAULT_VIEW), &exact.found)?;
            // Names that matched nothing beside ones that did are said, not dropped unseen.
            Ok(match u32::try_from(exact.unmatched) {
                Ok(0) => env,
                Ok(count) => env.with_assumption(Assumption::Readings(
                    ReadingsAssumption::SomeIndicatorsUnmatched { count },
                )),
                Err(_) => env.with_assumption(Assumption::Readings(
                    ReadingsAssumption::SomeIndicatorsUnmatched { count: u32::MAX },
                )),
            })
        }
    }
}

/// `env` with its rendered text at most `max` characters: whole rows are cut. Values keep,
/// for every series (the table and the first two cells of a row: indicator and code), the same
/// number of its first (newest) rows, as many as fit; a list of names keeps its first rows. A
/// cut answer is `partial` and `truncated`, says so, and suggests the calls that narrow it
/// ([`IndicatorQuery::next_steps_when_too_long`]).
fn bound(env: Envelope, query: &IndicatorQuery, max: usize) -> Envelope {
    let most_chars = text_bound(&env);
    debug_assert!(
        render_compact(&env).chars().count() <= most_chars,
        "the text bound is an upper bound"
    );
    // Most answers are far under the bound; they are not rendered twice to know it.
    if most_chars <= max {
        return env;
    }
    let fits = |e: &Envelope| render_compact(e).chars().count() <= max;
    if fits(&env) {
        return env;
    }
    let per_series = match query.selector {
        Selector::Catalogue => false,
        Selector::Keywords(_) => query.view.is_some(),
        Selector::Indicators(_) => true,
    };
    let chars = u32::try_from(max).unwrap_or(u32::MAX);
    let keep = |n: usize| {
        let mut seen: HashMap<String, usize> = HashMap::new();
        let kept = env.clone().retain_rows(|table, row| {
            let key = if per_series {
                format!("{table}|{:?}|{:?}", row.first(), row.get(1))
            } else {
                String::new()
            };
            let count = seen.entry(key).or_default();
            *count += 1;
            *count <= n
        });
        kept.truncated()
            .with_assumption(Assumption::Readings(ReadingsAssumption::RenderCut {
                chars,
            }))
            .with_next_steps(query.next_steps_when_too_long())
    };
    let most: usize = env.data().iter().map(|t| t.rows().len()).sum();
    // The most rows that fit; none always do (the text without rows is a few lines).
    let (mut lo, mut hi) = (0, most);
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if fits(&keep(mid)) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    keep(lo)
}

/// An upper bound on the characters of `render_compact(env)`, without rendering it: each
/// text at most twice its bytes (escapes), a number at most 40 characters (values are rounded;
/// one far from 1 counts 400), and a generous allowance for the fixed lines.
fn text_bound(env: &Envelope) -> usize {
    let cell = |c: &Cell| match c {
        Cell::Null => 0,
        Cell::Bool(_) => 5,
        Cell::Int(_) => 20,
        Cell::Float(x) if *x == 0.0 || (1e-5..1e15).contains(&x.abs()) => 40,
        Cell::Float(_) => 400,
        Cell::Text(t) => 2 * t.len(),
        Cell::Json(v) => json_bound(v),
    };
    let mut n = 1024;
    for t in env.data() {
        let row = |r: &[Cell]| r.iter().map(|c| cell(c) + 3).sum::<usize>() + 1;
        let header: usize = t.columns().iter().map(|c| 2 * c.len() + 3).sum();
        // The constants line repeats a column's name and its value at most once.
        n += t.name().len() + 32 + 2 * header + t.rows().first().map_or(0, |r| row(r));
        n += t.rows().iter().map(|r| row(r)).sum::<usize>();
    }
    n += env
        .provenance()
        .keys()
        .map(|k| 2 * k.len() + 40)
        .sum::<usize>();
    n += 400 * env.assumptions().len();
    for step in env.next_steps() {
        n += 96;
        n += step
            .args
            .iter()
            .map(|(k, v)| k.len() + json_bound(v) + 3)
            .sum::<usize>();
        n += step.supply.iter().map(|k| k.len() + 12).sum::<usize>();
    }
    n
}

/// An upper bound on the characters of a JSON value's text.
fn json_bound(v: &serde_json::Value) -> usize {
    use serde_json::Value;
    match v {
        Value::Null | Value::Bool(_) => 5,
        Value::Number(_) => 32,
        Value::String(s) => 6 * s.len() + 2,
        Value::Array(items) => 2 + items.iter().map(|i| json_bound(i) + 1).sum::<usize>(),
        Value::Object(map) => {
            2 + map
                .iter()
                .map(|(k, i)| 6 * k.len() + 4 + json_bound(i))
                .sum::<usize>()
        }
    }
}

/// The values of `found` in `view`.
fn values(
    ctx: &Ctx<'_>,
    query: &IndicatorQuery,
    view: View,
    found: &[Indicator],
) -> Result<Envelope, ToolError> {
    let mut part = dispatch(ctx, view, found)?;
    part.rows.retain(|(kind, _)| ctx.entries.admits(*kind));
    part.provenance
        .retain(|(group, _)| ctx.entries.admits(group.kind));
    let semantics = if part.padded {
        WindowSemantics::DatePaddedNaive
    } else {
        WindowSemantics::TzExact
    };
    let mut env = Envelope::ok(Meta::new(query.window, ctx.tz, semantics).with_view(view));
    for table in tables(part.columns, std::mem::take(&mut part.rows))? {
        env = env.with_table(table);
    }
    for (key, provenance) in provenance_keys(&part, found) {
        env = env.with_provenance(key, provenance);
    }
    for a in &part.assumptions {
        env = env.with_assumption(*a);
    }
    if query.window.is_all_recorded() {
        env = env.with_assumption(Assumption::Window(WindowAssumption::WindowAllRecorded));
    }
    if part.padded {
        env = env.with_assumption(Assumption::Readings(ReadingsAssumption::WindowDatePadded));
    }
    if let Some(cap) = part.cut {
        env = env
            .truncated()
            .with_assumption(Assumption::Readings(ReadingsAssumption::Truncated { cap }))
            .with_assumption(Assumption::Readings(ReadingsAssumption::CutMeansNewestOnly))
            .with_next_steps(query.next_steps_when_truncated());
    }
    if env.data().is_empty() {
        env = env.with_next_step(catalogue_step(query));
    }
    Ok(env.with_assumption(Assumption::Readings(ReadingsAssumption::AbsenceNotEvidence)))
}

/// The rows of a view as the `readings` table, then the `reported` one; an empty table is left
/// out.
fn tables(columns: &[&str], rows: Vec<(EntryKind, Vec<Cell>)>) -> Result<Vec<Table>, ToolError> {
    let header =
        |first: &'static str| std::iter::once(first).chain(columns.iter().skip(1).copied());
    let (mut readings, mut reported): (Option<Table>, Option<Table>) = (None, None);
    for (kind, cells) in rows {
        let table = match kind {
            EntryKind::Measured => {
                readings.get_or_insert_with(|| Table::new("readings", header("indicator")))
            }
            EntryKind::Reported => {
                reported.get_or_insert_with(|| Table::new("reported", header("entry")))
            }
        };
        // Every view builds its rows to its own header, so a row always fits.
        table
            .push_row(cells)
            .map_err(|_| ToolError::Malformed { table: "series" })?;
    }
    Ok(readings.into_iter().chain(reported).collect())
}

/// Provenance keyed by indicator name; where one name answers for several series (two units,
/// two codes), each key names its unit or code too.
fn provenance_keys(
    part: &Part,
    found: &[Indicator],
) -> Vec<(String, crate::envelope::kinds::Provenance)> {
    let mut per_label: BTreeMap<&str, Vec<&Group>> = BTreeMap::new();
    for (group, _) in &part.provenance {
        per_label
            .entry(found[group.rank].label.as_str())
            .or_default()
            .push(group);
    }
    part.provenance
        .iter()
        .map(|(group, p)| {
            let indicator = &found[group.rank];
            let shared = per_label[indicator.label.as_str()].len() > 1;
            let key = match (shared, group.unit.as_deref()) {
                (false, _) => indicator.label.clone(),
                (true, Some(unit)) => {
                    format!("{} [{}, {unit}]", indicator.label, indicator.code.code)
                }
                (true, None) => format!("{} [{}]", indicator.label, indicator.code.code),
            };
            (key, *p)
        })
        .collect()
}

/// The catalogue of the same window: what an answer about nothing recorded suggests.
fn catalogue_step(query: &IndicatorQuery) -> NextStep {
    let listing = IndicatorQuery {
        selector: Selector::Catalogue,
        view: None,
        window: query.window,
    };
    let mut step = NextStep::new(NextAction::CallCatalogue, ToolId::QueryHealthIndicators);
    if let serde_json::Value::Object(args) = listing.to_args() {
        for (k, v) in args {
            step = step.arg(k, v);
        }
    }
    step
}
