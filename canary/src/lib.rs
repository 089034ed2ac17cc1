//! End-to-end layer: a canary in the record and a log scanner that proves it never leaked (built in a later issue).
