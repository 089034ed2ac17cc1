use phi_macros::ClosedFields;

#[derive(ClosedFields)]
struct Meta {
    #[closed]
    view: Option<String>,
}

fn main() {}
