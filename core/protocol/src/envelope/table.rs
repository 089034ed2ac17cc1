//! `Table` and `Cell`: the rows of an answer, as one named table per kind of row.

use std::fmt;

use serde::{Deserialize, Serialize};

/// One value of a row: a JSON scalar.
///
/// Serialized as the bare JSON value (`null`, `true`, `42`, `5.4`, `"mmol/L"`).
///
/// ```
/// use answers_protocol::Cell;
///
/// assert_eq!(Cell::from(5.4).to_string(), "5.4");
/// assert_eq!(Cell::from("mg/dL").to_string(), "mg/dL");
/// assert_eq!(Cell::from(None::<i64>), Cell::Null);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Cell {
    /// No value.
    Null,
    /// A flag.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A number with a fraction, always finite.
    Float(f64),
    /// Text: a name, a code, a unit, a date.
    Text(String),
    /// A JSON document carried as it is: a FHIR resource the vocabulary server builds. An object
    /// or an array (a scalar reads back as one of the variants above).
    Json(serde_json::Value),
}

impl Cell {
    /// This cell as a JSON value (a non-finite float becomes `null`).
    ///
    /// ```
    /// assert_eq!(answers_protocol::Cell::from(7).to_json(), serde_json::json!(7));
    /// ```
    #[must_use]
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            Cell::Null => serde_json::Value::Null,
            Cell::Bool(b) => (*b).into(),
            Cell::Int(i) => (*i).into(),
            Cell::Float(x) => {
                serde_json::Number::from_f64(*x).map_or(serde_json::Value::Null, Into::into)
            }
            Cell::Text(s) => s.as_str().into(),
            Cell::Json(v) => v.clone(),
        }
    }
}

/// Text as a model reads it: the empty string for null.
impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cell::Null => Ok(()),
            Cell::Bool(b) => write!(f, "{b}"),
            Cell::Int(i) => write!(f, "{i}"),
            Cell::Float(x) => write!(f, "{x}"),
            Cell::Text(s) => f.write_str(s),
            Cell::Json(v) => write!(f, "{v}"),
        }
    }
}

impl From<&str> for Cell {
    fn from(s: &str) -> Self {
        Cell::Text(s.to_owned())
    }
}

impl From<String> for Cell {
    fn from(s: String) -> Self {
        Cell::Text(s)
    }
}

impl From<i64> for Cell {
    fn from(i: i64) -> Self {
        Cell::Int(i)
    }
}

impl From<i32> for Cell {
    fn from(i: i32) -> Self {
        Cell::Int(i.into())
    }
}

impl From<u32> for Cell {
    fn from(i: u32) -> Self {
        Cell::Int(i.into())
    }
}

impl From<f64> for Cell {
    /// A non-finite number has no JSON form and becomes [`Cell::Null`].
    fn from(x: f64) -> Self {
        if x.is_finite() {
            Cell::Float(x)
        } else {
            Cell::Null
        }
    }
}

impl From<bool> for Cell {
    fn from(b: bool) -> Self {
        Cell::Bool(b)
    }
}

impl<T: Into<Cell>> From<Option<T>> for Cell {
    fn from(v: Option<T>) -> Self {
        v.map_or(Cell::Null, Into::into)
    }
}

/// A named table: its columns in order, and rows with one cell per column.
///
/// Readings come back as one table and what the person reported as a second; the catalogue is
/// a table of indicators. Column names are unique and every row is as wide as the header.
///
/// ```
/// use answers_protocol::Table;
///
/// let t = Table::new("readings", ["date", "value", "unit"])
///     .with_row(["2024-03-01".into(), 5.4.into(), "mmol/L".into()])
///     .unwrap();
/// assert_eq!(t.rows().len(), 1);
/// assert!(t.clone().with_row(["2024-03-02".into()]).is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "RawTable")]
pub struct Table {
    name: String,
    columns: Vec<String>,
    rows: Vec<Vec<Cell>>,
}

/// Why a table cannot hold what it was given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TableError {
    /// A row's width differs from the header's.
    #[error("row has {found} cells, the table has {expected} columns")]
    Width {
        /// The number of columns.
        expected: usize,
        /// The number of cells in the row.
        found: usize,
    },
    /// Two columns share a name (the browser keys rows by column).
    #[error("column {index} repeats an earlier column name")]
    DuplicateColumn {
        /// The position of the second occurrence.
        index: usize,
    },
}

impl Table {
    /// An empty table with these columns.
    ///
    /// Panics if two columns share a name: columns are fixed by the tool's code, so a repeat is
    /// a bug, not data.
    ///
    /// ```
    /// let t = answers_protocol::Table::new("catalogue", ["indicator", "code"]);
    /// assert_eq!(t.columns(), ["indicator", "code"]);
    /// ```
    #[must_use]
    pub fn new<I, S>(name: impl Into<String>, columns: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let columns: Vec<String> = columns.into_iter().map(Into::into).collect();
        if let Some(index) = duplicate_column(&columns) {
            panic!("column {index} repeats an earlier column name");
        }
        Self {
            name: name.into(),
            columns,
            rows: Vec::new(),
        }
    }

    /// Appends a row; it must have one cell per column.
    ///
    /// ```
    /// let mut t = answers_protocol::Table::new("readings", ["date", "value"]);
    /// t.push_row(["2024-03-01".into(), 70.into()]).unwrap();
    /// assert_eq!(t.rows()[0][1], answers_protocol::Cell::Int(70));
    /// ```
    pub fn push_row(&mut self, row: impl IntoIterator<Item = Cell>) -> Result<(), TableError> {
        let row: Vec<Cell> = row.into_iter().collect();
        if row.len() != self.columns.len() {
            return Err(TableError::Width {
                expected: self.columns.len(),
                found: row.len(),
            });
        }
        self.rows.push(row);
        Ok(())
    }

    /// [`push_row`](Self::push_row), by value, for building a table in one expression.
    ///
    /// ```
    /// let t = answers_protocol::Table::new("t", ["a"]).with_row([1.into()]).unwrap();
    /// assert_eq!(t.rows().len(), 1);
    /// ```
    pub fn with_row(mut self, row: impl IntoIterator<Item = Cell>) -> Result<Self, TableError> {
        self.push_row(row)?;
        Ok(self)
    }

    /// The table's name (`readings`, `reported`, `catalogue`, …).
    ///
    /// ```
    /// assert_eq!(answers_protocol::Table::new("readings", ["date"]).name(), "readings");
    /// ```
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The column names, in order.
    ///
    /// ```
    /// assert_eq!(answers_protocol::Table::new("t", ["a", "b"]).columns().len(), 2);
    /// ```
    #[must_use]
    pub fn columns(&self) -> &[String] {
        &self.columns
    }

    /// The rows, each as wide as [`columns`](Self::columns).
    ///
    /// ```
    /// assert!(answers_protocol::Table::new("t", ["a"]).rows().is_empty());
    /// ```
    #[must_use]
    pub fn rows(&self) -> &[Vec<Cell>] {
        &self.rows
    }

    /// Keeps the rows `keep` says yes to, in order; what a bound on an answer's length cuts.
    ///
    /// ```
    /// let mut t = answers_protocol::Table::new("t", ["a"]);
    /// for i in 0..4 {
    ///     t.push_row([i.into()]).unwrap();
    /// }
    /// t.retain_rows(|row| row[0] != answers_protocol::Cell::Int(2));
    /// assert_eq!(t.rows().len(), 3);
    /// ```
    pub fn retain_rows(&mut self, keep: impl FnMut(&Vec<Cell>) -> bool) {
        self.rows.retain(keep);
    }
}

fn duplicate_column(columns: &[String]) -> Option<usize> {
    (1..columns.len()).find(|&i| columns[..i].contains(&columns[i]))
}

/// The wire form, checked into a [`Table`].
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTable {
    name: String,
    columns: Vec<String>,
    rows: Vec<Vec<Cell>>,
}

impl TryFrom<RawTable> for Table {
    type Error = TableError;

    fn try_from(raw: RawTable) -> Result<Self, Self::Error> {
        if let Some(index) = duplicate_column(&raw.columns) {
            return Err(TableError::DuplicateColumn { index });
        }
        let mut table = Table {
            name: raw.name,
            columns: raw.columns,
            rows: Vec::with_capacity(raw.rows.len()),
        };
        for row in raw.rows {
            table.push_row(row)?;
        }
        Ok(table)
    }
}
