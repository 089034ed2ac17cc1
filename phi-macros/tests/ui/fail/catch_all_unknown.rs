use phi_macros::ClosedEnum;

#[derive(ClosedEnum)]
enum ErrorKind {
    InvalidArguments,
    Unknown,
}

fn main() {}
