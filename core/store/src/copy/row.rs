//! A row as the copy holds it (owned values, read from the source and bound on the target),
//! and the running checksum over rows that both sides are compared by.

use sha2::{Digest, Sha256};

use answers_db::Arg;

/// An owned value read from the source, bound on the target.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Value {
    Null,
    Int(i64),
    Real(f64),
    Text(String),
}

impl Value {
    pub(super) fn arg(&self) -> Arg<'_> {
        match self {
            Value::Null => Arg::Null,
            Value::Int(n) => Arg::Int(*n),
            Value::Real(x) => Arg::Real(*x),
            Value::Text(s) => Arg::Text(s),
        }
    }
}

/// A running checksum over rows.
pub(super) struct Checksum(Sha256);

impl Checksum {
    pub(super) fn new() -> Checksum {
        Checksum(Sha256::new())
    }

    pub(super) fn add(&mut self, row: &[Value]) {
        for value in row {
            match value {
                Value::Null => self.0.update([0]),
                Value::Int(n) => {
                    self.0.update([1]);
                    self.0.update(n.to_le_bytes());
                }
                Value::Real(x) => {
                    self.0.update([2]);
                    self.0.update(x.to_bits().to_le_bytes());
                }
                Value::Text(s) => {
                    self.0.update([3]);
                    self.0
                        .update(u64::try_from(s.len()).unwrap_or(u64::MAX).to_le_bytes());
                    self.0.update(s.as_bytes());
                }
            }
        }
        self.0.update([0xff]);
    }

    pub(super) fn hex(self) -> String {
        use std::fmt::Write as _;
        self.0
            .finalize()
            .iter()
            .fold(String::with_capacity(64), |mut s, b| {
                let _ = write!(s, "{b:02x}");
                s
            })
    }
}
