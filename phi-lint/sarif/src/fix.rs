//! SARIF `fix` objects: a result's proposed edits, as regions to replace in files.

use serde::{Deserialize, Serialize};

use crate::{ArtifactLocation, Message, Region};

/// A proposed fix: one or more changes, each to one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Fix {
    /// What the fix does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<Message>,
    /// The changes; at least one.
    pub artifact_changes: Vec<ArtifactChange>,
}

/// The replacements in one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ArtifactChange {
    /// The file.
    pub artifact_location: ArtifactLocation,
    /// The replacements, in file order, none overlapping; at least one.
    pub replacements: Vec<Replacement>,
}

/// One region replaced by new text. An empty region (end at its start) is an insertion.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Replacement {
    /// The region deleted.
    pub deleted_region: Region,
    /// The text inserted in its place; nothing when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inserted_content: Option<ArtifactContent>,
}

/// Text content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArtifactContent {
    /// The text.
    pub text: String,
}
