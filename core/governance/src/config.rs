//! `GovernanceConfig`: what governs a turn.

use super::limits::{LimitConfigError, ModelCallLimit, ToolCallLimit};
use crate::tool::ToolId;

/// The governance of a turn: the model budget, the tool caps, RetryGovernance's same-call limit,
/// the tools offered, and how much of a tool message's text the harness keeps.
///
/// The default over the tools a harness offers ([`GovernanceConfig::new`]) follows the original
/// (its agent's middlewares): 50 model calls per turn (`end`); the data tool,
/// `query_health_indicators`, at most 12 times per turn (`continue`: the 13th call is refused
/// and that tool alone is removed for the rest of the turn); the same call at most twice per
/// turn; and the whole text. Each is configurable ([`GovernanceConfig::with_model_limit`],
/// [`GovernanceConfig::without_tool_limits`] and [`GovernanceConfig::with_tool_limit`],
/// [`GovernanceConfig::with_same_call_limit`]). Governance does not know which tools a chat offers:
/// the caller says (`answers_server::chat::config` offers the registry's chat tools).
///
/// ```
/// use answers_governance::GovernanceConfig;
/// use answers_protocol::ToolId;
///
/// let config = GovernanceConfig::new(vec![ToolId::QueryMedications]);
/// assert_eq!(config.model_limit().run_limit(), Some(50));
/// assert_eq!(config.tool_limits()[0].tool_name(), Some(ToolId::QueryHealthIndicators));
/// assert_eq!(config.tool_limits()[0].run_limit(), Some(12));
/// assert_eq!(config.same_call_limit(), 2);
/// assert_eq!(config.tools(), [ToolId::QueryMedications]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GovernanceConfig {
    model_limit: ModelCallLimit,
    tool_limits: Vec<ToolCallLimit>,
    same_call_limit: u32,
    tools: Vec<ToolId>,
    text_limit: Option<usize>,
}

impl GovernanceConfig {
    /// The default governance of a turn that offers `tools`.
    #[must_use]
    pub fn new(tools: Vec<ToolId>) -> Self {
        Self {
            model_limit: ModelCallLimit::DEFAULT,
            tool_limits: vec![ToolCallLimit::DEFAULT],
            same_call_limit: 2,
            tools,
            text_limit: None,
        }
    }

    /// Sets the model budget.
    ///
    /// ```
    /// use answers_governance::{GovernanceConfig, ModelCallLimit, ModelExitBehavior};
    ///
    /// let budget = ModelCallLimit::new(None, Some(3), ModelExitBehavior::End)?;
    /// let config = GovernanceConfig::new(Vec::new()).with_model_limit(budget);
    /// assert_eq!(config.model_limit().run_limit(), Some(3));
    /// # Ok::<(), answers_governance::LimitConfigError>(())
    /// ```
    #[must_use]
    pub fn with_model_limit(mut self, model_limit: ModelCallLimit) -> Self {
        self.model_limit = model_limit;
        self
    }

    /// Adds a tool cap; a call is checked against every cap that applies to its tool.
    #[must_use]
    pub fn with_tool_limit(mut self, limit: ToolCallLimit) -> Self {
        self.tool_limits.push(limit);
        self
    }

    /// Drops every tool cap.
    #[must_use]
    pub fn without_tool_limits(mut self) -> Self {
        self.tool_limits.clear();
        self
    }

    /// How many times one `(tool, normalised arguments)` may run in a turn (at least 1).
    ///
    /// ```
    /// use answers_governance::{GovernanceConfig, LimitConfigError};
    ///
    /// assert_eq!(
    ///     GovernanceConfig::new(Vec::new()).with_same_call_limit(0).unwrap_err(),
    ///     LimitConfigError::SameCallLimitZero
    /// );
    /// ```
    pub fn with_same_call_limit(mut self, limit: u32) -> Result<Self, LimitConfigError> {
        if limit == 0 {
            return Err(LimitConfigError::SameCallLimitZero);
        }
        self.same_call_limit = limit;
        Ok(self)
    }

    /// The tools the turn offers.
    #[must_use]
    pub fn with_tools(mut self, tools: Vec<ToolId>) -> Self {
        self.tools = tools;
        self
    }

    /// Keeps at most `chars` characters of each tool message's text, as a harness that
    /// truncates or evicts tool output would. Governance does not read the text.
    #[must_use]
    pub fn with_text_limit(mut self, chars: usize) -> Self {
        self.text_limit = Some(chars);
        self
    }

    /// The model budget.
    #[must_use]
    pub fn model_limit(&self) -> ModelCallLimit {
        self.model_limit
    }

    /// The tool caps.
    #[must_use]
    pub fn tool_limits(&self) -> &[ToolCallLimit] {
        &self.tool_limits
    }

    /// How many times one call may run in a turn.
    #[must_use]
    pub fn same_call_limit(&self) -> u32 {
        self.same_call_limit
    }

    /// The tools offered at the start of a turn.
    #[must_use]
    pub fn tools(&self) -> &[ToolId] {
        &self.tools
    }

    /// The text kept per tool message, if cut.
    #[must_use]
    pub fn text_limit(&self) -> Option<usize> {
        self.text_limit
    }
}
