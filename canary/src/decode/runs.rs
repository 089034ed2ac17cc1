//! The run search: the maximal runs of run bytes (the base64 alphabets, `=` and `:`) of at
//! least a given length, found 64 bytes at a time, and in the same pass the bytes a token
//! decoding starts at (`%`, `\`, `&`) and NUL (UTF-16).
//!
//! Each block of 64 bytes is classified into two bit masks, run bytes and those special bytes.
//! With AVX2 (detected at run time) that is a nibble-table lookup, 32 bytes per instruction: each
//! byte's low and high nibbles index two 16-entry tables (`vpshufb`) whose AND has a bit set for
//! every class rectangle the byte is in, so run bytes and the four special bytes come out of one
//! classification; the special bytes' own mask is computed only for a block that holds one (one
//! `vptest` tells), which a log's blocks seldom do. Without AVX2, SSE2 comparisons (part of every
//! x86-64 CPU), 16 bytes at a time; elsewhere a table. The starts of windows of `t` run bytes in
//! a row are then found with shifts by constants and ands on the block's mask (a const generic
//! per power of two, so no shift count is kept in a register), plus the run bytes in a row
//! before the block for a window across its edge: each block is classified once, and a log with
//! no run costs one classification per byte and one branch per block. With AVX2 and a window of
//! at most 33 bits, two blocks are tested at once: their masks and the 64 bits around each of
//! their bottom edges (where any window across an edge lies) as four lanes of one vector, so a
//! log without runs or special bytes costs one vector window test per 128 bytes. JSON text is mostly made
//! of run bytes, so sampling bytes cannot tell a run from text; a window of set bits can.
//!
//! **Invariant:** the runs and special bytes found are exactly those of a byte-by-byte search,
//! whatever their position in a block and wherever the haystack ends, on every path (a property
//! test checks it, and every byte in every lane is checked against the table).

/// Finds the maximal runs of at least `min` run bytes.
pub(super) struct RunFinder {
    min: usize,
    /// The window looked for: `min`, at most 64 (a longer run holds a window of 64).
    window: usize,
    /// The window test's doublings: `2^doublings` is the largest power of two up to `window`.
    doublings: u32,
    /// `window − 2^doublings`: the last shift of the window test.
    rest: u32,
    /// The same shifts as a list (the doublings, then `rest`), padded with zeros (no-ops), for
    /// the window test on four masks at once.
    steps: [i64; 7],
    /// The classification to use: AVX2 when the CPU has it.
    path: Path,
}

/// Four masks whose windows are tested at once.
type Lanes = [u64; 4];

/// Which classification runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Path {
    /// Nibble tables, 32 bytes at a time (only built when the CPU has AVX2).
    #[cfg(target_arch = "x86_64")]
    Avx2,
    /// SSE2 comparisons on x86-64, a table elsewhere.
    Portable,
}

impl Path {
    /// The fastest path this CPU runs.
    pub(super) fn detect() -> Path {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            return Path::Avx2;
        }
        Path::Portable
    }
}

impl RunFinder {
    pub(super) fn new(min: usize) -> RunFinder {
        RunFinder::with_path(min, Path::detect())
    }

    /// A finder on `path`; `Path::Avx2` only where the CPU has AVX2 (it falls back otherwise).
    pub(super) fn with_path(min: usize, path: Path) -> RunFinder {
        let path = match path {
            #[cfg(target_arch = "x86_64")]
            Path::Avx2 if Path::detect() != Path::Avx2 => Path::Portable,
            other => other,
        };
        let window = min.clamp(1, 64);
        // Bit i of `r` means bits i..i+covered are all set; ANDing with `r >> s` (s ≤ covered)
        // extends that to covered + s. Inside one block: bits past it shift in as clear.
        // Doubling `covered` while it fits, then one shift of the rest: 64 takes 6.
        let doublings = window.ilog2();
        let rest = u32::try_from(window - (1 << doublings)).expect("below 64");
        let mut steps = [0; 7];
        for k in 0..doublings {
            steps[k as usize] = 1 << k;
        }
        steps[doublings as usize] = i64::from(rest);
        RunFinder {
            min,
            window,
            doublings,
            rest,
            steps,
            path,
        }
    }

    /// Calls `on(start, end)` for every maximal run of at least `min` run bytes in `hay`, in
    /// order, and pushes the position of every `%`, `\`, `&` and NUL byte to `specials`, in
    /// order.
    pub(super) fn find(
        &self,
        hay: &[u8],
        on: &mut dyn FnMut(usize, usize),
        specials: &mut Vec<usize>,
    ) {
        match self.path {
            #[cfg(target_arch = "x86_64")]
            Path::Avx2 => {
                #[allow(unsafe_code)]
                // SAFETY: `path` is `Avx2` only when the CPU reported AVX2 (`with_path`).
                unsafe {
                    self.find_avx2(hay, on, specials);
                }
            }
            Path::Portable => {
                self.dispatch(
                    hay,
                    portable::mask,
                    None::<&fn(&Lanes) -> bool>,
                    on,
                    specials,
                );
            }
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn find_avx2(&self, hay: &[u8], on: &mut dyn FnMut(usize, usize), specials: &mut Vec<usize>) {
        let steps = avx2::steps(&self.steps);
        let quad = |lanes: &Lanes| avx2::any_window(lanes, &steps);
        self.dispatch(hay, |h, at| avx2::mask(h, at), Some(&quad), on, specials);
    }

    /// [`blocks`](Self::blocks) with the window test's doublings as constants, so its shifts
    /// are by immediates rather than counts kept in registers (or spilled).
    // Always: inlined into the AVX2 function, like `blocks`.
    #[allow(clippy::inline_always)]
    #[inline(always)]
    fn dispatch(
        &self,
        hay: &[u8],
        mask: impl Fn(&[u8], usize) -> (u64, u64),
        quad: Option<&impl Fn(&Lanes) -> bool>,
        on: &mut dyn FnMut(usize, usize),
        specials: &mut Vec<usize>,
    ) {
        match self.doublings {
            0 => self.blocks::<0>(hay, mask, quad, on, specials),
            1 => self.blocks::<1>(hay, mask, quad, on, specials),
            2 => self.blocks::<2>(hay, mask, quad, on, specials),
            3 => self.blocks::<3>(hay, mask, quad, on, specials),
            4 => self.blocks::<4>(hay, mask, quad, on, specials),
            5 => self.blocks::<5>(hay, mask, quad, on, specials),
            _ => self.blocks::<6>(hay, mask, quad, on, specials),
        }
    }

    /// The block loop, with `mask(hay, at)` giving the (run, special) masks of the 64 bytes
    /// from `at`.
    ///
    /// Each block is classified once. `carry` is the number of run bytes in a row just before
    /// `pos`: a window across a block's edge is then `carry` plus the bottom run of the block,
    /// so no block is looked at before the one before it is done with. A block with no window
    /// and no special byte (all of a JSON log but its runs) costs the classification, the
    /// shifts of the window test and one branch.
    // Always: inlined into the AVX2 function, the classification is compiled with AVX2.
    #[allow(clippy::inline_always)]
    #[inline(always)]
    fn blocks<const DOUBLINGS: u32>(
        &self,
        hay: &[u8],
        mask: impl Fn(&[u8], usize) -> (u64, u64),
        quad: Option<&impl Fn(&Lanes) -> bool>,
        on: &mut dyn FnMut(usize, usize),
        specials: &mut Vec<usize>,
    ) {
        let len = hay.len();
        let mut pos = 0;
        let mut carry = 0;
        while pos < len {
            // Two blocks at once, when `quad` can test four masks for a window in one go and a
            // window (at most 33 bits) crossing an edge lies inside the 64 bits around it: the
            // masks of the two blocks, and of the 64 bits around each of their bottom edges.
            if let Some(quad) = quad
                && self.window <= 33
                && pos + 128 <= len
            {
                let (low, low_special) = mask(hay, pos);
                let (high, high_special) = mask(hay, pos + 64);
                // The `carry` run bytes before `pos` as the top bits of the mask before it: a
                // window across the edge at `pos` is made of them and the bottom run of `low`.
                let before = if carry == 0 {
                    0
                } else {
                    u64::MAX << (64 - carry)
                };
                let lanes = [before >> 32 | low << 32, low, low >> 32 | high << 32, high];
                if low_special | high_special == 0 && !quad(&lanes) {
                    // No window in `high`, so it is not all run bytes: its top run ends it.
                    carry = high.leading_ones() as usize;
                    pos += 128;
                    continue;
                }
                // A window or a special byte: the block at `pos` is done one by one below
                // (it is classified again, which a log's blocks seldom need).
            }
            let (current, special) = mask(hay, pos);
            let inside = self.window_starts::<DOUBLINGS>(current);
            let bottom = current.trailing_ones() as usize;
            // A run from before `pos` long enough with this block's bottom run. (A `carry` is
            // always shorter than the window: a longer one holds a window found before.)
            let across = carry > 0 && carry + bottom >= self.window;
            if inside == 0 && !across {
                push_bits(specials, pos, special);
                // No window in the block, so it is not all run bytes: its top run ends it.
                carry = current.leading_ones() as usize;
                pos += 64;
                continue;
            }
            // The first window is a run's start: one starting earlier and covering it would
            // hold an earlier window, found before (or ending at the byte where `pos` was put).
            let (start, from) = if across {
                (pos - carry, 0)
            } else {
                let first = inside.trailing_zeros() as usize;
                // The special bytes before the run (a run holds none).
                push_bits(specials, pos, special & ((1u64 << first) - 1));
                (pos + first, first)
            };
            let after = !current & (u64::MAX << from);
            let mut end = pos + 64;
            if after != 0 {
                end = pos + after.trailing_zeros() as usize;
            } else {
                loop {
                    if end >= len {
                        break;
                    }
                    let (m, _) = mask(hay, end);
                    if m != u64::MAX {
                        end += (!m).trailing_zeros() as usize;
                        break;
                    }
                    end += 64;
                }
            }
            let end = end.min(len);
            if end - start >= self.min {
                on(start, end);
            }
            // The byte at `end` is not a run byte; the search goes on from it.
            pos = end;
            carry = 0;
        }
    }

    /// The bits i of `mask` such that `window` bits from i are all set, inside the mask.
    #[inline]
    fn window_starts<const DOUBLINGS: u32>(&self, mask: u64) -> u64 {
        let mut inside = mask;
        for k in 0..DOUBLINGS {
            inside &= inside >> (1 << k);
        }
        inside & inside >> self.rest
    }
}

/// Pushes `base + i` for every set bit i of `bits`, lowest first.
#[inline]
fn push_bits(out: &mut Vec<usize>, base: usize, mut bits: u64) {
    while bits != 0 {
        out.push(base + bits.trailing_zeros() as usize);
        bits &= bits - 1;
    }
}

/// The 64 bytes from `at`, padded past the haystack's end with a byte of neither class.
#[inline]
fn block(hay: &[u8], at: usize) -> Result<&[u8; 64], [u8; 64]> {
    match hay.get(at..at + 64) {
        Some(full) => Ok(full.try_into().expect("64 bytes")),
        None => {
            let mut padded = [b' '; 64];
            let tail = hay.get(at..).unwrap_or_default();
            padded[..tail.len()].copy_from_slice(tail);
            Err(padded)
        }
    }
}

/// A byte's class: [`RUN`], [`SPECIAL`] or neither (0).
#[cfg(any(test, not(target_arch = "x86_64")))]
pub(super) fn class(b: u8) -> u8 {
    CLASS[usize::from(b)]
}

/// A byte of a run: the base64 alphabets (standard and URL-safe), `=` and `:`.
#[cfg(any(test, not(target_arch = "x86_64")))]
pub(super) const RUN: u8 = 1;
/// A byte a token decoding starts at (`%`, `\`, `&`), or NUL (UTF-16).
#[cfg(any(test, not(target_arch = "x86_64")))]
pub(super) const SPECIAL: u8 = 2;

#[cfg(any(test, not(target_arch = "x86_64")))]
static CLASS: [u8; 256] = {
    let mut table = [0; 256];
    let mut b = 0;
    while b < 256 {
        // `b` < 256, so the cast keeps its value.
        #[allow(clippy::cast_possible_truncation)]
        let byte = b as u8;
        if byte.is_ascii_alphanumeric() || matches!(byte, b'+' | b'/' | b'-' | b'_' | b'=' | b':') {
            table[b] = RUN;
        } else if matches!(byte, b'%' | b'\\' | b'&' | 0) {
            table[b] = SPECIAL;
        }
        b += 1;
    }
    table
};

/// A byte of a run.
#[cfg(test)]
pub(super) fn is_run_byte(b: u8) -> bool {
    class(b) == RUN
}

/// The maximal runs of at least `min` run bytes, byte by byte: what the block-wise search must
/// find, for its tests.
#[cfg(test)]
pub(super) fn naive_runs(hay: &[u8], min: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < hay.len() {
        let start = i;
        while i < hay.len() && is_run_byte(hay[i]) {
            i += 1;
        }
        if i - start >= min {
            out.push((start, i));
        }
        i += usize::from(i == start);
    }
    out
}

/// The class rectangles of the nibble tables: bit `bit` of a byte's lookup is set when its high
/// nibble is in `high` and its low nibble in `low` (both as bit sets). The run bytes are five
/// rectangles (bits 0–4), the special bytes three (bits 5–7).
const RECTANGLES: [(u8, u16, u16); 8] = [
    // `A-O`, `a-o`
    (0x01, 1 << 4 | 1 << 6, 0xFFFE),
    // `0-9:`, `P-Z`, `p-z`
    (0x02, 1 << 3 | 1 << 5 | 1 << 7, 0x07FF),
    // `+ - /`
    (0x04, 1 << 2, 1 << 0xB | 1 << 0xD | 1 << 0xF),
    // `=`
    (0x08, 1 << 3, 1 << 0xD),
    // `_`
    (0x10, 1 << 5, 1 << 0xF),
    // `% &`
    (0x20, 1 << 2, 1 << 5 | 1 << 6),
    // `\`
    (0x40, 1 << 5, 1 << 0xC),
    // NUL
    (0x80, 1 << 0, 1 << 0),
];

/// The run bits of a lookup; the special ones are the others, 0x20 and up.
#[cfg(test)]
const RUN_BITS: u8 = 0x1F;

/// The table indexed by a byte's high nibble (`HIGH`) or low nibble, twice (one copy per
/// 128-bit lane of `vpshufb`).
const fn nibble_table<const HIGH: bool>() -> [u8; 32] {
    let mut table = [0u8; 32];
    let mut n = 0;
    while n < 16 {
        let mut r = 0;
        while r < RECTANGLES.len() {
            let (bit, high, low) = RECTANGLES[r];
            let set = if HIGH { high } else { low };
            if set & (1 << n) != 0 {
                table[n] |= bit;
                table[n + 16] |= bit;
            }
            r += 1;
        }
        n += 1;
    }
    table
}

static LOW_TABLE: [u8; 32] = nibble_table::<false>();
static HIGH_TABLE: [u8; 32] = nibble_table::<true>();

/// The classes of `b` by the nibble tables, as `vpshufb` computes them (an index with its top
/// bit set looks up 0).
#[cfg(test)]
fn nibble_class(b: u8) -> u8 {
    let low = if b & 0x80 == 0 {
        LOW_TABLE[usize::from(b & 0x0F)]
    } else {
        0
    };
    let bits = low & HIGH_TABLE[usize::from(b >> 4)];
    (u8::from(bits & RUN_BITS != 0) * RUN) | (u8::from(bits & !RUN_BITS != 0) * SPECIAL)
}

/// The masks with AVX2: a nibble-table lookup per 32 bytes.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::{
        __m128i, __m256i, _mm_cvtsi64_si128, _mm256_adds_epu8, _mm256_and_si256, _mm256_cmpeq_epi8,
        _mm256_loadu_si256, _mm256_movemask_epi8, _mm256_or_si256, _mm256_set_epi64x,
        _mm256_set1_epi8, _mm256_setzero_si256, _mm256_shuffle_epi8, _mm256_srl_epi64,
        _mm256_srli_epi16, _mm256_testz_si256,
    };

    use super::{HIGH_TABLE, LOW_TABLE, Lanes};

    /// The window test's shifts as shift counts for `vpsrlq`.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(super) fn steps(steps: &[i64; 7]) -> [__m128i; 7] {
        steps.map(|s| _mm_cvtsi64_si128(s))
    }

    /// Whether any of the four masks holds a window: the shifts and ands of
    /// [`window_starts`](super::RunFinder::window_starts), on the four at once.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(super) fn any_window(lanes: &Lanes, steps: &[__m128i; 7]) -> bool {
        let lane = |i: usize| lanes[i].cast_signed();
        let mut x = _mm256_set_epi64x(lane(3), lane(2), lane(1), lane(0));
        for &s in steps {
            x = _mm256_and_si256(x, _mm256_srl_epi64(x, s));
        }
        _mm256_testz_si256(x, x) == 0
    }

    /// The (run, special) masks of the 64 bytes of `hay` from `at`; bits past its end clear.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(super) fn mask(hay: &[u8], at: usize) -> (u64, u64) {
        match super::block(hay, at) {
            Ok(block) => mask64(block),
            Err(padded) => mask64(&padded),
        }
    }

    /// A special byte is rare in a log, so their mask is computed only when a block holds one.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn mask64(block: &[u8; 64]) -> (u64, u64) {
        let low = classes(&block[..32]);
        let high = classes(&block[32..]);
        let none = |bits| _mm256_movemask_epi8(_mm256_cmpeq_epi8(bits, _mm256_setzero_si256()));
        // A byte in either class.
        let any =
            !(u64::from(none(low).cast_unsigned()) | u64::from(none(high).cast_unsigned()) << 32);
        // Special bits are 0x20 and up (`RECTANGLES`).
        if _mm256_testz_si256(_mm256_or_si256(low, high), _mm256_set1_epi8(-0x20)) == 1 {
            return (any, 0);
        }
        // A byte is in at most one class. Adding 0x60 (saturating) sets the top bit exactly
        // for the special ones; any other byte in a class is a run byte.
        let special = |bits| _mm256_movemask_epi8(_mm256_adds_epu8(bits, _mm256_set1_epi8(0x60)));
        let special = u64::from(special(low).cast_unsigned())
            | u64::from(special(high).cast_unsigned()) << 32;
        (any & !special, special)
    }

    #[target_feature(enable = "avx2")]
    #[inline]
    fn load(bytes: &[u8]) -> __m256i {
        assert!(bytes.len() >= 32, "32 bytes to load");
        #[allow(unsafe_code)]
        // SAFETY: `bytes` holds at least 32 bytes (asserted), and an unaligned load reads
        // exactly 32 from its start.
        unsafe {
            _mm256_loadu_si256(bytes.as_ptr().cast())
        }
    }

    /// The class bits of each byte of `chunk` (its first 32): the AND of its nibbles' lookups.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn classes(chunk: &[u8]) -> __m256i {
        let x = load(chunk);
        let low_table = load(&LOW_TABLE);
        let high_table = load(&HIGH_TABLE);
        // Bytes from 0x80 have their top bit set: `vpshufb` gives 0, no class.
        let low = _mm256_shuffle_epi8(low_table, x);
        let high_nibble = _mm256_and_si256(_mm256_srli_epi16::<4>(x), _mm256_set1_epi8(0x0F));
        let high = _mm256_shuffle_epi8(high_table, high_nibble);
        _mm256_and_si256(low, high)
    }
}

/// The masks without AVX2: SSE2 comparisons, 16 bytes at a time, on x86-64; a table elsewhere.
mod portable {
    /// The (run, special) masks of the 64 bytes of `hay` from `at`; bits past its end clear.
    #[inline]
    pub(super) fn mask(hay: &[u8], at: usize) -> (u64, u64) {
        match super::block(hay, at) {
            Ok(block) => mask64(block),
            Err(padded) => mask64(&padded),
        }
    }

    #[inline]
    fn mask64(block: &[u8; 64]) -> (u64, u64) {
        let (mut run, mut special) = (0u64, 0u64);
        for (k, chunk) in block.chunks_exact(16).enumerate() {
            let (r, s) = mask16(chunk.try_into().expect("16 bytes"));
            run |= u64::from(r) << (16 * k);
            special |= u64::from(s) << (16 * k);
        }
        (run, special)
    }

    #[cfg(target_arch = "x86_64")]
    use sse2::mask16;

    /// The masks of 16 bytes with SSE2 (part of every x86-64 CPU, so compiled in).
    #[cfg(target_arch = "x86_64")]
    mod sse2 {
        use safe_arch::{
            bitand_m128i as and, bitor_m128i as or, cmp_eq_mask_i8_m128i as eq,
            cmp_gt_mask_i8_m128i as gt, cmp_lt_mask_i8_m128i as lt, load_unaligned_m128i, m128i,
            move_mask_i8_m128i, set_splat_i8_m128i,
        };

        /// `b` in every lane. Every byte constant here is ASCII, the same as `i8`.
        #[inline]
        fn splat(b: u8) -> m128i {
            set_splat_i8_m128i(b.cast_signed())
        }

        /// The lanes' top bits: 16 lanes, so the mask is in the low 16 bits.
        #[inline]
        fn bits(lanes: m128i) -> u16 {
            #[allow(clippy::cast_sign_loss)]
            let bits = move_mask_i8_m128i(lanes) as u16;
            bits
        }

        /// Bit i of the first value set: `chunk[i]` is a run byte; of the second: a special
        /// byte. Letters are `b | 0x20` in `a..=z`, then `/0123456789:` is one range, and
        /// `+ - = _` are compared one by one. Bytes of 0x80 and above are negative as `i8`, so
        /// no signed range takes them.
        #[inline]
        pub(super) fn mask16(chunk: &[u8; 16]) -> (u16, u16) {
            let x = load_unaligned_m128i(chunk);
            let folded = or(x, splat(0x20));
            let letter = and(gt(folded, splat(b'a' - 1)), lt(folded, splat(b'z' + 1)));
            let digit = and(gt(x, splat(b'/' - 1)), lt(x, splat(b':' + 1)));
            let plus_minus = or(eq(x, splat(b'+')), eq(x, splat(b'-')));
            let equals_low = or(eq(x, splat(b'=')), eq(x, splat(b'_')));
            let run = or(or(letter, digit), or(plus_minus, equals_low));
            let percent_amp = or(eq(x, splat(b'%')), eq(x, splat(b'&')));
            let backslash_nul = or(eq(x, splat(b'\\')), eq(x, splat(0)));
            (bits(run), bits(or(percent_amp, backslash_nul)))
        }
    }

    /// The masks of 16 bytes, by table.
    #[cfg(not(target_arch = "x86_64"))]
    #[inline]
    fn mask16(chunk: &[u8; 16]) -> (u16, u16) {
        let (mut run, mut special) = (0u16, 0u16);
        for (i, &b) in chunk.iter().enumerate() {
            let class = super::class(b);
            run |= u16::from(class == super::RUN) << i;
            special |= u16::from(class == super::SPECIAL) << i;
        }
        (run, special)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every path this CPU runs.
    fn paths() -> Vec<Path> {
        let mut paths = vec![Path::Portable];
        if Path::detect() != Path::Portable {
            paths.push(Path::detect());
        }
        paths
    }

    fn mask_on(path: Path, hay: &[u8], at: usize) -> (u64, u64) {
        let finder = RunFinder::with_path(1, path);
        match finder.path {
            #[cfg(target_arch = "x86_64")]
            Path::Avx2 => {
                #[allow(unsafe_code)]
                // SAFETY: `with_path` keeps `Avx2` only when the CPU has it.
                unsafe {
                    avx2::mask(hay, at)
                }
            }
            Path::Portable => portable::mask(hay, at),
        }
    }

    #[test]
    fn the_nibble_tables_agree_with_the_table_for_every_byte() {
        for b in 0..=255u8 {
            assert_eq!(nibble_class(b), class(b), "byte {b:#04x}");
        }
    }

    #[test]
    fn every_path_agrees_with_the_table_for_every_byte_in_every_lane() {
        for path in paths() {
            for b in 0..=255u8 {
                for lane in 0..64 {
                    let mut block = [b'"'; 64];
                    block[lane] = b;
                    let expected = (
                        u64::from(class(b) == RUN) << lane,
                        u64::from(class(b) == SPECIAL) << lane,
                    );
                    assert_eq!(
                        mask_on(path, &block, 0),
                        expected,
                        "{path:?}, byte {b:#04x}, lane {lane}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_mask_of_a_tail_has_no_bit_past_the_end() {
        for path in paths() {
            let hay = [b'A'; 100];
            assert_eq!(mask_on(path, &hay, 0), (u64::MAX, 0));
            assert_eq!(mask_on(path, &hay, 40), ((1 << 60) - 1, 0));
            assert_eq!(mask_on(path, &hay, 100), (0, 0));
            assert_eq!(mask_on(path, &hay, 1000), (0, 0));
            let nul = [0u8; 100];
            assert_eq!(mask_on(path, &nul, 40), (0, (1 << 60) - 1), "{path:?}");
        }
    }

    /// Runs of pseudo-random lengths below `longest`, each cut by one of `cuts`.
    fn runs_of(longest: u64, cuts: &[u8], count: usize) -> Vec<u8> {
        let mut rng = 0x2545_f491_4f6c_dd1d_u64;
        let mut hay = Vec::new();
        for _ in 0..count {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            let len = usize::try_from(rng % longest).expect("small");
            hay.extend((0..len).map(|i| b"Qz9+/-_=:"[i % 9]));
            hay.push(cuts[usize::try_from(rng >> 58).expect("small") % cuts.len()]);
        }
        hay
    }

    #[test]
    fn every_window_length_finds_the_runs_of_a_naive_search() {
        // Runs of every length up to 200 cut by a blank or a special byte, and runs mostly
        // shorter than the window cut by blanks and quotes (one special byte in 64 cuts), where
        // two blocks at a time are tested at once and a run across their edges decides: each
        // window test (one per power of two, up to 64), the carry across block edges and the
        // test on two blocks are checked for every minimum from 1 to 130.
        let mut cuts = vec![b' '; 40];
        cuts.extend([b'"'; 23]);
        cuts.push(b'&');
        for hay in [
            runs_of(200, &[b' ', b'%', b'"', 0], 400),
            runs_of(40, &cuts, 4000),
        ] {
            let expected_specials: Vec<usize> = (0..hay.len())
                .filter(|&i| class(hay[i]) == SPECIAL)
                .collect();
            for path in paths() {
                for min in 1..=130 {
                    let finder = RunFinder::with_path(min, path);
                    let mut found = Vec::new();
                    let mut specials = Vec::new();
                    finder.find(&hay, &mut |s, e| found.push((s, e)), &mut specials);
                    assert_eq!(found, naive_runs(&hay, min), "{path:?}, min {min}");
                    assert_eq!(specials, expected_specials, "{path:?}, min {min}");
                }
            }
        }
    }

    #[test]
    fn a_run_across_a_block_edge_or_at_the_end_is_found_whole() {
        for path in paths() {
            let finder = RunFinder::with_path(20, path);
            for start in 40..70 {
                for len in [19, 20, 21, 64, 65, 130] {
                    let mut hay = vec![b'.'; start];
                    hay.extend(std::iter::repeat_n(b'Q', len));
                    for tail in [0, 1, 70] {
                        let mut h = hay.clone();
                        h.extend(std::iter::repeat_n(b' ', tail));
                        h.push(b'%');
                        let mut found = Vec::new();
                        let mut specials = Vec::new();
                        finder.find(&h, &mut |s, e| found.push((s, e)), &mut specials);
                        let expected = if len >= 20 {
                            vec![(start, start + len)]
                        } else {
                            Vec::new()
                        };
                        assert_eq!(found, expected, "{path:?}, start {start}, len {len}");
                        assert_eq!(
                            specials,
                            [h.len() - 1],
                            "{path:?}, start {start}, len {len}"
                        );
                    }
                }
            }
        }
    }
}
