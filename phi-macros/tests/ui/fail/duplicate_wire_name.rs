use phi_macros::ClosedEnum;

#[derive(ClosedEnum)]
enum View {
    Day,
    #[closed(rename = "day")]
    Daily,
}

fn main() {}
