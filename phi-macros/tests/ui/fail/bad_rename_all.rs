use phi_macros::ClosedEnum;

#[derive(ClosedEnum)]
#[closed(rename_all = "Title Case")]
enum View {
    Raw,
}

fn main() {}
