//! RetryGovernance: refuses, before it runs, a call whose `(tool, normalised arguments)` already
//! returned an unrecoverable result, and a call that already ran its per-turn limit.
//!
//! It reads only the envelope's error class, never the text.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::normalize::CallKey;
use super::record::Decision;
use crate::envelope::Envelope;
use crate::envelope::kinds::ErrorClass;
use crate::tool::ToolId;

/// The per-turn memory of RetryGovernance.
///
/// ```
/// use answers_governance::retry::RetryGovernance;
/// use answers_governance::Decision;
/// use answers_protocol::{Envelope, ErrorKind, ToolId, TypeName};
/// use serde_json::json;
///
/// let tool = ToolId::QueryHealthIndicators;
/// let mut retry = RetryGovernance::new(3);
/// let call = json!({"indicators": ["LDL", "HDL"]});
/// assert_eq!(retry.check(tool, &call), None);
/// retry.record(tool, &call, &Envelope::fault(tool, ErrorKind::StoreFault, TypeName::of::<u8>()));
/// assert_eq!(retry.check(tool, &json!({"indicators": ["HDL", "LDL"]})), Some(Decision::RefusedRepeated));
/// ```
#[derive(Debug, Clone, Default)]
pub struct RetryGovernance {
    same_call_limit: u32,
    failed: HashSet<CallKey>,
    runs: HashMap<CallKey, u32>,
}

impl RetryGovernance {
    /// A fresh memory; one normalised call may run `same_call_limit` times.
    #[must_use]
    pub fn new(same_call_limit: u32) -> Self {
        Self {
            same_call_limit,
            failed: HashSet::new(),
            runs: HashMap::new(),
        }
    }

    /// `None` if the call may run; otherwise why not.
    #[must_use]
    pub fn check(&self, tool: ToolId, args: &Value) -> Option<Decision> {
        let key = CallKey::new(tool, args);
        if self.failed.contains(&key) {
            Some(Decision::RefusedRepeated)
        } else if self.runs.get(&key).copied().unwrap_or(0) >= self.same_call_limit {
            Some(Decision::RefusedSameCallLimit)
        } else {
            None
        }
    }

    /// Remembers that the call ran and what class its answer had.
    pub fn record(&mut self, tool: ToolId, args: &Value, answer: &Envelope) {
        let key = CallKey::new(tool, args);
        if answer.error_class() == Some(ErrorClass::Unrecoverable) {
            self.failed.insert(key.clone());
        }
        let runs = self.runs.entry(key).or_insert(0);
        *runs = runs.saturating_add(1);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use answers_protocol::{ArgProblem, Meta};

    const T: ToolId = ToolId::QueryHealthIndicators;

    #[test]
    fn a_recoverable_answer_may_be_retried_up_to_the_limit() {
        let mut r = RetryGovernance::new(2);
        let call = json!({"view": "day", "indicators": ["x"]});
        let refused = Envelope::refusal(T, Some("view"), ArgProblem::NeedsSelector);
        r.record(T, &call, &refused);
        assert_eq!(r.check(T, &call), None);
        r.record(T, &call, &Envelope::ok(Meta::none()));
        assert_eq!(r.check(T, &call), Some(Decision::RefusedSameCallLimit));
        assert_eq!(
            r.check(T, &json!({"view": "week", "indicators": ["x"]})),
            None
        );
        assert_eq!(r.check(ToolId::QueryMedications, &call), None);
    }
}
