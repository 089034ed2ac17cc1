//! The closed sets an envelope is made of: status, error class and kind, window semantics, view,
//! source and provenance. Each is a `ClosedEnum`: its wire names, parser, serde and JSON Schema
//! come from one list of spellings, and none has a catch-all.

use phi_macros::ClosedEnum;

/// Whether an answer is whole.
///
/// ```
/// use answers_protocol::Status;
///
/// assert_eq!(Status::VARIANTS, ["ok", "partial", "error"]);
/// assert!("failed".parse::<Status>().unwrap_err().contains("`failed`"));
/// ```
#[derive(ClosedEnum, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Status {
    /// The answer is complete for its window and selector.
    Ok,
    /// Rows were returned but not all of them: a cap cut the answer (`meta.truncated`).
    Partial,
    /// No answer: `error_class`, `error_kind` and the error detail say why.
    Error,
}

/// Whether repeating the call, changed as the next steps say, can succeed.
///
/// Governance refuses a call whose `(tool, normalised arguments)` already returned an
/// unrecoverable result.
///
/// ```
/// assert_eq!(answers_protocol::ErrorClass::VARIANTS, ["recoverable", "unrecoverable"]);
/// ```
#[derive(ClosedEnum, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorClass {
    /// Fixing the arguments, or trying later, can succeed.
    Recoverable,
    /// The same call will fail again.
    Unrecoverable,
}

/// What went wrong, from a closed set.
///
/// `unknown_tool` from the first sketch is not here: a call to a tool that does not exist never
/// reaches a tool, so no tool answers it with an envelope (MCP answers it with a JSON-RPC error).
/// `repeated_call` and `call_limit` are here because the governance that refuses those calls
/// answers with an envelope like any tool.
///
/// ```
/// use answers_protocol::{ErrorClass, ErrorKind};
///
/// assert_eq!(ErrorKind::InvalidArguments.as_str(), "invalid_arguments");
/// assert_eq!(ErrorKind::StoreUnavailable.default_class(), ErrorClass::Recoverable);
/// assert_eq!(ErrorKind::ToolPanic.default_class(), ErrorClass::Unrecoverable);
/// ```
#[derive(ClosedEnum, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// The arguments were refused before the tool ran; the detail names the parameter.
    InvalidArguments,
    /// The thing asked for by name does not exist (an unknown indicator to resolve, say).
    /// An indicator with no readings is not this: it is an answer with no rows.
    NotFound,
    /// The call is not allowed for this session.
    Unauthorized,
    /// The record store could not be reached; it may be back later.
    StoreUnavailable,
    /// The record store failed while answering.
    StoreFault,
    /// The tool panicked; the panic was caught and its payload dropped.
    ToolPanic,
    /// The tool ran out of time.
    Timeout,
    /// Governance refused a call that already returned an unrecoverable result.
    RepeatedCall,
    /// Governance refused a call over the tool's limit for this turn.
    CallLimit,
}

impl ErrorKind {
    /// The class an error of this kind usually has; a tool may pass another to
    /// [`Envelope::error`](crate::Envelope::error) when it knows better.
    #[must_use]
    pub fn default_class(self) -> ErrorClass {
        use ErrorClass::{Recoverable, Unrecoverable};
        const DEFAULTS: ErrorKindTable<ErrorClass> = ErrorKindTable {
            invalid_arguments: Recoverable,
            not_found: Recoverable,
            unauthorized: Unrecoverable,
            store_unavailable: Recoverable,
            store_fault: Unrecoverable,
            tool_panic: Unrecoverable,
            timeout: Recoverable,
            repeated_call: Unrecoverable,
            call_limit: Unrecoverable,
        };
        *DEFAULTS.get(self)
    }
}

/// How exactly the window was applied to the rows.
///
/// That is the difference between "on the 3rd" and "around the 3rd", and it is reported rather
/// than assumed.
///
/// ```
/// assert_eq!(answers_protocol::WindowSemantics::VARIANTS, ["tz_exact", "date_padded_naive"]);
/// ```
#[derive(ClosedEnum, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WindowSemantics {
    /// Every row carries a stored local day, and the window was applied to it exactly.
    TzExact,
    /// Some row predates the stored local day and was found by padding its naive timestamp a
    /// day either side.
    DatePaddedNaive,
}

/// How the readings tool answers for the indicators asked for: a dispatch table, not a chain of
/// `if`s (`ViewTable`).
///
/// ```
/// use answers_protocol::{View, ViewTable};
///
/// assert_eq!(
///     View::VARIANTS,
///     ["raw", "minute", "hour", "day", "week", "month", "stats", "latest"]
/// );
/// let per_bucket = ViewTable {
///     raw: false, minute: true, hour: true, day: true, week: true, month: true,
///     stats: false, latest: false,
/// };
/// assert!(*per_bucket.get(View::Week));
/// ```
#[derive(ClosedEnum, Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum View {
    /// Readings, newest first, at most a cap per indicator.
    Raw,
    /// One point per minute.
    Minute,
    /// One point per hour.
    Hour,
    /// One point per local day, from the day authority.
    Day,
    /// One point per week, from the day authority.
    Week,
    /// One point per month, from the day authority.
    Month,
    /// Count, min, max, average, first, last and change over the window.
    Stats,
    /// The most recent value per indicator.
    Latest,
}

/// A device or channel a series can be elected from for a day.
///
/// ```
/// assert_eq!("pulse_oximeter".parse(), Ok(answers_protocol::Source::PulseOximeter));
/// ```
#[derive(ClosedEnum, Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Source {
    /// A smartwatch.
    Watch,
    /// A smart ring.
    Ring,
    /// A phone's own sensors or health app.
    Phone,
    /// A connected scale.
    Scale,
    /// A blood-pressure cuff.
    Cuff,
    /// A continuous glucose monitor.
    Cgm,
    /// A finger-prick glucose meter.
    Glucometer,
    /// A pulse oximeter.
    PulseOximeter,
    /// A thermometer.
    Thermometer,
    /// A laboratory report.
    Lab,
    /// A value the person typed in.
    Manual,
}

/// Where an indicator's values come from.
///
/// `elected:<source>` means the write side elected one source per day for the series
/// (after device aggregation), so a watch and a phone reporting the same Tuesday count once.
///
/// ```
/// use answers_protocol::{Provenance, Source};
///
/// let p = Provenance::Elected(Source::Watch);
/// assert_eq!(p.to_string(), "elected:watch");
/// assert_eq!("elected:watch".parse(), Ok(p));
/// assert!("elected:fridge".parse::<Provenance>().is_err());
/// ```
#[derive(ClosedEnum, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Provenance {
    /// Values as measured and stored.
    Measured,
    /// Values derived from others (a ratio, a unit conversion, a statistic).
    Computed,
    /// One elected source per day.
    Elected(Source),
}
