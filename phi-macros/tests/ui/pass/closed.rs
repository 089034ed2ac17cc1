use std::collections::BTreeMap;

use phi_macros::{ClosedEnum, ClosedFields};

#[derive(ClosedEnum, Debug, Clone, Copy, PartialEq, Eq)]
#[closed(rename_all = "kebab-case")]
pub enum ErrorKind {
    InvalidArguments,
    #[closed(rename = "store-down")]
    StoreUnavailable,
}

#[derive(ClosedEnum, Debug, Clone, Copy, PartialEq, Eq)]
enum Source {
    Watch,
    Phone,
}

#[derive(ClosedEnum, Debug, Clone, Copy, PartialEq, Eq)]
enum Provenance {
    Measured,
    Elected(Source),
}

#[derive(ClosedFields)]
struct Envelope {
    #[closed]
    kind: Option<ErrorKind>,
    #[closed]
    provenance: BTreeMap<String, Provenance>,
    #[closed]
    history: Vec<Option<Source>>,
    rows: usize,
}

fn main() {
    let table = SourceTable { watch: "w", phone: "p" };
    assert_eq!(*table.get(Source::Phone), "p");
    let e = Envelope { kind: None, provenance: BTreeMap::new(), history: vec![], rows: 0 };
    assert_eq!((e.kind, e.provenance.len(), e.history.len(), e.rows), (None, 0, 0, 0));
    assert_eq!(ErrorKind::StoreUnavailable.as_str(), "store-down");
    assert_eq!(Provenance::Elected(Source::Watch).to_string(), "elected:watch");
}
