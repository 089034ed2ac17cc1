//! The field-name classifier: one source of truth for which names may reach a log.
//!
//! phi-lint uses it to judge the names of interpolated expressions, and the runtime layer uses it
//! to judge field names. This module has no dependencies, so phi-lint can use it without pulling
//! in `tracing` (`default-features = false`).
//!
//! A name is **allowed** when, after the deny stems, it falls in one of five classes: an opaque
//! identifier, a count, a duration, a status code or a type name. Everything else is unknown,
//! and unknown is not allowed.
//!
//! ```
//! use phi_filter::names::{NameClass, NamePolicy, NameVerdict};
//!
//! let policy = NamePolicy::default();
//! assert_eq!(policy.classify("request_id"), NameVerdict::Allowed(NameClass::OpaqueId));
//! assert_eq!(policy.classify("elapsedMs"), NameVerdict::Allowed(NameClass::Duration));
//! // Deny stems beat the classes: a plan member id is PHI itself.
//! assert_eq!(policy.classify("member_id"), NameVerdict::Denied { stem: "member".into() });
//! assert_eq!(policy.classify("glucose"), NameVerdict::Unknown);
//! ```

use std::borrow::Cow;
use std::fmt;

/// The stems that make a name PHI whatever its class, matched on the lower-case, snake-cased
/// name: as a substring (`email` in `patient_email`), or, when written `_stem_`, as a whole word
/// (`_ip_` in `peer_ip` but not in `recipient`). Short stems are whole words, so they do not fire
/// inside longer, unrelated words.
///
/// The vocabulary is grounded, not ad hoc. Its first part is the list of the 18 identifiers whose
/// removal de-identifies health data under the HIPAA Privacy Rule's Safe Harbor method,
/// 45 CFR 164.514(b)(2)(i)(A)-(R), in the rule's order; then the health facts themselves, which
/// are what the identifiers must not be joined to (45 CFR 160.103, "health information"); then
/// credentials, which unlock the rest. Identifiers that count as PHI themselves (a medical record
/// number, a plan member id, an account number) are denied although they end in `_id`.
///
/// ```
/// use phi_filter::names::{deny_stem, DEFAULT_DENY_STEMS};
/// assert_eq!(deny_stem("peer_ip", DEFAULT_DENY_STEMS), Some("_ip_"));
/// assert_eq!(deny_stem("recipient_count", DEFAULT_DENY_STEMS), None);
/// assert_eq!(deny_stem("account_id", DEFAULT_DENY_STEMS), Some("account"));
/// ```
pub const DEFAULT_DENY_STEMS: &[&str] = &[
    // (A) names
    "name",
    // (B) geographic subdivisions smaller than a state
    "address",
    "street",
    "_city_",
    "county",
    "_zip_",
    "zipcode",
    "postcode",
    "postal",
    "latitude",
    "longitude",
    "geolocation",
    // (C) dates directly related to an individual, and ages over 89
    "dob",
    "birth",
    "death",
    "admission",
    "discharge",
    "_age_",
    // (D) telephone numbers
    "phone",
    "_tel_",
    "msisdn",
    // (E) fax numbers
    "fax",
    // (F) email addresses
    "email",
    "e_mail",
    // (G) social security numbers
    "ssn",
    "social_security",
    // (H) medical record numbers
    "mrn",
    "medical_record",
    // (I) health plan beneficiary numbers
    "member",
    "beneficiary",
    "health_plan",
    "insurance",
    // (J) account numbers
    "account",
    // (K) certificate and licence numbers
    "license",
    "licence",
    "certificate_number",
    // (L) vehicle identifiers and serial numbers, licence plates included
    "vehicle",
    "plate",
    "_vin_",
    // (M) device identifiers and serial numbers
    "_serial_",
    "serial_number",
    "device_id",
    "_imei_",
    "_udid_",
    "mac_addr",
    // (N) web URLs
    "url",
    "_uri_",
    "href",
    // (O) IP addresses
    "_ip_",
    "ipv4",
    "ipv6",
    "ip_addr",
    "peer_addr",
    "remote_addr",
    "client_addr",
    "forwarded_for",
    // (P) biometric identifiers
    "biometric",
    "retina",
    "voiceprint",
    "faceprint",
    // (Q) full-face photographs
    "photo",
    "avatar",
    "selfie",
    // (R) any other unique identifying number, characteristic or code
    "passport",
    "national_id",
    "tax_id",
    // health facts
    "patient",
    "diagnos",
    "medication",
    "prescription",
    "allerg",
    "symptom",
    "treatment",
    "disease",
    "vaccin",
    "immuniz",
    "pregnan",
    "blood",
    "lab_result",
    "clinical",
    "comment",
    // credentials
    "password",
    "passwd",
    "passphrase",
    "secret",
    "_token_",
    "cookie",
    "session_key",
    "api_key",
    "apikey",
    "private_key",
    "credential",
    "_jwt_",
    "bearer",
    "_otp_",
    // the HTTP `Authorization` header's value is a credential (an `authorization_id` or a
    // prior authorization's status is not)
    "authorization_header",
];

/// Compounds that contain a deny stem but name something other than a person: the name of a
/// type, a package, a file, a table or a span is not the name of an individual (Safe Harbor's
/// "names" are the names of the individual and their relatives, employers or household members).
/// They are masked before the stems are matched, so `type_name` is a type name and `package_name`
/// no longer trips `name`.
///
/// ```
/// use phi_filter::names::{NamePolicy, NameVerdict};
/// let p = NamePolicy::default();
/// assert!(p.classify("package_name").is_allowed());
/// assert_eq!(p.classify("file_name"), NameVerdict::Unknown); // not a person, not a safe class
/// assert!(matches!(p.classify("user_name"), NameVerdict::Denied { .. }));
/// ```
pub const NOT_PERSONAL_COMPOUNDS: &[&str] = &concat::<
    { TYPE_NAME_COMPOUNDS.len() + OTHER_NOT_PERSONAL_COMPOUNDS.len() },
>(TYPE_NAME_COMPOUNDS, OTHER_NOT_PERSONAL_COMPOUNDS);

/// The compounds of [`NOT_PERSONAL_COMPOUNDS`] that do not name a type.
const OTHER_NOT_PERSONAL_COMPOUNDS: &[&str] = &[
    "file_name",
    "filename",
    "index_name",
    "target_name",
    "command_name",
    "cmd_name",
    "op_name",
    "operation_name",
    "queue_name",
    "topic_name",
    "bucket_name",
    "host_name",
    "hostname",
    // OpenTelemetry's `service.name`: the name of the program
    "service_name",
    "max_age",
    // a number of tokens (of text, or of credentials) is a count, not a credential
    "token_count",
    "token_limit",
    // words that hold a stem and mean something else: a template is not a licence plate, to
    // remember is not a member, a microphone is not a phone (`platelet` stays a lab value)
    "template",
    "boilerplate",
    "remember",
    "microphone",
];

/// `a` then `b`, as an array of `N = a.len() + b.len()` entries (checked at compile time).
const fn concat<const N: usize>(a: &[&'static str], b: &[&'static str]) -> [&'static str; N] {
    assert!(a.len() + b.len() == N, "N must be the sum of the lengths");
    let mut out = [""; N];
    let mut i = 0;
    while i < a.len() {
        out[i] = a[i];
        i += 1;
    }
    while i < N {
        out[i] = b[i - a.len()];
        i += 1;
    }
    out
}

/// Code and schema names that are type names: the class of a value, never a person's data.
/// They are the first entries of [`NOT_PERSONAL_COMPOUNDS`].
const TYPE_NAME_COMPOUNDS: &[&str] = &[
    "type_name",
    "typename",
    "package_name",
    "pkg_name",
    "crate_name",
    "table_name",
    "span_name",
    "fn_name",
    "function_name",
    "method_name",
    "module_name",
    "field_name",
    "column_name",
    "schema_name",
    "metric_name",
    "event_name",
    "variant_name",
    "struct_name",
    "rule_name",
    // schema elements: an attribute or property is named by the schema, and its value is what
    // may be personal (`attribute_value` stays unknown). A parameter's or a header's name is not
    // here: the caller chooses it, so it is any text the caller sent.
    "attribute_name",
    "attr_name",
    "property_name",
    "namespace",
];

/// The class that makes a name safe to log.
///
/// ```
/// use phi_filter::names::{name_class, NameClass};
/// assert_eq!(name_class("retries"), Some(NameClass::Count));
/// assert_eq!(NameClass::Count.as_str(), "count");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum NameClass {
    /// An opaque identifier: `id`, `*_id`, `*_ids`, `*_uuid`, an object identifier (`oid`,
    /// `*_oid`), and the machine's own ids: `pid`, `*_pid`, `port`, `*_port`.
    OpaqueId,
    /// A count or size: `count`, `*_count`, `n_*`, `len`, `bytes`, `limit`, `index`, `*_idx`,
    /// `indent`, `size_hint`.
    Count,
    /// A duration: `elapsed`, `*_ms`, `latency`, `timeout`, `backoff`.
    Duration,
    /// A status code: `status`, `*_status`, `exit_code`, `http_status`.
    Status,
    /// A type name or kind: `*_type`, `*_kind`, `kind`, `level`, the names of code and schema
    /// elements (`type_name`, `package_name`, `table_name`, `span_name`) and versions
    /// (`version`, `*_version`).
    TypeName,
}

impl NameClass {
    /// Every class, in a stable order.
    ///
    /// ```
    /// assert_eq!(phi_filter::names::NameClass::ALL.len(), 5);
    /// ```
    pub const ALL: &'static [NameClass] = &[
        NameClass::OpaqueId,
        NameClass::Count,
        NameClass::Duration,
        NameClass::Status,
        NameClass::TypeName,
    ];

    /// The class's stable, lower-case name.
    ///
    /// ```
    /// assert_eq!(phi_filter::names::NameClass::TypeName.as_str(), "type name");
    /// ```
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            NameClass::OpaqueId => "opaque id",
            NameClass::Count => "count",
            NameClass::Duration => "duration",
            NameClass::Status => "status",
            NameClass::TypeName => "type name",
        }
    }
}

impl fmt::Display for NameClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What the policy says about one name.
///
/// ```
/// use phi_filter::names::{NamePolicy, NameVerdict};
/// let v = NamePolicy::default().classify("patient_email");
/// assert!(!v.is_allowed());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NameVerdict {
    /// The name is in a safe class.
    Allowed(NameClass),
    /// The name was allowed explicitly by configuration.
    AllowedByConfig,
    /// The name contains a deny stem; it is never allowed.
    Denied {
        /// The stem that matched.
        stem: String,
    },
    /// The name is in no safe class.
    Unknown,
}

impl NameVerdict {
    /// Whether a value under this name may be logged.
    ///
    /// ```
    /// use phi_filter::names::{NameClass, NameVerdict};
    /// assert!(NameVerdict::Allowed(NameClass::Count).is_allowed());
    /// assert!(!NameVerdict::Unknown.is_allowed());
    /// ```
    #[must_use]
    pub fn is_allowed(&self) -> bool {
        matches!(self, NameVerdict::Allowed(_) | NameVerdict::AllowedByConfig)
    }
}

/// The name class of `name`, ignoring deny stems. `name` may be `snake_case` or `camelCase`.
///
/// ```
/// use phi_filter::names::{name_class, NameClass};
/// assert_eq!(name_class("userId"), Some(NameClass::OpaqueId));
/// assert_eq!(name_class("comment"), None);
/// ```
#[must_use]
pub fn name_class(name: &str) -> Option<NameClass> {
    class_of_snake(&snake(name))
}

/// `name` in lower `snake_case`, borrowed when it already is (the common case, no allocation).
fn snake(name: &str) -> Cow<'_, str> {
    if name
        .bytes()
        .any(|b| b.is_ascii_uppercase() || b == b'-' || b >= 0x80)
    {
        Cow::Owned(to_snake(name))
    } else {
        Cow::Borrowed(name)
    }
}

fn class_of_snake(n: &str) -> Option<NameClass> {
    let last_word = n.rsplit('_').next().unwrap_or(n);
    let has_prefix = n.len() > last_word.len();
    let exact_or_suffix = |w: &str| n == w || (has_prefix && last_word == w);

    // Opaque identifiers. A process id or a port number is an id of the machine, not of a person
    // (Safe Harbor lists IP addresses, not ports; a `String` under either name is still refuted
    // by its type). An `oid` is an object identifier: an ASN.1/LDAP OID, a database row's
    // object id, or a directory's object GUID, opaque as a `user_id` is.
    if [
        "id", "ids", "uuid", "uuids", "oid", "oids", "pid", "pids", "port", "ports",
    ]
    .iter()
    .any(|w| exact_or_suffix(w))
    {
        return Some(NameClass::OpaqueId);
    }
    // Status codes (before counts and type names: `status_code`, `exit_code`, `error_code`).
    if exact_or_suffix("status")
        || matches!(
            n,
            "status_code" | "exit_code" | "error_code" | "http_status"
        )
    {
        return Some(NameClass::Status);
    }
    // Counts.
    if ["count", "total", "len", "size", "bytes", "idx", "indent"]
        .iter()
        .any(|w| exact_or_suffix(w))
        || matches!(n, "attempt" | "limit" | "index")
        // `max_attempts`, `retries` (a `suicide_attempts` is denied by no stem, but
        // `suicide_attempt_count` already passed as a count: this opens no new hole)
        || ["attempts", "retries"].iter().any(|w| exact_or_suffix(w))
        // `Iterator::size_hint`'s bounds on how many items are left.
        || n == "size_hint"
        || n.ends_with("_size_hint")
        || (n.starts_with("n_") && n.len() > 2)
        || (n.starts_with("num_") && n.len() > 4)
    {
        return Some(NameClass::Count);
    }
    // Durations.
    if ["duration", "latency"].iter().any(|w| exact_or_suffix(w))
        || (has_prefix && ["ms", "us", "ns", "secs", "seconds"].contains(&last_word))
        || matches!(
            n,
            "elapsed" | "timeout" | "ttl" | "took" | "interval" | "delay" | "backoff"
        )
    {
        return Some(NameClass::Duration);
    }
    // Type names and kinds.
    if (has_prefix && last_word == "type")
        || exact_or_suffix("kind")
        || exact_or_suffix("version")
        || n == "level"
        || TYPE_NAME_COMPOUNDS
            .iter()
            .any(|c| n == *c || (n.ends_with(c) && n.as_bytes()[n.len() - c.len() - 1] == b'_'))
    {
        return Some(NameClass::TypeName);
    }
    None
}

/// The first stem of `stems` that `name` contains, matched on its lower-case `snake_case` form
/// (see [`DEFAULT_DENY_STEMS`] for `_word_` stems), after masking [`NOT_PERSONAL_COMPOUNDS`].
///
/// ```
/// use phi_filter::names::{deny_stem, DEFAULT_DENY_STEMS};
/// assert_eq!(deny_stem("bloodType", DEFAULT_DENY_STEMS), Some("blood"));
/// assert_eq!(deny_stem("request_id", DEFAULT_DENY_STEMS), None);
/// assert_eq!(deny_stem("type_name", DEFAULT_DENY_STEMS), None);
/// ```
#[must_use]
pub fn deny_stem<'s, S: AsRef<str>>(name: &str, stems: &'s [S]) -> Option<&'s str> {
    let snake = snake(name);
    let masked = mask(&snake);
    stems
        .iter()
        .map(AsRef::as_ref)
        .find(|stem| stem_matches(&masked, stem))
}

/// `snake` with every [`NOT_PERSONAL_COMPOUNDS`] entry blanked out (`#`), borrowed when none
/// occurs.
fn mask(snake: &str) -> Cow<'_, str> {
    // Every compound contains one of these; most names contain none, so this skips the list.
    if !["name", "age", "token", "plate", "member", "phone"]
        .iter()
        .any(|w| snake.contains(w))
        || !NOT_PERSONAL_COMPOUNDS.iter().any(|c| snake.contains(c))
    {
        return Cow::Borrowed(snake);
    }
    let mut out = snake.to_owned();
    for c in NOT_PERSONAL_COMPOUNDS {
        if out.contains(c) {
            out = out.replace(c, &"#".repeat(c.len()));
        }
    }
    Cow::Owned(out)
}

/// Whether `stem` matches the (masked) snake name: `_word_` stems as whole words (words are
/// separated by `_` or `.`), the others as substrings.
fn stem_matches(snake: &str, stem: &str) -> bool {
    match stem
        .strip_prefix('_')
        .and_then(|s| s.strip_suffix('_'))
        .filter(|w| !w.is_empty())
    {
        Some(word) => {
            snake.split(['_', '.']).any(|w| w == word)
                || (word.contains('_') && {
                    let padded = format!("_{}_", snake.replace('.', "_"));
                    padded.contains(stem)
                })
        }
        None => snake.contains(stem),
    }
}

/// A name policy: the five classes, the deny stems, and configured extras.
///
/// An exact extra name is an explicit decision and beats the deny stems. An extra pattern (`*`
/// wildcards) widens the classes but does not beat a deny stem.
///
/// ```
/// use phi_filter::names::{NamePolicy, NameVerdict};
/// let p = NamePolicy::default()
///     .allow_name("tool_name")
///     .allow_pattern("*_slug")
///     .deny_stem("token");
/// assert_eq!(p.classify("tool_name"), NameVerdict::AllowedByConfig);
/// assert_eq!(p.classify("page_slug"), NameVerdict::AllowedByConfig);
/// assert!(!p.classify("patient_slug").is_allowed());
/// assert!(!p.classify("token_count").is_allowed());
/// ```
#[derive(Debug, Clone)]
pub struct NamePolicy {
    allowed: Vec<String>,
    patterns: Vec<String>,
    pseudonymized: Vec<String>,
    stems: Vec<String>,
    /// How many of `stems` are the built-in ones; masking applies only to those, so a stem
    /// added by configuration (`token`) also fires inside a masked compound (`token_count`).
    builtin: usize,
}

impl Default for NamePolicy {
    fn default() -> Self {
        NamePolicy {
            allowed: Vec::new(),
            patterns: Vec::new(),
            pseudonymized: Vec::new(),
            stems: DEFAULT_DENY_STEMS.iter().map(|s| (*s).to_owned()).collect(),
            builtin: DEFAULT_DENY_STEMS.len(),
        }
    }
}

impl NamePolicy {
    /// Allows one exact name, even if it contains a deny stem.
    #[must_use]
    pub fn allow_name(mut self, name: impl Into<String>) -> Self {
        self.allowed.push(to_snake(&name.into()));
        self
    }

    /// Allows names matching a `*` pattern (`*_slug`, `tenant_*`), unless a deny stem matches.
    #[must_use]
    pub fn allow_pattern(mut self, pattern: impl Into<String>) -> Self {
        self.patterns.push(to_snake(&pattern.into()));
        self
    }

    /// Records names or `*` patterns the runtime pseudonymizes (`[runtime] pseudonymize` in
    /// `phiguard.toml`): as a *field* of a tracing event or span, such a name's value becomes a
    /// keyed token, so it may be recorded whatever it holds ([`pseudonymizes`]). It does not
    /// change [`classify`]: a value *named* so and printed, or interpolated into a message, is
    /// not pseudonymized by anything.
    ///
    /// [`pseudonymizes`]: NamePolicy::pseudonymizes
    /// [`classify`]: NamePolicy::classify
    ///
    /// ```
    /// let p = phi_filter::names::NamePolicy::default().pseudonymized("patient_*");
    /// assert!(p.pseudonymizes("patient_name"));
    /// assert!(!p.classify("patient_name").is_allowed());
    /// ```
    #[must_use]
    pub fn pseudonymized(mut self, pattern: impl Into<String>) -> Self {
        self.pseudonymized.push(to_snake(&pattern.into()));
        self
    }

    /// Whether the runtime pseudonymizes a field of this name.
    #[must_use]
    pub fn pseudonymizes(&self, name: &str) -> bool {
        let snake = snake(name);
        self.pseudonymized.iter().any(|p| glob_match(p, &snake))
    }

    /// Adds a deny stem.
    #[must_use]
    pub fn deny_stem(mut self, stem: impl Into<String>) -> Self {
        self.stems.push(stem.into().to_ascii_lowercase());
        self
    }

    /// The first stem in force that the snake-cased `snake` contains.
    fn stem_in(&self, snake: &str) -> Option<&str> {
        let masked = mask(snake);
        self.stems
            .iter()
            .enumerate()
            .find(|(i, s)| {
                let against: &str = if *i < self.builtin { &masked } else { snake };
                stem_matches(against, s)
            })
            .map(|(_, s)| s.as_str())
    }

    /// The deny stems in force.
    ///
    /// ```
    /// assert!(phi_filter::names::NamePolicy::default().stems().iter().any(|s| s == "mrn"));
    /// ```
    #[must_use]
    pub fn stems(&self) -> &[String] {
        &self.stems
    }

    /// Classifies one name: a plain name, or a dotted one (`http.status_code`), in which case the
    /// last segment gives the class and every segment is checked for deny stems.
    #[must_use]
    pub fn classify(&self, name: &str) -> NameVerdict {
        let snake = snake(name);
        if self.allowed.iter().any(|a| *a == snake) {
            return NameVerdict::AllowedByConfig;
        }
        if let Some(stem) = self.stem_in(&snake) {
            return NameVerdict::Denied {
                stem: stem.to_owned(),
            };
        }
        let last = snake.rsplit('.').next().unwrap_or(&snake);
        if let Some(class) = class_of_snake(last) {
            return NameVerdict::Allowed(class);
        }
        if self.patterns.iter().any(|p| glob_match(p, last)) {
            return NameVerdict::AllowedByConfig;
        }
        NameVerdict::Unknown
    }

    /// Whether a name carries a deny stem (`Some(stem)`), for callers that already know the class.
    #[must_use]
    pub fn denied_stem(&self, name: &str) -> Option<&str> {
        let snake = snake(name);
        if self.allowed.iter().any(|a| *a == snake) {
            return None;
        }
        self.stem_in(&snake)
    }
}

/// Converts `camelCase`, `PascalCase` and `kebab-case` to lower `snake_case`; `snake_case` is
/// returned lower-cased. Dots are kept.
///
/// ```
/// use phi_filter::names::to_snake;
/// assert_eq!(to_snake("requestId"), "request_id");
/// assert_eq!(to_snake("HTTPStatus"), "http_status");
/// assert_eq!(to_snake("StatusCode"), "status_code");
/// assert_eq!(to_snake("http.status-code"), "http.status_code");
/// ```
#[must_use]
pub fn to_snake(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::with_capacity(name.len() + 4);
    for (i, &c) in chars.iter().enumerate() {
        if c == '-' {
            out.push('_');
        } else if c.is_uppercase() {
            let prev = i.checked_sub(1).map(|j| chars[j]);
            let next = chars.get(i + 1).copied();
            let boundary = match prev {
                Some(p) if p.is_lowercase() || p.is_ascii_digit() => true,
                Some(p) if p.is_uppercase() => next.is_some_and(char::is_lowercase),
                _ => false,
            };
            if boundary && !out.ends_with('_') && !out.ends_with('.') {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// Matches `name` against a pattern whose only metacharacter is `*`.
pub(crate) fn glob_match(pattern: &str, name: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == name;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !name.starts_with(first) || name.len() < first.len() + last.len() {
        return false;
    }
    let mut rest = &name[first.len()..name.len() - last.len()];
    if !name.ends_with(last) {
        return false;
    }
    for mid in &parts[1..parts.len() - 1] {
        match rest.find(mid) {
            Some(at) => rest = &rest[at + mid.len()..],
            None => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes() {
        let cases: &[(&str, Option<NameClass>)] = &[
            ("max_attempts", Some(NameClass::Count)),
            ("db_retries", Some(NameClass::Count)),
            ("id", Some(NameClass::OpaqueId)),
            ("user_id", Some(NameClass::OpaqueId)),
            ("trace_ids", Some(NameClass::OpaqueId)),
            ("session_uuid", Some(NameClass::OpaqueId)),
            ("idx", Some(NameClass::Count)),
            ("pack_idx", Some(NameClass::Count)),
            ("indent", Some(NameClass::Count)),
            ("pid", Some(NameClass::OpaqueId)),
            ("child_pid", Some(NameClass::OpaqueId)),
            ("oid", Some(NameClass::OpaqueId)),
            ("control_oid", Some(NameClass::OpaqueId)),
            ("paranoid", None),
            ("void", None),
            ("size_hint", Some(NameClass::Count)),
            ("iter_size_hint", Some(NameClass::Count)),
            ("hint", None),
            ("password_hint", None),
            ("port", Some(NameClass::OpaqueId)),
            ("http_port", Some(NameClass::OpaqueId)),
            ("height", None),
            ("width", None),
            ("year", None),
            ("report", None),
            ("support", None),
            ("rapid", None),
            ("n_rows", Some(NameClass::Count)),
            ("num_files", Some(NameClass::Count)),
            ("row_count", Some(NameClass::Count)),
            ("body_bytes", Some(NameClass::Count)),
            ("elapsed_ms", Some(NameClass::Duration)),
            ("timeout", Some(NameClass::Duration)),
            ("status_code", Some(NameClass::Status)),
            ("exit_code", Some(NameClass::Status)),
            ("error_kind", Some(NameClass::TypeName)),
            ("level", Some(NameClass::TypeName)),
            ("type", None),
            ("crate_version", Some(NameClass::TypeName)),
            ("package_name", Some(NameClass::TypeName)),
            ("file_name", None),
            ("attribute_name", Some(NameClass::TypeName)),
            ("kv_namespace", Some(NameClass::TypeName)),
            ("attribute_value", None),
            ("n", None),
            ("ms", None),
            ("value", None),
            ("idea", None),
            ("said", None),
        ];
        for (name, want) in cases {
            assert_eq!(name_class(name), *want, "{name}");
        }
    }

    #[test]
    fn grounded_stems() {
        let p = NamePolicy::default();
        let denied = [
            "account",
            "account_id",
            "peer_addr",
            "peer_ip",
            "ip",
            "remote_addr",
            "city",
            "zip",
            "patient_age",
            "phone_number",
            "fax",
            "email",
            "ssn",
            "mrn",
            "member_id",
            "health_plan_id",
            "license_no",
            "licence",
            "vehicle_id",
            "vin",
            "serial",
            "device_id",
            "redirect_url",
            "photo_id",
            "avatar",
            "diagnosis_code",
            "medication",
            "password",
            "api_key",
            "access_token",
            "cookie",
            "session_key",
            "client_secret",
            "user_name",
            "username",
            "display_name",
            "first_name",
            "date_of_birth",
            "patient_namespace",
            "authorization_header",
            "platelet_count",
            "template_email",
            "remembered_phone",
        ];
        for n in denied {
            assert!(matches!(p.classify(n), NameVerdict::Denied { .. }), "{n}");
        }
        let not_denied = [
            "type_name",
            "package_name",
            "file_name",
            "table_name",
            "span_name",
            "recipient",
            "pipeline",
            "zipper",
            "serialized",
            "tokens",
            "max_age",
            "hostname",
            "version",
            "template",
            "boilerplate",
            "remember_me",
            "microphone",
            "authorization_id",
            "authorization_status",
            "author",
        ];
        for n in not_denied {
            assert!(!matches!(p.classify(n), NameVerdict::Denied { .. }), "{n}");
        }
        for n in [
            "type_name",
            "package_name",
            "table_name",
            "span_name",
            "version",
            "db_version",
            "attribute_name",
            "namespace",
        ] {
            assert_eq!(
                p.classify(n),
                NameVerdict::Allowed(NameClass::TypeName),
                "{n}"
            );
        }
    }

    #[test]
    fn names_a_caller_chooses_are_not_type_names() {
        let p = NamePolicy::default();
        for n in ["param_name", "header_name"] {
            assert!(matches!(p.classify(n), NameVerdict::Denied { .. }), "{n}");
        }
    }

    #[test]
    fn globs() {
        assert!(glob_match("*_slug", "page_slug"));
        assert!(!glob_match("*_slug", "slug"));
        assert!(glob_match("tenant_*", "tenant_x"));
        assert!(glob_match("a*b*c", "aXbYc"));
        assert!(!glob_match("a*b*c", "aXcYb"));
        assert!(glob_match("exact", "exact"));
    }
}
