// The intent block's layout: its header, class bitsets and item records, the kinds and
// attributes an item holds, and the helpers the other intent files read them with.
//
// A session's intent (docs/bytecode.md §7): what the user's own messages named (e-mail
// addresses, URLs, domains, paths, channels and handles), which classes they prohibited and
// which their verbs granted, and apart from those the items derived from the output of calls
// the user pointed at (§7.1: kinds DERIVED + subject, read only by IN_DERIVED). One long-lived
// block per session, rebuilt (as the union) by each bind or derive, so a later message amends it:
//   header   size, item count, class words, slot count, items offset, items bytes, slots offset
//   bitset   the prohibited classes
//   bitset   the granted classes
//   bitset   the classes a narrowing (§7.2) asks about
//   bitset   the classes granted maybe (under a condition the fence cannot check)
//   items    (kind, class, length, attributes, bytes padded to 4); kinds PROHIBITED and GRANTED
//            hold the verb word (and ANY_ACTION, §7.5), kind ACTION a verb and the actions it
//            names; other items' attributes say how the user's words named the item (§7.2)
//   slots    open-addressing index over the named items: item offset + 1, 0 empty
import { SUBJ_ARG, SUBJ_PATH, SUBJ_RECIPIENT, SUBJ_WRITE, SUBJ_OBJECT } from "../../bytecode/format";
import { fnv1a } from "../abi/bytes";

export const PROHIBITED: u32 = 0xff;
export const GRANTED: u32 = 0xfe;
export const NAME: u32 = 0xfd; // a name (names.ts), lower-cased
export const ASKED: u32 = 0xfc; // a class a narrowing asks about; the item holds its source word
export const GRANTED_MAYBE: u32 = 0xfb; // a class a verb granted under a condition; the item holds the verb
// The words of one clause of the user's own (lower-cased, punctuation made space), with the
// reading of that clause: an object is named when its words stand together there (§7.4).
export const TEXT: u32 = 0xfa;
// A clause of the user's own with no digit, capital or non-ASCII letter (as TEXT): it names no
// object, but a word of it may pick out an item of a record the task reads (§7.1).
export const WORDS: u32 = 0xf8;
// Derived items are kept under kind DERIVED + subject, so no lookup of a named item (kind
// `subject`) can ever find one: tool output never widens what the user named.
export const DERIVED: u32 = 0x80;
// Item attributes: how the user's words named the item. A destination of a plain request grants
// it as a target of writes and sends (IN_INTENT's destination reading, §7); one under a condition
// the fence cannot check, or a mention it could not place (a language the grammar does not know),
// grants it maybe. Any of the user's own words name it (the named reading), a condition maybe.
export const A_DEST: u32 = 1;
export const A_DEST_MAYBE: u32 = 2;
export const A_NAMED: u32 = 4;
export const A_NAMED_MAYBE: u32 = 8;
export const A_REVOKED: u32 = 16; // a later turn took its destination grant back
// A host named as itself ("example.com"), not only as the host of a URL the user named: it
// opens every URL on that host, where a named URL opens only itself and the paths below it.
export const A_BARE_HOST: u32 = 32;
// A source the user asked to read, or anything a question asks about (the source reading: the
// value may be read or fetched); under a condition, maybe.
export const A_SOURCE: u32 = 64;
export const A_SOURCE_MAYBE: u32 = 128;
// A value the user ruled out ("do not read ~/.ssh/id_rsa", "except config/.env", "x is off
// limits"): no reading grants it, and a path or host ruled out takes its descendants (files
// below it, subdomains) back from a directory or parent the user named (§7.3). A clause of the
// same message that names it otherwise still grants what that clause grants; a later turn that
// rules it out takes every earlier reading back.
export const A_RULED_OUT: u32 = 256;
// A derived object or sum read from a record's field (§7.1): the output of a read whose every
// argument was the task's own (named by the user, or itself read from such a record), a field
// that is not prose. It stands for the value the user's words point at ("my order", "the card on
// my profile"), so the object and sum readings accept it (intent_lookup.ts objectFromRecord).
export const A_RECORD: u32 = 512;
// A RECORD item read from the user's own account or profile (a read of a class of §7.1's
// `own_records_from`): only there is a person or an address of a record the user's to send or
// pay to (their own saved card, their own contacts); anywhere else someone else wrote it.
export const A_OWN_RECORD: u32 = 2048;
// A RECORD item read from the entry of a listing that the user named where the call goes (the
// channel "#eng" of a list of channels, by its name), or from the fields of a record read by such
// a destination (its own, not its list's): its id stands for that destination.
export const A_DEST_ENTRY: u32 = 4096;
// How a record was read (§7.1), for collectRecord: a read of the user's own account; a read that
// named nothing of the user's (only the entries the user names give anything); a read asked for by
// a destination the user named (the record is of that destination).
export const READ_OWN: u32 = 1;
export const READ_ENTRIES_ONLY: u32 = 2;
export const READ_BY_DESTINATION: u32 = 4;
// The host of an address the user wrote, named by it as a mention: the host itself, never a
// subdomain of it (naming bob@example.com names no status.example.com).
export const A_ADDRESS_HOST: u32 = 1024;
// Whether attributes `a` are only those the host of an address gets from it.
@inline export function addressHostOnly(a: u32): bool {
  return (a & (A_GRANTS | A_RULED_OUT | A_ADDRESS_HOST)) == (A_NAMED | A_ADDRESS_HOST);
}
// An action the user's own words name (§7.5): a verb of it, not negated, in any mood ("you want
// to return it", "if not, cancel the order"); the item holds the verb, its attributes the actions.
export const ACTION: u32 = 0xf9;
// A negated verb's actions, where another verb of the request grants its class ("don't share the
// folder, just email the PDF"): the negation reaches a tool of those actions, or one whose name
// says the verb, not the class (§7.5). The item holds the verb, its attributes the actions.
export const NEGATED_ACTION: u32 = 0xf7;
// A verb's grant's attributes: this bit when its verb names no action (an operator's own verb:
// it grants its classes whatever a tool's name says, §7.5), else 0.
export const ANY_ACTION: u32 = 1 << 31;
export const A_GRANTS: u32 = A_DEST | A_DEST_MAYBE | A_NAMED | A_NAMED_MAYBE | A_SOURCE | A_SOURCE_MAYBE;
// Whether attributes `a` rule the value out with no clause granting it otherwise.
@inline export function vetoes(a: u32): bool {
  return (a & A_RULED_OUT) != 0 && (a & A_GRANTS) == 0;
}
// An item record: kind, class, length, attributes, meta (role | mood << 4 | turn << 8 |
// revoking turn << 20), note length; then the value's bytes padded to 4. An item with a note (the
// clause the value came from, or the condition it was asked for under) then has a word, the
// distance from that word to the note's bytes: NOTE_HERE when they follow it (padded to 4), else
// back to an earlier item's copy, as the items of one clause share one copy of it.
export const ITEM_HEAD: u32 = 24;
export const NOTE_HERE: u32 = 4;
export function recSize(rec: usize): u32 {
  const noteLen = load<u32>(rec + 20);
  const size = ITEM_HEAD + padded(load<u32>(rec + 8));
  if (noteLen == 0) return size;
  return load<u32>(rec + size) == NOTE_HERE ? size + NOTE_HERE + padded(noteLen) : size + NOTE_HERE;
}
// Only meaningful for an item with a note (length at rec + 20 above 0).
export function noteOf(rec: usize): usize {
  const word = rec + ITEM_HEAD + padded(load<u32>(rec + 8));
  return word + <usize><isize>load<i32>(word);
}

export const HEADER: usize = 32;
export const H_SIZE: usize = 0;
export const H_COUNT: usize = 4;
export const H_CLASS_WORDS: usize = 8;
export const H_SLOTS: usize = 12;
export const H_ITEMS: usize = 16;
export const H_ITEMS_BYTES: usize = 20;
export const H_SLOTS_AT: usize = 24;
export const H_TURN: usize = 28; // how many messages the user's turns bound

@inline export function field(intent: usize, f: usize): u32 {
  return load<u32>(intent + f);
}

export function padded(len: u32): u32 {
  return (len + 3) & ~3;
}

// The index hash of an item: its bytes' FNV-1a (bytes.ts), mixed with its kind.
@inline export function slotHash(kind: u32, fnv: u32): u32 {
  return (fnv ^ kind) * 0x01000193;
}

export function hashOf(kind: u32, p: usize, len: u32): u32 {
  return slotHash(kind, fnv1a(p, len));
}

export const TURN_MAX: u32 = 4095;
@inline export function metaOf(role: u32, mood: u32, turn: u32): u32 {
  return role | (mood << 4) | (min(turn, TURN_MAX) << 8);
}

// The item kinds a subject's values are looked up among.
export function kindMatches(subject: u32, kind: u32): bool {
  if (subject == SUBJ_ARG) return kind <= <u32>SUBJ_RECIPIENT || kind == NAME;
  if (subject == SUBJ_OBJECT) return kind <= <u32>SUBJ_RECIPIENT || kind == SUBJ_OBJECT;
  if (subject == SUBJ_WRITE) return kind == SUBJ_PATH;
  return kind == subject;
}

// Bit `cls` of the bitset `which` (0 prohibited, 1 granted, 2 asked, 3 granted maybe) of an
// intent block.
@inline export function classBit(intent: usize, which: u32, cls: u32): bool {
  const words = field(intent, H_CLASS_WORDS);
  if (cls >= words << 5) return false;
  const at = intent + HEADER + ((<usize>(which * words + (cls >> 5))) << 2);
  return (load<u32>(at) & (1 << (cls & 31))) != 0;
}

export function setClassBit(intent: usize, which: u32, cls: u32): void {
  const at = intent + HEADER + ((<usize>(which * field(intent, H_CLASS_WORDS) + (cls >> 5))) << 2);
  store<u32>(at, load<u32>(at) | (1 << (cls & 31)));
}
