// The numbers of docs/bytecode.md, defined once. Plain numeric constants only, so that the
// AssemblyScript evaluator and the TypeScript compiler can both import this file.

export const MAGIC = 0x43424641; // "AFBC" read as a little-endian u32
export const FORMAT_VERSION = 5;
export const HEADER_SIZE = 48;
export const DIR_ENTRY_SIZE = 12;
export const HASH_OFFSET = 16;
export const NONE = 0xffffffff;

// Sections (§3), in the order the directory lists them.
export const SEC_STRINGS = 1;
export const SEC_SETS = 2;
export const SEC_TOOLS = 3;
export const SEC_CLASSES = 4;
export const SEC_RULES = 5;
export const SEC_CODE = 6;
export const SEC_CLASSIFY = 7;
export const SEC_INTENT = 8;
export const SEC_SETTINGS = 9;
export const SEC_BUDGETS = 10;
export const SECTION_COUNT = 10;

// Settings keys (§3.1).
export const SET_POLICY_NAME = 1;
export const SET_MAX_ARGS_BYTES = 2;
export const SET_MAX_JSON_DEPTH = 3;
export const SET_MAX_LEAVES = 4;
export const SET_MAX_TARGETS = 5;
export const SET_MAX_INTENT_BYTES = 6;
export const SET_MAX_SESSIONS = 7;
export const SET_SHELL_WRAPPERS = 8;
export const SET_SHELL_NETWORK = 9;
export const SET_SHELL_SHELLS = 10;
export const SET_MAX_SHELL_DEPTH = 11;
export const SET_FAIL_OPEN = 12;
export const SETTINGS_COUNT = 12;

// Set kinds (§4).
export const SETKIND_HASH = 1;
export const SETKIND_LIST = 2;
export const SETKIND_KEYS = 3;

// Instructions (§5).
export const INSN_SIZE = 16;
export const OP_DECIDE = 0x01;
export const OP_TEST_PRESENT = 0x10;
export const OP_TEST_EQUALS = 0x11;
export const OP_TEST_IN = 0x12;
export const OP_TEST_GLOB = 0x13;
export const OP_TEST_PREFIX = 0x14;
export const OP_TEST_DOMAIN = 0x15;
export const OP_TEST_UNDER = 0x16;
export const OP_TEST_IN_INTENT = 0x17;
export const OP_TEST_GRANTED = 0x18;
export const OP_TEST_INTENT_ANY = 0x19;
export const OP_TEST_IN_DERIVED = 0x1a;
export const OP_TEST_TRUTHY = 0x1b;
export const OP_TEST_AT_MOST = 0x1c; // an AMOUNT at most the constant sum (§6.9)
export const FLAG_NEGATE = 1;
export const FLAG_ALL = 2;

// Effects.
export const EFFECT_ALLOW = 0;
export const EFFECT_BLOCK = 1;
export const EFFECT_ASK = 2;
export const EFFECT_WARN = 3; // the rule holds: recorded in the decision, which it does not make

// Subjects (§5.1). Subjects 2..7 are also the kinds of extracted targets.
export const SUBJ_TOOL = 0;
export const SUBJ_ARG = 1;
export const SUBJ_EMAIL = 2;
export const SUBJ_DOMAIN = 3;
export const SUBJ_URL = 4;
export const SUBJ_PATH = 5;
export const SUBJ_PROGRAM = 6;
export const SUBJ_RECIPIENT = 7;
export const SUBJ_WRITE = 8;    // paths the call writes, creates, deletes or renames (also PATH targets)
export const SUBJ_OPAQUE = 9;   // what a reader could not read: an allow of such a call is asked (§8.1)
export const SUBJ_OBJECT = 10;  // the named object of an action: a hotel, a repository, an account
export const SUBJ_AMOUNT = 11;  // a sum of money the call moves, in the normal form of §6.9
export const SUBJECT_COUNT = 12;
// A target whose value a reader could not resolve to one literal (a glob bash expands, a word
// with an unknown variable): its value is a pattern of §6.4 over the normal forms (§6.7). The
// bit is or-ed into the subject byte of witness and target entries (§8.1).
export const TARGET_PATTERN = 0x80;

// Argument roles (§5.2).
export const ROLE_EMAIL = 1;
export const ROLE_URL = 2;
export const ROLE_DOMAIN = 3;
export const ROLE_PATH = 4;
export const ROLE_COMMAND = 5;
export const ROLE_CODE = 6;
export const ROLE_RECIPIENT = 7;
export const ROLE_PATCH = 8;
export const ROLE_WORKDIR = 9;
export const ROLE_TEXT = 10;
export const ROLE_WRITTEN = 11; // a path the call writes: PATH and WRITE
export const ROLE_OBJECT = 12;  // the object of the action (a name, an id): OBJECT
export const ROLE_DATA = 13;    // content, no target: exempt from reading by shape (§5.2)
export const ROLE_AMOUNT = 14;  // a sum of money (or its currency): AMOUNT
export const ROLE_AMOUNT_MINOR = 15; // a sum in the currency's smallest unit (cents): AMOUNT
export const ROLE_MAX = 15;

// IN_INTENT and INTENT_ANY operands (§5, §7): which of the user's words count.
export const INTENT_DESTINATION = 0; // asked for as the destination of a plain request
export const INTENT_NAMED = 1;       // named anywhere in the user's own words

// Decision kinds in the decision record (§8.1).
export const KIND_ALLOW = 0;
export const KIND_BLOCK = 1;
export const KIND_ASK = 2;
export const DECISION_HEAD_SIZE = 24;
// Decision record flags (§8.1).
export const DECISION_POSSIBLE = 1; // an ask: a block rule held possibly, on a value not read to the end
export const DECISION_OPAQUE = 2;   // an ask: the call would be allowed, but a reader could not read all of it

// Fuel the host grants one call (§8).
export const FUEL_BASE = 20000000;
export const FUEL_PER_BYTE = 400;
