//! Writes a synthetic NDJSON export of minute-resolution heart rates to stdout: the import
//! benchmark's input (`core/fhir/README.md`). `minute_export [MINUTES]`, 525,600 (a year) by
//! default, from 2024-01-01T00:00:00Z; deterministic.

use std::io::{BufWriter, Write};

fn main() -> std::io::Result<()> {
    let minutes: i64 = match std::env::args().nth(1) {
        Some(n) => n
            .parse()
            .map_err(|_| std::io::Error::other("MINUTES must be a number"))?,
        None => 525_600,
    };
    let start = jiff::Timestamp::from_second(1_704_067_200).map_err(std::io::Error::other)?;
    let mut out = BufWriter::new(std::io::stdout().lock());
    for i in 0..minutes {
        let at = start + jiff::SignedDuration::from_mins(i);
        // A resting rhythm with a daily swing: 55-95 per minute.
        let bpm = 55 + (i * 7919 % 41);
        writeln!(
            out,
            concat!(
                r#"{{"resourceType":"Observation","id":"hr-{}","status":"final","#,
                r#""category":[{{"coding":[{{"system":"#,
                r#""http://terminology.hl7.org/CodeSystem/observation-category","#,
                r#""code":"vital-signs"}}]}}],"#,
                r#""code":{{"coding":[{{"system":"http://loinc.org","code":"8867-4"}}]}},"#,
                r#""subject":{{"reference":"Patient/p-synthetic-1"}},"#,
                r#""effectiveDateTime":"{}","device":{{"display":"Synthetic Watch S2"}},"#,
                r#""valueQuantity":{{"value":{},"unit":"beats/minute","#,
                r#""system":"http://unitsofmeasure.org","code":"/min"}}}}"#,
            ),
            i,
            at.strftime("%Y-%m-%dT%H:%M:%SZ"),
            bpm
        )?;
    }
    out.flush()
}
