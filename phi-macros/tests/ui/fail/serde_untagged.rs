use phi_macros::ClosedEnum;

#[derive(ClosedEnum)]
#[serde(untagged)]
enum View {
    Raw,
    Day,
}

fn main() {}
