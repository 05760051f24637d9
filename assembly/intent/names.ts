// Names in the user's message (docs/bytecode.md §7): a capitalized word that does not open a
// sentence ("send it to Alice", "invite Dora") and a short quoted phrase ("the 'general'
// channel"). The binder records them, lower-cased, as NAME items; IN_INTENT on a recipient
// consults them for a value without '#', '@' or ':'.
import { isAsciiAlpha, isAsciiDigit } from "../abi/bytes";

export const NAME_MAX: u32 = 64; // longer quoted text is prose, not a name

export let nameStart: u32 = 0;
export let nameEnd: u32 = 0;

function at(p: usize, i: u32): u32 {
  return <u32>load<u8>(p + i);
}

@inline function isUpper(c: u32): bool {
  return c - 0x41 < 26;
}

function isWordByte(c: u32): bool {
  return isAsciiAlpha(c) || isAsciiDigit(c) || c == 0x27 || c == 0x2d || c == 0x5f;
}

function isQuote(c: u32): bool {
  return c == 0x27 || c == 0x22;
}

// Whether the word at i opens a sentence: only white space, or nothing, since the last . ! ? or
// a list number ("2. Invite").
// An inverted mark or a guillemet (¿ ¡ « ») opens a sentence or a quote as white space would.
function openingMark(p: usize, j: u32): bool {
  return j >= 2 && at(p, j - 2) == 0xc2 && (at(p, j - 1) == 0xbf || at(p, j - 1) == 0xa1 || at(p, j - 1) == 0xab || at(p, j - 1) == 0xbb);
}

// A Latin letter beyond ASCII (U+00C0-U+024F: é, ñ, ß, ł) at j: its byte length, else 0.
function latinLetterLen(p: usize, len: u32, j: u32): u32 {
  const c = at(p, j);
  if (j + 1 >= len || c < 0xc3 || c > 0xc9) return 0;
  const d = at(p, j + 1);
  return d >= 0x80 && d < 0xc0 && !(c == 0xc3 && (d == 0x97 || d == 0xb7)) ? 2 : 0; // not × ÷
}

function opensSentence(p: usize, i: u32): bool {
  let j = i;
  while (j > 0) {
    const c = at(p, j - 1);
    if (c == 0x20 || c == 0x09 || c == 0x0a || c == 0x0d || c == 0x28) { j--; continue; }
    if (openingMark(p, j)) { j -= 2; continue; }
    return c == 0x2e || c == 0x21 || c == 0x3f || c == 0x3a;
  }
  return true;
}

// The next name in [p, p+len) at or after `from`: true with its range in nameStart/nameEnd,
// and the scan resumes at nameEnd.
export function nextName(p: usize, len: u32, from: u32): bool {
  let i = from;
  while (i < len) {
    const c = at(p, i);
    if (c - 0x61 < 26 || c == 0x20) { i++; continue; } // neither a quote nor a capital: the common case
    const boundary = i == 0 || !isWordByte(at(p, i - 1));
    if (isQuote(c) && boundary) {
      let j = i + 1;
      while (j < len && j - i <= NAME_MAX && at(p, j) != c && at(p, j) != 0x0a) j++;
      const closes = j < len && at(p, j) == c && (j + 1 == len || !isWordByte(at(p, j + 1)));
      if (closes && j > i + 1 && j - i <= NAME_MAX) {
        nameStart = i + 1;
        nameEnd = j;
        return true;
      }
      i++;
      continue;
    }
    if (isUpper(c) && (boundary || openingMark(p, i))) {
      let j = i + 1;
      while (j < len) {
        if (isAsciiAlpha(at(p, j)) || isAsciiDigit(at(p, j))) { j++; continue; }
        const l = latinLetterLen(p, len, j); // "José", "Zoë": one word
        if (l == 0) break;
        j += l;
      }
      const endsWord = j == len || !isWordByte(at(p, j));
      if (endsWord && j - i <= NAME_MAX && !opensSentence(p, i)) {
        nameStart = i;
        nameEnd = j;
        return true;
      }
      i = j;
      continue;
    }
    i++;
  }
  return false;
}
