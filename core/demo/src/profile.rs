//! The two demo accounts and the figures their series are drawn around (`notes/demo.md`).

/// A linear drift from the first to the last reading of a year.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Drift {
    pub(crate) first: f64,
    pub(crate) last: f64,
}

impl Drift {
    /// The value at position `i` of `n` points.
    pub(crate) fn at(self, i: usize, n: usize) -> f64 {
        if n < 2 {
            return self.first;
        }
        #[allow(clippy::cast_precision_loss)] // a year of points is far below 2^52
        let t = i as f64 / (n - 1) as f64;
        self.first + (self.last - self.first) * t
    }
}

/// One account of the care circle.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Profile {
    /// The opaque subject id.
    pub(crate) id: &'static str,
    /// The handle the person signs in as.
    pub(crate) handle: &'static str,
    /// The IANA zone local days are decided in.
    pub(crate) tz: &'static str,
    /// Weight, kg, weekly on Mondays, ±0.35.
    pub(crate) weight: Drift,
    /// Resting heart rate, /min, daily, ±2.
    pub(crate) resting_hr: Drift,
    /// Steps: (median, spread) of a weekday; ×0.75 at weekends; at least 500.
    pub(crate) steps: (f64, f64),
    /// Sleep, hours, daily at 07:00, ±0.8; `None` for an account that does not track sleep.
    pub(crate) sleep: Option<Drift>,
    /// Home blood pressure: systolic ±5, diastolic ±4, every `k` days.
    pub(crate) bp: (f64, f64, usize),
    /// The lab panel: `HbA1c` %, fasting glucose mmol/L, total cholesterol mmol/L.
    pub(crate) lab: (f64, f64, f64),
}

/// `you`, in Berlin.
pub(crate) const YOU: Profile = Profile {
    id: "subj-you-5f3c2a81",
    handle: "you",
    tz: "Europe/Berlin",
    weight: Drift {
        first: 70.4,
        last: 69.4,
    },
    resting_hr: Drift {
        first: 59.0,
        last: 56.0,
    },
    steps: (9800.0, 2400.0),
    sleep: None,
    bp: (114.0, 74.0, 28),
    lab: (5.3, 5.1, 4.60),
};

/// `mom`, in Shanghai: she shares her record with `you`, view-only.
pub(crate) const MOM: Profile = Profile {
    id: "subj-mom-9b7e4d10",
    handle: "mom",
    tz: "Asia/Shanghai",
    weight: Drift {
        first: 82.6,
        last: 84.6,
    },
    resting_hr: Drift {
        first: 71.0,
        last: 75.0,
    },
    steps: (4600.0, 1500.0),
    sleep: Some(Drift {
        first: 6.1,
        last: 5.4,
    }),
    bp: (132.0, 86.0, 14),
    lab: (5.8, 5.6, 5.30),
};

/// Both accounts, in the order they are seeded.
pub(crate) const ACCOUNTS: [Profile; 2] = [YOU, MOM];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_drift_runs_from_first_to_last() {
        let d = Drift {
            first: 6.1,
            last: 5.4,
        };
        assert!((d.at(0, 365) - 6.1).abs() < 1e-12);
        assert!((d.at(364, 365) - 5.4).abs() < 1e-12);
        assert!((d.at(182, 365) - 5.75).abs() < 1e-12);
        assert!((d.at(0, 1) - 6.1).abs() < 1e-12);
    }

    #[test]
    fn the_accounts_differ_in_zone_and_in_sleep() {
        assert_ne!(YOU.tz, MOM.tz);
        assert!(YOU.sleep.is_none() && MOM.sleep.is_some());
        assert_ne!(YOU.id, MOM.id);
    }
}
