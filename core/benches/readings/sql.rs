//! The hand-written SQL: for each view, the one statement a developer would write to compute
//! the same numbers as the tool, over the same rows (the window padded for legacy rows, the
//! day authority where one was elected, every reading where not, and for `day`, `week` and
//! `month` the newest reading of such a day, the subject's zone for `minute` and `hour`),
//! keeping as many rows as the tool's cap plus one.

use std::fmt::Write as _;

use answers_protocol::View;
use answers_tools::readings::{BUCKET_CAP, ROW_CAP};

/// The window's bounds, as the tool binds them.
pub(crate) struct Bounds {
    pub(crate) day_lo: String,
    pub(crate) day_hi: String,
    pub(crate) utc_lo: String,
    pub(crate) utc_hi: String,
}

impl Bounds {
    /// `(start, end)`, or the whole record.
    pub(crate) fn of(window: Option<&(String, String)>) -> Self {
        let shift = |d: &str, days: i64| {
            let d: jiff::civil::Date = d.parse().expect("a date");
            d.checked_add(jiff::Span::new().days(days))
                .expect("in range")
                .to_string()
        };
        match window {
            Some((s, e)) => Self {
                day_lo: s.clone(),
                day_hi: e.clone(),
                utc_lo: shift(s, -1),
                utc_hi: shift(e, 2),
            },
            None => Self {
                day_lo: String::new(),
                day_hi: "~".into(),
                utc_lo: String::new(),
                utc_hi: "~".into(),
            },
        }
    }
}

/// The rows of the window: bounded by time on the `(subject_id, code, start_utc)` index
/// (`+` keeps the unique key, which has `system`, out of the planner's choice).
const IN_WINDOW: &str = "s.subject_id = :subject AND s.code = :code AND +s.system = 'loinc'
   AND s.start_utc >= :utc_lo AND s.start_utc < :utc_hi
   AND (s.local_day BETWEEN :day_lo AND :day_hi OR s.local_day IS NULL)";

/// The catalogue as a scan of the window's rows computes it (what the tool did before the
/// store kept a per-day summary): one row per series with its count and first and last day.
pub(crate) const CATALOGUE_SCAN: &str = "SELECT s.code, s.system, s.kind, s.unit, count(*),
       min(coalesce(s.local_day, substr(s.start_utc, 1, 10))),
       max(coalesce(s.local_day, substr(s.start_utc, 1, 10))),
       max(s.local_day IS NULL)
  FROM series s
 WHERE s.subject_id = :subject
   AND s.start_utc >= :utc_lo AND s.start_utc < :utc_hi
   AND (s.local_day BETWEEN :day_lo AND :day_hi OR s.local_day IS NULL)
 GROUP BY s.code, s.system, s.kind, s.unit";

/// `raw` without local time: the rows with their stored UTC timestamps, for reference.
pub(crate) const RAW_UTC: &str = "SELECT s.kind, s.unit, s.local_day, s.start_utc, s.value_num,
       s.value_text, s.source
  FROM series s
 WHERE s.subject_id = :subject AND s.code = :code AND +s.system = 'loinc'
   AND s.start_utc >= :utc_lo AND s.start_utc < :utc_hi
   AND (s.local_day BETWEEN :day_lo AND :day_hi OR s.local_day IS NULL)
 ORDER BY s.start_utc DESC LIMIT 51";

/// The elected days of the window.
const ELECTED: &str = "SELECT local_day FROM day_elected
   WHERE subject_id = :subject AND system = 'loinc' AND code = :code
     AND local_day BETWEEN :day_lo AND :day_hi";

/// What `day`, `week`, `month` and `stats` count: each elected day's value, every reading of a
/// day nothing elected (read on the `(subject_id, code, local_day)` index, whose entries
/// answer `NOT IN` before a row is read), and the legacy rows. `t` orders the values of a day.
fn points() -> String {
    format!(
        "SELECT e.local_day AS day, e.local_day AS t, e.value AS v
           FROM day_elected e
          WHERE e.subject_id = :subject AND e.system = 'loinc' AND e.code = :code
            AND e.local_day BETWEEN :day_lo AND :day_hi
         UNION ALL
         SELECT s.local_day, s.start_utc, s.value_num
           FROM series s
          WHERE s.subject_id = :subject AND s.code = :code AND +s.system = 'loinc'
            AND s.local_day BETWEEN :day_lo AND :day_hi AND s.local_day NOT IN ({ELECTED})
         UNION ALL
         SELECT substr(s.start_utc, 1, 10), s.start_utc, s.value_num
           FROM series s
          WHERE s.subject_id = :subject AND s.code = :code AND +s.system = 'loinc'
            AND s.local_day IS NULL AND +s.start_utc >= :utc_lo AND +s.start_utc < :utc_hi"
    )
}

/// The statement for `view`; `offsets` are the zone's UTC offsets, each from an instant on.
pub(crate) fn statement(view: View, offsets: &[(String, i32)]) -> String {
    let keep = BUCKET_CAP + 1;
    // The zone's offset at `s.start_utc`, as a date-time modifier.
    let mut offset = String::from("CASE");
    for pair in offsets.windows(2) {
        let ((_, seconds), (until, _)) = (&pair[0], &pair[1]);
        let _ = write!(
            offset,
            " WHEN s.start_utc < '{until}' THEN '{seconds:+} seconds'"
        );
    }
    let last = offsets.last().map_or(0, |o| o.1);
    let _ = write!(offset, " ELSE '{last:+} seconds' END");
    let local = |format: &str| format!("strftime('{format}', s.start_utc, {offset})");
    let buckets = |format: &str| {
        format!(
            "SELECT {} AS b, avg(s.value_num), count(*) FROM series s WHERE {IN_WINDOW}
              GROUP BY b ORDER BY b DESC LIMIT {keep}",
            local(format)
        )
    };
    // A day's value: its elected value (`t = day`), else its newest reading; a bucket is the
    // mean of its days' values.
    let calendar = |bucket: &str| {
        format!(
            "WITH p AS ({}),
                  d AS (SELECT day, v, n FROM (
                          SELECT day, v, count(*) OVER (PARTITION BY day) AS n,
                                 row_number() OVER (PARTITION BY day ORDER BY t = day DESC, t DESC)
                                   AS rn
                            FROM p)
                         WHERE rn = 1)
             SELECT {bucket} AS b, avg(v), sum(n), count(*) FROM d
              GROUP BY b ORDER BY b DESC LIMIT {keep}",
            points()
        )
    };
    match view {
        View::Raw => format!(
            "SELECT s.kind, s.unit, coalesce(s.local_day, {}), {}, s.value_num, s.value_text,
                    s.source
               FROM series s WHERE {IN_WINDOW} ORDER BY s.start_utc DESC LIMIT {}",
            local("%Y-%m-%d"),
            local("%H:%M"),
            ROW_CAP + 1
        ),
        View::Minute => buckets("%Y-%m-%d %H:%M"),
        View::Hour => buckets("%Y-%m-%d %H:00"),
        View::Day => calendar("day"),
        View::Week => calendar("date(day, '-' || ((strftime('%w', day) + 6) % 7) || ' days')"),
        View::Month => calendar("substr(day, 1, 7)"),
        View::Stats => format!(
            "WITH p AS MATERIALIZED ({})
             SELECT count(*), min(v), max(v), avg(v),
                    (SELECT v FROM p ORDER BY day, t LIMIT 1), min(day),
                    (SELECT v FROM p ORDER BY day DESC, t DESC LIMIT 1), max(day)
               FROM p",
            points()
        ),
        View::Latest => format!(
            "SELECT * FROM (
               SELECT * FROM (SELECT e.local_day AS day, e.value AS v, e.unit, e.source, 1 AS elected
                                FROM day_elected e
                               WHERE e.subject_id = :subject AND e.system = 'loinc'
                                 AND e.code = :code AND e.local_day BETWEEN :day_lo AND :day_hi
                               ORDER BY e.local_day DESC LIMIT 1)
               UNION ALL
               SELECT * FROM (SELECT coalesce(s.local_day, substr(s.start_utc, 1, 10)),
                                     s.value_num, s.unit, s.source, 0
                                FROM series s WHERE {IN_WINDOW}
                               ORDER BY s.start_utc DESC LIMIT 1))
             ORDER BY day DESC, elected DESC LIMIT 1"
        ),
    }
}
