//! The leak drill (cargo feature `leak-drill`, off by default): ONE deliberate leak, so the
//! pipeline's tests can show that the end-to-end check fails when a reading's comment reaches
//! the log.
//!
//! With the feature, every readings request over HTTP logs the newest comment of the caller's
//! record in the log line's message, which the log filter passes (it judges field names; a
//! message is the program's own text). A build with this feature must never be released:
//! `phi-ci release` refuses to build a release image with it unless it is told it is the drill
//! (`--leak-drill`), and the workspace lint stays clean only through the inline suppression
//! below, which names this file as the drill.

use crate::store::{Store, Subject};

/// The most comments one request leaks.
const LEAK_CAP: i64 = 20;

/// Logs the comments in `subject`'s record (at most [`LEAK_CAP`]), one line each, so whichever
/// canary a run planted reaches the log. Errors are ignored: the drill must not change what the
/// service answers.
///
/// ```
/// use answers::demo::{self, PHI_CANARY, SeedOptions};
/// use answers::store::Store;
///
/// let mut store = Store::open_in_memory()?;
/// demo::seed(&mut store, &SeedOptions::default())?;
/// let you = store.subject_by_handle("you")?.unwrap();
/// answers::leak_drill::leak_comments(&store, &you); // logs PHI_CANARY, by design
/// assert!(store.comment_contains(PHI_CANARY)?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn leak_comments(store: &Store, subject: &Subject) {
    for comment in comments(store, subject).unwrap_or_default() {
        // phi-lint: allow(phi::interpolation, reason = "the leak drill: a deliberate leak of a demo comment, compiled only with the leak-drill feature so the canary check can be shown to fail")
        tracing::warn!("leak drill: {comment}");
    }
}

fn comments(store: &Store, subject: &Subject) -> rusqlite::Result<Vec<String>> {
    let mut stmt = store.conn().prepare(
        "SELECT comment FROM series WHERE subject_id = ?1 AND comment IS NOT NULL \
         ORDER BY id LIMIT ?2",
    )?;
    let rows = stmt.query_map(rusqlite::params![subject.id, LEAK_CAP], |r| r.get(0))?;
    rows.collect()
}
