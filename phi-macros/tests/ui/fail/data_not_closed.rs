use phi_macros::ClosedEnum;

#[derive(ClosedEnum)]
enum Provenance {
    Measured,
    Elected(String),
}

fn main() {}
