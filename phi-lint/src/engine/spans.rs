//! When a lint worker may let proc-macro2 forget the texts its thread has parsed.
//!
//! With span locations on, proc-macro2 keeps a copy of every text a thread parses, and a table
//! of its line starts, until the thread ends or forgets them all at once
//! (`invalidate_current_thread_spans`). A span read after that panics or, once the thread has
//! parsed another text, silently reads that text's lines: a wrong position, not an error, which
//! is why every tree still to be read must be held (below). A file cut into chunks is
//! parsed one chunk at a time, twice (at its read and at its lint), and a run of a long function
//! body is parsed with the lines before it as padding, so that its positions are the file's: a
//! 5 MB function of 100,000 lines kept about 38 MB of such copies and tables until the file was
//! done. A worker forgets them after each chunk instead, unless it holds a tree, or a piece of
//! one, whose spans it will still read: a file's tree kept for the second lint, or closures
//! carried from one run of a body to the next. Those are counted by [`Hold`].
//!
//! Forgetting also keeps the record's 32-bit offsets from wrapping, which they would once one
//! thread had parsed 4 GiB.
//!
//! Only a thread that [`own`]s its record forgets it: [`lint_source`](crate::lint_source) runs
//! on its caller's thread, which may hold trees of its own.

use std::cell::Cell;

thread_local! {
    /// `None` if this thread's record is not the lint's to forget, else how many trees (or
    /// pieces of one) it holds whose spans it will read again.
    static HELD: Cell<Option<usize>> = const { Cell::new(None) };
}

/// Makes this thread's record of parsed texts the lint's to forget: for a lint worker, which
/// holds no tree yet.
pub(super) fn own() {
    HELD.set(Some(0));
}

/// Forgets every text this thread has parsed, if the thread is a lint worker's holding no tree.
/// Returns whether it did.
pub(super) fn forget() -> bool {
    if HELD.get() == Some(0) {
        proc_macro2::extra::invalidate_current_thread_spans();
        true
    } else {
        false
    }
}

/// A tree, or part of one, whose spans will be read again: while it lives, [`forget`] does
/// nothing on this thread.
#[derive(Debug)]
pub(super) struct Hold(());

impl Hold {
    pub(super) fn new() -> Hold {
        HELD.set(HELD.get().map(|n| n + 1));
        Hold(())
    }
}

impl Drop for Hold {
    fn drop(&mut self) {
        HELD.set(HELD.get().map(|n| n.saturating_sub(1)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_owned_thread_holding_nothing_forgets() {
        std::thread::spawn(|| {
            let tree: syn::Expr = syn::parse_str("a + b").unwrap();
            // Not owned: a caller's trees keep their spans.
            assert!(!forget());
            assert_eq!(syn::spanned::Spanned::span(&tree).start().column, 0);
            own();
            let hold = Hold::new();
            assert!(!forget());
            assert_eq!(syn::spanned::Spanned::span(&tree).end().column, 5);
            drop(hold);
            assert!(forget());
        })
        .join()
        .unwrap();
    }
}
