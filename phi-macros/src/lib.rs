//! Compile-time enforcement of the answer Envelope's closed enums (built in a later issue).
