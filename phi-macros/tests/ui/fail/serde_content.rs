use phi_macros::ClosedEnum;

#[derive(ClosedEnum)]
#[serde(content = "value")]
enum View {
    Raw,
    Day,
}

fn main() {}
