//! Random hex from the OS RNG: the one helper behind marker nonces, per-run canaries and
//! bearer tokens.

use std::fmt;

/// Lower-case hex digits.
const HEX: &[u8; 16] = b"0123456789abcdef";

/// The OS random number generator failed. It carries getrandom's code, never bytes.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub struct RandomError(getrandom::Error);

impl fmt::Display for RandomError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the OS random number generator failed: {}", self.0)
    }
}

/// Fills `bytes` from the OS RNG.
pub(crate) fn fill(bytes: &mut [u8]) -> Result<(), RandomError> {
    getrandom::fill(bytes).map_err(RandomError)
}

/// `bytes` random bytes from the OS RNG, as `2 * bytes` lower-case hex digits.
pub fn random_hex(bytes: usize) -> Result<String, RandomError> {
    let mut raw = vec![0u8; bytes];
    fill(&mut raw)?;
    let mut text = String::with_capacity(2 * bytes);
    push_hex(&mut text, &raw);
    Ok(text)
}

/// Appends `bytes` to `out` as lower-case hex digits, two a byte.
pub fn push_hex(out: &mut String, bytes: &[u8]) {
    for b in bytes {
        out.push(char::from(HEX[usize::from(b >> 4)]));
        out.push(char::from(HEX[usize::from(b & 0xf)]));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_is_lower_case_two_digits_a_byte() {
        let mut s = String::new();
        push_hex(&mut s, &[0x00, 0x3f, 0x9a, 0xff]);
        assert_eq!(s, "003f9aff");
        let a = random_hex(16).unwrap();
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|b| HEX.contains(&b)));
        assert_ne!(a, random_hex(16).unwrap());
        assert_eq!(random_hex(0).unwrap(), "");
    }
}
