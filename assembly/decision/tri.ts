// Three outcomes of a test (docs/bytecode.md §5.4): a value that is not known to the end (a
// pattern, §6.7) or an item the user's words made conditional satisfies a test maybe.
export const NO: u32 = 0;
export const YES: u32 = 1;
export const MAYBE: u32 = 2;

@inline export function tri(b: bool): u32 {
  return b ? YES : NO;
}

@inline export function negated(r: u32): u32 {
  return r == MAYBE ? MAYBE : YES - r;
}

// The better of two outcomes: YES over MAYBE over NO.
@inline export function either(a: u32, b: u32): u32 {
  return a == YES || b == YES ? YES : a == MAYBE || b == MAYBE ? MAYBE : NO;
}
