//! Wire spellings: `rename_all` conventions applied to a variant's identifier.

/// A `rename_all` convention.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Case {
    Snake,
    Kebab,
    Lower,
    Upper,
    ScreamingSnake,
    Camel,
    Pascal,
}

impl Case {
    pub(crate) fn from_name(name: &str) -> Option<Case> {
        Some(match name {
            "snake_case" => Case::Snake,
            "kebab-case" => Case::Kebab,
            "lowercase" => Case::Lower,
            "UPPERCASE" => Case::Upper,
            "SCREAMING_SNAKE_CASE" => Case::ScreamingSnake,
            "camelCase" => Case::Camel,
            "PascalCase" => Case::Pascal,
            _ => return None,
        })
    }

    pub(crate) const NAMES: &'static str =
        "snake_case, kebab-case, lowercase, UPPERCASE, SCREAMING_SNAKE_CASE, camelCase, PascalCase";

    /// Applies the convention to a `PascalCase` variant identifier.
    pub(crate) fn apply(self, ident: &str) -> String {
        let words = words(ident);
        match self {
            Case::Snake => words.join("_"),
            Case::Kebab => words.join("-"),
            Case::Lower => words.concat(),
            Case::Upper => words.concat().to_uppercase(),
            Case::ScreamingSnake => words.join("_").to_uppercase(),
            Case::Camel => {
                let mut out = String::new();
                for (i, w) in words.iter().enumerate() {
                    if i == 0 {
                        out.push_str(w);
                    } else {
                        out.push_str(&capitalise(w));
                    }
                }
                out
            }
            Case::Pascal => words.iter().map(|w| capitalise(w)).collect(),
        }
    }
}

/// The lower-case words of a `PascalCase` identifier (`HbA1c` is one word boundary per capital
/// after a lower-case letter or digit: `hb_a1c`).
fn words(ident: &str) -> Vec<String> {
    let ident = ident.trim_start_matches("r#");
    let mut out: Vec<String> = Vec::new();
    let chars: Vec<char> = ident.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let boundary = i > 0
            && c.is_uppercase()
            && (chars[i - 1].is_lowercase()
                || chars[i - 1].is_ascii_digit()
                || chars.get(i + 1).is_some_and(|n| n.is_lowercase())
                    && chars[i - 1].is_uppercase());
        if c == '_' {
            out.push(String::new());
            continue;
        }
        if boundary || out.is_empty() {
            out.push(String::new());
        }
        if let Some(last) = out.last_mut() {
            last.extend(c.to_lowercase());
        }
    }
    out.retain(|w| !w.is_empty());
    out
}

fn capitalise(w: &str) -> String {
    let mut c = w.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::Case;

    #[test]
    fn conventions() {
        assert_eq!(Case::Snake.apply("DatePaddedNaive"), "date_padded_naive");
        assert_eq!(Case::Snake.apply("TzExact"), "tz_exact");
        assert_eq!(Case::Kebab.apply("InvalidArguments"), "invalid-arguments");
        assert_eq!(Case::Lower.apply("GRCh38"), "grch38");
        assert_eq!(Case::ScreamingSnake.apply("NotFound"), "NOT_FOUND");
        assert_eq!(Case::Camel.apply("NotFound"), "notFound");
        assert_eq!(Case::Pascal.apply("not_found"), "NotFound");
        assert_eq!(Case::Snake.apply("HTTPStatus"), "http_status");
        assert_eq!(Case::Snake.apply("Raw"), "raw");
    }
}
