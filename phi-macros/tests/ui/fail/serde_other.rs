use phi_macros::ClosedEnum;

#[derive(ClosedEnum)]
enum View {
    Raw,
    #[serde(other)]
    Anything,
}

fn main() {}
