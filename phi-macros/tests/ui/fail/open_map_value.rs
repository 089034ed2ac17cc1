use std::collections::BTreeMap;

use phi_macros::ClosedFields;

#[derive(ClosedFields)]
struct Envelope {
    #[closed]
    provenance: BTreeMap<String, String>,
}

fn main() {}
