//! `standardize_complaint(text)`: a complaint as said to its ICPC code and title.

use serde_json::Value;

use super::{fhir, rank};
use crate::args::ArgValue;
use crate::args::terminology::STANDARDIZE_COMPLAINT;
use crate::envelope::Envelope;
use crate::envelope::error::ArgProblem;
use crate::envelope::meta::Meta;
use crate::envelope::table::{Cell, Table};
use crate::fault::guarded;
use crate::tool::ToolId;
use crate::vocab::{CodeSystem, Vocabulary};

const TOOL: ToolId = ToolId::StandardizeComplaint;

/// The ICPC edition the bundled subset holds (`core/data/NOTICE-ICPC.md`: no ICPC-3 content
/// could be verified, so the subset is ICPC-2).
pub const ICPC_EDITION: &str = "ICPC-2";

/// `standardize_complaint(text)`: table `complaint` (rank, match, system, edition, code, title,
/// matched key), best first; the first row is the coding. The text may be the complaint's
/// name (`headache`, `头疼`) or a sentence that contains it (`I have a headache`, `我头疼`).
/// Text that reaches no ICPC code in the bundled subset is refused (`text: no complaint …`).
///
/// ```
/// use answers_tools::terminology::standardize_complaint;
/// use serde_json::json;
///
/// let text = answers_protocol::render_compact(&standardize_complaint(&json!({"text": "头疼"})));
/// assert!(text.contains("N01 | Headache"), "{text}");
/// ```
#[must_use]
pub fn standardize_complaint(args: &Value) -> Envelope {
    guarded(TOOL, Vec::new, || Ok(body(Vocabulary::bundled(), args)))
}

fn body(vocab: &Vocabulary, args: &Value) -> Envelope {
    let valid = match STANDARDIZE_COMPLAINT.validate(args) {
        Ok(valid) => valid,
        Err(refusal) => return refusal,
    };
    let Some(ArgValue::Text(text)) = valid.get("text") else {
        return Envelope::refusal(TOOL, Some("text"), ArgProblem::Missing);
    };
    let found = rank::candidates(vocab, text, Some(CodeSystem::Icpc));
    if found.is_empty() {
        return Envelope::refusal(TOOL, Some("text"), ArgProblem::UnknownComplaint);
    }
    let mut table = Table::new(
        "complaint",
        [
            "rank", "match", "system", "edition", "code", "title", "matched",
        ],
    );
    for (rank, c) in (1_i64..).zip(&found) {
        let _ = table.push_row([
            Cell::Int(rank),
            c.how.as_str().into(),
            fhir::ICPC2_SYSTEM.into(),
            ICPC_EDITION.into(),
            c.code.code.as_str().into(),
            vocab.entry(&c.code).map(|e| e.name.as_str()).into(),
            c.key.as_str().into(),
        ]);
    }
    Envelope::ok(Meta::none()).with_table(table)
}
