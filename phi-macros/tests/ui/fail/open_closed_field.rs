use phi_macros::{ClosedEnum, ClosedFields};

#[derive(ClosedEnum)]
enum Status {
    Ok,
    Error,
}

#[derive(ClosedFields)]
struct Envelope {
    #[closed]
    status: Status,
    #[closed]
    error_kind: String,
}

fn main() {}
