//! Two renderings of one envelope: compact text for a model, JSON objects for a browser.
//!
//! Both are made from the envelope alone. An error renders as the tool's name, the error kind
//! and the refused parameter or the error's TYPE, never an error message: the envelope has no
//! field that could hold one.

mod compact;
mod rest;

use crate::args::schema_for;
use crate::envelope::Envelope;
use crate::envelope::kinds::{ErrorClass, ErrorKind};
use crate::envelope::next_step::NextStep;

pub use self::compact::render_compact;
pub use self::rest::render_rest;

/// What a model should do after an error of `kind` and `class`: one sentence, as the original
/// worded it for refusals.
fn advice(kind: ErrorKind, class: ErrorClass) -> &'static str {
    match (kind, class) {
        (ErrorKind::InvalidArguments, _) => "Fix the arguments and try once more.",
        (ErrorKind::NotFound, _) => "Check the name against the catalogue.",
        (ErrorKind::RepeatedCall, _) => "This call already failed; do not repeat it.",
        (ErrorKind::CallLimit, _) => {
            "This tool's limit for the turn is reached; answer from what you have."
        }
        (_, ErrorClass::Recoverable) => "Try once more later.",
        (_, ErrorClass::Unrecoverable) => "Do not repeat this call; answer from what you have.",
    }
}

/// The error line of an error envelope:
/// `error (invalid_arguments): kind: unknown parameter. Fix the arguments and try once more.`
///
/// `None` for an envelope that is not an error.
pub(crate) fn error_line(env: &Envelope) -> Option<String> {
    let (Some(kind), Some(class), Some(detail)) =
        (env.error_kind(), env.error_class(), env.error_detail())
    else {
        return None;
    };
    Some(format!(
        "error ({kind}): {}. {}",
        detail.reason(),
        advice(kind, class)
    ))
}

/// The call a step suggests, as a model reads it:
/// `query_health_indicators(indicators=["LDL"], start=<choose>)`.
///
/// Arguments follow the tool's published parameter order; a parameter to supply shows as
/// `<choose>`.
pub(crate) fn call_text(step: &NextStep) -> String {
    let order: Vec<&str> = schema_for(step.tool)
        .params
        .iter()
        .map(|p| p.name)
        .collect();
    let rank = |name: &str| order.iter().position(|p| *p == name).unwrap_or(order.len());
    let mut parts: Vec<(usize, String)> = step
        .args
        .iter()
        .map(|(name, value)| (rank(name), format!("{name}={value}")))
        .chain(
            step.supply
                .iter()
                .map(|name| (rank(name), format!("{name}=<choose>"))),
        )
        .collect();
    parts.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(&b.1)));
    let args: Vec<String> = parts.into_iter().map(|(_, p)| p).collect();
    format!("{}({})", step.tool, args.join(", "))
}
