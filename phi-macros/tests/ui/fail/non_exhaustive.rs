use phi_macros::ClosedEnum;

#[derive(ClosedEnum)]
#[non_exhaustive]
enum Status {
    Ok,
    Error,
}

fn main() {}
