//! The fast path's prefix search: the leftmost place where one of a few distinct prefixes of
//! one length starts.
//!
//! With AVX-512 (F and BW) or AVX2, detected at run time, at most [`BUCKETS`] prefixes of
//! [`PREFIX`] bytes are found by a Teddy of our own, 64 or 32 starts at a time; without either,
//! or for more prefixes, by aho-corasick's packed searcher (its Teddy, on AVX2 or SSSE3, is also
//! the reference the property test holds ours to).
//!
//! **How ours works.** Each prefix has a bucket, one bit of a byte. For each of the prefix's
//! [`PREFIX`] positions, two 16-entry tables, indexed by a byte's low and high nibble, have the
//! bucket's bit set at the nibbles of the prefix's byte there. A block of 64 haystack bytes is
//! loaded at offsets 0, 1 and 2, each is split into nibbles and looked up (`vpshufb`, the tables
//! broadcast to the four 128-bit lanes), and the lookups are and-ed: bit `b` of byte `j` is set
//! when prefix `b` starts at `j`. With one prefix per bucket, a nibble pair matches exactly one
//! byte, so a set bit is a match, not a candidate to verify. One `vptestmb` turns the 64 bytes
//! into a mask of starts; a block without one costs about 25 instructions and one branch.
//!
//! In cache it runs about as fast as aho-corasick's Teddy. What it adds is a prefetch hint ahead
//! of the block searched: this search is the first to read each byte of a log from memory, and
//! memory, not the search, sets its speed. Per GiB of the bench's log, searched 1,024 times in a
//! 1 MiB piece (in cache) and once in a 1 GiB buffer (from memory), best of two rounds:
//!
//! | engine | in cache | from memory |
//! |---|---|---|
//! | ours, AVX-512 | 47 ms | 100 ms (136–149 without the hint) |
//! | ours, AVX2 | 65 ms | 95 ms |
//! | aho-corasick's Teddy | 58 ms | 199 ms |
//!
//! **Invariant:** every engine reports the same leftmost start and prefix for every haystack,
//! start and end (a property test checks it against a byte-by-byte search).

use aho_corasick::{Span, packed};

/// How many leading bytes of each pattern and window the fast path looks for (patterns are at
/// least 8 bytes). Three, not four: aho-corasick's Teddy takes its mask length from the shortest
/// pattern, and with 3-byte masks it ran the bench's log 2.5 times faster than with 4 (`perf stat
/// -e task-clock`, `--no-decode --threads 1`, 512 MiB: 95 ms against 236), while finding the same
/// matches: every candidate is compared in full anyway.
pub(super) const PREFIX: usize = 3;

/// The most prefixes our Teddy holds: one per bit of a byte.
const BUCKETS: usize = 8;

/// A search for one of a set of distinct prefixes, all [`PREFIX`] bytes long.
pub(super) enum Packed {
    /// Ours, with AVX-512 or AVX2.
    #[cfg(target_arch = "x86_64")]
    Own(own::Teddy),
    /// aho-corasick's.
    Library(packed::Searcher),
}

impl Packed {
    /// The search for `prefixes` (distinct, each [`PREFIX`] bytes), on the fastest engine this
    /// CPU runs; `None` when neither can hold them (aho-corasick refuses some sets).
    pub(super) fn new(prefixes: &[&[u8]]) -> Option<Packed> {
        #[cfg(target_arch = "x86_64")]
        if let Some(teddy) = own::Teddy::new(prefixes) {
            return Some(Packed::Own(teddy));
        }
        Packed::library(prefixes)
    }

    /// aho-corasick's searcher, whatever the CPU.
    pub(super) fn library(prefixes: &[&[u8]]) -> Option<Packed> {
        packed::Config::new()
            .builder()
            .extend(prefixes)
            .build()
            .map(Packed::Library)
    }

    /// The leftmost start in `at..` of a prefix that ends by `end`, and its index.
    pub(super) fn find_in(&self, hay: &[u8], at: usize, end: usize) -> Option<(usize, usize)> {
        match self {
            #[cfg(target_arch = "x86_64")]
            Packed::Own(teddy) => teddy.find_in(hay, at, end),
            Packed::Library(searcher) => searcher
                .find_in(hay, Span::from(at..end))
                .map(|m| (m.start(), m.pattern().as_usize())),
        }
    }

    /// Which engine runs: `avx512`, `avx2` or `library`.
    #[cfg(test)]
    pub(super) fn engine(&self) -> &'static str {
        match self {
            #[cfg(target_arch = "x86_64")]
            Packed::Own(teddy) => match teddy.simd() {
                own::Simd::Avx512 => "avx512",
                own::Simd::Avx2 => "avx2",
            },
            Packed::Library(_) => "library",
        }
    }
}

/// Our Teddy, on AVX-512 or AVX2.
#[cfg(target_arch = "x86_64")]
pub(super) mod own {
    use std::arch::x86_64::{
        __m256i, __m512i, _MM_HINT_T0, _mm_loadu_si128, _mm_prefetch, _mm256_and_si256,
        _mm256_broadcastsi128_si256, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_movemask_epi8,
        _mm256_set1_epi8, _mm256_setzero_si256, _mm256_shuffle_epi8, _mm256_srli_epi16,
        _mm512_and_si512, _mm512_broadcast_i32x4, _mm512_loadu_si512, _mm512_set1_epi8,
        _mm512_shuffle_epi8, _mm512_srli_epi16, _mm512_test_epi8_mask,
    };

    use super::{BUCKETS, PREFIX};

    /// How far ahead of the block searched the haystack is prefetched. A log is read from memory
    /// once, by this search (the run search and the newline count then find it in cache), and
    /// the CPU's own prefetcher does not keep up: with this hint, the search of 1 GiB in memory
    /// took 103 ms against 149 ms without it (distances 512 to 8,192 bytes gave 103–117 ms;
    /// 2,048 was the best).
    const AHEAD: usize = 2048;

    /// The vector width the search runs at.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub(in crate::matcher) enum Simd {
        /// 64 starts per block: AVX-512 F and BW.
        Avx512,
        /// 32 starts per block.
        Avx2,
    }

    impl Simd {
        /// The widest this CPU runs, if either.
        fn detect() -> Option<Simd> {
            if std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx512bw")
            {
                Some(Simd::Avx512)
            } else if std::arch::is_x86_feature_detected!("avx2") {
                Some(Simd::Avx2)
            } else {
                None
            }
        }

        /// Whether this CPU runs `self`.
        fn runs(self) -> bool {
            match self {
                Simd::Avx512 => Simd::detect() == Some(Simd::Avx512),
                Simd::Avx2 => std::arch::is_x86_feature_detected!("avx2"),
            }
        }
    }

    /// The nibble tables: for each position of the prefixes, the low nibble's and the high
    /// nibble's; and the width they are searched at.
    pub(in crate::matcher) struct Teddy {
        low: [[u8; 16]; PREFIX],
        high: [[u8; 16]; PREFIX],
        simd: Simd,
        /// The prefixes, by bucket: which one starts at a found start.
        prefixes: Vec<[u8; PREFIX]>,
    }

    impl Teddy {
        /// Our Teddy for `prefixes` at the widest the CPU runs, if it has AVX2 at least and they
        /// fit: at most [`BUCKETS`], distinct, each [`PREFIX`] bytes.
        pub(in crate::matcher) fn new(prefixes: &[&[u8]]) -> Option<Teddy> {
            Teddy::with(prefixes, Simd::detect()?)
        }

        /// [`new`](Self::new) at width `simd`, if this CPU runs it.
        pub(in crate::matcher) fn with(prefixes: &[&[u8]], simd: Simd) -> Option<Teddy> {
            let fits = !prefixes.is_empty()
                && prefixes.len() <= BUCKETS
                && prefixes.iter().all(|p| p.len() == PREFIX)
                && prefixes
                    .iter()
                    .enumerate()
                    .all(|(i, p)| !prefixes[..i].contains(p));
            if !fits || !simd.runs() {
                return None;
            }
            let mut teddy = Teddy {
                low: [[0; 16]; PREFIX],
                high: [[0; 16]; PREFIX],
                simd,
                prefixes: prefixes
                    .iter()
                    .map(|p| <[u8; PREFIX]>::try_from(*p).expect("checked above"))
                    .collect(),
            };
            for (bucket, prefix) in prefixes.iter().enumerate() {
                let bit = 1u8 << bucket;
                for (k, &b) in prefix.iter().enumerate() {
                    teddy.low[k][usize::from(b & 0x0F)] |= bit;
                    teddy.high[k][usize::from(b >> 4)] |= bit;
                }
            }
            Some(teddy)
        }

        /// The width searched at.
        #[cfg(test)]
        pub(in crate::matcher) fn simd(&self) -> Simd {
            self.simd
        }

        /// The leftmost start in `at..` of a prefix that ends by `end`, and its index.
        pub(in crate::matcher) fn find_in(
            &self,
            hay: &[u8],
            at: usize,
            end: usize,
        ) -> Option<(usize, usize)> {
            let hay = hay.get(..end)?;
            #[allow(unsafe_code)]
            // SAFETY: a `Teddy` is only built for a width the CPU reported (`with`).
            unsafe {
                match self.simd {
                    Simd::Avx512 => self.find_avx512(hay, at),
                    Simd::Avx2 => self.find_avx2(hay, at),
                }
            }
        }

        #[target_feature(enable = "avx512f,avx512bw")]
        fn find_avx512(&self, hay: &[u8], at: usize) -> Option<(usize, usize)> {
            let tables = Wide::new(self);
            search::<64>(hay, at, &self.prefixes, |bytes| tables.block(bytes))
        }

        #[target_feature(enable = "avx2")]
        fn find_avx2(&self, hay: &[u8], at: usize) -> Option<(usize, usize)> {
            let tables = Narrow::new(self);
            search::<32>(hay, at, &self.prefixes, |bytes| tables.block(bytes))
        }
    }

    /// The block loop over `hay` from `at`, `block(bytes)` giving the mask of the `N` starts of
    /// `bytes` (which holds `N + PREFIX − 1`).
    // Always: inlined into the functions compiled for a width.
    #[allow(clippy::inline_always)]
    #[inline(always)]
    fn search<const N: usize>(
        hay: &[u8],
        at: usize,
        prefixes: &[[u8; PREFIX]],
        block: impl Fn(&[u8]) -> u64,
    ) -> Option<(usize, usize)> {
        // A set bit is a match (one prefix per bucket), so the prefix there is the one whose
        // bytes are there: two distinct prefixes of one length cannot start at one place.
        let first = |i: usize, starts: u64| {
            let start = i + starts.trailing_zeros() as usize;
            let prefix = prefixes
                .iter()
                .position(|p| hay[start..].starts_with(p))
                .expect("a start found is a match");
            (start, prefix)
        };
        let mut i = at;
        // Whole blocks: the loads at offsets 1 and 2 read up to `i + N + PREFIX − 1`.
        while i + N + PREFIX - 1 <= hay.len() {
            #[allow(unsafe_code)]
            // SAFETY: SSE is part of every x86-64 CPU, and a prefetch is a hint, never a read:
            // past the haystack's end it is dropped, not a fault.
            unsafe {
                _mm_prefetch::<_MM_HINT_T0>(hay.as_ptr().wrapping_add(i + AHEAD).cast());
            }
            let starts = block(&hay[i..]);
            if starts != 0 {
                return Some(first(i, starts));
            }
            i += N;
        }
        // Fewer than `N` starts are left: a padded copy, its padding's starts masked off.
        let left = hay.len().checked_sub(i + PREFIX - 1).filter(|&n| n > 0)?;
        let mut padded = [0u8; 64 + PREFIX - 1];
        padded[..hay.len() - i].copy_from_slice(&hay[i..]);
        let starts = block(&padded) & ((1u64 << left) - 1);
        (starts != 0).then(|| first(i, starts))
    }

    /// The bytes of a 16-byte table.
    fn lane(table: &[u8; 16]) -> std::arch::x86_64::__m128i {
        #[allow(unsafe_code)]
        // SAFETY: `table` is 16 bytes, what an unaligned 128-bit load reads.
        unsafe {
            _mm_loadu_si128(table.as_ptr().cast())
        }
    }

    /// The nibble tables in every 128-bit lane of a 512-bit vector.
    struct Wide {
        low: [__m512i; PREFIX],
        high: [__m512i; PREFIX],
    }

    impl Wide {
        #[target_feature(enable = "avx512f,avx512bw")]
        fn new(teddy: &Teddy) -> Wide {
            let broadcast = |table: &[u8; 16]| _mm512_broadcast_i32x4(lane(table));
            Wide {
                low: teddy.low.each_ref().map(broadcast),
                high: teddy.high.each_ref().map(broadcast),
            }
        }

        /// The 64 starts of `bytes`, which holds at least `64 + PREFIX − 1`: bit `j` set when a
        /// prefix starts at `j`.
        #[target_feature(enable = "avx512f,avx512bw")]
        #[inline]
        fn block(&self, bytes: &[u8]) -> u64 {
            assert!(
                bytes.len() >= 64 + PREFIX - 1,
                "a block and its prefix's overhang"
            );
            let nibble = _mm512_set1_epi8(0x0F);
            let mut all = _mm512_set1_epi8(-1);
            for k in 0..PREFIX {
                #[allow(unsafe_code)]
                // SAFETY: `k + 64 <= bytes.len()` (asserted), and an unaligned 512-bit load
                // reads exactly 64 bytes from `k`.
                let x = unsafe { _mm512_loadu_si512(bytes.as_ptr().add(k).cast()) };
                let low = _mm512_and_si512(x, nibble);
                let high = _mm512_and_si512(_mm512_srli_epi16::<4>(x), nibble);
                let hit = _mm512_and_si512(
                    _mm512_shuffle_epi8(self.low[k], low),
                    _mm512_shuffle_epi8(self.high[k], high),
                );
                all = _mm512_and_si512(all, hit);
            }
            // Bit `b` of byte `j` of `all` is set when prefix `b` starts at `j`.
            _mm512_test_epi8_mask(all, all)
        }
    }

    /// The nibble tables in both 128-bit lanes of a 256-bit vector.
    struct Narrow {
        low: [__m256i; PREFIX],
        high: [__m256i; PREFIX],
    }

    impl Narrow {
        #[target_feature(enable = "avx2")]
        fn new(teddy: &Teddy) -> Narrow {
            let broadcast = |table: &[u8; 16]| _mm256_broadcastsi128_si256(lane(table));
            Narrow {
                low: teddy.low.each_ref().map(broadcast),
                high: teddy.high.each_ref().map(broadcast),
            }
        }

        /// The 32 starts of `bytes`, which holds at least `32 + PREFIX − 1`: bit `j` set when a
        /// prefix starts at `j`.
        #[target_feature(enable = "avx2")]
        #[inline]
        fn block(&self, bytes: &[u8]) -> u64 {
            assert!(
                bytes.len() >= 32 + PREFIX - 1,
                "a block and its prefix's overhang"
            );
            let nibble = _mm256_set1_epi8(0x0F);
            let mut all = _mm256_set1_epi8(-1);
            for k in 0..PREFIX {
                #[allow(unsafe_code)]
                // SAFETY: `k + 32 <= bytes.len()` (asserted), and an unaligned 256-bit load
                // reads exactly 32 bytes from `k`.
                let x = unsafe { _mm256_loadu_si256(bytes.as_ptr().add(k).cast()) };
                let low = _mm256_and_si256(x, nibble);
                let high = _mm256_and_si256(_mm256_srli_epi16::<4>(x), nibble);
                let hit = _mm256_and_si256(
                    _mm256_shuffle_epi8(self.low[k], low),
                    _mm256_shuffle_epi8(self.high[k], high),
                );
                all = _mm256_and_si256(all, hit);
            }
            let none = _mm256_movemask_epi8(_mm256_cmpeq_epi8(all, _mm256_setzero_si256()));
            u64::from(!none.cast_unsigned())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The leftmost start in `at..` of a prefix ending by `end`, byte by byte.
    fn naive(prefixes: &[&[u8]], hay: &[u8], at: usize, end: usize) -> Option<(usize, usize)> {
        let hay = &hay[..end];
        (at..hay.len()).find_map(|s| {
            prefixes
                .iter()
                .position(|p| hay[s..].starts_with(p))
                .map(|i| (s, i))
        })
    }

    fn distinct(prefixes: &[[u8; PREFIX]]) -> Vec<&[u8]> {
        let mut out: Vec<&[u8]> = Vec::new();
        for p in prefixes {
            if !out.contains(&p.as_slice()) {
                out.push(p);
            }
        }
        out
    }

    #[test]
    fn our_engine_runs_at_the_widest_the_cpu_has() {
        let prefixes: [&[u8]; 2] = [b"PHI", b"-3f"];
        let search = Packed::new(&prefixes).expect("builds");
        #[cfg(target_arch = "x86_64")]
        {
            let has = |f: &str| match f {
                "avx512" => {
                    std::arch::is_x86_feature_detected!("avx512f")
                        && std::arch::is_x86_feature_detected!("avx512bw")
                }
                _ => std::arch::is_x86_feature_detected!("avx2"),
            };
            let want = ["avx512", "avx2"]
                .into_iter()
                .find(|f| has(f))
                .unwrap_or("library");
            assert_eq!(search.engine(), want);
        }
        let hay = b"a PHI-CANARY-3f9a";
        assert_eq!(search.find_in(hay, 0, hay.len()), Some((2, 0)));
        assert_eq!(search.find_in(hay, 3, hay.len()), Some((12, 1)));
        assert_eq!(search.find_in(hay, 3, 14), None);
        assert_eq!(search.find_in(hay, 3, 15), Some((12, 1)));
    }

    #[test]
    fn more_prefixes_than_buckets_go_to_the_library() {
        let owned: Vec<[u8; PREFIX]> = (0..9u8).map(|i| [b'a' + i, b'x', b'y']).collect();
        let prefixes: Vec<&[u8]> = owned.iter().map(<[u8; PREFIX]>::as_slice).collect();
        assert_eq!(Packed::new(&prefixes).expect("builds").engine(), "library");
    }

    proptest::proptest! {
        /// Every engine finds what a byte-by-byte search finds: the leftmost start and its
        /// prefix, for every start and end, with prefixes across blocks' edges and in the last
        /// part of a haystack, over bytes of all nibbles (0x80 and up included).
        #[test]
        fn every_engine_finds_the_leftmost_prefix_a_naive_search_finds(
            prefixes in proptest::collection::vec(
                proptest::array::uniform3(proptest::sample::select(vec![b'a', b'b', 0xC3, 0x00, b'-'])),
                1..=BUCKETS,
            ),
            hay in proptest::collection::vec(
                proptest::sample::select(vec![b'a', b'b', 0xC3, 0x00, b'-', b'q', 0x61 ^ 0x10]),
                0..300,
            ),
            cuts in (0usize..320, 0usize..320),
        ) {
            let prefixes = distinct(&prefixes);
            let end = cuts.1.min(hay.len());
            let at = cuts.0.min(end);
            let want = naive(&prefixes, &hay, at, end);
            let ours = Packed::new(&prefixes).expect("builds");
            proptest::prop_assert_eq!(ours.find_in(&hay, at, end), want);
            // Both widths of ours, where this CPU runs them.
            #[cfg(target_arch = "x86_64")]
            for simd in [own::Simd::Avx512, own::Simd::Avx2] {
                if let Some(teddy) = own::Teddy::with(&prefixes, simd) {
                    proptest::prop_assert_eq!(teddy.find_in(&hay, at, end), want, "{:?}", simd);
                }
            }
            let library = Packed::library(&prefixes).expect("builds");
            proptest::prop_assert_eq!(library.find_in(&hay, at, end), want);
        }
    }
}
