use phi_macros::ClosedEnum;

#[derive(ClosedEnum)]
enum ErrorKind {
    InvalidArguments,
    Other,
}

fn main() {}
