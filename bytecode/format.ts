// The numbers of docs/bytecode.md, defined once. Plain numeric constants only, so that the
// AssemblyScript evaluator and the TypeScript compiler can both import this file.

export const MAGIC = 0x43424641; // "AFBC" read as a little-endian u32
export const FORMAT_VERSION = 15;
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
export const SEC_GLOB_INDEX = 11;
export const SECTION_COUNT = 11;

// A budget's scope (§3.2): whose calls its counter adds up, in its entry's `scope` field (low
// byte), and the period it restarts after (the next byte).
export const BUDGET_PER_SESSION = 0; // one session's calls
export const BUDGET_PER_USER = 1;    // the calls of every session of one user (the platform's user id)
export const BUDGET_PER_TEAM = 2;    // the calls of every session sharing the host's state store
export const BUDGET_PERIOD_NONE = 0; // never restarts
export const BUDGET_PERIOD_DAY = 1;  // restarts each UTC day
export const BUDGET_PERIOD_WEEK = 2; // restarts each ISO week (Monday, UTC)

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
export const SET_SHELL_PROGRAMS = 13;
// The task's sandbox (§3.6): what a `confine` decision runs in.
export const SET_SANDBOX_CAPABILITIES = 14; // KEYS: the capabilities the host can confine (empty: none)
export const SET_SANDBOX_HIDE = 15;         // LIST: paths (with all below them) and globs a confined call cannot see
export const SET_SANDBOX_READ_ONLY = 16;    // LIST: globs of paths inside the writable set that stay read-only unless named
export const SET_SANDBOX_ENV = 17;          // LIST: globs of environment variable names removed (secrets)
export const SET_SANDBOX_HOSTS = 18;        // HASH: a program's name -> KEYS set of the hosts a call running it may reach
export const SET_SANDBOX_RULES = 19;        // KEYS: ids of the rules the sandbox enforces: one that holds only maybe confines
export const SETTINGS_COUNT = 19;

// What the shell reader knows of a program (§3.4, §6.6): SHELL_PROGRAMS maps a program's name
// ("grep", or "git log" for a subcommand) to its option set, a HASH set whose keys are its
// options ("-r", "--output", "+", "of=" for dd's operands), "@" (its operand flags), "%TOKEN"
// (a script holding TOKEN is opaque) and ">PATH" (a path it always writes), valued these flags.
// An option's flags (§3.4).
export const SHO_VALUE = 1;          // takes a value: the rest of the word, `=value`, or the next word
export const SHO_VALUE2 = 2;         // takes two words (jq --arg NAME VALUE)
export const SHO_ATTACHED = 4;       // takes a value only when attached (-i.bak, --in-place=.bak)
export const SHO_OPAQUE = 8;         // does what the reader cannot read (runs a program, reads a list of files): opaque
export const SHO_OUTPUT = 16;        // its value is a file the command writes
export const SHO_RECURSIVE = 32;     // the file operands are read (or written) with everything below them
export const SHO_IN_PLACE = 64;      // the file operands are written
export const SHO_COMMAND = 128;      // its value is a command line, read as one
export const SHO_COMMAND_UNTIL = 256; // the words after it up to `;` or `+` are a command (find -exec)
export const SHO_SUPPLIES = 512;     // it supplies what the first operand would be (grep -e, sed -e)
export const SHO_SCRIPT = 1024;      // its value is a script, read for the program's opaque tokens
export const SHO_DIRECTORY = 2048;   // its value is the directory the command extracts into (tar -C)
export const SHO_OUTPUT_DIR = 4096;  // its value is a directory the command writes into (cp -t)
export const SHO_EXTRACT = 8192;     // the command extracts: it writes the directory's tree (tar -x)
export const SHO_LIST = 16384;       // the command only lists or writes elsewhere: no extraction (unzip -l, wget -O)
export const SHO_ARCHIVE = 32768;    // its value is the archive (tar -f): written under ARCHIVE_OUT, else read
export const SHO_ARCHIVE_OUT = 65536; // the command writes its archive (tar -c)
export const SHO_REPLACE = 131072;   // its value is the string a wrapper's input replaces (xargs -I)
export const SHO_MEMBERS = 262144;  // its value is a glob of the files below the trees the command reads (rg -g)
export const SHO_MAX = 262144;       // the highest option flag
// The operand flags: the value of key "@" (§3.5), bits of their own.
export const SHM_TREES = 1;     // file operands are read with everything below them (rg, du)
export const SHM_WRITTEN = 2;   // every file operand is written (touch, rm, tee, mv)
export const SHM_LAST_WRITTEN = 4; // the last operand is written (cp, ln, install)
export const SHM_SECOND_WRITTEN = 8; // the second file operand is written (uniq, xxd)
export const SHM_FIRST_SCRIPT = 16; // the first operand is a script (sed, awk, jq), unless an option SUPPLIES it
export const SHM_FIRST_DATA = 32; // the first operand is data, no file (grep's pattern, chmod's mode)
export const SHM_NO_FILES = 64; // no operand is a file (echo, tr, date)
export const SHM_SUBCOMMAND = 128; // the first operand names a subcommand with its own entry (git log)
export const SHM_EXTRACTS = 256; // writes into the DIRECTORY value, else the working directory, unless LIST
export const SHM_OLD_STYLE = 512; // a first word without '-' is a cluster of option letters (tar czf)
export const SHM_KEYS = 1024;   // operands are key=value, looked up as "key=" (dd of=)
export const SHM_LONG_SINGLE = 2048; // a word that starts with one '-' is one option (find -name)
export const SHM_OPERANDS_OPAQUE = 4096; // an operand makes it change what the reader cannot name (git branch NAME)
export const SHM_OPAQUE = 8192; // it does what the reader cannot read (perl runs code): always opaque
export const SHM_REMOTE = 16384; // an operand host:path names a remote file, not a local one (scp, rsync)
export const SHM_WRITES = 32768; // it writes the paths of its ">PATH" keys whenever it runs (hermes config)
export const SHM_REV_PATHS = 65536; // an operand REV:PATH names PATH in the repository (git show HEAD:x)
export const SHM_RUNS = 131072; // a wrapper: its first operand is the program it runs, with the rest (sudo, timeout)
export const SHM_AFTER_ONE = 262144; // a wrapper's program comes after one operand of its own (timeout 5)
export const SHM_AFTER_FILE = 524288; // that operand is a file it creates (flock FILE)
export const SHM_APPENDS = 1048576; // a wrapper that adds operands the reader cannot see (xargs)
export const SHM_MAX = 1048576; // the highest operand flag

// Set kinds (§4).
export const SETKIND_HASH = 1;
export const SETKIND_LIST = 2;
export const SETKIND_KEYS = 3;

// The GLOB_INDEX section (§3.6): a head or tail key is at most this many bytes long.
export const GLOB_KEY_MAX = 32;

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
export const OP_TEST_AT_MOST = 0x1c; // an AMOUNT at most the constant sum (§6.10)
export const FLAG_NEGATE = 1;
export const FLAG_ALL = 2;

// Effects.
export const EFFECT_ALLOW = 0;
export const EFFECT_BLOCK = 1;
export const EFFECT_ASK = 2;
export const EFFECT_CONFINE = 3; // allowed, run inside the task's sandbox (§3.6)
export const EFFECT_WARN = 4; // the rule holds: recorded in the decision, which it does not make

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
export const SUBJ_AMOUNT = 11;  // a sum of money the call moves, in the normal form of §6.10
export const SUBJECT_COUNT = 12;
// A target whose value a reader could not resolve to one literal (a glob bash expands, a word
// with an unknown variable): its value is a pattern of §6.4 over the normal forms (§6.7). The
// bit is or-ed into the subject byte of witness and target entries (§8.1).
export const TARGET_PATTERN = 0x80;
// A path target that stands for a directory and everything below it (a recursive read or
// write): UNDER holds when a member lies below it too (§6.9). Or-ed in like TARGET_PATTERN.
export const TARGET_TREE = 0x40;

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
export const ROLE_TREE = 14;    // a directory read with everything below it: PATH, and the pattern DIR/**
export const ROLE_AMOUNT = 15;  // a sum of money (or its currency): AMOUNT
export const ROLE_AMOUNT_MINOR = 16; // a sum in the currency's smallest unit (cents): AMOUNT
export const ROLE_MEMBERS = 17; // a glob of the files below the call's trees that it reads: PATH patterns TREE/**/GLOB
// The title of what the call makes (an issue's, an event's): content (TEXT) in a tool of a class
// whose CLASSIFY entry has not CHOICE_HEADINGS, the choice of what it buys there (OBJECT).
export const ROLE_HEADING = 18;
export const ROLE_MAX = 18;

// CLASSIFY entry flags (§3): the entry is a read (only the tool's own name gives it), and the
// MCP annotations that are evidence for it.
export const CLASSIFY_READ = 1;
export const CLASSIFY_HINT_DESTRUCTIVE = 2;   // destructiveHint true, readOnlyHint not true
export const CLASSIFY_HINT_NOT_READ_ONLY = 4; // readOnlyHint false
export const CLASSIFY_HINT_OPEN_WORLD = 8;    // openWorldHint true, readOnlyHint not true
export const CLASSIFY_HINT_READ_ONLY = 16;    // readOnlyHint true, from a trusted server: the class
// A tool nobody mapped of the entry's class (and a TOOLS entry's own tool, by its `flags`): an argument no role reads is a choice the call
// makes, an OBJECT (CHOICES); and so is a HEADING (CHOICE_HEADINGS) and a CODE argument
// (CHOICE_CODES: a voucher's code); an OBJECT argument is content it carries, read by its shape
// only (OBJECTS_CONTENT: a message's ids).
export const CLASSIFY_CHOICES = 32;
export const CLASSIFY_CHOICE_HEADINGS = 64;
export const CLASSIFY_OBJECTS_CONTENT = 128;
export const CLASSIFY_CHOICE_CODES = 256;
export const CLASSIFY_FLAG_MAX = 511;
// The flags a TOOLS entry may carry: how its tool's arguments that no role of it reads are read.
export const TOOL_FLAGS = 480; // CHOICES | CHOICE_HEADINGS | OBJECTS_CONTENT | CHOICE_CODES
// The annotations `describe` is given (§8): two bits each, known and value.
export const ANNOTATION_READ_ONLY = 1;        // readOnlyHint given; its value in bit << 1
export const ANNOTATION_DESTRUCTIVE = 4;      // destructiveHint given; its value in bit << 1
export const ANNOTATION_OPEN_WORLD = 16;      // openWorldHint given; its value in bit << 1
export const ANNOTATION_MAX = 63;

// IN_INTENT and INTENT_ANY operands (§5, §7): which of the user's words count.
export const INTENT_DESTINATION = 0; // asked for as the destination of a plain request
export const INTENT_NAMED = 1;       // named anywhere in the user's own words
export const INTENT_SOURCE = 2;      // asked for as a source or a destination (reads, fetches)
export const INTENT_EXACT = 3;       // named anywhere in the user's own words as this very value (not a directory above it)
export const INTENT_RULED_OUT = 4;   // (IN_INTENT, paths) ruled out by the user's own words: the path, or a directory above it with none below granting it

// Categories of the INTENT section's grammar set (§7.3): a word's value is the OR of them.
export const G_DEST = 1;              // a preposition whose object receives: to, cc, into
export const G_SOURCE = 2;            // its object is where data comes from: from, by, of
export const G_MENTION = 4;           // its object is only talked about: about, regarding
export const G_RELATIVE = 8;          // takes its role from the governing verb: in, with, on, for
export const G_AUX = 16;              // an auxiliary that opens a question: do, did, is, should
export const G_DEST_AFTER = 32;       // a postposition after the item: に, 에게
export const G_SOURCE_AFTER = 64;     // から, 에서
export const G_DEST_BEFORE = 128;     // glued before the item in a script without spaces: 给
export const G_QUESTION = 256;        // a sentence it opens asks or asks for an explanation: how, explain
export const G_POLITE = 512;          // with "you" it makes a question a request: could, can, would
export const G_ADDRESSEE = 1024;      // the agent addressed: "could you", "I need you to"
export const G_CONDITION = 2048;      // opens a condition: if, when, once, unless
export const G_CONDITION_AFTER = 4096; // closes a condition: たら, 면
export const G_SUBJECT = 8192;        // a subject before a verb makes it a statement: i, someone
export const G_DETERMINER = 16384;    // a verb word after it is a noun: the, a, an
export const G_BARRIER = 32768;       // opens an embedded clause: that, what, whether, sent
export const G_LEAD = 65536;          // may stand before an imperative: please, just, also
export const G_CONJ = 131072;         // joins items or clauses: and, or
export const G_ONLY = 262144;         // a later turn keeps only what it names: only
export const G_INSTEAD = 524288;      // a later turn replaces the earlier destinations: instead
export const G_REVOKE = 1048576;      // alone, a later turn takes earlier grants back: stop, cancel
export const G_EXCLUDE = 2097152;     // takes what it names out: leave out, except
export const G_RESTORE = 4194304;     // puts a taken-out destination back: back, again
export const G_QUOTE_MARKER = 8388608; // a line with it begins pasted mail: forwarded, wrote
export const G_HEADER = 16777216;     // a mail header name: from, subject (two lines begin a paste)
export const G_PHRASE_HEAD = 33554432; // the first word of a phrase of the grammar
// The grammar's second table of categories: the same set, each key prefixed with this byte, a
// value of the G2_* bits below (a word may stand in both tables: "cc" receives and adds).
export const GRAMMAR2_PREFIX = 0x2b;   // '+'
export const G2_ADD = 1;               // a later turn adds to the earlier destinations: also, too, cc
export const G2_RETRACT = 2;           // unless negated, takes back what its clause names, or all: forget, scratch that
export const G2_AFTER_ALL = 4;         // with a negation, takes back as G2_RETRACT does: "don't … after all", "doch nicht"
export const G2_PAUSE = 8;             // unless negated, the earlier destinations wait until named again: hold off, not yet
// The binder's own words: verbs (VERB_MAP), negations and nothing words, looked up once.
export const G_VERB = 536870912;      // bit 29
export const G_NEGATION = 1073741824; // bit 30
export const G_NOTHING = 2147483648;  // bit 31
// A verb word's object direction, in bits 26-28 of its grammar value.
export const GRAMMAR_OBJECT_SHIFT = 26;
export const OBJECT_NONE = 0;
export const OBJECT_DESTINATION = 1;  // send, tell: the addressee receives
export const OBJECT_WRITTEN = 2;      // write, save: the file named is written
export const OBJECT_SOURCE = 3;       // read, summarize: the object is read
export const OBJECT_INCLUDED = 4;     // add, invite: joins the destination (unless a file receives)
export const OBJECT_CONVERTED = 5;    // convert, translate: the object is read, what it makes written
export const OBJECT_DELEGATED = 6;    // do, perform: what the object says is the request (granted maybe)

// How the user's words place a value (§7.3), shown in the intent summary (§8).
export const BOUND_DESTINATION = 1;
export const BOUND_SOURCE = 2;
export const BOUND_MENTION = 3;
export const BOUND_QUOTED = 4;   // in quoted, pasted or forwarded material
export const MOOD_REQUEST = 1;
export const MOOD_QUESTION = 2; // a question or an explanation
export const MOOD_CONDITION = 3;
export const MOOD_NEGATED = 4;
export const MOOD_STATEMENT = 5;
export const MOOD_UNKNOWN = 6;  // a language the grammar does not know
export const MOOD_UNCERTAIN = 7; // a destination with no verb to read it by

// Decision kinds in the decision record (§8.1).
export const KIND_ALLOW = 0;
export const KIND_BLOCK = 1;
export const KIND_ASK = 2;
export const KIND_CONFINE = 3; // run in the task's sandbox: the sandbox export says which (§8.3)
export const DECISION_HEAD_SIZE = 24;
// Decision record flags (§8.1).
export const DECISION_POSSIBLE = 1; // an ask: a block rule held possibly, on a value not read to the end
export const DECISION_OPAQUE = 2;   // an ask: the call would be allowed, but a reader could not read all of it
export const DECISION_MOVES = 4;    // the call, if it runs, may leave the terminal in another working directory

// configure's flags (§8).
export const CONFIGURE_FOLD_CASE = 1; // the file system compares names ASCII case aside (macOS, Windows)
export const CONFIGURE_NO_SANDBOX = 2; // the host cannot confine (or the operator turned it off): confine is asked

// What sandbox_classify answers for each line it is given (§8.3).
export const SANDBOX_PLAIN = 0;     // a path: writable if inside the writable set; a variable: kept
export const SANDBOX_READ_ONLY = 1; // a path that stays read-only
export const SANDBOX_HIDDEN = 2;    // a path not visible at all; a variable removed
export const SANDBOX_CLASSIFY_PATHS = 0;
export const SANDBOX_CLASSIFY_ENV = 1;
export const SANDBOX_CLASSIFY_CREATED = 2; // paths a run created: read-only wherever the list holds, hidden or not

// Fuel the host grants one call (§8). A call the sandbox can hold runs every rule past the ones
// the sandbox enforces where they hold only maybe (§8.3): globs on both sides of a pattern test
// (`rsync *.cc *.h … URL`) took up to about 30 million units then.
export const FUEL_BASE = 40000000;
export const FUEL_PER_BYTE = 1000;
// intent and derive read prose by clauses: each of their input bytes buys more.
export const FUEL_PER_TEXT_BYTE = 4000;
