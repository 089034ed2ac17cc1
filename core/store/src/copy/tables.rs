//! The tables the copy carries, in the foreign keys' order, with their columns' types and the
//! key each is read in; and the one the target's triggers derive.

/// A column's type, as both backends store it.
#[derive(Debug, Clone, Copy)]
pub(super) enum Ty {
    Text,
    Int,
    Real,
}

/// A table the copy carries: its columns and the key its rows are read in.
#[derive(Debug)]
pub(super) struct Table {
    pub(super) name: &'static str,
    pub(super) columns: &'static [(&'static str, Ty)],
    pub(super) order: &'static str,
    /// An identity column whose sequence follows the copied ids on `PostgreSQL`.
    pub(super) identity: Option<&'static str>,
}

use Ty::{Int, Real, Text};

/// Every table of the record, parents before children (the foreign keys' order).
pub(super) const TABLES: &[Table] = &[
    Table {
        name: "subject",
        columns: &[("id", Text), ("handle", Text), ("tz", Text)],
        order: "id",
        identity: None,
    },
    Table {
        name: "series",
        columns: &[
            ("id", Int),
            ("subject_id", Text),
            ("kind", Text),
            ("name", Text),
            ("system", Text),
            ("code", Text),
            ("value_num", Real),
            ("value_text", Text),
            ("unit", Text),
            ("start_utc", Text),
            ("end_utc", Text),
            ("local_day", Text),
            ("source", Text),
            ("comment", Text),
        ],
        order: "id",
        identity: Some("id"),
    },
    Table {
        name: "day_aggregate",
        columns: &[
            ("subject_id", Text),
            ("system", Text),
            ("code", Text),
            ("local_day", Text),
            ("source", Text),
            ("value", Real),
            ("n", Int),
            ("unit", Text),
        ],
        order: "subject_id, system, code, local_day, source",
        identity: None,
    },
    Table {
        name: "day_elected",
        columns: &[
            ("subject_id", Text),
            ("system", Text),
            ("code", Text),
            ("local_day", Text),
            ("source", Text),
            ("value", Real),
            ("unit", Text),
        ],
        order: "subject_id, system, code, local_day",
        identity: None,
    },
    Table {
        name: "token",
        columns: &[
            ("token_hash", Text),
            ("subject_id", Text),
            ("expires_utc", Text),
            ("revoked", Int),
        ],
        order: "token_hash",
        identity: None,
    },
    Table {
        name: "medication_plan",
        columns: &[
            ("id", Text),
            ("subject_id", Text),
            ("name", Text),
            ("code_system", Text),
            ("code", Text),
            ("dose_amount", Real),
            ("dose_unit", Text),
            ("frequency", Text),
            ("route", Text),
            ("start_day", Text),
            ("end_day", Text),
            ("status", Text),
            ("closed_reason", Text),
            ("note", Text),
        ],
        order: "id",
        identity: None,
    },
    Table {
        name: "medication_dose",
        columns: &[
            ("subject_id", Text),
            ("plan_id", Text),
            ("at_utc", Text),
            ("local_day", Text),
            ("status", Text),
            ("note", Text),
        ],
        order: "plan_id, at_utc",
        identity: None,
    },
    Table {
        name: "genotype_set",
        columns: &[
            ("id", Int),
            ("subject_id", Text),
            ("format", Text),
            ("build", Text),
            ("call_count", Int),
            ("no_call_count", Int),
        ],
        order: "id",
        identity: Some("id"),
    },
    Table {
        name: "genotype_call",
        columns: &[
            ("set_id", Int),
            ("rsid", Text),
            ("chromosome", Text),
            ("position", Int),
            ("genotype", Text),
        ],
        order: "set_id, rsid",
        identity: None,
    },
];

/// The table the target's triggers fill from `series`: counted, not copied.
pub(super) const DERIVED: &str = "series_day";
