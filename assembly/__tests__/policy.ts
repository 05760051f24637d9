// A small policy laid out in memory section by section (docs/bytecode.md §3, §4), for the
// specs of the modules that read the installed policy: the STRINGS, SETS, CLASSES, INTENT and
// SETTINGS sections that targets.ts and the intent (intent_build.ts) consult, installed through decode.ts.
import {
  SEC_STRINGS, SEC_SETS, SEC_CLASSES, SEC_INTENT, SEC_SETTINGS, SETKIND_HASH, SETTINGS_COUNT,
  SET_POLICY_NAME, SET_MAX_ARGS_BYTES, SET_MAX_JSON_DEPTH, SET_MAX_LEAVES, SET_MAX_TARGETS,
  SET_MAX_INTENT_BYTES, SET_MAX_SESSIONS, SET_SHELL_WRAPPERS, SET_SHELL_NETWORK, SET_SHELL_SHELLS,
  SET_MAX_SHELL_DEPTH, SET_FAIL_OPEN, G_DEST, G_SOURCE, G_MENTION, G_RELATIVE, G_QUESTION, G_AUX, G_POLITE,
  G_ADDRESSEE, G_CONDITION, G_SUBJECT, G_DETERMINER, G_BARRIER, G_LEAD, G_CONJ, G_ONLY, G_INSTEAD, G_REVOKE, G_EXCLUDE,
  G_RESTORE, G_QUOTE_MARKER, G_HEADER, G_VERB, G_NEGATION, G_NOTHING, GRAMMAR_OBJECT_SHIFT, OBJECT_DESTINATION, OBJECT_WRITTEN,
  SET_SHELL_PROGRAMS, SET_SANDBOX_CAPABILITIES, SET_SANDBOX_HIDE, SET_SANDBOX_READ_ONLY, SET_SANDBOX_ENV,
  SET_SANDBOX_HOSTS, SET_SANDBOX_RULES, SHO_VALUE, SHO_OPAQUE, SHO_OUTPUT, SHO_RECURSIVE, SHO_IN_PLACE, SHO_COMMAND_UNTIL, SHO_SUPPLIES,
  SHO_SCRIPT, SHO_OUTPUT_DIR, SHO_ATTACHED, SHM_LONG_SINGLE, SHM_FIRST_DATA, SHM_WRITTEN, SHM_LAST_WRITTEN,
  SHM_FIRST_SCRIPT, SHM_SUBCOMMAND, SHO_COMMAND, SHO_REPLACE, SHM_RUNS, SHM_AFTER_ONE, SHM_APPENDS,
} from "../../bytecode/format";
import { setSection } from "../policy/decode";
import { fnv1a } from "../abi/bytes";

// Classes: 0 unknown, 1 message.send, 2 data.delete, 3 file.write, 4 shell.exec, 5 code.exec.
export const CLASS_SEND: u32 = 1;
export const CLASS_DELETE: u32 = 2;
export const CLASS_WRITE: u32 = 3;
export const CLASS_SHELL: u32 = 4;
export const CLASS_CODE: u32 = 5;

const CAPABILITIES = ["unknown", "message.send", "data.delete", "file.write", "shell.exec", "code.exec"];
const RISKS = ["unknown", "send", "destructive", "write", "exec", "exec"];
const NEGATIONS = ["not", "don't", "dont", "never", "no", "without", "avoid"];
const NOTHING = ["nothing", "none", "nobody", "anyone", "anybody"];
const EXTENSIONS = ["txt", "md", "py", "json", "sh", "html", "env"];
// Verb entries and the classes each prohibits.
const VERB_WORDS = [
  ["send", "email", "mail", "reply", "forward", "post"],
  ["delete", "remove", "wipe"],
  ["write", "edit", "save"],
  ["run", "execute"],
];
const VERB_CLASSES = [[CLASS_SEND], [CLASS_DELETE], [CLASS_WRITE], [CLASS_SHELL, CLASS_CODE]];
const VERB_OBJECTS: u32[] = [OBJECT_DESTINATION, OBJECT_WRITTEN, OBJECT_WRITTEN, 0];
// A small English grammar (§7.3): word, categories.
const GRAMMAR_WORDS = [
  "to", "cc", "into", "from", "by", "about", "in", "with", "on", "for", "of", "how", "what", "why", "is", "do", "did",
  "could", "can", "would", "you", "if", "when", "once", "unless", "i", "we", "it", "the", "a", "an", "my", "this",
  "that", "which", "whether", "please", "just", "also", "and", "or", "but", "only", "instead", "stop", "except", "back",
  "forwarded", "wrote", "subject", "explain",
];
const GRAMMAR_VALUES: u32[] = [
  G_DEST, G_DEST, G_DEST, G_SOURCE, G_SOURCE, G_MENTION, G_RELATIVE, G_RELATIVE, G_RELATIVE, G_RELATIVE, G_RELATIVE,
  G_QUESTION, G_QUESTION | G_BARRIER, G_QUESTION, G_AUX, G_AUX, G_AUX, G_POLITE, G_POLITE, G_POLITE, G_ADDRESSEE,
  G_CONDITION, G_CONDITION | G_QUESTION, G_CONDITION, G_CONDITION, G_SUBJECT, G_SUBJECT, G_SUBJECT, G_DETERMINER,
  G_DETERMINER | G_DEST, G_DETERMINER, G_DETERMINER, G_DETERMINER, G_BARRIER | G_DETERMINER, G_BARRIER, G_BARRIER,
  G_LEAD, G_LEAD, G_LEAD, G_CONJ, G_CONJ, G_CONJ, G_ONLY, G_INSTEAD, G_REVOKE, G_EXCLUDE, G_RESTORE, G_QUOTE_MARKER,
  G_QUOTE_MARKER | G_BARRIER, G_HEADER, G_QUESTION,
];
const WRAPPERS = ["sudo", "env", "xargs", "nohup", "timeout", "nice"];
const NETWORK = ["curl", "wget", "nc", "ssh", "scp"];
const SHELLS = ["sh", "bash"];
const CANCELS = ["forget", "hesitate", "fail"];

const kept: ArrayBuffer[] = [];
const strings: string[] = [];
// The set SHELL_PROGRAMS names (§3.3): find, grep, tee, cp, sed, git and "git log" described.
export const PROGRAMS_SET: u32 = 27;

function stringIndex(s: string): u32 {
  let i = strings.indexOf(s);
  if (i < 0) {
    strings.push(s);
    i = strings.length - 1;
  }
  return <u32>i;
}

function block(size: i32): usize {
  const b = new ArrayBuffer(size);
  kept.push(b);
  return changetype<usize>(b);
}

// A HASH set's words (value: `values[i]`, else 0), as (keys, values) for the SETS section.
class WordSet {
  keys: u32[] = [];
  values: u32[] = [];
}

function wordSet(words: string[], values: u32[] = []): WordSet {
  const s = new WordSet();
  for (let i = 0; i < words.length; i++) {
    s.keys.push(stringIndex(words[i]));
    s.values.push(i < values.length ? values[i] : 0);
  }
  return s;
}

function installStrings(): void {
  const encoded: ArrayBuffer[] = [];
  let blob = 0;
  for (let i = 0; i < strings.length; i++) {
    const e = String.UTF8.encode(strings[i]);
    encoded.push(e);
    blob += e.byteLength;
  }
  const p = block(4 + 4 * (strings.length + 1) + blob);
  store<u32>(p, strings.length);
  let at = 0;
  const data = p + 4 + 4 * (strings.length + 1);
  for (let i = 0; i < strings.length; i++) {
    store<u32>(p + 4 + 4 * i, at);
    memory.copy(data + at, changetype<usize>(encoded[i]), encoded[i].byteLength);
    at += encoded[i].byteLength;
  }
  store<u32>(p + 4 + 4 * strings.length, at);
  setSection(SEC_STRINGS, p);
}

function installSets(sets: WordSet[]): void {
  let size = 4 + 4 * sets.length;
  const buckets: u32[] = [];
  for (let i = 0; i < sets.length; i++) {
    let n: u32 = 2;
    while (n <= <u32>sets[i].keys.length * 2) n <<= 1;
    buckets.push(n);
    size += 12 + 8 * n;
  }
  const p = block(size);
  let at = 4 + 4 * sets.length;
  store<u32>(p, sets.length);
  for (let i = 0; i < sets.length; i++) {
    store<u32>(p + 4 + 4 * i, at);
    const s = p + at;
    store<u8>(s, SETKIND_HASH);
    store<u32>(s + 4, sets[i].keys.length);
    store<u32>(s + 8, buckets[i]);
    const mask = buckets[i] - 1;
    for (let k = 0; k < sets[i].keys.length; k++) {
      const word = String.UTF8.encode(strings[sets[i].keys[k]]);
      let b = fnv1a(changetype<usize>(word), word.byteLength) & mask;
      while (load<u32>(s + 12 + 8 * b) != 0) b = (b + 1) & mask;
      store<u32>(s + 12 + 8 * b, sets[i].keys[k] + 1);
      store<u32>(s + 16 + 8 * b, sets[i].values[k]);
    }
    at += 12 + 8 * buckets[i];
  }
  setSection(SEC_SETS, p);
}

let grammarWords: string[] = [];
let grammarValues: u32[] = [];
function addGrammar(word: string, value: u32): void {
  const i = grammarWords.indexOf(word);
  if (i >= 0) grammarValues[i] |= value;
  else { grammarWords.push(word); grammarValues.push(value); }
}

// Installs the policy with these limits.
export function installPolicy(maxTargets: u32 = 100, maxIntentBytes: u32 = 65536, maxShellDepth: u32 = 4): void {
  const capability: u32[] = [];
  const risk: u32[] = [];
  for (let c = 0; c < CAPABILITIES.length; c++) {
    capability.push(stringIndex(CAPABILITIES[c]));
    risk.push(stringIndex(RISKS[c]));
  }
  const verbWords: string[] = [];
  const verbValues: u32[] = [];
  for (let v = 0; v < VERB_WORDS.length; v++) {
    for (let w = 0; w < VERB_WORDS[v].length; w++) {
      verbWords.push(VERB_WORDS[v][w]);
      verbValues.push(<u32>v);
    }
  }
  // The grammar: its words, the verbs with their object direction, negations and nothing words.
  grammarWords = [];
  grammarValues = [];
  for (let i = 0; i < GRAMMAR_WORDS.length; i++) addGrammar(GRAMMAR_WORDS[i], GRAMMAR_VALUES[i]);
  for (let v = 0; v < VERB_WORDS.length; v++) {
    for (let w = 0; w < VERB_WORDS[v].length; w++) addGrammar(VERB_WORDS[v][w], G_VERB | (VERB_OBJECTS[v] << GRAMMAR_OBJECT_SHIFT));
  }
  for (let i = 0; i < NEGATIONS.length; i++) addGrammar(NEGATIONS[i], G_NEGATION);
  for (let i = 0; i < NOTHING.length; i++) addGrammar(NOTHING[i], G_NOTHING);
  // Set indices: 0 negations, 1 nothing, 2 extensions, 3 verbs, 4 wrappers, 5 network, 6 shells,
  // 7 negation cancels, 8 grammar, 9-15 the options of find, grep, tee, cp, sed, git and git log,
  // 16-26 those of the wrappers sudo, env, xargs, timeout, nice, ionice, stdbuf, exec, chroot, watch
  // and the wrappers without options, 27 the shell programs (PROGRAMS_SET) that map those names.
  const sets = [
    wordSet(NEGATIONS), wordSet(NOTHING), wordSet(EXTENSIONS), wordSet(verbWords, verbValues),
    wordSet(WRAPPERS), wordSet(NETWORK), wordSet(SHELLS), wordSet(CANCELS), wordSet(grammarWords, grammarValues),
    wordSet(["@", "-exec", "-name", "-delete"], [SHM_LONG_SINGLE, SHO_COMMAND_UNTIL, SHO_VALUE, SHO_IN_PLACE | SHO_RECURSIVE]),
    wordSet(["@", "-r", "-e", "-n"], [SHM_FIRST_DATA, SHO_RECURSIVE, SHO_VALUE | SHO_SUPPLIES, 0]),
    wordSet(["@", "-a"], [SHM_WRITTEN, 0]),
    wordSet(["@", "-t", "-r"], [SHM_LAST_WRITTEN, SHO_VALUE | SHO_OUTPUT_DIR, SHO_RECURSIVE]),
    wordSet(["@", "-i", "-e", "-n", "%e", "%w"], [SHM_FIRST_SCRIPT, SHO_ATTACHED | SHO_IN_PLACE, SHO_VALUE | SHO_SCRIPT | SHO_SUPPLIES, 0, 0, 0]),
    wordSet(["@", "-c"], [SHM_SUBCOMMAND, SHO_VALUE | SHO_OPAQUE]),
    wordSet(["--output"], [SHO_VALUE | SHO_OUTPUT]),
    wordSet(["@", "-u"], [SHM_RUNS, SHO_VALUE]),
    wordSet(["@", "-u", "-S", "--split-string"], [SHM_RUNS, SHO_VALUE, SHO_COMMAND | SHO_VALUE, SHO_COMMAND | SHO_VALUE]),
    wordSet(["@", "-n", "-P", "-I", "-i"], [SHM_RUNS | SHM_APPENDS, SHO_VALUE, SHO_VALUE, SHO_REPLACE | SHO_VALUE, SHO_REPLACE | SHO_ATTACHED]),
    wordSet(["@", "-s", "-k"], [SHM_RUNS | SHM_AFTER_ONE, SHO_VALUE, SHO_VALUE]),
    wordSet(["@", "-n"], [SHM_RUNS, SHO_VALUE]),
    wordSet(["@", "-c", "-n"], [SHM_RUNS, SHO_VALUE, SHO_VALUE]),
    wordSet(["@", "-o", "-i", "-e"], [SHM_RUNS, SHO_VALUE, SHO_VALUE, SHO_VALUE]),
    wordSet(["@", "-a"], [SHM_RUNS, SHO_VALUE]),
    wordSet(["@"], [SHM_RUNS | SHM_AFTER_ONE]),
    wordSet(["@", "-n"], [SHM_RUNS, SHO_VALUE]),
    wordSet(["@"], [SHM_RUNS]),
    wordSet(["find", "grep", "tee", "cp", "sed", "git", "git log", "sudo", "env", "xargs", "timeout", "nice", "ionice",
      "stdbuf", "exec", "chroot", "watch", "nohup", "time", "setsid", "command"],
      [9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 26, 26, 26]),
  ];
  const name = stringIndex("test-policy");
  installStrings();
  installSets(sets);

  const classes = block(4 + 16 * CAPABILITIES.length);
  store<u32>(classes, CAPABILITIES.length);
  for (let c = 0; c < CAPABILITIES.length; c++) {
    store<u32>(classes + 4 + 16 * c, capability[c]);
    store<u32>(classes + 8 + 16 * c, risk[c]);
  }
  setSection(SEC_CLASSES, classes);

  let classTotal = 0;
  for (let v = 0; v < VERB_CLASSES.length; v++) classTotal += VERB_CLASSES[v].length;
  const intent = block(24 + 8 * VERB_CLASSES.length + 4 + 4 * classTotal + 4 + 4 + 4 + 4);
  store<u32>(intent, 0);
  store<u32>(intent + 4, 1);
  store<u32>(intent + 8, 2);
  store<u32>(intent + 12, 3);
  store<u32>(intent + 16, 7);
  store<u32>(intent + 20, VERB_CLASSES.length);
  let start = 0;
  for (let v = 0; v < VERB_CLASSES.length; v++) {
    store<u32>(intent + 24 + 8 * v, start);
    store<u32>(intent + 28 + 8 * v, VERB_CLASSES[v].length);
    start += VERB_CLASSES[v].length;
  }
  const list = intent + 24 + 8 * VERB_CLASSES.length;
  store<u32>(list, classTotal);
  let k = 0;
  for (let v = 0; v < VERB_CLASSES.length; v++) {
    for (let c = 0; c < VERB_CLASSES[v].length; c++) store<u32>(list + 4 + 4 * k++, VERB_CLASSES[v][c]);
  }
  store<u32>(list + 4 + 4 * classTotal, 0); // no derive classes
  store<u32>(list + 8 + 4 * classTotal, 0); // no records classes
  store<u32>(list + 12 + 4 * classTotal, 0); // no own records classes
  store<u32>(list + 16 + 4 * classTotal, 8); // the grammar set
  setSection(SEC_INTENT, intent);

  // The sandbox's settings name the wrappers' set: no class's capability is in it, so nothing is
  // confinable here and the sandbox's lists are never read.
  const values: u32[] = [name, 1 << 20, 64, 1000, maxTargets, maxIntentBytes, 16, 4, 5, 6, maxShellDepth, 4, PROGRAMS_SET,
    4, 4, 4, 4, PROGRAMS_SET, 4];
  const keys: u32[] = [
    SET_POLICY_NAME, SET_MAX_ARGS_BYTES, SET_MAX_JSON_DEPTH, SET_MAX_LEAVES, SET_MAX_TARGETS,
    SET_MAX_INTENT_BYTES, SET_MAX_SESSIONS, SET_SHELL_WRAPPERS, SET_SHELL_NETWORK, SET_SHELL_SHELLS,
    SET_MAX_SHELL_DEPTH, SET_FAIL_OPEN, SET_SHELL_PROGRAMS, SET_SANDBOX_CAPABILITIES, SET_SANDBOX_HIDE,
    SET_SANDBOX_READ_ONLY, SET_SANDBOX_ENV, SET_SANDBOX_HOSTS, SET_SANDBOX_RULES,
  ];
  const settings = block(4 + 8 * SETTINGS_COUNT);
  store<u32>(settings, SETTINGS_COUNT);
  for (let i = 0; i < SETTINGS_COUNT; i++) {
    store<u32>(settings + 4 + 8 * i, keys[i]);
    store<u32>(settings + 8 + 8 * i, values[i]);
  }
  setSection(SEC_SETTINGS, settings);
}
