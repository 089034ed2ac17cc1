//! `query_health_indicators(keywords | indicators, start, end, view)`: the readings tool.
//!
//! One call reads one subject, the one the caller is authenticated as; no parameter names a
//! person. With no selector it answers with the catalogue; `keywords` find the
//! record's indicators through the vocabulary, and `indicators` fetch them by exact name or code.
//! Values come in one of eight views, dispatched through a table (`views`):
//!
//! | `view` | answers with |
//! |---|---|
//! | `raw` (the default) | readings, newest first, at most [`ROW_CAP`] per indicator |
//! | `minute` / `hour` | the mean of each bucket of local time, newest first |
//! | `day` / `week` / `month` | one point per bucket, from the day authority |
//! | `stats` | `count`, `min`, `max`, `avg`, `first`, `first_date`, `last`, `last_date`, `change` |
//! | `latest` | the most recent value per indicator, from the day authority |
//!
//! `start` and `end` are local dates in the subject's zone, inclusive; neither means all
//! recorded data. Every answer states its window semantics, carries the absence note, and never
//! carries a reading's comment. The tool never raises: a store fault, a malformed row or a
//! panic is an error envelope ([`fault`](crate::fault)).

mod answer;
mod catalogue;
mod clock;
mod days;
mod rows;
mod select;
mod units;
mod views;
mod window;

use serde_json::Value;

pub use self::views::latest::HEADER as LATEST_COLUMNS;
pub use self::views::raw::HEADER as RAW_COLUMNS;
pub use self::views::stats::HEADER as STATS_COLUMNS;

use self::clock::Clock;
use crate::args::FromArgs;
use crate::args::health_indicators::{IndicatorQuery, QUERY_HEALTH_INDICATORS};
use crate::envelope::Envelope;
use crate::envelope::next_step::{NextAction, NextStep};
use crate::fault::guarded;
use crate::store::{Bounds, EntryKind, Store, Subject};
use crate::tool::ToolId;

/// Raw readings answered per indicator at most, newest first.
///
/// ```
/// assert_eq!(answers_tools::readings::ROW_CAP, 50);
/// ```
pub const ROW_CAP: usize = 50;

/// Buckets (`minute` … `month`) answered per indicator and unit at most, newest first: a day of
/// minutes, or four years of days.
///
/// ```
/// assert_eq!(answers_tools::readings::BUCKET_CAP, 24 * 60);
/// ```
pub const BUCKET_CAP: usize = 1440;

/// Catalogue entries answered at most, reported entries first, then the most recently recorded.
///
/// ```
/// assert_eq!(answers_tools::readings::CATALOGUE_CAP, 100);
/// ```
pub const CATALOGUE_CAP: usize = 100;

/// Raw readings a browser's reading list gets per indicator at most, newest first: the HTTP
/// surface's own row budget, larger than a model's [`ROW_CAP`] because a person scrolls a
/// table rather than reading every row into a context window.
///
/// ```
/// use answers_tools::readings::{REST_ROW_MAX, ROW_CAP};
/// assert_eq!(REST_ROW_MAX, 500);
/// assert!(REST_ROW_MAX > ROW_CAP);
/// ```
pub const REST_ROW_MAX: usize = 500;

/// The rendered text (`render_compact`) a model's answer takes at most, as the original bounds
/// a tool message: past it, whole rows are cut and the answer says so.
///
/// ```
/// assert_eq!(answers_tools::readings::TEXT_MAX, 40_000);
/// ```
pub const TEXT_MAX: usize = 40_000;

/// How much one call may answer: [`RowBudget::MODEL`] for the CLI and MCP (raw readings per
/// indicator at most, and the rendered text at most [`TEXT_MAX`]), [`RowBudget::REST`] for a
/// browser (its own row budget, and no bound on a text it does not read).
///
/// ```
/// use answers_tools::readings::{REST_ROW_MAX, ROW_CAP, RowBudget, TEXT_MAX};
/// assert_eq!(RowBudget::MODEL.rows(), ROW_CAP);
/// assert_eq!(RowBudget::MODEL.text(), Some(TEXT_MAX));
/// assert_eq!(RowBudget::REST.rows(), REST_ROW_MAX);
/// assert_eq!(RowBudget::REST.text(), None);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowBudget {
    rows: usize,
    text: Option<usize>,
}

impl RowBudget {
    /// A model's budget: [`ROW_CAP`] and [`TEXT_MAX`].
    pub const MODEL: Self = Self {
        rows: ROW_CAP,
        text: Some(TEXT_MAX),
    };
    /// A browser's budget: [`REST_ROW_MAX`], the text unbounded.
    pub const REST: Self = Self {
        rows: REST_ROW_MAX,
        text: None,
    };

    /// Raw readings per indicator at most.
    #[must_use]
    pub const fn rows(self) -> usize {
        self.rows
    }

    /// Characters of rendered text at most, if the text is bounded.
    #[must_use]
    pub const fn text(self) -> Option<usize> {
        self.text
    }
}

/// Which entries a call answers with: both tables (the model's surfaces), or one kind (the
/// browser's two tabs: Indicators reads [`EntryKind::Measured`], the journal
/// [`EntryKind::Reported`]).
///
/// ```
/// use answers_store::EntryKind;
/// use answers_tools::readings::Entries;
/// assert!(Entries::All.admits(EntryKind::Reported));
/// assert!(!Entries::Only(EntryKind::Measured).admits(EntryKind::Reported));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entries {
    /// Readings and reported entries.
    All,
    /// One kind only.
    Only(EntryKind),
}

impl Entries {
    /// Whether an entry of `kind` is answered.
    #[must_use]
    pub fn admits(self, kind: EntryKind) -> bool {
        match self {
            Entries::All => true,
            Entries::Only(only) => only == kind,
        }
    }
}

/// Answers a readings call for `subject`, the subject the caller is authenticated as.
///
/// Refused arguments come back as the validator's refusal, unchanged; everything else as an
/// answer or a fault envelope. Never panics.
///
/// ```
/// use answers_store::Store;
/// use answers_tools::query_health_indicators;
/// use answers_protocol::{Assumption, Status, View, ReadingsAssumption};
/// use serde_json::json;
///
/// let store = Store::open_in_memory()?;
/// let you = store.upsert_subject("subj-you-1", "you", "Europe/Berlin")?;
/// let env = query_health_indicators(&store, &you, &json!({"indicators": ["Heart rate"], "view": "stats"}));
/// assert_eq!((env.status(), env.meta().view), (Status::Ok, Some(View::Stats)));
/// assert!(env.assumptions().contains(&Assumption::Readings(ReadingsAssumption::AbsenceNotEvidence)));
///
/// let refused = query_health_indicators(&store, &you, &json!({"view": "day"}));
/// assert_eq!(refused.status(), Status::Error);
/// # Ok::<(), answers_store::StoreError>(())
/// ```
#[must_use]
pub fn query_health_indicators(store: &Store, subject: &Subject, args: &Value) -> Envelope {
    query_health_indicators_within(store, subject, args, RowBudget::MODEL)
}

/// The same tool with another raw-row budget (a browser's is [`RowBudget::REST`]), answering
/// both kinds of entry. Every other cap is the same on every surface.
///
/// ```
/// use answers_store::Store;
/// use answers_tools::readings::{RowBudget, query_health_indicators_within};
/// use answers_protocol::Status;
/// use serde_json::json;
///
/// let store = Store::open_in_memory()?;
/// let you = store.upsert_subject("subj-you-1", "you", "Europe/Berlin")?;
/// let env = query_health_indicators_within(&store, &you, &json!({"indicators": ["Steps"]}), RowBudget::REST);
/// assert_eq!(env.status(), Status::Ok);
/// # Ok::<(), answers_store::StoreError>(())
/// ```
#[must_use]
pub fn query_health_indicators_within(
    store: &Store,
    subject: &Subject,
    args: &Value,
    budget: RowBudget,
) -> Envelope {
    query_entries_within(store, subject, args, budget, Entries::All)
}

/// The same tool answering only the `entries` asked for: what the registry's REST run
/// (`registry::rest_call`) calls for the browser's Indicators tab (readings only, as the design
/// and the original have it) and its journal tab (reported entries only). The catalogue, the
/// keywords and every view leave the other kind out.
///
/// ```
/// use answers_store::{EntryKind, NewReading, Store};
/// use answers_tools::readings::{Entries, RowBudget, query_entries_within};
/// use answers_vocab::CodeRef;
/// use serde_json::json;
///
/// let mut store = Store::open_in_memory()?;
/// let you = store.upsert_subject("subj-you-1", "you", "Europe/Berlin")?;
/// store.upsert_readings(&[NewReading::reported("subj-you-1", "headache", CodeRef::icpc("N01"),
///     "2026-01-05T07:00:00Z".parse().unwrap())])?;
/// let readings = Entries::Only(EntryKind::Measured);
/// let env = query_entries_within(&store, &you, &json!({}), RowBudget::REST, readings);
/// assert_eq!(env.meta().catalog_total, Some(0));
/// # Ok::<(), answers_store::StoreError>(())
/// ```
#[must_use]
pub fn query_entries_within(
    store: &Store,
    subject: &Subject,
    args: &Value,
    budget: RowBudget,
    entries: Entries,
) -> Envelope {
    let query = match QUERY_HEALTH_INDICATORS.validate(args) {
        Ok(valid) => IndicatorQuery::from_valid(&valid),
        Err(refusal) => return refusal,
    };
    let retry = || vec![retry_step(&query)];
    guarded(ToolId::QueryHealthIndicators, retry, || {
        let ctx = Ctx::new(store, subject, &query, budget, entries);
        answer::answer(&ctx, &query)
    })
}

/// The same call, later: what a busy store's answer suggests.
fn retry_step(query: &IndicatorQuery) -> NextStep {
    let mut step = NextStep::new(NextAction::RetryLater, ToolId::QueryHealthIndicators);
    if let Value::Object(args) = query.to_args() {
        for (k, v) in args {
            step = step.arg(k, v);
        }
    }
    step
}

/// What every query of one call shares: the store, the subject, the window's bounds and the
/// subject's clock.
pub(crate) struct Ctx<'a> {
    pub(crate) store: &'a Store,
    pub(crate) subject_id: &'a str,
    pub(crate) tz: &'a str,
    pub(crate) bounds: Bounds,
    pub(crate) clock: Clock,
    pub(crate) budget: RowBudget,
    pub(crate) entries: Entries,
}

impl<'a> Ctx<'a> {
    /// The context of one call. The store's connection already runs with the query planner
    /// stability guarantee ([`Store`] turns it on when it opens), so the readings statements
    /// are planned once for every binding, on the indexes the store's plans test checks.
    fn new(
        store: &'a Store,
        subject: &'a Subject,
        query: &IndicatorQuery,
        budget: RowBudget,
        entries: Entries,
    ) -> Self {
        Self {
            store,
            subject_id: &subject.id,
            tz: subject.tz_name(),
            bounds: Bounds::of(&query.window),
            clock: Clock::new(subject.tz.clone()),
            budget,
            entries,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_busy_stores_retry_step_is_the_same_call() {
        let args = json!({"indicators": ["Body weight"], "view": "week", "start": "2026-01-01"});
        let valid = QUERY_HEALTH_INDICATORS.validate(&args).expect("valid");
        let query = IndicatorQuery::from_valid(&valid);
        let step = retry_step(&query);
        assert_eq!(step.action, NextAction::RetryLater);
        let call = step.apply([]).expect("nothing to supply");
        assert_eq!(call["indicators"], args["indicators"], "{call}");
        assert_eq!(call["view"], "week", "{call}");
        assert_eq!(call["start"], "2026-01-01", "{call}");
        let again =
            IndicatorQuery::from_valid(&QUERY_HEALTH_INDICATORS.validate(&call).expect("valid"));
        assert_eq!(again.to_args(), query.to_args(), "the same call");
    }
}
