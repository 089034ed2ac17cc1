//! One series, one unit: a reading recorded in another unit of the same analyte is converted
//! to the unit of its code when answered, so the unit column always matches the code's
//! property.
//!
//! The unit of a code is its canonical unit (`core/data/loinc_units.csv`). A stored unit that
//! UCUM converts to it (`[degF]` to `Cel`) is converted directly; a mass unit to a molar one or
//! back (`mg/dL` into `14647-2`, Cholesterol [Moles/volume]) through the analyte's molar mass
//! (`core/data/molar_mass.csv`), never without it. A unit that does not convert (unknown, or
//! of another kind of quantity, or with no molar mass bundled) is answered as recorded, as its
//! own series: values in different units are never mixed. This is what makes the demo's lab
//! panel, printed in mg/dL, one series with a later panel printed in mmol/L (as the original's
//! demo intends).

use crate::terminology::units::{convert, normalize, route};
use crate::vocab::{CodeRef, CodeSystem, Vocabulary};

/// How the values of one stored unit are answered: in `unit`, as `value × scale + offset`.
#[derive(Debug, Clone, PartialEq)]
struct Answered {
    stored: Option<String>,
    unit: Option<String>,
    scale: f64,
    offset: f64,
}

/// The conversions of one code's stored units, decided once per unit.
#[derive(Debug)]
pub(crate) struct Units {
    code: CodeRef,
    canonical: Option<&'static str>,
    seen: Vec<Answered>,
    converted: bool,
}

impl Units {
    /// The conversions of `code`'s units.
    pub(crate) fn of(code: &CodeRef) -> Self {
        let canonical = match code.system {
            CodeSystem::Loinc => Vocabulary::bundled().canonical_unit(code),
            CodeSystem::Icpc => None,
        };
        Self {
            code: code.clone(),
            canonical,
            seen: Vec::new(),
            converted: false,
        }
    }

    /// The unit a value stored in `unit` is answered in, and the value `num` in it.
    pub(crate) fn convert<'a>(
        &'a mut self,
        unit: Option<&'a str>,
        num: Option<f64>,
    ) -> (Option<&'a str>, Option<f64>) {
        let Some(canonical) = self.canonical else {
            return (unit, num);
        };
        if unit.is_none_or(|u| u == canonical) {
            return (unit, num);
        }
        let i = match self.seen.iter().position(|a| a.stored.as_deref() == unit) {
            Some(i) => i,
            None => {
                let answered = decide(&self.code, unit, canonical);
                self.seen.push(answered);
                self.seen.len() - 1
            }
        };
        if self.seen[i].unit.as_deref() != unit {
            self.converted = true;
        }
        let a = &self.seen[i];
        (a.unit.as_deref(), num.map(|x| x * a.scale + a.offset))
    }

    /// The unit values stored in `unit` are answered in.
    pub(crate) fn unit_of(&mut self, unit: Option<&str>) -> Option<String> {
        self.convert(unit, None).0.map(str::to_owned)
    }

    /// Whether some value was converted.
    pub(crate) fn converted(&self) -> bool {
        self.converted
    }
}

/// How values of `code` stored in `unit` are answered in `canonical`: converted where UCUM
/// and the bundled molar masses allow, else as stored.
fn decide(code: &CodeRef, unit: Option<&str>, canonical: &str) -> Answered {
    let keep = Answered {
        stored: unit.map(str::to_owned),
        unit: unit.map(str::to_owned),
        scale: 1.0,
        offset: 0.0,
    };
    let vocab = Vocabulary::bundled();
    let Some(from) = unit.and_then(|u| normalize(vocab, u)) else {
        return keep;
    };
    let Some(way) = route(&from.ucum, canonical) else {
        return keep;
    };
    let molar_mass = if way.needs_molar_mass() {
        match vocab.molar_mass(&code.code) {
            Some(m) => Some(m),
            None => return keep,
        }
    } else {
        None
    };
    // Every UCUM conversion between units that are not special is affine (`[degF]` to `Cel`
    // has an offset), so two points fix it.
    let at = |x: f64| convert(x, &from.ucum, canonical, way, molar_mass);
    let (Ok(zero), Ok(one)) = (at(0.0), at(1.0)) else {
        return keep;
    };
    Answered {
        stored: unit.map(str::to_owned),
        unit: Some(canonical.to_owned()),
        scale: one - zero,
        offset: zero,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mass_reading_of_a_molar_code_is_converted_through_the_molar_mass() {
        let mut u = Units::of(&CodeRef::loinc("14647-2"));
        let (unit, value) = u.convert(Some("mg/dL"), Some(204.9));
        assert_eq!(unit, Some("mmol/L"));
        // 204.9 mg/dL × 10 ÷ 386.664 g/mol
        assert!((value.unwrap() - 5.2992).abs() < 1e-4, "{value:?}");
        assert!(u.converted());
    }

    #[test]
    fn the_code_s_own_unit_and_an_unconvertible_one_are_kept() {
        let mut u = Units::of(&CodeRef::loinc("14647-2"));
        assert_eq!(
            u.convert(Some("mmol/L"), Some(5.3)),
            (Some("mmol/L"), Some(5.3))
        );
        assert_eq!(u.convert(Some("kg"), Some(5.3)), (Some("kg"), Some(5.3)));
        assert!(!u.converted());
        let mut f = Units::of(&CodeRef::loinc("8310-5"));
        let (unit, value) = f.convert(Some("[degF]"), Some(98.6));
        assert_eq!(unit, Some("Cel"));
        assert!((value.unwrap() - 37.0).abs() < 1e-9);
        let mut icpc = Units::of(&CodeRef::icpc("N01"));
        assert_eq!(icpc.convert(None, None), (None, None));
    }
}
