use phi_macros::ClosedEnum;

#[derive(ClosedEnum, Clone, Copy)]
enum View {
    Raw,
    Day,
    Stats,
}

fn main() {
    let _table = ViewTable { raw: 1, day: 2 };
}
