//! FSST, the Fast Static Symbol Table (Boncz, Neumann, Leis, VLDB 2020): string compression with a table
//! of up to 255 symbols of 1 to 8 bytes, each replaced by a one-byte code.
//!
//! Codes: a code `c < n` (`n` symbols in the table) stands for symbol `c`; [`ESCAPE`] (255) says the byte
//! after it is a literal. Compression never writes codes `n..=254`; decoders read them as nothing, so any
//! bytes decode without error (a trailing lone escape is dropped too).
//!
//! Compression is a greedy longest match: at each position, the one symbol of 3 to 8 bytes whose first
//! three bytes hash to that position's slot (a table of 1,024 slots) if it matches, else the symbol of
//! the first two bytes, else the one of the first byte, else an escape. Two direct tables (65,536 pairs,
//! 256 bytes) and the hash table make that a handful of loads per code. A table never holds two symbols
//! of 3 or more bytes in one slot (training leaves out the lesser one), so for trained tables this is the
//! longest match; a stored table that has such a clash still compresses correctly, without the later one.
//!
//! Training (the paper's iterative algorithm): draw a sample of about 32 KiB (strings picked at random,
//! long ones cut to 512-byte pieces), then for 8 generations compress a growing share of the sample with
//! the current table, count how often each symbol (and each escaped byte, and the first byte of each
//! longer symbol) occurs and how often each pair of consecutive ones does, and keep the 255 candidates,
//! symbols and pairs joined into one symbol, with the highest gain, count times length. The best table
//! of the generations, by bytes saved on its share of the sample, is pruned to the symbols it uses.
//!
//! Decoding writes each symbol as 8 unaligned bytes and advances by the symbol's length, 8 (then 4) codes
//! at a time while none of them is an escape, into space reserved up front: no bounds check in the loop.

use std::collections::HashMap;
use std::fmt;
use std::mem::MaybeUninit;

/// The escape code: the byte after it is a literal.
pub const ESCAPE: u8 = 255;
/// Most symbols a table holds (codes `0..=254`).
pub const MAX_SYMBOLS: usize = 255;
/// Longest symbol, in bytes.
pub const MAX_SYMBOL_LEN: usize = 8;

/// The low `len` bytes of a word, by `len`; 16 entries so that `len & 15` indexes without a check.
const MASKS: [u64; 16] = {
    let mut m = [0u64; 16];
    let mut len = 1;
    while len < 8 {
        m[len] = (1u64 << (8 * len)) - 1;
        len += 1;
    }
    m[8] = u64::MAX;
    m
};

/// Hash slots for symbols of 3 or more bytes (the paper's size: with the pair table, stays in L2).
const HASH_BITS: u32 = 10;
const HASH_SLOTS: usize = 1 << HASH_BITS;

/// The slot of a word's first three bytes.
#[inline(always)]
fn hash3(word: u64) -> usize {
    ((word & 0xFF_FFFF).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - HASH_BITS)) as usize
}

/// A match: the code in the low byte, the length it covers in the high byte.
const fn entry(code: u8, len: usize) -> u16 {
    code as u16 | (len as u16) << 8
}

/// No symbol: escape one byte.
const ESCAPE_ENTRY: u16 = entry(ESCAPE, 1);

/// The word of up to 8 bytes at `i < input.len()` (zero past the end) and how many of them are input.
#[inline(always)]
fn word_at(input: &[u8], i: usize) -> (u64, usize) {
    let load = |b: &[u8]| u64::from_le_bytes(b.try_into().expect("8 bytes"));
    if let Some(b) = input.get(i..i + 8) {
        (load(b), 8)
    } else if let Some(last) = input.len().checked_sub(8) {
        // The last 8 bytes, shifted down: no copy of a variable length.
        let avail = input.len() - i;
        (load(&input[last..]) >> (8 * (8 - avail)), avail)
    } else {
        let rest = &input[i..];
        let mut b = [0u8; 8];
        b[..rest.len()].copy_from_slice(rest);
        (u64::from_le_bytes(b), rest.len())
    }
}

/// The lookup structures of compression.
#[derive(Clone)]
struct Matcher {
    /// Symbols of 3..=8 bytes by the hash of their first three bytes; `u64::MAX` in empty slots.
    long_sym: [u64; HASH_SLOTS],
    /// The low bytes of a word a slot's symbol covers; 0 in empty slots. Stored, not looked up by the
    /// entry's length: the match waits on one load after the hash instead of two in a row.
    long_mask: [u64; HASH_SLOTS],
    /// The match of each slot; length 0 in empty slots, whose mask (0) then never equals `u64::MAX`.
    long_entry: [u16; HASH_SLOTS],
    /// By the first two bytes, the first one high ([`pair_index`]): the 2-byte symbol, else the 1-byte
    /// symbol of the first byte, else the escape. The pairs of one first byte lie together, so training
    /// indexes only the first bytes its sample holds.
    pair: Box<[u16; 1 << 16]>,
    /// By the first byte: its 1-byte symbol, else the escape (for the last byte of an input).
    byte: [u16; 256],
}

/// The place of a word's first two bytes in [`Matcher::pair`]: the first byte high.
#[inline(always)]
fn pair_index(word: u64) -> usize {
    (word as u16).swap_bytes() as usize
}

/// Which of the 256 byte values a set of inputs holds.
type ByteSet = [bool; 256];

const EVERY_BYTE: ByteSet = [true; 256];

impl Matcher {
    /// The matcher of a table, for any input.
    fn new(symbols: &[u64], lengths: &[u8]) -> Box<Matcher> {
        Matcher::for_bytes(symbols, lengths, &EVERY_BYTE)
    }

    /// The matcher of a table, for inputs whose bytes all lie in `bytes` (see [`Matcher::index`]).
    fn for_bytes(symbols: &[u64], lengths: &[u8], bytes: &ByteSet) -> Box<Matcher> {
        let mut m = Box::new(Matcher {
            long_sym: [u64::MAX; HASH_SLOTS],
            long_mask: [0; HASH_SLOTS],
            long_entry: [0; HASH_SLOTS],
            pair: vec![0u16; 1 << 16].into_boxed_slice().try_into().expect("65,536 entries"),
            byte: [ESCAPE_ENTRY; 256],
        });
        m.index(symbols, lengths, bytes);
        m
    }

    /// Indexes a table in place, for inputs whose bytes all lie in `bytes`: the pair entries of other
    /// first bytes keep what they held (training indexes a table a generation, and its sample seldom
    /// holds more than a hundred byte values). Where two symbols want one place (duplicates, or two long
    /// symbols in one hash slot) the lower code keeps it: compression stays correct and only leaves the
    /// other one unused.
    fn index(&mut self, symbols: &[u64], lengths: &[u8], bytes: &ByteSet) {
        self.long_sym.fill(u64::MAX);
        self.long_mask.fill(0);
        self.long_entry.fill(0);
        self.byte.fill(ESCAPE_ENTRY);
        let table = || symbols.iter().zip(lengths).enumerate().map(|(code, (&s, &l))| (code as u8, s, l as usize));
        for (code, s, _) in table().filter(|t| t.2 == 1) {
            if self.byte[s as usize] == ESCAPE_ENTRY {
                self.byte[s as usize] = entry(code, 1);
            }
        }
        for (first, pairs) in self.pair.chunks_exact_mut(256).enumerate() {
            if bytes[first] {
                pairs.fill(self.byte[first]);
            }
        }
        for (code, s, _) in table().filter(|t| t.2 == 2 && bytes[t.1 as u8 as usize]) {
            let at = pair_index(s);
            if self.pair[at] >> 8 != 2 {
                self.pair[at] = entry(code, 2);
            }
        }
        for (code, s, l) in table().filter(|t| t.2 >= 3) {
            let h = hash3(s);
            if self.long_entry[h] == 0 {
                self.long_sym[h] = s;
                self.long_mask[h] = MASKS[l];
                self.long_entry[h] = entry(code, l);
            }
        }
    }

    /// The longest match at the start of `word`, all 8 bytes of it read as input.
    #[inline(always)]
    fn longest(&self, word: u64) -> u16 {
        let h = hash3(word);
        let e = self.long_entry[h];
        let p = self.pair[pair_index(word)];
        // A select, not a branch: whether a long symbol matches is as good as random.
        let hit = (word & self.long_mask[h] == self.long_sym[h]) as u16;
        let mask = hit.wrapping_neg();
        e & mask | p & !mask
    }

    /// The longest match at the start of `word`, of which only the first `avail` (1..=8) bytes are input.
    #[inline]
    fn longest_within(&self, word: u64, avail: usize) -> u16 {
        let h = hash3(word);
        let e = self.long_entry[h];
        let len = (e >> 8) as usize;
        if len <= avail && word & MASKS[len & 15] == self.long_sym[h] {
            return e;
        }
        let p = self.pair[pair_index(word)];
        if (p >> 8) as usize <= avail {
            p
        } else {
            self.byte[word as u8 as usize]
        }
    }
}

/// Everything decompression needs: 256 symbols and lengths by code (2.3 KiB). Codes without a symbol
/// have length 0, so they decode as nothing without a branch.
#[derive(Clone, PartialEq, Eq)]
pub struct Decoder {
    /// Symbol bytes by code, little-endian; 0 for codes without a symbol.
    symbols: [u64; 256],
    /// Symbol lengths by code; 0 for codes without a symbol and for the escape.
    lengths: [u8; 256],
    /// Number of symbols.
    n: usize,
}

impl Decoder {
    /// The decoder of a stored table: `symbols[c]` holds the bytes of code `c` little-endian (bytes
    /// above its length zero), `lengths[c]` its length. `None` when the parts are not a valid table:
    /// different lengths, more than [`MAX_SYMBOLS`] symbols, a length outside `1..=8`, or bytes set
    /// above a symbol's length. Copies 2.3 KiB; cheap enough for every segment opened.
    pub fn from_parts(symbols: &[u64], lengths: &[u8]) -> Option<Decoder> {
        let mut d = Decoder::EMPTY;
        d.fill(symbols.iter().copied(), lengths).then_some(d)
    }

    /// [`Decoder::from_parts`] of symbols stored as 8 little-endian bytes each, boxed: opening a stored
    /// table then builds it where it stays, with no copy of its 2.3 KiB on the way.
    pub fn boxed_from_le_bytes(symbols: &[u8], lengths: &[u8]) -> Option<Box<Decoder>> {
        let mut d = Box::new(Decoder::EMPTY);
        let words = symbols.chunks_exact(8).map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")));
        (symbols.len() == 8 * lengths.len() && d.fill(words, lengths)).then_some(d)
    }

    const EMPTY: Decoder = Decoder { symbols: [0; 256], lengths: [0; 256], n: 0 };

    /// Sets an empty decoder's symbols; false where they are not a valid table.
    fn fill(&mut self, symbols: impl ExactSizeIterator<Item = u64>, lengths: &[u8]) -> bool {
        if symbols.len() != lengths.len() || lengths.len() > MAX_SYMBOLS {
            return false;
        }
        for (code, (s, &l)) in symbols.zip(lengths).enumerate() {
            if !(1..=MAX_SYMBOL_LEN as u8).contains(&l) || s & !MASKS[l as usize] != 0 {
                return false;
            }
            self.symbols[code] = s;
            self.lengths[code] = l;
        }
        self.n = lengths.len();
        true
    }

    /// The symbols, code order.
    pub fn symbols(&self) -> &[u64] {
        &self.symbols[..self.n]
    }

    /// The symbols' lengths, code order.
    pub fn lengths(&self) -> &[u8] {
        &self.lengths[..self.n]
    }

    /// An upper bound of the decoded length of `codes`: 8 bytes a code.
    #[inline]
    pub fn decoded_len_bound(codes: &[u8]) -> usize {
        codes.len().saturating_mul(MAX_SYMBOL_LEN)
    }

    /// Appends the decoded bytes of `codes` to `out`. Takes any bytes: codes without a symbol decode as
    /// nothing and a trailing lone escape is dropped, so at most [`Decoder::decoded_len_bound`] bytes are
    /// appended. Reserves that bound in `out` first (the loop writes 8 bytes a symbol, past the end).
    pub fn decompress_into(&self, codes: &[u8], out: &mut Vec<u8>) {
        let bound = Self::decoded_len_bound(codes);
        out.reserve(bound);
        let start = out.len();
        // Cannot overflow: `start + bound` is within the capacity just reserved.
        let limit = start + bound;
        let dst = out.as_mut_ptr();
        // Invariant at the top of each step: `pos <= start + 8 * i` (a code adds at most 8 to `pos`, an
        // escape and its literal 1), so the next `m <= codes.len() - i` codes write within
        // `pos + 8 * m <= start + 8 * (i + m) <= limit`.
        let mut pos = start;
        let mut i = 0;
        loop {
            // Eight, then four codes at a time while none is an escape (about 12% faster than four only).
            while let Some(group) = codes.get(i..i + 8) {
                let q = u64::from_le_bytes(group.try_into().expect("8 bytes"));
                if has_escape(q) {
                    break;
                }
                debug_assert!(pos + 64 <= limit);
                // SAFETY: `pos + 64 <= limit <= out.capacity()` by the invariant, codes `i..i + 8` in bounds.
                pos = unsafe { self.put_symbols::<8>(dst, pos, q) };
                i += 8;
            }
            while let Some(group) = codes.get(i..i + 4) {
                // The high bytes are zero, not escapes.
                let q = u32::from_le_bytes(group.try_into().expect("4 bytes")) as u64;
                if has_escape(q) {
                    break;
                }
                debug_assert!(pos + 32 <= limit);
                // SAFETY: `pos + 32 <= limit <= out.capacity()` by the invariant, codes `i..i + 4` in bounds.
                pos = unsafe { self.put_symbols::<4>(dst, pos, q) };
                i += 4;
            }
            // One code: an escape, or one of the last three.
            let Some(&c) = codes.get(i) else { break };
            if c == ESCAPE {
                if let Some(&literal) = codes.get(i + 1) {
                    debug_assert!(pos < limit);
                    // SAFETY: `pos <= start + 8 * i < limit <= out.capacity()` (the invariant, `i` in bounds).
                    unsafe { dst.add(pos).write(literal) };
                    pos += 1;
                }
                i += 2;
            } else {
                debug_assert!(pos + 8 <= limit);
                // SAFETY: `pos + 8 <= limit <= out.capacity()` by the invariant, code `i` in bounds.
                pos = unsafe { self.put_symbols::<1>(dst, pos, c as u64) };
                i += 1;
            }
        }
        debug_assert!(pos <= limit);
        // SAFETY: `pos <= limit <= out.capacity()`, and every byte of `start..pos` was written: each step
        // advances `pos` by no more than the bytes it wrote at `pos`.
        unsafe { out.set_len(pos) };
    }

    /// Writes the symbols of the `N` codes in `q` (first in the low byte, none an escape) as 8 bytes each
    /// from `pos` on, each after the last one's length; returns the position after the last one.
    ///
    /// # Safety
    ///
    /// `dst` must be valid for writes of bytes `pos..pos + 8 * N` past it.
    #[inline(always)]
    unsafe fn put_symbols<const N: usize>(&self, dst: *mut u8, mut pos: usize, q: u64) -> usize {
        for k in 0..N {
            let c = (q >> (8 * k)) as u8 as usize;
            // SAFETY: code `k` starts at most `8 * k` after the first (lengths are at most 8), so its 8
            // bytes end by the first position plus `8 * N`, which the caller makes writable.
            unsafe { dst.add(pos).cast::<[u8; 8]>().write_unaligned(self.symbols[c].to_le_bytes()) };
            pos += self.lengths[c] as usize;
        }
        pos
    }
}

impl fmt::Debug for Decoder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Decoder").field("symbols", &self.symbols()).field("lengths", &self.lengths()).finish()
    }
}

/// Whether any byte of `q` is [`ESCAPE`] (a zero byte of `!q`, by the classic bit trick; exact).
#[inline(always)]
fn has_escape(q: u64) -> bool {
    let x = !q;
    x.wrapping_sub(0x0101_0101_0101_0101) & !x & 0x8080_8080_8080_8080 != 0
}

/// A symbol table: up to 255 symbols of 1 to 8 bytes, with what compression and decompression need.
#[derive(Clone)]
pub struct SymbolTable {
    decoder: Decoder,
    matcher: Box<Matcher>,
}

impl SymbolTable {
    /// Trains a table on a sample of `strings` (see the module doc). Deterministic: the same strings give
    /// the same table. Empty input, or only empty strings, gives a table of no symbols (everything
    /// escapes), which is valid.
    pub fn train(strings: &[&[u8]]) -> SymbolTable {
        let (table, mut matcher) = train::train(strings);
        let (symbols, lengths): (Vec<u64>, Vec<u8>) = table.into_iter().unzip();
        let decoder = Decoder::from_parts(&symbols, &lengths).expect("training makes valid tables");
        // Training's matcher, indexed for any input: one 128 KiB table fewer to allocate and free.
        matcher.index(&symbols, &lengths, &EVERY_BYTE);
        SymbolTable { decoder, matcher }
    }

    /// Rebuilds a table from stored parts (see [`Decoder::from_parts`], which is all decompression needs
    /// and much cheaper: this one also fills 138 KiB of compression lookup tables). `None` when they are
    /// not a valid table.
    pub fn from_parts(symbols: &[u64], lengths: &[u8]) -> Option<SymbolTable> {
        let decoder = Decoder::from_parts(symbols, lengths)?;
        Some(SymbolTable { matcher: Matcher::new(symbols, lengths), decoder })
    }

    /// The symbols, code order: little-endian bytes, unused high bytes zero.
    pub fn symbols(&self) -> &[u64] {
        self.decoder.symbols()
    }

    /// The symbols' lengths (`1..=8`), code order.
    pub fn lengths(&self) -> &[u8] {
        self.decoder.lengths()
    }

    /// Number of symbols.
    pub fn len(&self) -> usize {
        self.decoder.n
    }

    /// Whether the table has no symbols (every byte escapes).
    pub fn is_empty(&self) -> bool {
        self.decoder.n == 0
    }

    /// The decoder of this table.
    pub fn decoder(&self) -> &Decoder {
        &self.decoder
    }

    /// An upper bound of the compressed length of `input_len` bytes: 2 a byte (all escapes).
    pub fn compressed_len_bound(input_len: usize) -> usize {
        input_len.saturating_mul(2)
    }

    /// Appends the codes of `input` to `out`, greedy longest match.
    pub fn compress_into(&self, input: &[u8], out: &mut Vec<u8>) {
        let bound = Self::compressed_len_bound(input.len());
        out.reserve(bound);
        // Into the spare capacity: zeroing twice the row's length first would be writes for nothing.
        let mut row = Row::new(input, &mut out.spare_capacity_mut()[..bound]);
        row.finish(&self.matcher);
        let written = row.o;
        // SAFETY: the row wrote every byte of the first `written` of the spare capacity.
        unsafe { out.set_len(out.len() + written) };
    }

    /// Appends the codes of each input to `out`, one after the other (as [`SymbolTable::compress_into`]
    /// each), and calls `end` with `out`'s length after each.
    ///
    /// Each match waits on the one before it (a load, a hash, loads, the length), so one input's chain
    /// leaves the core mostly idle. The inputs are copied back to back into batches of about
    /// `BATCH_BYTES`, each batch is cut into `LANES` runs of whole inputs of about equal bytes, and the
    /// runs' chains advance side by side. Inside a batch a word read near an input's end takes the next
    /// input's bytes, masked off: the last bytes of an input match as the first ones do, without a
    /// branch on how many are left.
    pub fn compress_all<'s>(
        &self,
        inputs: impl IntoIterator<Item = &'s [u8]>,
        out: &mut Vec<u8>,
        mut end: impl FnMut(usize),
    ) {
        let mut inputs = inputs.into_iter();
        let mut batch = Batch::default();
        loop {
            batch.clear();
            let mut long = None;
            for input in inputs.by_ref() {
                if input.len() > LONG_INPUT {
                    long = Some(input);
                    break;
                }
                batch.push(input);
                if batch.len() >= BATCH_BYTES {
                    break;
                }
            }
            if batch.starts.len() > 1 {
                batch.compress(&self.matcher, out, &mut end);
            }
            match long {
                Some(input) => {
                    self.compress_into(input, out);
                    end(out.len());
                }
                None if batch.starts.len() == 1 => return,
                None => {}
            }
        }
    }

    /// Appends the decoded bytes of `codes` to `out` (see [`Decoder::decompress_into`]).
    pub fn decompress_into(&self, codes: &[u8], out: &mut Vec<u8>) {
        self.decoder.decompress_into(codes, out)
    }
}

/// Input bytes compressed together by [`SymbolTable::compress_all`], about this many at a time: with
/// their codes and the lookup tables' hot part, the batch stays near the core.
const BATCH_BYTES: usize = 8 << 10;
/// Inputs longer than this are compressed on their own: a batch stays small, and its code ends fit in a
/// `u32`.
const LONG_INPUT: usize = 64 << 10;
/// Chains of matches advanced side by side: enough to cover a match's latency, few enough that their
/// state stays in registers.
const LANES: usize = 4;

/// Inputs copied back to back, with room to read a word at any of their positions.
#[derive(Default)]
struct Batch {
    /// The inputs' bytes, then at least [`MAX_SYMBOL_LEN`] more (of any value).
    bytes: Vec<u8>,
    /// By position in `bytes` plus 8: 8 times the bytes of the word read there that are not its input's
    /// (a shift up and back down clears them). All 0 between batches; each input's last 8 positions are
    /// set for a batch and put back after it.
    shifts: Vec<u8>,
    /// Where each input starts in `bytes`, then where the last one ends.
    starts: Vec<usize>,
    /// Codes: each lane's inputs write from twice the position of its first input (an input's codes take
    /// at most two bytes a byte).
    codes: Vec<u8>,
    /// By position in `bytes`: where the codes end when a lane's match ends there. Every input's end
    /// is such a position, as no match crosses one.
    code_end: Vec<u32>,
}

impl Batch {
    fn clear(&mut self) {
        self.starts.clear();
        self.starts.push(0);
    }

    /// The inputs' bytes.
    fn len(&self) -> usize {
        self.starts[self.starts.len() - 1]
    }

    #[inline]
    fn push(&mut self, input: &[u8]) {
        let (at, end) = (self.len(), self.len() + input.len());
        if self.bytes.len() < end + MAX_SYMBOL_LEN {
            // Doubling, from what the inputs need: a call with a few short inputs zeroes a few bytes.
            self.bytes.resize((end + MAX_SYMBOL_LEN).max(2 * self.bytes.len()), 0);
        }
        copy_short(input, &mut self.bytes[at..end + MAX_SYMBOL_LEN]);
        self.starts.push(end);
    }

    /// Appends the codes of the batch's inputs to `out`, calling `end` after each.
    fn compress(&mut self, m: &Matcher, out: &mut Vec<u8>, end: &mut impl FnMut(usize)) {
        let (total, n) = (self.len(), self.starts.len() - 1);
        if self.codes.len() < 2 * total {
            self.codes.resize(2 * total, 0);
        }
        if self.code_end.len() <= total {
            self.code_end.resize(total + 1, 0);
        }
        if self.shifts.len() < total + 8 {
            self.shifts.resize(total + 8, 0);
        }
        // Each input's last 8 positions count up to its end; from the last input back, so that an
        // input's own end writes its positions last (a short input's next one wrote over some of them).
        for &at in self.starts[1..].iter().rev() {
            self.shifts[at..at + 8].copy_from_slice(&[0, 8, 16, 24, 32, 40, 48, 56]);
        }
        // Lane `l` takes the inputs from the first one that starts at or after `l / LANES` of the bytes.
        let mut first = [n; LANES + 1];
        for (l, f) in first.iter_mut().enumerate().take(LANES) {
            *f = self.starts[..n].partition_point(|&s| s < l * total / LANES);
        }
        let start: [usize; LANES + 1] = std::array::from_fn(|l| self.starts[first[l]]);
        let mut pos: [usize; LANES] = std::array::from_fn(|l| start[l]);
        let mut o: [usize; LANES] = std::array::from_fn(|l| 2 * start[l]);
        // Raw pointers: the step is a handful of instructions, and a bounds check on each access took as
        // many again.
        let (bytes, shifts) = (self.bytes.as_ptr(), self.shifts.as_ptr());
        let (codes, code_end) = (self.codes.as_mut_ptr(), self.code_end.as_mut_ptr());
        // One match at `pos < total`, in an input with bytes left.
        let step = |pos: &mut usize, o: &mut usize| {
            let p = *pos;
            // SAFETY: `p < total`; `bytes` holds `total + 8` bytes and `shifts` at least as many. A match is
            // at least 1 byte and at most `avail`, the bytes left in its input, so `pos` stays within its
            // lane's inputs (`<= total`, and `code_end` holds `total + 1`); a lane's codes, at most two a
            // byte read, start at twice its first position, so `o + 1 < 2 * p + 2 <= 2 * total`, the
            // length of `codes`.
            unsafe {
                let shift = *shifts.add(p + 8) as u32;
                // The input's bytes only: past its end, zeros (the next input's bytes are not its own).
                let word = bytes.add(p).cast::<u64>().read_unaligned().to_le() << shift >> shift;
                let mut e = m.longest(word);
                let avail = 8 - (shift / 8) as usize;
                if (e >> 8) as usize > avail {
                    // Only a symbol that holds zero bytes matches past the end: the careful match.
                    e = m.longest_within(word, avail);
                }
                // The literal goes after the code unconditionally; it stays only after an escape.
                *codes.add(*o) = e as u8;
                *codes.add(*o + 1) = word as u8;
                *o += 1 + (e == ESCAPE_ENTRY) as usize;
                *pos = p + (e >> 8) as usize;
                *code_end.add(*pos) = *o as u32;
            }
        };
        while (0..LANES).all(|l| pos[l] < start[l + 1]) {
            for l in 0..LANES {
                step(&mut pos[l], &mut o[l]);
            }
        }
        for l in 0..LANES {
            while pos[l] < start[l + 1] {
                step(&mut pos[l], &mut o[l]);
            }
        }
        for &at in &self.starts[1..] {
            self.shifts[at..at + 8].fill(0);
        }
        for l in 0..LANES {
            let base = out.len();
            out.extend_from_slice(&self.codes[2 * start[l]..o[l]]);
            for &at in &self.starts[first[l] + 1..=first[l + 1]] {
                // Inputs that end where the lane starts are empty.
                let e = if at == start[l] { 2 * start[l] } else { self.code_end[at] as usize };
                end(base + e - 2 * start[l]);
            }
        }
    }
}

/// Copies `src` to the start of `dst`. Inputs are mostly short, and a call to `memcpy` for each took
/// longer than the copy: up to 32 bytes go as two overlapping pieces of the largest size that fits.
#[inline(always)]
fn copy_short(src: &[u8], dst: &mut [u8]) {
    let n = src.len();
    match n {
        0 => {}
        1..=3 => {
            dst[0] = src[0];
            dst[n / 2] = src[n / 2];
            dst[n - 1] = src[n - 1];
        }
        4..=7 => {
            dst[..4].copy_from_slice(&src[..4]);
            dst[n - 4..n].copy_from_slice(&src[n - 4..]);
        }
        8..=16 => {
            dst[..8].copy_from_slice(&src[..8]);
            dst[n - 8..n].copy_from_slice(&src[n - 8..]);
        }
        17..=32 => {
            dst[..16].copy_from_slice(&src[..16]);
            dst[n - 16..n].copy_from_slice(&src[n - 16..]);
        }
        _ => dst[..n].copy_from_slice(src),
    }
}

/// One input being compressed into its codes' space (at least [`SymbolTable::compressed_len_bound`]):
/// `i` bytes read, `o` codes written (`o <= 2 * i`: a step reads at least one byte and writes at most two
/// codes).
struct Row<'a, 'b> {
    input: &'a [u8],
    buf: &'b mut [MaybeUninit<u8>],
    i: usize,
    o: usize,
}

impl<'a, 'b> Row<'a, 'b> {
    fn new(input: &'a [u8], buf: &'b mut [MaybeUninit<u8>]) -> Self {
        debug_assert!(buf.len() >= SymbolTable::compressed_len_bound(input.len()));
        Row { input, buf, i: 0, o: 0 }
    }

    /// Writes the code of match `e` (and the literal after an escape) and moves past it.
    #[inline(always)]
    fn put(&mut self, e: u16, word: u64) {
        // The literal goes after the code unconditionally; it stays only after an escape.
        self.buf[self.o].write(e as u8);
        self.buf[self.o + 1].write(word as u8);
        self.o += 1 + (e == ESCAPE_ENTRY) as usize;
        self.i += (e >> 8) as usize;
    }

    /// One match where at least 8 bytes are left (`i + 8 <= input.len()`).
    #[inline(always)]
    fn step(&mut self, m: &Matcher) {
        let word = u64::from_le_bytes(self.input[self.i..self.i + 8].try_into().expect("8 bytes"));
        self.put(m.longest(word), word);
    }

    /// The rest of the input.
    #[inline(always)]
    fn finish(&mut self, m: &Matcher) {
        while self.i + 8 <= self.input.len() {
            self.step(m);
        }
        while self.i < self.input.len() {
            // The bytes past the input read as zeros, which only a symbol holding zero bytes matches: its
            // length then tells, and the careful match runs. Text never gets there, and its last codes
            // take no branch that data decides.
            let (word, avail) = word_at(self.input, self.i);
            let e = m.longest(word);
            let e = if (e >> 8) as usize <= avail { e } else { m.longest_within(word, avail) };
            self.put(e, word);
        }
    }
}

impl PartialEq for SymbolTable {
    fn eq(&self, other: &Self) -> bool {
        self.decoder == other.decoder
    }
}

impl Eq for SymbolTable {}

impl fmt::Debug for SymbolTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SymbolTable").field("symbols", &self.symbols()).field("lengths", &self.lengths()).finish()
    }
}

/// Table construction.
mod train {
    use super::*;
    use std::hash::{BuildHasherDefault, Hasher};

    /// Sample size aimed at, in bytes.
    pub(super) const SAMPLE_TARGET: usize = 32 << 10;
    /// Strings longer than this are sampled by pieces of this size.
    const SAMPLE_LINE: usize = 512;
    /// Generations of counting and rebuilding.
    const GENERATIONS: usize = 8;
    /// Code space while counting: symbols `0..n`, then each byte as an escape at `256 + byte`.
    const CODES: usize = 512;

    /// splitmix64: a fixed-seed generator, so that training is deterministic.
    pub(super) fn mix(mut x: u64) -> u64 {
        x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
        x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        x ^ (x >> 31)
    }

    /// All of `strings` (in pieces) when small, else random pieces until the target size.
    fn sample<'a>(strings: &[&'a [u8]]) -> Vec<&'a [u8]> {
        let total: usize = strings.iter().map(|s| s.len()).sum();
        let target = SAMPLE_TARGET;
        if total <= target {
            return strings.iter().flat_map(|s| s.chunks(SAMPLE_LINE)).collect();
        }
        let mut lines = Vec::new();
        let (mut bytes, mut misses, mut state) = (0, 0, 0u64);
        let mut below = |n: usize| {
            state = mix(state);
            ((state as u128 * n as u128) >> 64) as usize
        };
        // Each round adds a byte or counts an empty string, so the loop ends.
        while bytes < target && misses < 4 * target {
            let s = strings[below(strings.len())];
            if s.is_empty() {
                misses += 1;
                continue;
            }
            let line = if s.len() > SAMPLE_LINE {
                let at = below(s.len().div_ceil(SAMPLE_LINE)) * SAMPLE_LINE;
                &s[at..s.len().min(at + SAMPLE_LINE)]
            } else {
                s
            };
            bytes += line.len();
            lines.push(line);
        }
        // Mostly empty strings: the non-empty ones in order.
        for line in strings.iter().flat_map(|s| s.chunks(SAMPLE_LINE)) {
            if bytes >= target {
                break;
            }
            bytes += line.len();
            lines.push(line);
        }
        lines
    }

    /// A multiplicative hash of a candidate's symbol and length (SipHash costs more than the rest of a
    /// generation's table building).
    #[derive(Default)]
    struct SymbolHasher(u64);

    impl Hasher for SymbolHasher {
        fn finish(&self) -> u64 {
            self.0
        }

        fn write(&mut self, bytes: &[u8]) {
            for &b in bytes {
                self.write_u64(b as u64);
            }
        }

        fn write_u64(&mut self, v: u64) {
            self.0 = (self.0.rotate_left(26) ^ v).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }

        fn write_u8(&mut self, v: u8) {
            self.write_u64(v as u64);
        }
    }

    /// Occurrences of codes and of pairs of consecutive codes in a share of the sample.
    struct Counts {
        single: Vec<u32>,
        /// Pairs `a * CODES + b` by open addressing: a few thousand distinct pairs in a sample of text
        /// stay in a table of some KiB, where a direct array of all 512 x 512 would cost page faults.
        pair_keys: Vec<u32>,
        pair_counts: Vec<u32>,
        pairs: usize,
    }

    /// An empty slot of `pair_keys`.
    const NO_PAIR: u32 = u32::MAX;

    impl Counts {
        /// Counts for a sample of `bytes` bytes: each byte counts at most two pairs, and a table that
        /// fills up grows, so a short sample's table stays as short to scan.
        fn new(bytes: usize) -> Counts {
            let slots = (4 * bytes).next_power_of_two().clamp(64, 4096);
            Counts { single: vec![0; CODES], pair_keys: vec![NO_PAIR; slots], pair_counts: vec![0; slots], pairs: 0 }
        }

        fn reset(&mut self) {
            self.single.fill(0);
            self.pair_keys.fill(NO_PAIR);
            self.pairs = 0;
        }

        #[inline]
        fn bump_pair(&mut self, a: usize, b: usize) {
            let key = (a * CODES + b) as u32;
            let mask = self.pair_keys.len() - 1;
            let mut i = (key as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) as usize >> 40 & mask;
            loop {
                let k = self.pair_keys[i];
                if k == key {
                    self.pair_counts[i] += 1;
                    return;
                }
                if k == NO_PAIR {
                    self.pair_keys[i] = key;
                    self.pair_counts[i] = 1;
                    self.pairs += 1;
                    if 2 * self.pairs > self.pair_keys.len() {
                        self.grow();
                    }
                    return;
                }
                i = (i + 1) & mask;
            }
        }

        #[cold]
        fn grow(&mut self) {
            let old: Vec<(u32, u32)> = self.pairs().collect();
            let size = self.pair_keys.len() * 2;
            self.pair_keys = vec![NO_PAIR; size];
            self.pair_counts = vec![0; size];
            let mask = size - 1;
            for (key, n) in old {
                let mut i = (key as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) as usize >> 40 & mask;
                while self.pair_keys[i] != NO_PAIR {
                    i = (i + 1) & mask;
                }
                self.pair_keys[i] = key;
                self.pair_counts[i] = n;
            }
        }

        /// The counted pairs, `(a * CODES + b, count)`.
        fn pairs(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
            self.pair_keys.iter().zip(&self.pair_counts).filter(|(&k, _)| k != NO_PAIR).map(|(&k, &n)| (k, n))
        }

        /// Compresses the lines picked for share `frac` (of 128) with `m`, counting; returns the bytes
        /// saved (input minus codes) and the bytes read.
        fn count(&mut self, lines: &[&[u8]], m: &Matcher, frac: u64, all: bool) -> (i64, i64) {
            let (mut saved, mut read) = (0i64, 0i64);
            for (j, line) in lines.iter().enumerate() {
                if !all && mix(j as u64 ^ 0x5A5A) % 128 >= frac {
                    continue;
                }
                read += line.len() as i64;
                let mut prev = None;
                let mut i = 0;
                while i < line.len() {
                    let (word, avail) = word_at(line, i);
                    let e = m.longest_within(word, avail);
                    let len = (e >> 8) as usize;
                    let first = 256 + word as u8 as usize;
                    let code = if e == ESCAPE_ENTRY { first } else { e as u8 as usize };
                    self.single[code] += 1;
                    // The first byte alone is the alternative to a longer symbol: count it too.
                    if len > 1 {
                        self.single[first] += 1;
                    }
                    if let Some(p) = prev {
                        self.bump_pair(p, code);
                        if len > 1 {
                            self.bump_pair(p, first);
                        }
                    }
                    saved += len as i64 - 1 - (e == ESCAPE_ENTRY) as i64;
                    prev = Some(code);
                    i += len;
                }
            }
            (saved, read)
        }
    }

    /// The next table: candidates are the counted symbols and bytes, and (with `pairs`) each counted pair
    /// joined into one symbol (cut to 8 bytes); the 255 with the highest gain win, where they fit.
    fn make_table(table: &[(u64, u8)], counts: &Counts, frac: u64, pairs: bool) -> Vec<(u64, u8)> {
        let symbol = |c: usize| if c >= 256 { ((c - 256) as u64, 1u8) } else { table[c] };
        // Rare candidates are noise: fewer than 5 in the whole sample (scaled by the share counted).
        let min = 5 * frac / 128;
        let mut gains: HashMap<(u64, u8), u64, BuildHasherDefault<SymbolHasher>> =
            HashMap::with_capacity_and_hasher(CODES + if pairs { counts.pairs } else { 0 }, Default::default());
        for (c, &n) in counts.single.iter().enumerate() {
            let n = n as u64;
            if n == 0 || n < min {
                continue;
            }
            let (s, l) = symbol(c);
            // Single bytes weigh 8 times their count (as in the paper's code): they cut escapes, which
            // cost twice and slow both directions. (Weight 1 gained up to 2% of ratio on text, but left
            // 4 times the escapes on wiki text, decoded 30% slower.)
            *gains.entry((s, l)).or_default() += n * l as u64 * if l == 1 { 8 } else { 1 };
        }
        if pairs {
            for (k, n) in counts.pairs() {
                let n = n as u64;
                let (a, b) = (k as usize / CODES, k as usize % CODES);
                let (s1, l1) = symbol(a);
                if n < min || l1 as usize == MAX_SYMBOL_LEN {
                    continue;
                }
                let (s2, l2) = symbol(b);
                let l = (l1 + l2).min(MAX_SYMBOL_LEN as u8);
                let s = (s1 | s2 << (8 * l1)) & MASKS[l as usize];
                *gains.entry((s, l)).or_default() += n * l as u64;
            }
        }
        let mut ranked: Vec<((u64, u8), u64)> = gains.into_iter().collect();
        // Ties broken by length, then bytes: deterministic whatever the map's order. Most of the 255
        // places go to the first candidates and a few are lost to clashes, so the thousands after the
        // best 512 are sorted only where those do not fill the table.
        let order =
            |(a, ga): &((u64, u8), u64), (b, gb): &((u64, u8), u64)| gb.cmp(ga).then(b.1.cmp(&a.1)).then(a.0.cmp(&b.0));
        let mut byte_used = [false; 256];
        let mut pair_used = [0u64; 1 << 10];
        let mut slot_used = [false; HASH_SLOTS];
        let mut next = Vec::with_capacity(MAX_SYMBOLS);
        for &((s, l), _) in sorted_lazily(&mut ranked, 2 * MAX_SYMBOLS + 2, order) {
            if next.len() == MAX_SYMBOLS {
                break;
            }
            let free = match l {
                1 => !std::mem::replace(&mut byte_used[s as usize], true),
                2 => {
                    let (word, bit) = (s as usize / 64, 1 << (s % 64));
                    let free = pair_used[word] & bit == 0;
                    pair_used[word] |= bit;
                    free
                }
                _ => !std::mem::replace(&mut slot_used[hash3(s)], true),
            };
            if free {
                next.push((s, l));
            }
        }
        next
    }

    /// `items` in `order`: the first `head` sorted at once, the rest only if the caller reads on.
    pub(super) fn sorted_lazily<T>(
        items: &mut [T],
        head: usize,
        order: impl Fn(&T, &T) -> std::cmp::Ordering + Copy,
    ) -> impl Iterator<Item = &T> {
        let head = head.min(items.len());
        if head < items.len() {
            items.select_nth_unstable_by(head, order);
        }
        let (best, rest) = items.split_at_mut(head);
        best.sort_unstable_by(order);
        let rest = std::iter::once(rest).flat_map(move |rest| {
            rest.sort_unstable_by(order);
            let rest: &[T] = rest;
            rest
        });
        best.iter().chain(rest)
    }

    /// The trained table, code order, and the matcher training used (indexed for its sample's bytes).
    pub(super) fn train(strings: &[&[u8]]) -> (Vec<(u64, u8)>, Box<Matcher>) {
        let lines = sample(strings);
        let sample_bytes = lines.iter().map(|l| l.len()).sum::<usize>();
        // Small samples are cheap: every generation counts all of them (shares would be empty).
        let all = sample_bytes < SAMPLE_TARGET / 4;
        let mut bytes = [false; 256];
        for &b in lines.iter().copied().flatten() {
            bytes[b as usize] = true;
        }
        let mut matcher = Matcher::for_bytes(&[], &[], &bytes);
        let mut counts = Counts::new(sample_bytes);
        let mut table: Vec<(u64, u8)> = Vec::new();
        let mut best = (Vec::new(), vec![0; CODES], 128, f64::NEG_INFINITY);
        for generation in 0..GENERATIONS as u64 {
            // Shares of 8/128, 25/128, ... up to all of the sample. The paper's five generations gave
            // 2.98x on l_comment, eight give 3.10x for 60 % more training (1.2 to 2 ms a segment): the
            // TPC-H tables at SF 1 took 220 MiB, then 213 MiB.
            let frac = 8 + 120 * generation / (GENERATIONS as u64 - 1);
            let (symbols, lengths): (Vec<u64>, Vec<u8>) = table.iter().copied().unzip();
            counts.reset();
            matcher.index(&symbols, &lengths, &bytes);
            let (saved, read) = counts.count(&lines, &matcher, frac, all);
            // Bytes saved per byte read: shares of different sizes compare.
            let score = saved as f64 / read as f64;
            if read > 0 && score >= best.3 {
                best = (table.clone(), counts.single.clone(), if all { 128 } else { frac }, score);
            }
            if frac >= 128 {
                break;
            }
            table = make_table(&table, &counts, frac, true);
        }
        // Prune the best table to the symbols it uses, by their own counts.
        let (best, single, frac, _) = best;
        counts.reset();
        counts.single = single;
        (make_table(&best, &counts, frac, false), matcher)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn round_trip(strings: &[&[u8]]) -> (usize, usize) {
        let table = SymbolTable::train(strings);
        let (mut raw, mut packed) = (0, 0);
        let mut codes = Vec::new();
        let mut back = Vec::new();
        for s in strings {
            codes.clear();
            back.clear();
            table.compress_into(s, &mut codes);
            table.decompress_into(&codes, &mut back);
            assert_eq!(&back[..], *s);
            assert!(codes.len() <= SymbolTable::compressed_len_bound(s.len()));
            raw += s.len();
            packed += codes.len();
        }
        // The same through a decoder rebuilt from the stored parts, all strings appended to one buffer.
        let decoder = Decoder::from_parts(table.symbols(), table.lengths()).unwrap();
        let mut all_codes = Vec::new();
        for s in strings {
            table.compress_into(s, &mut all_codes);
        }
        let mut all = vec![7u8; 3];
        decoder.decompress_into(&all_codes, &mut all);
        assert_eq!(&all[..3], &[7, 7, 7]);
        assert_eq!(all[3..], strings.concat());
        (raw, packed)
    }

    /// Deterministic pseudo-random bytes.
    fn noise(n: usize, seed: u64) -> Vec<u8> {
        (0..n as u64).map(|i| (train::mix(i ^ seed) >> 24) as u8).collect()
    }

    /// Words of the TPC-H text grammar (spec 4.2.2.10), unweighted, separated by `|`.
    const NOUNS: &str = "packages|requests|accounts|deposits|foxes|ideas|theodolites|pinto beans|instructions|\
        dependencies|excuses|platelets|asymptotes|courts|dolphins|multipliers|sauternes|warthogs|\
        frets|dinos|attainments|somas|Tiresias|patterns|forges|braids|hockey players|frays|\
        warhorses|dugouts|notornis|epitaphs|pearls|tithes|waters|orbits|gifts|sheaves|depths|\
        sentiments|decoys|realms|pains|grouches|escapades";
    const VERBS: &str = "sleep|wake|are|cajole|haggle|nag|use|boost|affix|detect|integrate|maintain|nod|was|lose|\
        sublate|solve|thrash|promise|engage|hinder|print|x-ray|breach|eat|grow|impress|mold|poach|\
        serve|run|dazzle|snooze|doze|unwind|kindle|play|hang|believe|doubt";
    const ADJECTIVES: &str =
        "furious|sly|careful|blithe|quick|fluffy|slow|quiet|ruthless|thin|close|dogged|daring|brave|\
        stealthy|permanent|enticing|idle|busy|regular|final|ironic|even|bold|silent";
    const ADVERBS: &str = "sometimes|always|never|furiously|slyly|carefully|blithely|quickly|fluffily|slowly|quietly|\
        ruthlessly|thinly|closely|doggedly|daringly|bravely|stealthily|permanently|enticingly|idly|\
        busily|regularly|finally|ironically|evenly|boldly|silently";
    const PREPOSITIONS: &str = "about|above|according to|across|after|against|along|alongside of|among|around|at|atop|\
        before|behind|beneath|beside|besides|between|beyond|by|despite|during|except|for|from|\
        in place of|inside|instead of|into|near|of|on|outside|over|past|since|through|throughout|to|\
        toward|under|until|up|upon|without|with|within";
    const AUXILIARIES: &str =
        "do|may|might|shall|will|would|can|could|should|ought to|must|will have to|shall have to|\
        could have to|should have to|must have to|need to|try to";
    const TERMINATORS: &str = ".|;|:|?|!|--";

    /// A fixed-seed generator for test data.
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, k: usize) -> usize {
            self.0 = train::mix(self.0);
            (((self.0 >> 32) * k as u64) >> 32) as usize
        }

        fn pick(&mut self, words: &mut Vec<&'static str>, list: &'static str) {
            let list: Vec<&'static str> = list.split('|').collect();
            words.push(list[self.below(list.len())]);
        }

        fn noun_phrase(&mut self, words: &mut Vec<&'static str>) {
            match self.below(4) {
                0 => {}
                1 => self.pick(words, ADJECTIVES),
                2 => {
                    self.pick(words, ADJECTIVES);
                    self.pick(words, ADJECTIVES);
                }
                _ => {
                    self.pick(words, ADVERBS);
                    self.pick(words, ADJECTIVES);
                }
            }
            self.pick(words, NOUNS);
        }

        fn prepositional_phrase(&mut self, words: &mut Vec<&'static str>) {
            self.pick(words, PREPOSITIONS);
            words.push("the");
            self.noun_phrase(words);
        }
    }

    /// TPC-H-comment-like strings: substrings of 10 to 43 bytes at random offsets of a text pool made by
    /// the TPC-H grammar (as dbgen makes `l_comment`).
    fn comments(n: usize, seed: u64) -> Vec<Vec<u8>> {
        let mut rng = Rng(seed);
        let mut pool = String::new();
        while pool.len() < 1 << 20 {
            let mut words = Vec::new();
            let shape = rng.below(5);
            rng.noun_phrase(&mut words);
            if shape >= 3 {
                rng.prepositional_phrase(&mut words);
            }
            let v = rng.below(4);
            if v % 2 == 1 {
                rng.pick(&mut words, AUXILIARIES);
            }
            rng.pick(&mut words, VERBS);
            if v >= 2 {
                rng.pick(&mut words, ADVERBS);
            }
            match shape {
                1 | 4 => rng.prepositional_phrase(&mut words),
                2 | 3 => rng.noun_phrase(&mut words),
                _ => {}
            }
            pool.push_str(&words.join(" "));
            let mut end = Vec::new();
            rng.pick(&mut end, TERMINATORS);
            pool.push_str(end[0]);
            pool.push(' ');
        }
        let pool = pool.as_bytes();
        (0..n)
            .map(|_| {
                let len = 10 + rng.below(34);
                let at = rng.below(pool.len() - len);
                pool[at..at + len].to_vec()
            })
            .collect()
    }

    fn refs(v: &[Vec<u8>]) -> Vec<&[u8]> {
        v.iter().map(|s| &s[..]).collect()
    }

    #[test]
    fn empty_input_and_empty_strings() {
        let t = SymbolTable::train(&[]);
        assert!(t.is_empty());
        let t = SymbolTable::train(&[b"", b"", b""]);
        assert!(t.is_empty());
        round_trip(&[b"", b"", b""]);
        let mut codes = Vec::new();
        t.compress_into(b"ab\xff", &mut codes);
        assert_eq!(codes, [ESCAPE, b'a', ESCAPE, b'b', ESCAPE, 0xff]);
        let mut out = Vec::new();
        t.decompress_into(&codes, &mut out);
        assert_eq!(out, b"ab\xff");
    }

    #[test]
    fn one_byte_and_all_byte_values() {
        round_trip(&[b"x"]);
        round_trip(&[b"\0"]);
        let all: Vec<u8> = (0..=255).collect();
        round_trip(&[&all]);
        let many: Vec<u8> = (0..=255u8).cycle().take(100_000).collect();
        round_trip(&[&many, &all, b"\xff\xff\xff"]);
    }

    #[test]
    fn long_repetitive_and_random() {
        let text: Vec<u8> =
            b"the quick brown fox jumps over the lazy dog. ".iter().copied().cycle().take(1 << 20).collect();
        let (raw, packed) = round_trip(&[&text]);
        assert!(packed * 5 < raw, "{raw} -> {packed}");
        let random = noise(1 << 20, 3);
        let (raw, packed) = round_trip(&[&random]);
        assert!(packed >= raw && packed <= 2 * raw, "random bytes do not compress: {raw} -> {packed}");
        // Longer than the sample, made of different halves.
        let mut mixed = noise(3 * train::SAMPLE_TARGET, 9);
        mixed.extend_from_slice(&text[..3 * train::SAMPLE_TARGET]);
        round_trip(&[&mixed, b"tail", &text[..100]]);
    }

    #[test]
    fn mostly_empty_strings() {
        // More bytes than the sample, in few strings among many empty ones: random picks mostly miss,
        // the sample is then filled in order.
        let text = comments(100, 3).concat().repeat(20);
        let mut strings: Vec<&[u8]> = vec![b""; 200_000];
        for (k, piece) in text.chunks(1000).enumerate() {
            strings[k * 1999] = piece;
        }
        let (raw, packed) = round_trip(&strings);
        assert!(raw > train::SAMPLE_TARGET && packed * 2 < raw, "{raw} -> {packed}");
    }

    /// Many batches: every length up to past the copy's short cases, empty inputs in runs (at lanes'
    /// and batches' edges too), inputs longer than a batch and past [`LONG_INPUT`] (compressed on their
    /// own), zero bytes, and a table whose symbols hold zeros, all as one input at a time writes them.
    #[test]
    fn compress_all_over_many_batches_is_compress_into_each() {
        let text = comments(6_000, 11).concat();
        let zeros = [b"ab\0\0c\0".as_slice(), b"\0\0\0\0\0\0\0\0", b"a\0", b"\0"];
        let mut inputs: Vec<&[u8]> = Vec::new();
        let mut at = 0;
        for k in 0..20_000usize {
            let len = match k % 97 {
                0 if k % 5 == 0 => LONG_INPUT + k % 3,
                0 => 3 * BATCH_BYTES + k % 7,
                1..=5 => 0,
                6 => 40 + k % 500,
                _ => k % 37,
            };
            if at + len > text.len() {
                at = 0;
            }
            inputs.push(if k % 89 == 3 { zeros[k % zeros.len()] } else { &text[at..at + len] });
            at += len;
        }
        let zero_symbols = SymbolTable::from_parts(&[0, 0x6100, 0x0062_6100, 0x0a, 0x0000_0063_0000], &[2, 2, 4, 1, 5]);
        for t in [SymbolTable::train(&inputs), zero_symbols.unwrap(), SymbolTable::train(&[])] {
            let (mut expect, mut expect_ends) = (vec![7u8], vec![]);
            for s in &inputs {
                t.compress_into(s, &mut expect);
                expect_ends.push(expect.len());
            }
            let (mut codes, mut ends) = (vec![7u8], vec![]);
            t.compress_all(inputs.iter().copied(), &mut codes, |end| ends.push(end));
            assert_eq!(ends, expect_ends);
            assert!(codes == expect);
        }
    }

    #[test]
    fn utf8_multibyte() {
        let s = "Grüße aus Köln — 日本語のテキスト, ελληνικά, emoji 🦀🦀 ".repeat(200);
        let parts: Vec<&[u8]> = s.as_bytes().chunks(37).collect();
        let (raw, packed) = round_trip(&parts);
        assert!(packed < raw, "{raw} -> {packed}");
    }

    #[test]
    fn training_is_deterministic() {
        let c = comments(5_000, 1);
        assert_eq!(SymbolTable::train(&refs(&c)), SymbolTable::train(&refs(&c)));
    }

    #[test]
    fn a_matcher_indexed_again_over_some_bytes_matches_those_bytes_as_a_new_one() {
        let text = comments(3_000, 3);
        let (trained_on, input) = text.split_at(1_500);
        let table = SymbolTable::train(&refs(trained_on));
        let before = SymbolTable::train(&[&noise(20_000, 9)[..], &comments(500, 4).concat()]);
        let mut bytes = [false; 256];
        input.iter().flatten().for_each(|&b| bytes[b as usize] = true);
        assert!(bytes.iter().filter(|&&b| b).count() < 100, "the input leaves some first bytes out");
        // Indexed over another table first, so that anything left of it shows.
        let mut again = Matcher::new(before.symbols(), before.lengths());
        again.index(table.symbols(), table.lengths(), &bytes);
        let new = Matcher::new(table.symbols(), table.lengths());
        for line in input {
            for i in 0..line.len() {
                let (word, avail) = word_at(line, i);
                assert_eq!(again.longest_within(word, avail), new.longest_within(word, avail), "{line:?} at {i}");
                assert_eq!(again.longest(word), new.longest(word), "{line:?} at {i}");
            }
        }
        // A trained table keeps training's matcher, indexed again for any input: it matches every byte
        // value as a new one does.
        let any = noise(20_000, 11);
        for i in 0..any.len() {
            let (word, avail) = word_at(&any, i);
            assert_eq!(table.matcher.longest_within(word, avail), new.longest_within(word, avail), "at {i}");
        }
    }

    #[test]
    fn sorted_lazily_reads_in_order_whatever_the_head() {
        let items: Vec<u64> = (0..300).map(|i| train::mix(i) % 1_000).collect();
        let mut sorted = items.clone();
        sorted.sort_unstable();
        for head in [0, 1, 7, 299, 300, 301, 1_000] {
            for read in [0, 1, 7, 8, 299, 300] {
                let mut lazily = items.clone();
                let got: Vec<u64> = train::sorted_lazily(&mut lazily, head, u64::cmp).take(read).copied().collect();
                assert_eq!(got, sorted[..read], "head {head}, read {read}");
            }
        }
    }

    #[test]
    fn comment_like_text_compresses() {
        let c = comments(20_000, 42);
        let (raw, packed) = round_trip(&refs(&c));
        let ratio = raw as f64 / packed as f64;
        assert!(ratio > 1.8, "ratio {ratio:.2}");
        // A table trained on other strings of the same kind does about as well.
        let t = SymbolTable::train(&refs(&comments(20_000, 7)));
        let mut codes = Vec::new();
        for s in &c {
            t.compress_into(s, &mut codes);
        }
        assert!(raw as f64 / codes.len() as f64 > 1.8);
    }

    #[test]
    fn parts_round_trip_and_validation() {
        let c = comments(2_000, 5);
        let t = SymbolTable::train(&refs(&c));
        assert!(t.len() > 100);
        assert_eq!(t.symbols().len(), t.len());
        let back = SymbolTable::from_parts(t.symbols(), t.lengths()).unwrap();
        assert_eq!(back, t);
        assert_eq!(back.decoder(), t.decoder());
        for (&s, &l) in t.symbols().iter().zip(t.lengths()) {
            assert!((1..=8).contains(&l) && s & !MASKS[l as usize] == 0);
        }
        let mut a = Vec::new();
        let mut b = Vec::new();
        t.compress_into(&c[0], &mut a);
        back.compress_into(&c[0], &mut b);
        assert_eq!(a, b);

        assert!(SymbolTable::from_parts(&[], &[]).is_some());
        assert!(Decoder::from_parts(&[1, 2], &[1]).is_none(), "different lengths");
        assert!(Decoder::from_parts(&[0x61], &[0]).is_none(), "length 0");
        assert!(Decoder::from_parts(&[0x61], &[9]).is_none(), "length 9");
        assert!(Decoder::from_parts(&[0x6161], &[1]).is_none(), "byte above the length");
        assert!(Decoder::from_parts(&[1 << 56], &[7]).is_none(), "byte above the length");
        assert!(Decoder::from_parts(&[u64::MAX], &[8]).is_some());
        assert!(Decoder::from_parts(&[0; 255], &[1; 255]).is_some());
        assert!(Decoder::from_parts(&[0; 256], &[1; 256]).is_none(), "256 symbols");

        // Stored as 8 little-endian bytes a symbol, they read back as the same decoder, and are checked
        // alike.
        let le = |symbols: &[u64]| symbols.iter().flat_map(|s| s.to_le_bytes()).collect::<Vec<u8>>();
        let stored = Decoder::boxed_from_le_bytes(&le(t.symbols()), t.lengths()).unwrap();
        assert_eq!(*stored, *t.decoder());
        assert!(Decoder::boxed_from_le_bytes(&[], &[]).is_some());
        assert!(Decoder::boxed_from_le_bytes(&le(&[0x61])[..7], &[1]).is_none(), "a symbol cut short");
        assert!(Decoder::boxed_from_le_bytes(&le(&[0x61, 0x62]), &[1]).is_none(), "different lengths");
        assert!(Decoder::boxed_from_le_bytes(&le(&[0x6161]), &[1]).is_none(), "byte above the length");
        assert!(Decoder::boxed_from_le_bytes(&le(&[0x61]), &[0]).is_none(), "length 0");
        assert!(Decoder::boxed_from_le_bytes(&le(&[0; 256]), &[1; 256]).is_none(), "256 symbols");
    }

    /// A table of 255 symbols of 8 bytes: the most output a code can make.
    fn widest() -> SymbolTable {
        let symbols: Vec<u64> = (0..255u64).map(|c| (0x0101_0101_0101_0101 * (c + 1)) ^ (c << 8)).collect();
        SymbolTable::from_parts(&symbols, &[8; 255]).unwrap()
    }

    #[test]
    fn decoding_fills_the_reserved_bound_exactly() {
        // Every code writes its 8 bytes right up to the reserved end (the debug assertions in the kernel
        // check each write against it); odd counts exercise the one-code path at the end.
        let t = widest();
        for n in [1usize, 3, 4, 5, 8, 255, 1001] {
            let codes: Vec<u8> = (0..n).map(|i| (i % 255) as u8).collect();
            let mut out = Vec::new();
            t.decompress_into(&codes, &mut out);
            assert_eq!(out.len(), Decoder::decoded_len_bound(&codes));
            let expect: Vec<u8> = codes.iter().flat_map(|&c| t.symbols()[c as usize].to_le_bytes()).collect();
            assert_eq!(out, expect);
            // Appending after existing bytes, into a buffer with no spare room.
            let mut out = vec![1u8; 5];
            out.shrink_to_fit();
            t.decompress_into(&codes, &mut out);
            assert_eq!(out[5..], expect);
        }
    }

    #[test]
    fn escapes_unused_codes_and_lone_escape() {
        let t = SymbolTable::from_parts(&[0x6261, 0x63], &[2, 1]).unwrap();
        let mut out = Vec::new();
        // Codes 2..=254 are unused: nothing. An escape at the end: dropped.
        t.decompress_into(&[0, 7, ESCAPE, 0xAA, 1, 254, ESCAPE, ESCAPE, 0, ESCAPE], &mut out);
        assert_eq!(out, b"ab\xaac\xffab");
        for codes in [&[ESCAPE][..], &[ESCAPE, ESCAPE, ESCAPE], &[0, 0, 0, ESCAPE], &[0, 0, 0, 0, ESCAPE]] {
            out.clear();
            t.decompress_into(codes, &mut out);
            assert!(out.len() <= Decoder::decoded_len_bound(codes));
        }
        let mut codes = Vec::new();
        t.compress_into(b"abcab\xffa", &mut codes);
        assert_eq!(codes, [0, 1, 0, ESCAPE, 0xff, ESCAPE, b'a']);
    }

    #[test]
    fn tables_with_clashes_still_compress_correctly() {
        // Duplicates and long symbols sharing a prefix (so a hash slot): later ones go unused.
        let syms = [u64::from_le_bytes(*b"abcdefgh"), u64::from_le_bytes(*b"abcd\0\0\0\0"), 0x61, 0x61, 0x6261, 0x6261];
        let t = SymbolTable::from_parts(&syms, &[8, 4, 1, 1, 2, 2]).unwrap();
        for input in [&b"abcdefghabcdxabcab"[..], b"abcdefg", b"abcd", b"a", b"ab", b"abc\0\0\0\0"] {
            let mut codes = Vec::new();
            t.compress_into(input, &mut codes);
            let mut out = Vec::new();
            t.decompress_into(&codes, &mut out);
            assert_eq!(out, input);
        }
        // Symbols with zero bytes must not match the zero padding past the end of an input.
        let t = SymbolTable::from_parts(&[0x61, 0x0061, 0x00_0061], &[1, 2, 3]).unwrap();
        let mut codes = Vec::new();
        t.compress_into(b"a", &mut codes);
        assert_eq!(codes, [0]);
        codes.clear();
        t.compress_into(b"a\0\0a\0", &mut codes);
        assert_eq!(codes, [2, 1]);
    }

    fn strings() -> impl Strategy<Value = Vec<Vec<u8>>> {
        let any = proptest::collection::vec(any::<u8>(), 0..200);
        // Few letters, so that symbols form.
        let letters = proptest::collection::vec(prop_oneof![Just(b'a'), Just(b'b'), Just(b'c'), Just(0u8)], 0..300);
        proptest::collection::vec(prop_oneof![any, letters], 0..40)
    }

    fn tables() -> impl Strategy<Value = SymbolTable> {
        proptest::collection::vec((any::<u64>(), 1..=8u8), 0..=255).prop_map(|parts| {
            let (s, l): (Vec<u64>, Vec<u8>) = parts.into_iter().map(|(s, l)| (s & MASKS[l as usize], l)).unzip();
            SymbolTable::from_parts(&s, &l).unwrap()
        })
    }

    proptest! {
        #[test]
        fn prop_round_trip(strings in strings()) {
            round_trip(&refs(&strings));
        }

        #[test]
        fn prop_round_trip_any_table(table in tables(), strings in strings()) {
            for s in &strings {
                let mut codes = Vec::new();
                table.compress_into(s, &mut codes);
                let mut out = Vec::new();
                table.decompress_into(&codes, &mut out);
                prop_assert_eq!(&out, s);
            }
        }

        /// Two inputs at a time write what one at a time writes, with each input's end, for odd and even
        /// counts, empty and short inputs, and symbols that hold zero bytes (the padded tail's fallback).
        #[test]
        fn prop_compress_all_is_compress_into_each(table in tables(), strings in strings()) {
            for t in [&table, &SymbolTable::train(&refs(&strings))] {
                let (mut expect, mut expect_ends) = (vec![5u8], vec![]);
                for s in &strings {
                    t.compress_into(s, &mut expect);
                    expect_ends.push(expect.len());
                }
                let (mut codes, mut ends) = (vec![5u8], vec![]);
                t.compress_all(strings.iter().map(|s| &s[..]), &mut codes, |end| ends.push(end));
                prop_assert_eq!(&codes, &expect);
                prop_assert_eq!(&ends, &expect_ends);
            }
        }

        #[test]
        fn prop_decode_any_bytes(codes in proptest::collection::vec(any::<u8>(), 0..600), table in tables()) {
            for t in [&table, &SymbolTable::train(&[]), &widest()] {
                let mut out = vec![9u8; 2];
                t.decompress_into(&codes, &mut out);
                prop_assert!(out.len() - 2 <= Decoder::decoded_len_bound(&codes));
                prop_assert_eq!(&out[..2], &[9, 9]);
                // Same as a plain decoder, code by code.
                let mut expect = vec![9u8; 2];
                let mut i = 0;
                while i < codes.len() {
                    let c = codes[i] as usize;
                    if codes[i] == ESCAPE {
                        expect.extend(codes.get(i + 1));
                        i += 2;
                    } else {
                        if c < t.len() {
                            expect.extend_from_slice(&t.symbols()[c].to_le_bytes()[..t.lengths()[c] as usize]);
                        }
                        i += 1;
                    }
                }
                prop_assert_eq!(out, expect);
            }
        }
    }
}
