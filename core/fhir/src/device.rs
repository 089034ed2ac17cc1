//! An Observation's `device` to the closed source set: its display name's whole words against
//! one table of device terms. A device the table does not name, or names twice over (a "watch
//! and ring" hub), is unknown: counted, and its readings left out, never guessed.

use answers_protocol::Source;
use answers_vocab::fold;

/// Each device term, as its words, and the source it names. One table: a term is added here,
/// and nowhere else.
const TERMS: &[(&[&str], Source)] = &[
    (&["watch"], Source::Watch),
    (&["smartwatch"], Source::Watch),
    (&["fitness", "tracker"], Source::Watch),
    (&["ring"], Source::Ring),
    (&["smart", "ring"], Source::Ring),
    (&["phone"], Source::Phone),
    (&["smartphone"], Source::Phone),
    (&["iphone"], Source::Phone),
    (&["scale"], Source::Scale),
    (&["bathroom", "scale"], Source::Scale),
    (&["cuff"], Source::Cuff),
    (&["sphygmomanometer"], Source::Cuff),
    (&["blood", "pressure", "monitor"], Source::Cuff),
    (&["bp", "monitor"], Source::Cuff),
    (&["cgm"], Source::Cgm),
    (&["continuous", "glucose", "monitor"], Source::Cgm),
    (&["glucometer"], Source::Glucometer),
    (&["glucose", "meter"], Source::Glucometer),
    (&["blood", "glucose", "meter"], Source::Glucometer),
    (&["oximeter"], Source::PulseOximeter),
    (&["pulse", "oximeter"], Source::PulseOximeter),
    (&["thermometer"], Source::Thermometer),
];

/// The source a device's display name names, when exactly one source's terms appear in it as
/// whole words (`"Upper-arm BP cuff"` → cuff; `"monitoring hub"` names no ring).
pub(crate) fn source_of_display(display: &str) -> Option<Source> {
    let folded = fold(display);
    let words: Vec<&str> = folded
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let mut found: Option<Source> = None;
    for (term, source) in TERMS {
        if words.windows(term.len()).any(|w| w == *term) {
            match found {
                None => found = Some(*source),
                Some(f) if f == *source => {}
                // Two kinds of device in one name: which measured it is a guess.
                Some(_) => return None,
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_words_of_one_kind_name_a_source() {
        assert_eq!(source_of_display("Synthetic Watch S2"), Some(Source::Watch));
        assert_eq!(
            source_of_display("home glucose meter"),
            Some(Source::Glucometer)
        );
        assert_eq!(source_of_display("Upper-arm BP cuff"), Some(Source::Cuff));
        assert_eq!(
            source_of_display("Finger PULSE-OXIMETER"),
            Some(Source::PulseOximeter)
        );
        assert_eq!(source_of_display("Oura smart ring"), Some(Source::Ring));
    }

    #[test]
    fn a_word_inside_another_a_second_kind_or_no_term_is_unknown() {
        // "ring" inside "monitoring", "scale" inside "scaled": no device named.
        assert_eq!(source_of_display("home monitoring hub"), None);
        assert_eq!(source_of_display("scaled sensor"), None);
        assert_eq!(source_of_display("watch and ring bridge"), None);
        assert_eq!(source_of_display("gadget"), None);
        assert_eq!(source_of_display(""), None);
    }
}
