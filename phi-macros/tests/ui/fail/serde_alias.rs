use phi_macros::ClosedEnum;

#[derive(ClosedEnum)]
enum View {
    Raw,
    #[serde(alias = "daily")]
    Day,
}

fn main() {}
