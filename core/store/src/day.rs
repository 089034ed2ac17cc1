//! The day authority, decided at write time.
//!
//! 1. **Aggregation.** A device's readings of one series on one local day become one value in
//!    `day_aggregate`: per `(subject, code, local_day, source)`, with the code's own aggregate
//!    ([`DayAggregate`]: counts sum, everything else is a mean). An aggregate never mixes units:
//!    a source whose readings that day carry different units gets no aggregate that day.
//! 2. **Election.** Of the aggregates of a day, the one from the highest-priority source is
//!    copied to `day_elected`: the "one day, one number" `day`/`week`/`month` read.
//!
//! Only device sources ([`is_device`]) and measured rows with a numeric value and a stored
//! local day take part. A lab report, a typed-in entry, a reported symptom and a legacy row are
//! never aggregated or elected, so a day nothing elected keeps every reading.
//!
//! **The priority.** One list, [`DEVICE_PRIORITY`], with per-code overrides where a device is
//! the better witness ([`day_rule`]): for steps watch > ring > phone; for weight the scale
//! first; for blood pressure the cuff; for oxygen saturation the pulse oximeter; for temperature
//! the thermometer; for glucose the CGM (a whole day of readings) before the finger-prick meter;
//! for sleep the ring. A device a rule does not list ranks after the listed ones, in
//! [`DEVICE_PRIORITY`] order.

use std::sync::LazyLock;

use super::StoreError;
use crate::read::Flow;
use Source::{Cgm, Cuff, Glucometer, Phone, PulseOximeter, Ring, Scale, Thermometer, Watch};
use answers_db::{Arg, DbError, Sql, Tx};
use answers_protocol::envelope::kinds::{Source, SourceTable};
use answers_vocab::{CodeRef, CodeSystem};
use phi_macros::ClosedEnum;
use postgres::types::ToSql;

/// How one source's readings of a day become the day's value.
///
/// ```
/// use answers_store::{DayAggregate, day_rule};
/// use answers_vocab::CodeRef;
///
/// assert_eq!(day_rule(&CodeRef::loinc("41950-7")).aggregate, DayAggregate::Sum);
/// assert_eq!(day_rule(&CodeRef::loinc("8867-4")).aggregate, DayAggregate::Mean);
/// ```
#[derive(ClosedEnum, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DayAggregate {
    /// The day's total: counts such as steps.
    Sum,
    /// The day's mean: rates, weights, pressures, concentrations, durations.
    Mean,
}

/// A series' day authority: its aggregate and its source priority, best first.
///
/// ```
/// use answers_protocol::Source;
/// use answers_store::day_rule;
/// use answers_vocab::CodeRef;
///
/// let bp = day_rule(&CodeRef::loinc("8480-6"));
/// assert_eq!(bp.priority.first(), Some(&Source::Cuff));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DayRule {
    /// How a source's readings of a day combine.
    pub aggregate: DayAggregate,
    /// The sources, best first; unlisted devices follow in [`DEVICE_PRIORITY`] order.
    pub priority: &'static [Source],
}

impl DayRule {
    /// The rank of `source` under this rule (lower is better), or `None` for a source that is
    /// never elected (not a device).
    ///
    /// ```
    /// use answers_protocol::Source;
    /// use answers_store::day_rule;
    /// use answers_vocab::CodeRef;
    ///
    /// let steps = day_rule(&CodeRef::loinc("41950-7"));
    /// assert!(steps.rank(Source::Watch) < steps.rank(Source::Phone));
    /// assert!(steps.rank(Source::Phone) < steps.rank(Source::Scale));
    /// assert_eq!(steps.rank(Source::Manual), None);
    /// ```
    #[must_use]
    pub fn rank(&self, source: Source) -> Option<usize> {
        if !is_device(source) {
            return None;
        }
        let listed = self.priority.iter().position(|s| *s == source);
        let fallback = || {
            let at = DEVICE_PRIORITY.iter().position(|s| *s == source);
            self.priority.len() + at.unwrap_or(DEVICE_PRIORITY.len())
        };
        Some(listed.unwrap_or_else(fallback))
    }
}

/// Whether readings from `source` are aggregated and elected: devices are; a lab report and a
/// typed-in value are not.
///
/// ```
/// use answers_protocol::Source;
///
/// assert!(answers_store::is_device(Source::Cuff));
/// assert!(!answers_store::is_device(Source::Lab));
/// ```
#[must_use]
pub fn is_device(source: Source) -> bool {
    // A table, so a new source must say whether it is a device before it compiles.
    const DEVICE: SourceTable<bool> = SourceTable {
        watch: true,
        ring: true,
        phone: true,
        scale: true,
        cuff: true,
        cgm: true,
        glucometer: true,
        pulse_oximeter: true,
        thermometer: true,
        lab: false,
        manual: false,
    };
    *DEVICE.get(source)
}

/// The default election order of every device source, best first: dedicated wearables, then
/// dedicated instruments, then the phone (a phone in a pocket sees least of a day).
///
/// ```
/// use answers_protocol::Source;
/// use answers_store::{DEVICE_PRIORITY, is_device};
///
/// assert_eq!(DEVICE_PRIORITY.last(), Some(&Source::Phone));
/// assert!(DEVICE_PRIORITY.iter().all(|s| is_device(*s)));
/// ```
pub const DEVICE_PRIORITY: &[Source] = &[
    Source::Watch,
    Source::Ring,
    Source::Scale,
    Source::Cuff,
    Source::Cgm,
    Source::Glucometer,
    Source::PulseOximeter,
    Source::Thermometer,
    Source::Phone,
];

/// The per-code rules; every other code is a mean in [`DEVICE_PRIORITY`] order.
const RULES: &[(&str, DayAggregate, &[Source])] = &[
    // Steps: a day's total, from what was worn.
    ("41950-7", DayAggregate::Sum, &[Watch, Ring, Phone]),
    ("55423-8", DayAggregate::Sum, &[Watch, Ring, Phone]),
    // Heart rate, resting heart rate, respiratory rate: what was worn.
    (
        "8867-4",
        DayAggregate::Mean,
        &[Watch, Ring, PulseOximeter, Cuff, Phone],
    ),
    (
        "40443-4",
        DayAggregate::Mean,
        &[Watch, Ring, PulseOximeter, Cuff, Phone],
    ),
    (
        "9279-1",
        DayAggregate::Mean,
        &[Watch, Ring, PulseOximeter, Phone],
    ),
    // Sleep: a ring is worn in bed more often than a watch.
    ("93832-4", DayAggregate::Mean, &[Ring, Watch, Phone]),
    // Body measures: the scale.
    ("29463-7", DayAggregate::Mean, &[Scale, Watch, Ring, Phone]),
    ("39156-5", DayAggregate::Mean, &[Scale, Watch, Ring, Phone]),
    // Blood pressure: the cuff.
    ("8480-6", DayAggregate::Mean, &[Cuff, Watch, Ring, Phone]),
    ("8462-4", DayAggregate::Mean, &[Cuff, Watch, Ring, Phone]),
    // Oxygen saturation: the pulse oximeter.
    (
        "2708-6",
        DayAggregate::Mean,
        &[PulseOximeter, Watch, Ring, Phone],
    ),
    (
        "59408-5",
        DayAggregate::Mean,
        &[PulseOximeter, Watch, Ring, Phone],
    ),
    // Body temperature: the thermometer.
    (
        "8310-5",
        DayAggregate::Mean,
        &[Thermometer, Ring, Watch, Phone],
    ),
    // Glucose: a CGM's day mean covers the day; finger pricks sample it.
    ("2339-0", DayAggregate::Mean, &[Cgm, Glucometer]),
    ("15074-8", DayAggregate::Mean, &[Cgm, Glucometer]),
    ("2345-7", DayAggregate::Mean, &[Cgm, Glucometer]),
    ("14749-6", DayAggregate::Mean, &[Cgm, Glucometer]),
];

/// The day rule of `code`.
///
/// ```
/// use answers_protocol::Source;
/// use answers_store::{DEVICE_PRIORITY, DayAggregate, day_rule};
/// use answers_vocab::CodeRef;
///
/// assert_eq!(day_rule(&CodeRef::loinc("29463-7")).priority[0], Source::Scale);
/// let other = day_rule(&CodeRef::loinc("718-7"));
/// assert_eq!((other.aggregate, other.priority), (DayAggregate::Mean, DEVICE_PRIORITY));
/// ```
#[must_use]
pub fn day_rule(code: &CodeRef) -> DayRule {
    let found = (code.system == CodeSystem::Loinc)
        .then(|| RULES.iter().find(|(c, ..)| *c == code.code))
        .flatten();
    match found {
        Some(&(_, aggregate, priority)) => DayRule {
            aggregate,
            priority,
        },
        None => DayRule {
            aggregate: DayAggregate::Mean,
            priority: DEVICE_PRIORITY,
        },
    }
}

/// A `(subject, code, local_day)` whose day authority a write may have changed.
pub(super) type DayKey = (String, CodeRef, String);

/// The statements of [`recompute`], built once: the device list comes from
/// [`DEVICE_PRIORITY`].
struct Statements {
    delete_aggregate: String,
    delete_elected: String,
    aggregate_sum: (String, String),
    aggregate_mean: (String, String),
    read_aggregates: String,
}

static SQL: LazyLock<Statements> = LazyLock::new(|| {
    let key = "subject_id = ?1 AND system = ?2 AND code = ?3 AND local_day = ?4";
    let devices: Vec<String> = DEVICE_PRIORITY
        .iter()
        .map(|s| format!("'{}'", s.as_str()))
        .collect();
    let devices = devices.join(", ");
    // Units agree when there is exactly one distinct unit on every row, or none on any.
    // `INDEXED BY` (SQLite's only): left to itself the planner takes the upsert key's index
    // for `source IN (…)` and scans every reading of the series, once per day touched.
    // `PostgreSQL` has no `INDEXED BY`; the same plan is had there by keeping `source` out of
    // index selection (an expression, `source || ''`), which leaves the day index the one
    // that bounds the rows.
    let aggregate = |function: &str, indexed: &str, source: &str| {
        format!(
            "INSERT INTO day_aggregate (subject_id, system, code, local_day, source, value, n, unit)
             SELECT ?1, ?2, ?3, ?4, source, {function}(value_num), COUNT(*), MIN(unit)
             FROM series {indexed}
             WHERE {key} AND kind = 'measured' AND value_num IS NOT NULL
               AND {source} IN ({devices})
             GROUP BY source
             HAVING (COUNT(DISTINCT unit) = 1 AND COUNT(unit) = COUNT(*)) OR COUNT(unit) = 0"
        )
    };
    let both = |function: &str| {
        (
            aggregate(function, "INDEXED BY series_by_code_day", "source"),
            aggregate(function, "", "(source || '')"),
        )
    };
    Statements {
        delete_aggregate: format!("DELETE FROM day_aggregate WHERE {key}"),
        delete_elected: format!("DELETE FROM day_elected WHERE {key}"),
        aggregate_sum: both("SUM"),
        aggregate_mean: both("AVG"),
        read_aggregates: format!("SELECT source, value, unit FROM day_aggregate WHERE {key}"),
    }
});

/// Recomputes `day_aggregate` and `day_elected` for one key, inside the write's transaction.
/// Writers of one subject take turns (see `write.rs`), so the rows it reads are all there are.
pub(super) fn recompute(tx: &mut Tx<'_>, key: &DayKey) -> Result<(), StoreError> {
    let op = "publish day authority";
    let (subject, code, day) = key;
    let p = [
        Arg::from(subject),
        Arg::from(code.system.as_str()),
        Arg::from(&code.code),
        Arg::from(day),
    ];
    let rule = day_rule(code);
    let sql = &*SQL;
    for delete in [&sql.delete_aggregate, &sql.delete_elected] {
        tx.exec(op, delete, &p)?;
    }
    let (sqlite, postgres) = match rule.aggregate {
        DayAggregate::Sum => &sql.aggregate_sum,
        DayAggregate::Mean => &sql.aggregate_mean,
    };
    tx.exec(op, Sql::Each(sqlite, postgres), &p)?;

    let mut best: Option<(usize, Source, f64, Option<String>)> = None;
    tx.each(op, &sql.read_aggregates, &p, |row| {
        let table = "day_aggregate";
        let source: Source = row
            .text(0, op, table)?
            .parse()
            .map_err(|_| StoreError::Db(DbError::Malformed { table }))?;
        let Some(rank) = rule.rank(source) else {
            return Ok::<_, StoreError>(Flow::Continue);
        };
        if best.as_ref().is_none_or(|b| rank < b.0) {
            best = Some((
                rank,
                source,
                row.real(1, op)?,
                row.opt_text(2, op, table)?.map(str::to_owned),
            ));
        }
        Ok(Flow::Continue)
    })?;
    if let Some((_, source, value, unit)) = best {
        tx.exec(
            op,
            "INSERT INTO day_elected (subject_id, system, code, local_day, source, value, unit)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            &[
                p[0],
                p[1],
                p[2],
                p[3],
                Arg::from(source.as_str()),
                Arg::from(value),
                Arg::from(&unit),
            ],
        )?;
    }
    Ok(())
}

/// `PostgreSQL`'s statements of [`recompute_all`]: the keys go in as arrays.
struct ManyStatements {
    delete_aggregate: String,
    delete_elected: String,
    aggregate: String,
    read_aggregates: String,
    elect: &'static str,
}

static MANY: LazyLock<ManyStatements> = LazyLock::new(|| {
    let keys = "unnest($1::text[], $2::text[], $3::text[], $4::text[]) \
                AS k(subject_id, system, code, local_day)";
    let on = |t: &str| {
        format!(
            "{t}.subject_id = k.subject_id AND {t}.system = k.system AND {t}.code = k.code \
             AND {t}.local_day = k.local_day"
        )
    };
    let devices: Vec<String> = DEVICE_PRIORITY
        .iter()
        .map(|s| format!("'{}'", s.as_str()))
        .collect();
    let devices = devices.join(", ");
    ManyStatements {
        delete_aggregate: format!("DELETE FROM day_aggregate a USING {keys} WHERE {}", on("a")),
        delete_elected: format!("DELETE FROM day_elected a USING {keys} WHERE {}", on("a")),
        // As `recompute`'s, for every key at once: `$5` says which keys are sums.
        aggregate: format!(
            "INSERT INTO day_aggregate (subject_id, system, code, local_day, source, value, n, unit)
             SELECT k.subject_id, k.system, k.code, k.local_day, s.source,
                    CASE WHEN k.sum THEN SUM(s.value_num) ELSE AVG(s.value_num) END,
                    COUNT(*), MIN(s.unit)
             FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bool[])
                  WITH ORDINALITY AS k(subject_id, system, code, local_day, sum, ord)
             JOIN series s ON {}
             WHERE s.kind = 'measured' AND s.value_num IS NOT NULL
               AND (s.source || '') IN ({devices})
             GROUP BY k.ord, k.subject_id, k.system, k.code, k.local_day, k.sum, s.source
             HAVING (COUNT(DISTINCT s.unit) = 1 AND COUNT(s.unit) = COUNT(*))
                 OR COUNT(s.unit) = 0
             ORDER BY k.ord, s.source",
            on("s")
        ),
        read_aggregates: format!(
            "SELECT k.ord, a.source, a.value, a.unit
             FROM unnest($1::text[], $2::text[], $3::text[], $4::text[])
                  WITH ORDINALITY AS k(subject_id, system, code, local_day, ord)
             JOIN day_aggregate a ON {}",
            on("a")
        ),
        elect: "INSERT INTO day_elected (subject_id, system, code, local_day, source, value, unit)
                SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[],
                                     $6::float8[], $7::text[])",
    }
});

/// A day's elected aggregate: its rank, source, value and unit.
type Winner = (usize, Source, f64, Option<String>);

/// [`recompute`] of every key at once, on `PostgreSQL`: five statements whatever the number
/// of keys. The same rows are deleted, aggregated and elected as key by key.
pub(super) fn recompute_all(
    tx: &mut Tx<'_>,
    keys: &std::collections::BTreeSet<DayKey>,
) -> Result<(), StoreError> {
    let op = "publish day authority";
    if keys.is_empty() {
        return Ok(());
    }
    let keys: Vec<&DayKey> = keys.iter().collect();
    let subject: Vec<&str> = keys.iter().map(|k| k.0.as_str()).collect();
    let system: Vec<&str> = keys.iter().map(|k| k.1.system.as_str()).collect();
    let code: Vec<&str> = keys.iter().map(|k| k.1.code.as_str()).collect();
    let day: Vec<&str> = keys.iter().map(|k| k.2.as_str()).collect();
    let rules: Vec<DayRule> = keys.iter().map(|k| day_rule(&k.1)).collect();
    let sum: Vec<bool> = rules
        .iter()
        .map(|r| r.aggregate == DayAggregate::Sum)
        .collect();
    let key_values: [&(dyn ToSql + Sync); 4] = [&subject, &system, &code, &day];
    let run = |tx: &mut Tx<'_>, sql: &str, values: &[&(dyn ToSql + Sync)]| {
        tx.pg_query(op, sql, values)
            .unwrap_or(Err(DbError::Postgres {
                op,
                kind: "not_postgres".to_owned(),
            }))
    };
    let sql = &*MANY;
    run(tx, &sql.delete_aggregate, &key_values)?;
    run(tx, &sql.delete_elected, &key_values)?;
    run(tx, &sql.aggregate, &[&subject, &system, &code, &day, &sum])?;

    let mut best: Vec<Option<Winner>> = vec![None; keys.len()];
    for row in &run(tx, &sql.read_aggregates, &key_values)? {
        let table = "day_aggregate";
        let ord: i64 = row.try_get(0).map_err(|e| DbError::postgres(op, &e))?;
        let i = usize::try_from(ord - 1)
            .ok()
            .filter(|i| *i < keys.len())
            .ok_or(StoreError::Db(DbError::Malformed { table }))?;
        let source: &str = row.try_get(1).map_err(|e| DbError::postgres(op, &e))?;
        let source: Source = source
            .parse()
            .map_err(|_| StoreError::Db(DbError::Malformed { table }))?;
        let Some(rank) = rules[i].rank(source) else {
            continue;
        };
        if best[i].as_ref().is_none_or(|b| rank < b.0) {
            let value: f64 = row.try_get(2).map_err(|e| DbError::postgres(op, &e))?;
            let unit: Option<String> = row.try_get(3).map_err(|e| DbError::postgres(op, &e))?;
            best[i] = Some((rank, source, value, unit));
        }
    }
    let elected: Vec<usize> = (0..keys.len()).filter(|i| best[*i].is_some()).collect();
    let pick =
        |f: fn(&DayKey) -> &str| -> Vec<&str> { elected.iter().map(|i| f(keys[*i])).collect() };
    let (e_subject, e_system, e_code, e_day) = (
        pick(|k| k.0.as_str()),
        pick(|k| k.1.system.as_str()),
        pick(|k| k.1.code.as_str()),
        pick(|k| k.2.as_str()),
    );
    let winners: Vec<&Winner> = best.iter().filter_map(Option::as_ref).collect();
    let source: Vec<&str> = winners.iter().map(|b| b.1.as_str()).collect();
    let value: Vec<f64> = winners.iter().map(|b| b.2).collect();
    let unit: Vec<Option<&str>> = winners.iter().map(|b| b.3.as_deref()).collect();
    if !elected.is_empty() {
        run(
            tx,
            sql.elect,
            &[
                &e_subject, &e_system, &e_code, &e_day, &source, &value, &unit,
            ],
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_priority_lists_every_device_once() {
        for s in Source::ALL {
            let n = DEVICE_PRIORITY.iter().filter(|p| *p == s).count();
            assert_eq!(n, usize::from(is_device(*s)), "{s:?}");
        }
    }

    #[test]
    fn rules_name_devices_only_once_each_and_rank_every_device() {
        for (code, _, priority) in RULES {
            for s in *priority {
                assert!(is_device(*s), "{code}: {s:?}");
                assert_eq!(priority.iter().filter(|p| *p == s).count(), 1, "{code}");
            }
            let rule = day_rule(&CodeRef::loinc(code));
            let mut ranks: Vec<usize> = DEVICE_PRIORITY
                .iter()
                .filter_map(|s| rule.rank(*s))
                .collect();
            ranks.sort_unstable();
            ranks.dedup();
            assert_eq!(
                ranks.len(),
                DEVICE_PRIORITY.len(),
                "{code}: ranks are distinct"
            );
        }
        assert_eq!(
            RULES
                .iter()
                .map(|r| r.0)
                .collect::<std::collections::BTreeSet<_>>()
                .len(),
            RULES.len()
        );
    }

    #[test]
    fn icpc_codes_take_the_default_rule() {
        let rule = day_rule(&CodeRef::icpc("41950-7"));
        assert_eq!(rule.aggregate, DayAggregate::Mean);
    }
}
