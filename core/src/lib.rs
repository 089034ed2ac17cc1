//! The answers layer of a personal health record: store, tools, Envelope and governance (built in later issues).
