//! The run search: the maximal runs of run bytes (the base64 alphabets, `=` and `:`) of at
//! least a given length, found 64 bytes at a time.
//!
//! Each block of 64 bytes is classified into a bit mask, 16 bytes per comparison with SSE2 (part
//! of every x86-64 CPU; through `safe_arch`, as this workspace denies `unsafe`), by table
//! elsewhere. The starts of windows of `t` run bytes in a row are then found with shifts and ands
//! on the block's mask and the next one's: a log with no run costs one classification per byte
//! and no branch per byte. JSON text is mostly made of run bytes, so sampling bytes cannot tell a
//! run from text; a window of set bits can.
//!
//! **Invariant:** the runs found are exactly those of a byte-by-byte search, whatever their
//! position in a block and wherever the haystack ends (a property test checks it).

/// Finds the maximal runs of at least `min` run bytes.
pub(super) struct RunFinder {
    min: usize,
    /// The window looked for: `min`, at most 64 (a longer run holds a window of 64).
    window: usize,
    /// Shifts that turn a mask into the starts of windows of `window` set bits.
    shifts: Vec<u32>,
}

impl RunFinder {
    pub(super) fn new(min: usize) -> RunFinder {
        let window = min.clamp(1, 64);
        let mut shifts = Vec::new();
        // Bit i of `r` means bits i..i+covered are all set; ANDing with `r >> s` (s ≤ covered)
        // extends that to covered + s. Inside one block: bits past it shift in as clear.
        let mut covered = 1;
        while covered < window {
            let s = covered.min(window - covered);
            shifts.push(u32::try_from(s).expect("at most 64"));
            covered += s;
        }
        RunFinder {
            min,
            window,
            shifts,
        }
    }

    /// Calls `on(start, end)` for every maximal run of at least `min` run bytes in `hay`, in
    /// order.
    ///
    /// Blocks are first looked at through a coarse mask (the bytes that are not blanks,
    /// controls, quotes, brackets, `,` or `.`, which a run cannot hold either): a window there is
    /// needed for one in the exact mask, and JSON or text without a run has none, at half the
    /// comparisons.
    pub(super) fn find(&self, hay: &[u8], mut on: impl FnMut(usize, usize)) {
        let len = hay.len();
        let mut pos = 0;
        let mut coarse = mask::<false>(hay, 0);
        while pos < len {
            let coarse_next = mask::<false>(hay, pos + 64);
            if self.first_window(coarse, coarse_next).is_none() {
                pos += 64;
                coarse = coarse_next;
                continue;
            }
            let Some(first) =
                self.first_window(mask::<true>(hay, pos), mask::<true>(hay, pos + 64))
            else {
                pos += 64;
                coarse = coarse_next;
                continue;
            };
            // The first window start at or after `pos` is a run's start: a run starting earlier
            // and covering it would hold an earlier window, found in the block before (or it
            // ends at the non-run byte where `pos` was put).
            let start = pos + first;
            let end = run_end(hay, start + self.window);
            if end - start >= self.min {
                on(start, end);
            }
            pos = end;
            coarse = mask::<false>(hay, pos);
        }
    }

    /// The first bit i of `current` (below 64) such that `window` bits from i are all set, in
    /// `current` followed by `next`.
    #[inline]
    fn first_window(&self, current: u64, next: u64) -> Option<usize> {
        let mut inside = current;
        for &s in &self.shifts {
            inside &= inside >> s;
        }
        // A window across the edge starts at the top run of `current`, if that run and the
        // bottom run of `next` are long enough together.
        let top = current.leading_ones() as usize;
        let bottom = next.trailing_ones() as usize;
        let across = top > 0 && top + bottom >= self.window;
        match (inside, across) {
            (0, false) => None,
            (0, true) => Some(64 - top),
            (bits, _) => Some(bits.trailing_zeros() as usize),
        }
    }
}

/// The end of the run that covers `hay[..from]`'s last byte: the first non-run byte at or after
/// `from`, or the haystack's end.
fn run_end(hay: &[u8], mut from: usize) -> usize {
    while from < hay.len() {
        let m = mask::<true>(hay, from);
        if m != u64::MAX {
            return (from + (!m).trailing_zeros() as usize).min(hay.len());
        }
        from += 64;
    }
    hay.len()
}

/// Bit i set: `hay[at + i]` is a run byte (`EXACT`), or may be one (the coarse mask, a superset).
/// Bits past the haystack's end are clear.
#[inline]
pub(super) fn mask<const EXACT: bool>(hay: &[u8], at: usize) -> u64 {
    let block: &[u8; 64] = match hay.get(at..at + 64) {
        Some(full) => full.try_into().expect("64 bytes"),
        None => {
            // The tail: zero is not a run byte, in either mask.
            let mut padded = [0u8; 64];
            let tail = hay.get(at..).unwrap_or_default();
            padded[..tail.len()].copy_from_slice(tail);
            return mask64::<EXACT>(&padded);
        }
    };
    mask64::<EXACT>(block)
}

#[inline]
fn mask64<const EXACT: bool>(block: &[u8; 64]) -> u64 {
    let mut m = 0u64;
    for (k, chunk) in block.chunks_exact(16).enumerate() {
        let chunk = chunk.try_into().expect("16 bytes");
        let bits = if EXACT {
            mask16(chunk)
        } else {
            coarse16(chunk)
        };
        m |= u64::from(bits) << (16 * k);
    }
    m
}

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
use sse2::{coarse16, mask16};

/// The masks of 16 bytes with SSE2.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
mod sse2 {
    use safe_arch::{
        add_i8_m128i, bitand_m128i as and, bitandnot_m128i, bitor_m128i as or,
        cmp_eq_mask_i8_m128i as eq, cmp_gt_mask_i8_m128i as gt, cmp_lt_mask_i8_m128i as lt,
        load_unaligned_m128i, m128i, move_mask_i8_m128i, set_splat_i8_m128i,
    };

    /// `b` in every lane. Every byte constant here is ASCII, the same as `i8`.
    #[inline]
    fn splat(b: u8) -> m128i {
        set_splat_i8_m128i(i8::try_from(b).unwrap_or(i8::MAX))
    }

    /// The lanes' top bits: 16 lanes, so the mask is in the low 16 bits.
    #[inline]
    fn bits(lanes: m128i) -> u16 {
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let bits = move_mask_i8_m128i(lanes) as u16;
        bits
    }

    /// Bit i set: `chunk[i]` may be a run byte: it is in `+..=z` (not a control, blank, quote,
    /// `{|}~` or 0x80 and above) and is not `,` or `.`. The range is one signed comparison after
    /// shifting `+` to -128 (bytes past `z` wrap to above -49), and `,` and `.` are the bytes
    /// that `| 2` turns into `.`: five instructions for 16 bytes.
    #[inline]
    pub(super) fn coarse16(chunk: &[u8; 16]) -> u16 {
        let x = load_unaligned_m128i(chunk);
        // `+` (0x2B) + 0x55 = 0x80, -128 as `i8`; `z` (0x7A) becomes -49.
        let shifted = add_i8_m128i(x, set_splat_i8_m128i(0x55));
        let in_range = lt(shifted, set_splat_i8_m128i(-48));
        let comma_or_dot = eq(or(x, splat(2)), splat(b'.'));
        bits(bitandnot_m128i(comma_or_dot, in_range))
    }

    /// Bit i set: `chunk[i]` is a run byte. Letters are `b | 0x20` in `a..=z`, then
    /// `/0123456789:` is one range, and `+ - = _` are compared one by one. Bytes of 0x80 and
    /// above are negative as `i8`, so no signed range takes them.
    #[inline]
    pub(super) fn mask16(chunk: &[u8; 16]) -> u16 {
        let x = load_unaligned_m128i(chunk);
        let folded = or(x, splat(0x20));
        let letter = and(gt(folded, splat(b'a' - 1)), lt(folded, splat(b'z' + 1)));
        let digit = and(gt(x, splat(b'/' - 1)), lt(x, splat(b':' + 1)));
        let plus_minus = or(eq(x, splat(b'+')), eq(x, splat(b'-')));
        let equals_low = or(eq(x, splat(b'=')), eq(x, splat(b'_')));
        bits(or(or(letter, digit), or(plus_minus, equals_low)))
    }
}

/// Without SSE2 the coarse mask is the exact one.
#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
#[inline]
fn coarse16(chunk: &[u8; 16]) -> u16 {
    mask16(chunk)
}

/// Bit i set: `chunk[i]` is a run byte, by table.
#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
#[inline]
fn mask16(chunk: &[u8; 16]) -> u16 {
    let mut m = 0u16;
    for (i, &b) in chunk.iter().enumerate() {
        m |= u16::from(is_run_byte(b)) << i;
    }
    m
}

/// A byte of a run: the base64 alphabets (standard and URL-safe), `=` and `:`.
#[cfg(any(test, not(all(target_arch = "x86_64", target_feature = "sse2"))))]
pub(super) fn is_run_byte(b: u8) -> bool {
    RUN_BYTE[usize::from(b)]
}

#[cfg(any(test, not(all(target_arch = "x86_64", target_feature = "sse2"))))]
static RUN_BYTE: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        // `b` < 256, so the cast keeps its value.
        #[allow(clippy::cast_possible_truncation)]
        let byte = b as u8;
        table[b] =
            byte.is_ascii_alphanumeric() || matches!(byte, b'+' | b'/' | b'-' | b'_' | b'=' | b':');
        b += 1;
    }
    table
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mask_agrees_with_the_table_for_every_byte_in_every_lane() {
        for b in 0..=255u8 {
            for lane in 0..64 {
                let mut block = [b'"'; 64];
                block[lane] = b;
                let expected = u64::from(is_run_byte(b)) << lane;
                assert_eq!(
                    mask::<true>(&block, 0),
                    expected,
                    "byte {b:#04x}, lane {lane}"
                );
                // The coarse mask keeps every run byte, and exactly the bytes it says.
                let coarse = mask::<false>(&block, 0);
                let may = (b'+'..=b'z').contains(&b) && b != b',' && b != b'.';
                if cfg!(all(target_arch = "x86_64", target_feature = "sse2")) {
                    assert_eq!(coarse, u64::from(may) << lane, "byte {b:#04x}, lane {lane}");
                }
                assert_eq!(coarse & expected, expected, "byte {b:#04x}, lane {lane}");
                assert_eq!(coarse & !(1 << lane), 0, "`\"` is not a run byte");
            }
        }
    }

    #[test]
    fn the_mask_of_a_tail_has_no_bit_past_the_end() {
        let hay = [b'A'; 100];
        for exact in [true, false] {
            let mask = |at| {
                if exact {
                    mask::<true>(&hay, at)
                } else {
                    mask::<false>(&hay, at)
                }
            };
            assert_eq!(mask(0), u64::MAX);
            assert_eq!(mask(40), (1 << 60) - 1);
            assert_eq!(mask(100), 0);
            assert_eq!(mask(1000), 0);
        }
    }

    #[test]
    fn a_run_across_a_block_edge_or_at_the_end_is_found_whole() {
        let finder = RunFinder::new(20);
        for start in 40..70 {
            for len in [19, 20, 21, 64, 65, 130] {
                let mut hay = vec![b'.'; start];
                hay.extend(std::iter::repeat_n(b'Q', len));
                for tail in [0, 1, 70] {
                    let mut h = hay.clone();
                    h.extend(std::iter::repeat_n(b' ', tail));
                    let mut found = Vec::new();
                    finder.find(&h, |s, e| found.push((s, e)));
                    let expected = if len >= 20 {
                        vec![(start, start + len)]
                    } else {
                        Vec::new()
                    };
                    assert_eq!(found, expected, "start {start}, len {len}, tail {tail}");
                }
            }
        }
    }
}
