//! An identifier's text without a heap allocation. proc-macro2's `Ident` has no `as_str`, and
//! `to_string()` allocates (and frees) a `String` for every name the lint compares or looks up,
//! tens of thousands of times per file.

use std::fmt::Write as _;

use proc_macro2::Ident;

/// Identifiers up to this many bytes are written on the stack; longer ones spill to a `String`.
const INLINE: usize = 64;

/// Calls `f` with `id`'s text, exactly what `id.to_string()` would give (`r#` included).
pub(crate) fn with_str<R>(id: &Ident, f: impl FnOnce(&str) -> R) -> R {
    let mut buf = Buf {
        bytes: [0; INLINE],
        len: 0,
        spill: None,
    };
    write!(buf, "{id}").expect("writing to memory cannot fail");
    match &buf.spill {
        Some(s) => f(s),
        None => f(std::str::from_utf8(&buf.bytes[..buf.len]).expect("written from a `str`")),
    }
}

struct Buf {
    bytes: [u8; INLINE],
    len: usize,
    spill: Option<String>,
}

impl std::fmt::Write for Buf {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        if let Some(spill) = &mut self.spill {
            spill.push_str(s);
        } else if self.len + s.len() <= INLINE {
            self.bytes[self.len..self.len + s.len()].copy_from_slice(s.as_bytes());
            self.len += s.len();
        } else {
            let mut spill = String::with_capacity(self.len + s.len());
            spill.push_str(
                std::str::from_utf8(&self.bytes[..self.len]).map_err(|_| std::fmt::Error)?,
            );
            spill.push_str(s);
            self.spill = Some(spill);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gives_what_to_string_gives() {
        let long = "a".repeat(INLINE + 5);
        let ids = [
            Ident::new("user_id", proc_macro2::Span::call_site()),
            Ident::new_raw("type", proc_macro2::Span::call_site()),
            Ident::new(&long, proc_macro2::Span::call_site()),
            Ident::new(&"b".repeat(INLINE), proc_macro2::Span::call_site()),
        ];
        for id in &ids {
            assert_eq!(with_str(id, str::to_owned), id.to_string());
        }
        assert_eq!(with_str(&ids[1], str::to_owned), "r#type");
        assert_eq!(with_str(&ids[2], str::len), INLINE + 5);
    }
}
