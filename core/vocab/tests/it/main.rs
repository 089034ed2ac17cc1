//! Integration tests of answers-vocab: one binary, one module per topic.

mod vocab;
