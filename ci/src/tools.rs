//! The tools phi-ci drives, read from the binary under test (`answers tools --json`, the tool
//! registry's own listing) instead of copied: a tool added to the registry is listed, called
//! and checked without an edit here, except for the arguments it is called with
//! ([`crate::mcp`] fails the run for a tool it has no calls for).
//!
//! The listing is `{"tools":[{"name":…,"surfaces":[…],"visible_when":…}, …]}` in the order the
//! server lists them; a surface is one of `record_mcp`, `vocab_mcp`, `chat`, `rest`, and
//! `visible_when` names what an account must hold to be shown the tool (absent, `null` or
//! `always`: shown to everyone).

use std::path::Path;
use std::process::Command;

use anyhow::{Context, bail};
use serde_json::Value;

/// Where a tool is offered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Surface {
    /// `/mcp` on `answers serve`, per account.
    RecordMcp,
    /// `answers mcp`, the vocabulary server on stdio.
    VocabMcp,
    /// The chat turn.
    Chat,
    /// A REST route.
    Rest,
}

impl Surface {
    fn parse(text: &str) -> Option<Surface> {
        Some(match text {
            "record_mcp" => Surface::RecordMcp,
            "vocab_mcp" => Surface::VocabMcp,
            "chat" => Surface::Chat,
            "rest" => Surface::Rest,
            _ => return None,
        })
    }
}

/// One tool of the registry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Tool {
    pub(crate) name: String,
    pub(crate) surfaces: Vec<Surface>,
    /// What an account must hold to be shown it; `None`: everyone.
    pub(crate) visible_when: Option<String>,
}

/// What a demo account holds, for the tools' `visible_when`.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Holds {
    /// Every kind of data (`mom` in the demo record).
    Everything,
    /// Only these (`you`: readings).
    Only(&'static [&'static str]),
}

impl Holds {
    /// What the demo account `handle` holds.
    pub(crate) fn demo(handle: &str) -> Holds {
        match handle {
            "you" => Holds::Only(&["has_readings"]),
            _ => Holds::Everything,
        }
    }

    fn meets(self, condition: Option<&str>) -> bool {
        match (self, condition) {
            (_, None) | (Holds::Everything, _) => true,
            (Holds::Only(held), Some(c)) => held.contains(&c),
        }
    }
}

/// The registry's listing, in its order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Tools(pub(crate) Vec<Tool>);

impl Tools {
    /// Parses `answers tools --json`. An unknown surface is an error: phi-ci would not know
    /// whether to drive it.
    pub(crate) fn parse(json: &[u8]) -> anyhow::Result<Tools> {
        let doc: Value =
            serde_json::from_slice(json).context("`answers tools --json` is not JSON")?;
        let Some(list) = doc.get("tools").and_then(Value::as_array) else {
            bail!("`answers tools --json` has no `tools` array");
        };
        let mut tools = Vec::with_capacity(list.len());
        for (i, entry) in list.iter().enumerate() {
            let Some(name) = entry.get("name").and_then(Value::as_str) else {
                bail!("tool #{} has no name", i + 1);
            };
            let Some(surfaces) = entry.get("surfaces").and_then(Value::as_array) else {
                bail!("tool `{name}` has no `surfaces` array");
            };
            let surfaces = surfaces
                .iter()
                .map(|s| {
                    s.as_str()
                        .and_then(Surface::parse)
                        .with_context(|| format!("tool `{name}` has an unknown surface {s}"))
                })
                .collect::<anyhow::Result<Vec<_>>>()?;
            let visible_when = match entry.get("visible_when") {
                None | Some(Value::Null) => None,
                Some(Value::String(s)) if s == "always" => None,
                Some(Value::String(s)) => Some(s.clone()),
                Some(other) => bail!("tool `{name}` has a `visible_when` of {other}"),
            };
            tools.push(Tool {
                name: name.to_owned(),
                surfaces,
                visible_when,
            });
        }
        if tools.is_empty() {
            bail!("`answers tools --json` lists no tool");
        }
        Ok(Tools(tools))
    }

    /// Runs `answers tools --json` and parses it.
    pub(crate) fn of_binary(answers: &Path) -> anyhow::Result<Tools> {
        let out = Command::new(answers)
            .args(["tools", "--json"])
            .env_remove("RUST_LOG")
            .output()
            .with_context(|| format!("cannot run {} tools --json", answers.display()))?;
        if !out.status.success() {
            bail!("answers tools --json failed ({})", out.status);
        }
        Tools::parse(&out.stdout)
    }

    /// What `answers tools --json` prints today, for the unit tests of this crate (the
    /// pipelines themselves always read the binary they run).
    #[cfg(test)]
    pub(crate) fn sample() -> Tools {
        Tools::parse(SAMPLE.as_bytes()).expect("the sample listing parses")
    }

    /// The names of the record-MCP tools an account holding `holds` must be shown, in order.
    pub(crate) fn record_mcp_shown(&self, holds: Holds) -> Vec<&str> {
        self.0
            .iter()
            .filter(|t| t.surfaces.contains(&Surface::RecordMcp))
            .filter(|t| holds.meets(t.visible_when.as_deref()))
            .map(|t| t.name.as_str())
            .collect()
    }
}

/// `answers tools --json` of this workspace's build, one line.
#[cfg(test)]
const SAMPLE: &str = r#"{"tools":[{"name":"query_health_indicators","surfaces":["record_mcp","chat","rest"],"visible_when":"has_readings"},{"name":"query_medications","surfaces":["record_mcp","chat"],"visible_when":"has_medications"},{"name":"query_genetic_data","surfaces":["record_mcp","chat"],"visible_when":"has_genotypes"},{"name":"query_pharmacogenomics","surfaces":["record_mcp","chat"],"visible_when":"has_genotypes"},{"name":"standardize_reading","surfaces":["vocab_mcp"],"visible_when":"always"},{"name":"standardize_complaint","surfaces":["vocab_mcp"],"visible_when":"always"},{"name":"resolve_indicator","surfaces":["record_mcp","vocab_mcp"],"visible_when":"always"},{"name":"convert_unit","surfaces":["record_mcp","vocab_mcp"],"visible_when":"always"},{"name":"normalize_unit","surfaces":["record_mcp","vocab_mcp"],"visible_when":"always"}]}"#;

#[cfg(test)]
mod tests {
    use super::*;

    const LISTING: &str = r#"{"tools":[
        {"name":"query_health_indicators","surfaces":["record_mcp","chat","rest"],"visible_when":"has_readings"},
        {"name":"query_medications","surfaces":["record_mcp","chat"],"visible_when":"has_medications"},
        {"name":"resolve_indicator","surfaces":["record_mcp","vocab_mcp","chat"],"visible_when":"always"},
        {"name":"lookup_code","surfaces":["vocab_mcp"]},
        {"name":"convert_unit","surfaces":["record_mcp","vocab_mcp"],"visible_when":null,"summary":"ignored"}
    ]}"#;

    #[test]
    fn parses_the_listing_in_its_order() {
        let tools = Tools::parse(LISTING.as_bytes()).unwrap();
        assert_eq!(tools.0.len(), 5);
        assert_eq!(
            tools.0[0].surfaces,
            [Surface::RecordMcp, Surface::Chat, Surface::Rest]
        );
        assert_eq!(tools.0[0].visible_when.as_deref(), Some("has_readings"));
        assert_eq!(tools.0[2].visible_when, None, "`always` is no condition");
        assert_eq!(tools.0[3].visible_when, None, "absent is no condition");
    }

    #[test]
    fn each_account_is_shown_the_record_tools_its_data_allows() {
        let tools = Tools::parse(LISTING.as_bytes()).unwrap();
        assert_eq!(
            tools.record_mcp_shown(Holds::demo("mom")),
            [
                "query_health_indicators",
                "query_medications",
                "resolve_indicator",
                "convert_unit"
            ]
        );
        assert_eq!(
            tools.record_mcp_shown(Holds::demo("you")),
            [
                "query_health_indicators",
                "resolve_indicator",
                "convert_unit"
            ]
        );
        assert_eq!(tools.record_mcp_shown(Holds::Only(&[])).len(), 2);
    }

    #[test]
    fn a_malformed_listing_is_an_error() {
        for bad in [
            "not json",
            "{}",
            r#"{"tools":[]}"#,
            r#"{"tools":[{"surfaces":["chat"]}]}"#,
            r#"{"tools":[{"name":"t"}]}"#,
            r#"{"tools":[{"name":"t","surfaces":["telepathy"]}]}"#,
            r#"{"tools":[{"name":"t","surfaces":["chat"],"visible_when":3}]}"#,
        ] {
            assert!(Tools::parse(bad.as_bytes()).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_listing_shows_you_four_tools_and_mom_seven() {
        let tools = Tools::sample();
        assert_eq!(tools.record_mcp_shown(Holds::demo("mom")).len(), 7);
        assert_eq!(
            tools.record_mcp_shown(Holds::demo("you")),
            [
                "query_health_indicators",
                "resolve_indicator",
                "convert_unit",
                "normalize_unit"
            ]
        );
    }
}
