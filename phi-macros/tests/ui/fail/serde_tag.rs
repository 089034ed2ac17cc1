use phi_macros::ClosedEnum;

#[derive(ClosedEnum)]
#[serde(tag = "type")]
enum View {
    Raw,
    Day,
}

fn main() {}
