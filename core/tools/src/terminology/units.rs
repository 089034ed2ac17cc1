//! Units through UCUM (the `ucum-units` crate): a unit as printed to its UCUM code, and a value
//! from one unit to another, across mass and molar units through an analyte's molar mass.

use crate::vocab::Vocabulary;

/// How a unit as printed reached its UCUM code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Via {
    /// A spelling in the bundled table (`core/data/ucum_units.csv`), checked against UCUM.
    Alias,
    /// Already a valid UCUM expression (case-sensitive form).
    Ucum,
}

impl Via {
    /// The name shown in an answer.
    ///
    /// ```
    /// assert_eq!(answers_tools::terminology::units::Via::Alias.as_str(), "alias");
    /// ```
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Via::Alias => "alias",
            Via::Ucum => "ucum",
        }
    }
}

/// A unit in its UCUM form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unit {
    /// The UCUM code (case-sensitive form), e.g. `mg/dL`.
    pub ucum: String,
    /// How it was reached.
    pub via: Via,
}

/// The UCUM form of `unit` as printed: a bundled spelling first (`mg/dl` → `mg/dL`, `bpm` →
/// `/min`, `°C` → `Cel`), then any valid UCUM expression as it is; `None` when neither.
///
/// ```
/// use answers_tools::terminology::units::{Via, normalize};
/// use answers_vocab::Vocabulary;
///
/// let v = Vocabulary::bundled();
/// assert_eq!(normalize(v, "mmHg").unwrap().ucum, "mm[Hg]");
/// assert_eq!(normalize(v, "ng/mL").unwrap().via, Via::Ucum);
/// assert!(normalize(v, "furlongs per fortnight").is_none());
/// ```
#[must_use]
pub fn normalize(vocab: &Vocabulary, unit: &str) -> Option<Unit> {
    let unit = unit.trim();
    if unit.is_empty() {
        return None;
    }
    if let Some(code) = vocab.normalize_unit(unit)
        && ucum::validate(code).is_ok()
    {
        return Some(Unit {
            ucum: code.to_owned(),
            via: Via::Alias,
        });
    }
    ucum::validate(unit).is_ok().then(|| Unit {
        ucum: unit.to_owned(),
        via: Via::Ucum,
    })
}

/// A human-readable name of a UCUM code, e.g. `(milligram) / (deciliter)`.
#[must_use]
pub fn display(ucum: &str) -> Option<String> {
    ucum::display_name(ucum).ok()
}

/// Whether a UCUM code counts amount of substance (`mol`, `mmol/L`, `mmol/mol`). UCUM defines
/// the mole as a dimensionless count, so `mmol/L` and `10*9/L` have one dimension; this tells
/// them apart.
fn counts_substance(ucum: &str) -> bool {
    ucum.contains("mol")
}

/// The mass and substance units a mass↔molar conversion passes through.
const BRIDGES: [(&str, &str); 2] = [("g/L", "mol/L"), ("g", "mol")];

/// How one unit converts to another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// Same kind of quantity: UCUM alone converts.
    Direct,
    /// From a mass (concentration) to a substance (concentration): needs a molar mass.
    MassToMolar {
        /// The mass unit passed through (`g/L` or `g`).
        mass: &'static str,
        /// The substance unit passed through (`mol/L` or `mol`).
        molar: &'static str,
    },
    /// From a substance (concentration) to a mass (concentration): needs a molar mass.
    MolarToMass {
        /// The mass unit passed through.
        mass: &'static str,
        /// The substance unit passed through.
        molar: &'static str,
    },
}

impl Route {
    /// Whether the route needs the analyte's molar mass.
    #[must_use]
    pub const fn needs_molar_mass(self) -> bool {
        !matches!(self, Route::Direct)
    }
}

fn comparable(a: &str, b: &str) -> bool {
    ucum::is_comparable(a, b).unwrap_or(false)
}

/// The route from `from` to `to` (UCUM codes), or `None` when they measure different kinds of
/// quantity (`mg/dL` to `kg`; `mmol/mol` to `%`, which for `HbA1c` is not a linear scale).
///
/// ```
/// use answers_tools::terminology::units::{Route, route};
///
/// assert_eq!(route("[degF]", "Cel"), Some(Route::Direct));
/// assert!(route("mg/dL", "mmol/L").unwrap().needs_molar_mass());
/// assert_eq!(route("mmol/mol", "%"), None);
/// assert_eq!(route("mg/dL", "kg"), None);
/// ```
#[must_use]
pub fn route(from: &str, to: &str) -> Option<Route> {
    let (sf, st) = (counts_substance(from), counts_substance(to));
    if sf == st {
        return comparable(from, to).then_some(Route::Direct);
    }
    BRIDGES.iter().find_map(|&(mass, molar)| {
        if !sf && comparable(from, mass) && comparable(to, molar) {
            Some(Route::MassToMolar { mass, molar })
        } else if sf && comparable(from, molar) && comparable(to, mass) {
            Some(Route::MolarToMass { mass, molar })
        } else {
            None
        }
    })
}

/// Why a value did not convert along a route.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ConvertError {
    /// UCUM refused: a special unit (arbitrary, logarithmic) or not commensurable.
    #[error("ucum cannot convert between these units")]
    Ucum,
    /// A mass↔molar route without a molar mass.
    #[error("a mass to molar conversion needs a molar mass")]
    NoMolarMass,
    /// The result is not a finite number.
    #[error("the result is not finite")]
    NotFinite,
}

/// `value` from `from` to `to` along `route`, with `molar_mass` in g/mol where the route needs
/// one.
///
/// ```
/// use answers_tools::terminology::units::{convert, route};
///
/// let r = route("mg/dL", "mmol/L").unwrap();
/// let mmol = convert(100.0, "mg/dL", "mmol/L", r, Some(180.156)).unwrap();
/// assert!((mmol - 5.5507).abs() < 1e-4);
/// ```
pub fn convert(
    value: f64,
    from: &str,
    to: &str,
    route: Route,
    molar_mass: Option<f64>,
) -> Result<f64, ConvertError> {
    let ucum = |v: f64, a: &str, b: &str| ucum::convert(v, a, b).map_err(|_| ConvertError::Ucum);
    let mass = || {
        molar_mass
            .filter(|m| m.is_finite() && *m > 0.0)
            .ok_or(ConvertError::NoMolarMass)
    };
    let out = match route {
        Route::Direct => ucum(value, from, to)?,
        Route::MassToMolar { mass: g, molar } => {
            let grams = ucum(value, from, g)?;
            ucum(grams / mass()?, molar, to)?
        }
        Route::MolarToMass { mass: g, molar } => {
            let moles = ucum(value, from, molar)?;
            ucum(moles * mass()?, g, to)?
        }
    };
    if out.is_finite() {
        Ok(out)
    } else {
        Err(ConvertError::NotFinite)
    }
}

/// The significant digits a converted value is presented with.
pub const SIGNIFICANT_DIGITS: usize = 4;

/// `x` rounded to [`SIGNIFICANT_DIGITS`] significant digits.
///
/// ```
/// use answers_tools::terminology::units::round_significant;
///
/// assert_eq!(round_significant(5.550744), 5.551);
/// assert_eq!(round_significant(0.9999999999999999), 1.0);
/// assert_eq!(round_significant(15.99864), 16.0);
/// assert_eq!(round_significant(0.0), 0.0);
/// ```
#[must_use]
pub fn round_significant(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    format!("{x:.prec$e}", prec = SIGNIFICANT_DIGITS - 1)
        .parse()
        .unwrap_or(x)
}
