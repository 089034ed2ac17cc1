use phi_macros::ClosedEnum;

#[derive(ClosedEnum)]
enum Provenance {
    Measured,
    Elected { source: u8 },
}

fn main() {}
