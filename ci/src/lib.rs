//! Pipeline glue for phiguard: PR gate, release check and the local demo (built in a later issue).
