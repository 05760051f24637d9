"""The Python face of the fence: Fence, Session, Decision, Intent.

Every decision is made by fence.wasm (docs/bytecode.md §8); this module marshals a call into
the evaluator's input buffer, calls one export, and reads the record back. What it decides on
its own is only what the evaluator cannot see: arguments that are not JSON, an input over
every limit, a trapped or broken evaluator. All of those block.
"""
from __future__ import annotations

import json
import os
import struct
import sys
import threading
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from json.encoder import c_make_encoder, encode_basestring  # type: ignore[attr-defined]
from typing import Any, Callable, Iterable, Literal

import wasmtime

from . import data
from .errors import FenceError
from .engine import (
    DEFAULT_MEMORY_LIMIT,
    EngineFault,
    InputTooLarge,
    WasmInstance,
    default_cache_dir,
    load_module,
)

DecisionKind = Literal["allow", "block", "ask"]
_KINDS: tuple[DecisionKind, ...] = ("allow", "block", "ask")
_VERBS = {"allow": "allowed", "block": "blocked", "ask": "asks about"}
# §8.1: kind, reason, rule, capability, risk, flags, message, witness, reservation, warned
_DECISION_HEAD = struct.Struct("<BBHHBBIIII")
_SUBJECT_ENTRY = struct.Struct("<BI")  # §8.1, an entry of the witness or the targets: subject, length
_HEAD_SIZE = _DECISION_HEAD.size
_ENTRY_HEAD_SIZE = _SUBJECT_ENTRY.size
# Subject names by number (docs/bytecode.md §5.1; test_api checks them against assembly/format.ts).
SUBJECTS = ("tool", "args", "email", "domain", "url", "path", "program", "recipient", "write", "opaque", "object", "amount")
# A target whose value is a pattern (§6.7) is named with this suffix: ("path:pattern", "/home/u/**");
# one that stands for a directory and everything below it (§6.9) with TREE_SUFFIX ("path:tree").
PATTERN_SUFFIX = ":pattern"
TREE_SUFFIX = ":tree"
_PATTERN_BIT = 0x80
_TREE_BIT = 0x40
_CONFIGURE_FOLD_CASE = 1
_DECISION_POSSIBLE = 1
_DECISION_OPAQUE = 2
_WARNED_ENTRY = struct.Struct("<H")
_DECISION_CACHE_LIMIT = 4096
_CLOSED = -1  # handle of a dropped session


@dataclass(frozen=True, slots=True)
class Decision:
    """The evaluator's answer for one call (§8.1 decision record)."""

    kind: DecisionKind
    reason: str
    rule: str
    capability: str
    risk: str
    message: str
    # The values the deciding rule held on, as (subject, value): for an ask, the part of the
    # call outside what the user granted (docs/bytecode.md §8.1). Empty when no rule's value decided.
    witness: tuple[tuple[str, str], ...] = ()
    # The call's targets as (subject, normal form), as the policy's roles made them (§8.1): what the
    # audit log keeps of the arguments. Empty when the call was refused before they were made.
    targets: tuple[tuple[str, str], ...] = ()
    # The budget units this call holds (§8.2), 0 for none: settle with Session.commit or release.
    reservation: int = 0
    # An ask because a block rule held maybe: a value it could not read to the end, or a condition
    # in the request (§5.4).
    possible: bool = False
    # An ask because a reader could not read all of the call (§8.1): never allowed.
    opaque: bool = False
    # The ids of the warn rules that held (`effect: warn`): recorded, deciding nothing.
    warned: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Budget:
    """One budget of the policy as a session has used it (§8 `budgets`): calls, or for a budget of
    sums (`sums`) the sums of its calls as Decimals, in `currency` when its cap names one."""

    id: str
    limit: int | Decimal
    spent: int | Decimal
    reserved: int | Decimal
    sums: bool = False
    currency: str = ""

    @property
    def remaining(self) -> int | Decimal:
        return max(0, self.limit - self.spent - self.reserved)

    @property
    def saved(self) -> int | str:
        """What a session record keeps of `spent`: a count of calls, or a sum as decimal text."""
        return str(self.spent) if self.sums else int(self.spent)


@dataclass(frozen=True, slots=True)
class Binding:
    """How the user's words placed one value (§7.3): its role (destination, source, mention,
    quoted), the mood of its clause (request, question, condition, negated, statement,
    unknown-language, uncertain), the turn that last changed it, what it grants (destination,
    destination-maybe, source, source-maybe, named, named-maybe, revoked, whole-host, ruled-out: the user ruled it
    out, so no reading grants it), the turn that took it back (0: none) and the clause it came from (for a
    condition: the condition)."""

    kind: str  # email, url, domain, path, recipient, name
    value: str
    role: str
    mood: str
    turn: int
    grants: tuple[str, ...]
    revoked_turn: int
    clause: str

    @property
    def revoked(self) -> bool:
        return "revoked" in self.grants


@dataclass(frozen=True, slots=True)
class VerbUse:
    """A verb of the user's words as the binder read it (§8 `intent`): `grant`, `grant-maybe`
    (under a condition, or a request whose content lies elsewhere), `prohibit` or `ask`."""

    kind: str
    capability: str
    verb: str
    turn: int
    revoked_turn: int  # a prohibition a later turn's "stop" made of a grant: that turn
    clause: str


_MOODS = {"request": "a request", "question": "a question: grants nothing", "condition": "under a condition",
          "negated": "negated", "statement": "a statement", "unknown-language": "in words the fence cannot place",
          "uncertain": "uncertain"}
_KIND_WORDS = {"email": "e-mail", "url": "URL", "domain": "domain", "path": "path", "recipient": "channel or handle",
               "name": "name"}


def describe_intent(intent: Intent) -> list[str]:
    """Intent.describe: each bound value with role, mood, turn and clause, the verbs' grants and
    prohibitions, and what a follow-up took back."""
    bindings = intent.bindings
    if not bindings and not intent.verb_uses:  # built by hand, or no summary
        named = [("e-mail addresses", intent.emails), ("URLs", intent.urls), ("domains", intent.domains),
                 ("paths", intent.paths), ("channels and handles", intent.recipients), ("names", intent.names)]
        lines = [f"  named {what}: {', '.join(values)}" for what, values in named if values]
        lines += [f"  granted {capability} (\"{verb}\")" for capability, verb in intent.granted]
        lines += [f"  prohibited {capability} (\"{verb}\")" for capability, verb in intent.prohibited]
        return lines or ["  nothing: no target named, no verb read"]
    lines = []
    for b in bindings:
        granting = [g for g in b.grants if g not in ("ruled-out", "revoked", "whole-host", "none")]
        if "ruled-out" in b.grants and not granting:
            grants = "ruled out: grants nothing"
        else:
            grants = "grants nothing" if b.grants == ("none",) else "grants " + ", ".join(b.grants)
        taken = f"; taken back by turn {b.revoked_turn}" if b.revoked_turn else ""
        clause = f" \u00ab{b.clause}\u00bb" if b.clause else ""
        lines.append(f"  {b.value} ({_KIND_WORDS.get(b.kind, b.kind)}): {b.role}, {_MOODS.get(b.mood, b.mood)}, "
                     f"turn {b.turn}{taken} ({grants}){clause}")
    words = {"grant": "granted", "grant-maybe": "granted maybe", "prohibit": "prohibited", "ask": "asked about"}
    grouped: dict[tuple[str, str, int, int, str], list[str]] = {}
    for use in intent.verb_uses:
        grouped.setdefault((use.kind, use.verb, use.turn, use.revoked_turn, use.clause), []).append(use.capability)
    for (kind, verb, turn, revoked, clause), capabilities in grouped.items():
        by = f", turned into a prohibition by turn {revoked}" if revoked else ""
        said = f" \u00ab{clause}\u00bb" if clause else ""
        lines.append(f"  {words.get(kind, kind)} {', '.join(capabilities)} (\"{verb}\", turn {turn}{by}){said}")
    revoked = intent.revoked
    if revoked:
        lines.append("  a follow-up took back: " + ", ".join(f"{b.value} (turn {b.revoked_turn})" for b in revoked))
    return lines or ["  nothing: no target named, no verb read"]


# The summary record's kinds (§8 `intent`), in Intent's field order.
_SUMMARY_KINDS = ("email", "url", "domain", "path", "recipient", "name", "prohibit", "grant", "ask", "object", "amount")
_INTENT_FIELDS = ("emails", "urls", "domains", "paths", "recipients", "names", "prohibited", "granted", "asked",
                  "objects", "amounts")
_SUMMARY_INDEX = {kind: i for i, kind in enumerate(_SUMMARY_KINDS)}
_VERB_FIELDS = frozenset({6, 7, 8})


class Intent:
    """What the evaluator bound from the user's messages (its summary record, §8): the e-mail
    addresses, URLs, domains, paths, recipients and names (people and quoted names, lower-cased:
    recipients without '#' or '@') they name, (capability, verb word) pairs they prohibited,
    granted, or asked about ("(model)": a narrowing turns its allows into asks), and the objects
    and sums they name (§7.3: "hotel lumen", "200 EUR").

    Immutable. Read from the summary text when a field is first read: every user message is
    bound, and its fields are read only to show or compare them."""

    __slots__ = ("_summary", "_fields")

    def __init__(self, emails: tuple[str, ...] = (), urls: tuple[str, ...] = (), domains: tuple[str, ...] = (),
                 paths: tuple[str, ...] = (), recipients: tuple[str, ...] = (), names: tuple[str, ...] = (),
                 prohibited: tuple[tuple[str, str], ...] = (), granted: tuple[tuple[str, str], ...] = (),
                 asked: tuple[tuple[str, str], ...] = (), objects: tuple[str, ...] = (), amounts: tuple[str, ...] = ()):
        self._summary = ""
        self._fields: tuple[tuple[Any, ...], ...] | None = tuple(
            tuple(v) for v in (emails, urls, domains, paths, recipients, names, prohibited, granted, asked, objects, amounts))

    @classmethod
    def from_summary(cls, summary: str) -> Intent:
        intent = cls.__new__(cls)
        intent._summary = summary
        intent._fields = None
        return intent

    def _values(self) -> tuple[tuple[Any, ...], ...]:
        fields = self._fields
        if fields is None:  # two threads may both parse: same text, same answer
            fields = self._fields = _parse_summary(self._summary)
        return fields

    emails = property(lambda self: self._values()[0])
    urls = property(lambda self: self._values()[1])
    domains = property(lambda self: self._values()[2])
    paths = property(lambda self: self._values()[3])
    recipients = property(lambda self: self._values()[4])
    names = property(lambda self: self._values()[5])
    prohibited = property(lambda self: self._values()[6])
    granted = property(lambda self: self._values()[7])
    asked = property(lambda self: self._values()[8])
    objects = property(lambda self: self._values()[9])
    amounts = property(lambda self: self._values()[10])

    @property
    def bindings(self) -> tuple[Binding, ...]:
        """Each named value with its role, mood, turn and clause (empty for an Intent built by hand)."""
        return _parse_bindings(self._summary)

    @property
    def revoked(self) -> tuple[Binding, ...]:
        """The values a later turn took back."""
        return tuple(b for b in self.bindings if b.revoked)

    @property
    def verb_uses(self) -> tuple[VerbUse, ...]:
        """What the user's verbs granted, granted under a condition, prohibited or a narrowing asks
        about, each with its turn and clause (empty for an Intent built by hand)."""
        return _parse_verb_uses(self._summary)

    def describe(self) -> list[str]:
        """The intent in plain words, one line a value or verb: its role, mood, turn and clause,
        and what a later turn took back (agentsfence explain and /fence show these)."""
        return describe_intent(self)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Intent) and self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        return "Intent(" + ", ".join(f"{name}={value!r}" for name, value in zip(_INTENT_FIELDS, self._values())) + ")"


@dataclass(frozen=True, slots=True)
class Derivation:
    """What the evaluator read from one call's output (§8 `derive`)."""

    read: bool  # the user pointed at the call, and the policy derives from its class
    why: str  # why the output was ignored ("" when read)
    items: tuple[tuple[str, str], ...]  # the session's derived items: (email|url|domain|path|recipient, value)


@dataclass(frozen=True, slots=True)
class TraceStep:
    """One test the evaluator ran (§8 `explain`), or the DECIDE it reached (predicate "decide")."""

    rule: str  # rule id, "(default)" for the class default
    predicate: str  # in_intent, granted, equals, ...; "decide" for a rule's DECIDE or the class default
    subject: str  # email, tool, args.NAME, ...; the effect for "decide"
    held: bool  # a test held; a DECIDE ended the run
    negated: bool
    # A test held maybe (§5.4); a DECIDE the run went on from (a warn rule, or a rule that held maybe).
    maybe: bool = False


@dataclass(frozen=True, slots=True)
class Trace:
    """How the evaluator classified a call and every test it ran deciding it (§8 `explain`)."""

    capability: str
    risk: str
    source: str  # mapped, name (the classifier read the tool's name), inferred (its description), unknown
    steps: tuple[TraceStep, ...]


@dataclass(frozen=True, slots=True)
class Amendment:
    """What a later user message added to a session's intent (the evaluator's union of both):
    the record of a widening, which the policy's rules still bound."""

    message_index: int  # 1 for the second message of the session, ...
    added: Intent


def _added(before: Intent, after: Intent) -> Intent:
    fields = {name: tuple(v for v in getattr(after, name) if v not in getattr(before, name))
              for name in _INTENT_FIELDS}
    return Intent(**fields)


# MCP tool annotations as `describe` takes them (docs/bytecode.md §8): two bits each, given and value.
_ANNOTATIONS = (("readOnlyHint", 1), ("destructiveHint", 4), ("openWorldHint", 16))


def annotation_bits(annotations: Any) -> int:
    """The hints of an MCP tool's annotations (a mapping, or an object such as the SDK's
    ToolAnnotations) that are booleans; anything else is not a claim and is left out."""
    if annotations is None:
        return 0
    bits = 0
    for key, bit in _ANNOTATIONS:
        value = annotations.get(key) if isinstance(annotations, dict) else getattr(annotations, key, None)
        if isinstance(value, bool):
            bits |= bit | (bit << 1 if value else 0)
    return bits


def host_decision(tool_name: str, reason: str, text: str) -> Decision:
    """A block the host makes itself, worded like the evaluator's messages (§8.1)."""
    return Decision("block", reason, "", "", "", f"AgentsFence blocked {tool_name}: {text} [{reason}]")


class _Unencodable(TypeError):
    pass


def _refuse(value: object) -> Any:
    raise _Unencodable(f"a value of type {type(value).__name__} is not JSON")


def _make_chunker() -> Callable[[object, int], Iterable[str]]:
    """The chunks of json.dumps(ensure_ascii=False, separators=(",", ":"), allow_nan=False,
    default=_refuse), without building an encoder per call; called as (value, 0) and joined by
    encode_call, with no Python frame between. With the C accelerator, circular references are
    not tracked: they end in RecursionError, which encode_call reports like any nesting too deep."""
    if c_make_encoder is None:
        return json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False, default=_refuse).iterencode
    return c_make_encoder(None, _refuse, encode_basestring, None, ":", ",", False, False, False)  # type: ignore[no-any-return]


_json_chunks = _make_chunker()


def encode_call(tool_name: object, args: object) -> tuple[bytes, bytes] | str:
    """(tool name, argument JSON) as UTF-8, or the reason they cannot be sent."""
    if not isinstance(tool_name, str):
        return f"the tool name is a {type(tool_name).__name__}, not a string"
    if not isinstance(args, dict):
        return f"the arguments are a {type(args).__name__}, not an object"
    try:
        return tool_name.encode("utf-8"), "".join(_json_chunks(args, 0)).encode("utf-8")
    except UnicodeEncodeError:
        return "the call cannot be read: a string holds a lone surrogate"
    except (TypeError, ValueError) as error:  # bytes, sets, objects, odd keys; NaN and infinity
        return f"the arguments cannot be read: {error}"
    except RecursionError:
        return "the arguments cannot be read: they nest too deeply (or refer to themselves)"


class Session:
    """The intent of one conversation. Get it from `Fence.session`; one object per id."""

    __slots__ = ("id", "_fence", "_handle", "_messages", "_narrowings", "_fault", "current_intent", "amendments")  # no dict per session

    def __init__(self, fence: Fence, session_id: str, handle: int):
        self.id = session_id
        self._fence = fence
        self._handle = handle
        self._messages: list[tuple[bytes, str]] = []  # (message, cwd), replayed into a rebuilt evaluator
        self._narrowings: list[bytes] = []  # narrow's lines, replayed after the messages
        self._fault: str | None = None  # set when a message or the budget counts were lost: then every call blocks
        self.current_intent = Intent()
        self.amendments: list[Amendment] = []  # what each later user message widened

    def intent(self, user_message: str, cwd: str | None = None) -> Intent:
        """Binds (or amends) this session's intent from the user's own message; relative paths
        in it resolve against cwd (default: the Fence's working directory)."""
        return self._fence._bind(self, user_message, cwd)

    def explain(self, tool_name: str, args: dict[str, Any]) -> Trace:
        """How the evaluator classified the call and which rules' tests ran, as it decided it."""
        return self._fence._explain(self, tool_name, args)

    def decide(self, tool_name: str, args: dict[str, Any], cwd: str | None = None) -> Decision:
        """cwd: the absolute directory this call's relative paths resolve against, when it is not
        the Fence's (the host's tools may track a working directory per task). A decision with a
        reservation holds budget units until it is committed or released."""
        return self._fence._decide(self, tool_name, encode_call(tool_name, args), cwd)

    def decide_json(self, tool_name: str, arguments_json: bytes, cwd: str | None = None) -> Decision:
        """decide, for a host that has the arguments as JSON already (encode_call's text): the
        evaluator reads the same bytes, and text that is not a JSON object blocks."""
        if not isinstance(tool_name, str) or not isinstance(arguments_json, bytes):
            return host_decision(str(tool_name), "bad_arguments", "the call is not a tool name and the bytes of its JSON")
        try:
            name = tool_name.encode("utf-8")
        except UnicodeEncodeError:
            return host_decision(tool_name, "bad_arguments", "the call cannot be read: a string holds a lone surrogate")
        return self._fence._decide(self, tool_name, (name, arguments_json), cwd)

    def narrow(self, prohibit: list[str], ask: list[str]) -> Intent:
        """Narrows this session's intent (docs/bytecode.md §7.2): the capabilities (or globs) in
        `prohibit` are ruled out, those in `ask` are asked about where the policy would allow.
        Nothing can widen it. Replayed into a rebuilt evaluator like the user's messages."""
        return self._fence._narrow(self, prohibit, ask)

    def observe(self, tool_name: str, args: dict[str, Any], output: str) -> Derivation:
        """Hands the evaluator a call's output. When the user pointed at the call (its every
        target named in their own words, its class in the policy's derive_from), the targets the
        output names become derived items, which only `in_derived` conditions read. They live
        as long as this evaluator instance: a rebuilt one has none, which can only ask more."""
        return self._fence._derive(self, tool_name, args, output)

    def commit(self, reservation: int) -> bool:
        """The reserved call ran (ok or error): its units are spent. False when the reservation
        is unknown or already settled (nothing changed)."""
        return self._fence._settle(self, "commit", reservation)

    def release(self, reservation: int) -> bool:
        """The reserved call did not run: its units are free again. False as for commit."""
        return self._fence._settle(self, "release", reservation)

    def budgets(self) -> tuple[Budget, ...]:
        """The policy's budgets and what this session has spent and reserved of each."""
        return self._fence._budgets(self)

    def restore_budgets(self, spent: dict[str, int | str | Decimal]) -> None:
        """Raises spent counts (a resumed session's, by budget id: calls, or a budget of sums'
        decimal); ids the policy lacks are skipped."""
        self._fence._restore_budgets(self, spent)


class Fence:
    """fence.wasm with one policy installed. Thread-safe: one lock serializes evaluator calls."""

    def __init__(
        self,
        policy: bytes | str | os.PathLike[str] | None = None,
        *,
        wasm: bytes | str | os.PathLike[str] | None = None,
        raw_calls: bool = True,
        memory_limit: int = DEFAULT_MEMORY_LIMIT,
        cache_dir: Path | Literal[False] | None = None,
        home: str | None = None,
        cwd: str | None = None,
        hermes_homes: Iterable[str] = (),
        fold_case: bool | None = None,
    ):
        """policy: None (the shipped default), the bytecode itself, or a path to a .afb or a .yaml
        (compiled with Node). wasm: the evaluator (default: the shipped fence.wasm). cache_dir:
        where compiled modules are kept when the package ships none for this host (None:
        $AGENTSFENCE_CACHE or $XDG_CACHE_HOME/agentsfence; False: compile every time). home, cwd:
        what `~` and relative paths mean to the evaluator (default: this user's home and the
        process's working directory). hermes_homes: the folders a policy's `$HERMES_HOME` stands
        for, HERMES_HOME first, then the root whose profiles/<name> are homes too (default:
        `~/.hermes`). fold_case: whether paths compare ASCII case aside (default: on macOS and
        Windows, whose file systems do)."""
        self._policy = _policy_bytes(policy)
        wasm_bytes = _read(wasm if wasm is not None else data.path("fence.wasm"), "fence.wasm")
        try:
            # The package's precompiled module is for the package's fence.wasm alone.
            self._module, self.module_source = load_module(wasm_bytes, default_cache_dir() if cache_dir is None else cache_dir or None,
                                                           data.DATA_DIR if wasm is None else None)
        except wasmtime.WasmtimeError as error:
            raise FenceError(f"fence.wasm is not a valid WebAssembly module: {error}") from error
        self._raw_calls = raw_calls
        self._memory_limit = memory_limit
        self._home = home if home is not None else os.path.expanduser("~")
        self._cwd = cwd if cwd is not None else os.getcwd()
        self._hermes_homes = "\n".join(hermes_homes).encode("utf-8")
        # macOS and Windows compare file names case aside: so does the evaluator there (§6.5).
        self._fold_case = _CONFIGURE_FOLD_CASE if (fold_case if fold_case is not None else sys.platform in ("darwin", "win32")) else 0
        self._configured_cwd = self._cwd
        self._lock = threading.Lock()
        self._sessions: dict[str, Session] = {}
        self._described: dict[str, tuple[tuple[int, ...], bytes]] = {}  # name -> (lengths, payload), replayed
        self._decisions: dict[bytes, Decision] = {}
        self._broken: str | None = None
        self.rebuilds = 0
        try:
            self._wasm, self.policy_name, self.policy_hash = self._instantiate()
        except EngineFault as fault:
            raise FenceError(f"fence.wasm cannot run: {fault}") from fault

    # ---- public ----

    def session(self, session_id: str) -> Session:
        with self._lock:
            session = self._sessions.get(session_id)
            if session is None:
                session = Session(self, session_id, self._open_session())
                self._sessions[session_id] = session
            return session

    def drop_session(self, session_id: str) -> None:
        with self._lock:
            session = self._sessions.pop(session_id, None)
            if session is None or session._handle == _CLOSED:
                return
            handle, session._handle = session._handle, _CLOSED
            if self._broken is None:
                try:
                    self._wasm.call_plain("session_close", (handle,))
                except EngineFault as fault:
                    self._recover(fault)

    def install(self, policy: bytes | str | os.PathLike[str] | None) -> None:
        """Puts another policy in place (None: the shipped default), keeping every session: its
        messages, narrowings and budget counts are given to an evaluator with the new policy
        (calls still under way count as made, as after a trap). A policy the evaluator rejects
        raises FenceError and leaves the old one in place."""
        bytecode = _policy_bytes(policy)
        with self._lock:
            previous = self._policy, self.policy_name, self.policy_hash
            self._policy = bytecode
            try:
                self._rebuild()
            except (EngineFault, FenceError) as error:
                self._policy, self.policy_name, self.policy_hash = previous
                raise FenceError(str(error)) from error
            finally:
                self._decisions.clear()

    def decide(self, tool_name: str, args: dict[str, Any], cwd: str | None = None) -> Decision:
        """Decides with an empty intent (handle 0): for calls that belong to no known session."""
        return self._decide(None, tool_name, encode_call(tool_name, args), cwd)

    def describe_tool(self, name: str, description: str, schema: dict[str, Any] | None = None, *,
                      server: str | None = None, annotations: Any = None) -> tuple[str, str]:
        """Classifies a tool the policy does not map from what its host knows of it: the MCP
        server it comes from (its own name then starts after `mcp__<server>__`, and the policy's
        `trusted_servers` are looked up), its description, the JSON schema of its parameters (an
        MCP tool's inputSchema) and the server's annotations (a mapping or an object with
        readOnlyHint, destructiveHint, openWorldHint); learns its parameters' roles.
        Returns (capability, risk)."""
        lengths, payload = self._describe_payload(name, description, schema, server, annotations)
        with self._lock:
            status, text = self._status_call("describe", lengths, payload)
            if status == 0:
                self._described[name] = (lengths, payload)
        if status != 0:
            raise FenceError(f"cannot describe tool {name!r}: {text}")
        capability, _, risk = text.partition("\n")[0].partition("\t")
        return capability, risk

    @staticmethod
    def _describe_payload(name: str, description: str, schema: dict[str, Any] | None, server: str | None,
                          annotations: Any) -> tuple[tuple[int, ...], bytes]:
        parts = [name.encode("utf-8"), description.encode("utf-8")]
        if schema is not None:
            encoded = encode_call(name, schema)
            if isinstance(encoded, str):
                raise FenceError(f"cannot describe tool {name!r}: its schema {encoded}")
            parts.append(encoded[1])
        else:
            parts.append(b"")
        parts.append((server or "").encode("utf-8"))
        return (*(len(part) for part in parts), annotation_bits(annotations)), b"".join(parts)

    def fails_open(self, tool_name: str) -> bool:
        """Whether the policy lets this tool's calls run when deciding them failed (its risk class
        is in the policy's fail_open). False whenever the evaluator cannot answer."""
        with self._lock:
            return self._fails_open(tool_name)

    def _explain(self, session: Session, tool_name: str, args: dict[str, Any]) -> Trace:
        encoded = encode_call(tool_name, args)
        if isinstance(encoded, str):
            raise FenceError(encoded)
        name, arguments = encoded
        with self._lock:
            status, text = self._status_call("explain", (session._handle, len(name), len(arguments)), name + arguments)
        if status != 0:
            raise FenceError(f"cannot explain {tool_name!r}: {text}")
        return _parse_trace(text)

    def _narrow(self, session: Session, prohibit: list[str], ask: list[str]) -> Intent:
        lines = [f"prohibit\t{c}" for c in prohibit] + [f"ask\t{c}" for c in ask]
        if any("\n" in line or line.count("\t") != 1 for line in lines):
            raise FenceError("a capability of a narrowing holds a tab or a newline")
        payload = "\n".join(lines).encode("utf-8")
        if not payload:
            return session.current_intent
        with self._lock:
            _require_live(session)
            status, record = self._status_call("narrow", (session._handle, len(payload)), payload)
            if status != 0:
                raise FenceError(f"the narrowing was not applied: {record}")
            session._narrowings.append(payload)
            session.current_intent = Intent.from_summary(record)
        return session.current_intent

    def _derive(self, session: Session, tool_name: str, args: dict[str, Any], output: str) -> Derivation:
        encoded = encode_call(tool_name, args)
        if isinstance(encoded, str):
            raise FenceError(encoded)
        name, arguments = encoded
        text = output.encode("utf-8", "replace")
        with self._lock:
            _require_live(session)
            status, record = self._status_call(
                "derive", (session._handle, len(name), len(arguments), len(text)), name + arguments + text
            )
        if status != 0:
            raise FenceError(f"cannot read the output of {tool_name!r}: {record}")
        return _parse_derivation(record)

    def disasm(self) -> str:
        with self._lock:
            return self._checked_invoke("disasm", ()).decode("utf-8")

    # ---- evaluator calls (callers hold the lock unless said) ----

    def _instantiate(self) -> tuple[WasmInstance, str, str]:
        wasm = WasmInstance(self._module, memory_limit=self._memory_limit, raw_calls=self._raw_calls)
        record = wasm.invoke("load", (len(self._policy),), self._policy)
        if record[:1] != b"\x00":
            raise FenceError(f"policy rejected: {record[1:].decode('utf-8', 'replace')}")
        name, _, digest = record[1:].decode("utf-8").partition("\t")
        failure = self._configure(wasm, self._cwd)
        if failure is not None:
            raise FenceError(f"cannot configure home {self._home!r} and working directory {self._cwd!r}: {failure}")
        return wasm, name, digest

    def _configure(self, wasm: WasmInstance, cwd: str) -> str | None:
        """Tells the evaluator what `~` and relative paths mean; the evaluator's reason on failure."""
        home, directory, hermes = self._home.encode("utf-8"), cwd.encode("utf-8"), self._hermes_homes
        record = wasm.invoke("configure", (len(home), len(directory), len(hermes), self._fold_case),
                             home + directory + hermes)
        if record[:1] != b"\x00":
            return record[1:].decode("utf-8", "replace")
        self._configured_cwd = cwd
        return None

    def _rebuild(self) -> None:
        """A fresh instance carrying everything the old one was told: a trap can leave wasm state torn.
        Budget counters are read from the old instance (they change in a few stores after a
        decision is made, never during one, so the trap left them whole) and its open
        reservations are counted as spent: the calls may have run, and their ids mean nothing to
        the new instance. A session whose counters cannot be read blocks every call."""
        spent = {name: self._spent_in_old(session) for name, session in self._sessions.items()}
        wasm, self.policy_name, self.policy_hash = self._instantiate()
        for lengths, payload in self._described.values():
            wasm.invoke("describe", lengths, payload)
        for name, session in self._sessions.items():
            session._handle = wasm.call_plain("session_open", ())
            if session._handle == 0:
                raise EngineFault("a live session could not be reopened")
            for message, cwd in session._messages:
                if cwd != self._configured_cwd and self._configure(wasm, cwd) is not None:
                    raise EngineFault(f"cannot configure {cwd!r} again")
                wasm.invoke("intent", (session._handle, len(message)), message)
            for narrowing in session._narrowings:
                wasm.invoke("narrow", (session._handle, len(narrowing)), narrowing)
            lines = _restore_lines(spent[name] or {})
            if lines and wasm.invoke("budget_restore", (session._handle, len(lines)), lines)[:1] != b"\x00":
                raise EngineFault(f"the budget counts of session {name!r} could not be restored")
        self._wasm = wasm
        self._decisions.clear()

    def _spent_in_old(self, session: Session) -> dict[str, int | Decimal] | None:
        try:
            record = self._wasm.invoke("budgets", (session._handle,))
        except EngineFault as fault:
            session._fault = f"its budget counts were lost when the evaluator failed ({_last_line(str(fault))})"
            return None
        if record[:1] != b"\x00":
            session._fault = "its budget counts were lost when the evaluator failed"
            return None
        return {b.id: b.spent + b.reserved for b in _parse_budgets(record[1:])}

    def _recover(self, fault: EngineFault) -> None:
        self.rebuilds += 1
        try:
            self._rebuild()
        except (EngineFault, FenceError) as error:
            self._broken = f"{fault}; rebuilding failed: {error}"

    def _checked_invoke(self, export: str, args: tuple[int, ...], payload: bytes = b"") -> bytes:
        if self._broken is not None:
            raise FenceError(f"the evaluator is broken: {self._broken}")
        try:
            return self._wasm.invoke(export, args, payload)
        except InputTooLarge as error:
            raise FenceError(f"{export}: input of {error} bytes is over every limit") from error
        except EngineFault as fault:
            self._recover(fault)
            raise FenceError(f"{export}: the evaluator failed: {fault}") from fault

    def _status_call(self, export: str, args: tuple[int, ...], payload: bytes) -> tuple[int, str]:
        record = self._checked_invoke(export, args, payload)
        return record[0], record[1:].decode("utf-8", "replace")

    def _fails_open(self, tool_name: str) -> bool:
        if self._broken is not None:
            return False
        name = tool_name.encode("utf-8", "replace")
        try:
            return self._wasm.invoke("fail_mode", (len(name),), name)[:1] == b"\x01"
        except InputTooLarge:
            return False
        except EngineFault as fault:
            self._recover(fault)
            return False

    def _settle(self, session: Session, export: str, reservation: int) -> bool:
        with self._lock:
            if session._handle == _CLOSED or not 0 < reservation <= 0xFFFFFFFF:
                return False
            record = self._checked_invoke(export, (session._handle, _i32(reservation)))
        return record[:1] == b"\x00"

    def _budgets(self, session: Session) -> tuple[Budget, ...]:
        with self._lock:
            _require_live(session)
            record = self._checked_invoke("budgets", (session._handle,))
        if record[:1] != b"\x00":
            raise FenceError(f"cannot read the budgets of session {session.id!r}: {record[1:].decode('utf-8', 'replace')}")
        return _parse_budgets(record[1:])

    def _restore_budgets(self, session: Session, spent: dict[str, int | str | Decimal]) -> None:
        lines = _restore_lines(spent)
        if not lines:
            return
        with self._lock:
            _require_live(session)
            status, text = self._status_call("budget_restore", (session._handle, len(lines)), lines)
        if status != 0:
            raise FenceError(f"cannot restore the budgets of session {session.id!r}: {text}")

    def _open_session(self) -> int:
        if self._broken is not None:
            raise FenceError(f"the evaluator is broken: {self._broken}")
        try:
            handle = self._wasm.call_plain("session_open", ())
        except EngineFault as fault:
            self._recover(fault)
            raise FenceError(f"session_open: the evaluator failed: {fault}") from fault
        if handle == 0:
            raise FenceError("no session can be opened: the policy's max_sessions are live")
        return handle

    def _bind(self, session: Session, message: str, cwd: str | None) -> Intent:
        encoded = message.encode("utf-8", "replace")
        directory = cwd or self._cwd
        with self._lock:
            _require_live(session)
            try:
                if self._broken is not None:
                    raise FenceError(f"the evaluator is broken: {self._broken}")
                failure = self._configure(self._wasm, directory) if directory != self._configured_cwd else None
                if failure is not None:
                    raise FenceError(f"cannot use the working directory {directory!r}: {failure}")
                record = self._wasm.invoke("intent", (session._handle, len(encoded)), encoded)
                if record[:1] != b"\x00":
                    raise FenceError(f"the user's message could not be bound: {record[1:].decode('utf-8', 'replace')}")
            except InputTooLarge as error:
                session._fault = f"the message ({error} bytes) is over every limit"
                raise FenceError(session._fault) from error
            except EngineFault as fault:
                self._recover(fault)
                session._fault = f"the evaluator failed: {_last_line(str(fault))}"
                raise FenceError(session._fault) from fault
            except FenceError as error:
                session._fault = str(error)  # a session missing part of its intent would be too lenient
                raise
            session._messages.append((encoded, directory))
            intent = Intent.from_summary(record[1:].decode("utf-8", "replace"))
            if len(session._messages) > 1:  # the first message amends nothing: skip the comparison
                added = _added(session.current_intent, intent)
                if added != Intent():
                    session.amendments.append(Amendment(len(session._messages) - 1, added))
            session.current_intent = intent
        return intent

    def _decide(self, session: Session | None, tool_name: str, encoded: tuple[bytes, bytes] | str,
                cwd: str | None) -> Decision:
        """Decides encode_call's result (the tool name and argument JSON as UTF-8, or why they
        cannot be sent): one frame from Session.decide to the evaluator, the hot path."""
        if isinstance(encoded, str):
            return host_decision(str(tool_name), "bad_arguments", encoded)
        name, arguments = encoded
        with self._lock:
            if self._broken is not None:
                return host_decision(tool_name, "engine_fault", f"the evaluator is broken ({_last_line(self._broken)})")
            handle = 0
            if session is not None:
                if session._fault is not None:
                    return host_decision(tool_name, "host_error", f"its session cannot be used ({session._fault})")
                handle = session._handle
                if handle == _CLOSED:
                    return host_decision(tool_name, "unknown_session", f"session {session.id!r} was dropped")
            try:
                directory = cwd or self._cwd
                if directory != self._configured_cwd:
                    failure = self._configure(self._wasm, directory)
                    if failure is not None:
                        return host_decision(tool_name, "host_error", f"its working directory {directory!r} "
                                             f"cannot be used ({failure})")
                record = self._wasm.decide(handle, len(name), len(arguments), name + arguments)
            except InputTooLarge:
                return host_decision(tool_name, "limit_exceeded", f"the evaluator cannot take its arguments "
                                     f"({len(arguments)} bytes: over every limit, or out of memory)")
            except EngineFault as fault:
                self._recover(fault)
                if fault.out_of_fuel:
                    return host_decision(tool_name, "limit_exceeded", f"deciding it took more than the fuel its "
                                         f"{len(arguments)} bytes of arguments buy; an input can be built to do that, "
                                         f"so it blocks whatever fail_open says")
                if self._fails_open(tool_name):
                    return Decision("allow", "fail_open", "", "", "", f"AgentsFence allowed {tool_name}: deciding it failed "
                                    f"({_last_line(str(fault))}) and the policy lets its risk class fail open [fail_open]")
                return host_decision(tool_name, "engine_fault", f"the evaluator failed ({_last_line(str(fault))})")
            # Only decisions without a reservation are kept (a reservation id is unique: its record
            # never comes again), so a hit holds none.
            decision = self._decisions.get(record)
            if decision is None:
                decision = _parse_decision(record, tool_name)
                if decision.reservation == 0:
                    if len(self._decisions) >= _DECISION_CACHE_LIMIT:
                        self._decisions.clear()
                    self._decisions[record] = decision
            return decision


def _require_live(session: Session) -> None:
    if session._handle == _CLOSED:
        raise FenceError(f"session {session.id!r} was dropped")


def _parse_decision(record: bytes, tool_name: str) -> Decision:
    try:
        (kind, reason_length, rule_length, capability_length, risk_length, flags, message_length, witness_length,
         reservation, warned_length) = _DECISION_HEAD.unpack_from(record)
        # The five fields' ends, from their lengths in bytes: slice, then decode each.
        reason_end = _HEAD_SIZE + reason_length
        rule_end = reason_end + rule_length
        capability_end = rule_end + capability_length
        risk_end = capability_end + risk_length
        message_end = risk_end + message_length
        witness_end = message_end + witness_length
        warned_end = witness_end + warned_length
        if kind >= len(_KINDS) or warned_end > len(record) or flags & ~(_DECISION_POSSIBLE | _DECISION_OPAQUE):
            raise ValueError("its lengths do not add up")
        # Positional arguments: a frozen dataclass's keywords cost a third more.
        return Decision(_KINDS[kind], record[_HEAD_SIZE:reason_end].decode("utf-8"),
                        record[reason_end:rule_end].decode("utf-8"), record[rule_end:capability_end].decode("utf-8"),
                        record[capability_end:risk_end].decode("utf-8"), record[risk_end:message_end].decode("utf-8"),
                        _subject_values(record, message_end, witness_end, "witness"),
                        _subject_values(record, warned_end, len(record), "targets"),  # they run to the record's end
                        reservation, bool(flags & _DECISION_POSSIBLE), bool(flags & _DECISION_OPAQUE),
                        _warned(record, witness_end, warned_end) if warned_length else ())
    except (struct.error, ValueError) as error:  # UnicodeDecodeError is a ValueError
        return host_decision(tool_name, "engine_fault", f"the evaluator's answer is malformed ({error})")


def _subject_values(record: bytes, offset: int, end: int, what: str) -> tuple[tuple[str, str], ...]:
    """Entries `u8 subject, u32 length, bytes` from `offset` to exactly `end` (§8.1)."""
    if offset == end:
        return ()
    values = []
    while offset < end:
        subject, length = _SUBJECT_ENTRY.unpack_from(record, offset)
        offset += _ENTRY_HEAD_SIZE
        number = subject & ~(_PATTERN_BIT | _TREE_BIT)
        if number >= len(SUBJECTS) or offset + length > end:
            raise ValueError(f"its {what} is malformed")
        name = SUBJECTS[number]
        if subject & _TREE_BIT:
            name += TREE_SUFFIX
        if subject & _PATTERN_BIT:
            name += PATTERN_SUFFIX
        values.append((name, record[offset:offset + length].decode("utf-8")))
        offset += length
    return tuple(values)


def _warned(record: bytes, offset: int, end: int) -> tuple[str, ...]:
    """The warned field (§8.1): `u16 length, rule id` entries from `offset` to exactly `end`."""
    ids = []
    while offset < end:
        (length,) = _WARNED_ENTRY.unpack_from(record, offset)
        offset += _WARNED_ENTRY.size
        if offset + length > end:
            raise ValueError("its warned rules are malformed")
        ids.append(record[offset:offset + length].decode("utf-8"))
        offset += length
    return tuple(ids)


def _parse_budgets(text: bytes) -> tuple[Budget, ...]:
    budgets = []
    for line in text.decode("utf-8").splitlines():
        budget_id, limit, spent, reserved, *kind = line.split("\t")
        if kind == ["sum"]:  # a budget of sums: its cap ("500 EUR"), decimals spent and reserved
            cap, _, currency = limit.partition(" ")
            budgets.append(Budget(budget_id, Decimal(cap), Decimal(spent), Decimal(reserved), True, currency))
        else:
            budgets.append(Budget(budget_id, int(limit), int(spent), int(reserved)))
    return tuple(budgets)


def _restore_count(count: object) -> str | None:
    """A count budget_restore reads (§8): a whole number of calls or a decimal sum, above zero."""
    if isinstance(count, bool):
        return None
    if isinstance(count, int):
        return str(count) if 0 < count <= 0xFFFFFFFF else None
    try:
        value = Decimal(str(count))
    except ArithmeticError:
        return None
    return format(value, "f") if value.is_finite() and value > 0 else None


def _restore_lines(spent: dict[str, int | str | Decimal]) -> bytes:
    """budget_restore's input (§8): `id<TAB>count` lines; an id with a tab or newline names no budget."""
    lines = []
    for budget_id, count in spent.items():
        text = _restore_count(count)
        if text is not None and "\t" not in budget_id and "\n" not in budget_id:
            lines.append(f"{budget_id}\t{text}\n")
    return "".join(lines).encode("utf-8")


def _i32(value: int) -> int:
    """A u32 as the i32 the raw call path passes."""
    return value - (1 << 32) if value >= 1 << 31 else value


def _parse_summary(summary: str) -> tuple[tuple[Any, ...], ...]:
    """An intent summary record's lines (`kind\tvalue\t…`, `kind\tcapability\tverb\t…`) as Intent's fields."""
    columns: list[list[Any]] = [[] for _ in _SUMMARY_KINDS]
    for line in summary.splitlines():
        kind, *rest = line.split("\t")
        i = _SUMMARY_INDEX.get(kind)  # other kinds: a newer evaluator's lines; the binding itself lives in the wasm
        if i is None or not rest:
            continue
        if i in _VERB_FIELDS:
            # The policy's own words: every session shares one copy of each.
            columns[i].append((sys.intern(rest[0]), sys.intern(rest[1] if len(rest) > 1 else "")))
        else:
            columns[i].append(rest[0])
    return tuple(tuple(column) for column in columns)


_BINDING_KINDS = frozenset(("email", "url", "domain", "path", "recipient", "name"))


def _parse_bindings(summary: str) -> tuple[Binding, ...]:
    found = []
    for line in summary.splitlines():
        fields = line.split("\t")
        if fields[0] not in _BINDING_KINDS or len(fields) < 8:
            continue
        kind, value, role, mood, turn, grants, revoked, clause = fields[:8]
        found.append(Binding(kind, value, role, mood, int(turn or 0), tuple(grants.split(",")), int(revoked or 0), clause))
    return tuple(found)


_VERB_KINDS = frozenset(("grant", "grant-maybe", "prohibit", "ask"))


def _parse_verb_uses(summary: str) -> tuple[VerbUse, ...]:
    found = []
    for line in summary.splitlines():
        fields = line.split("\t")
        if fields[0] not in _VERB_KINDS or len(fields) < 3:
            continue
        kind, capability, verb, *rest = fields
        turn, revoked, clause = (rest + ["0", "0", ""])[:3]
        found.append(VerbUse(kind, capability, verb, int(turn) if turn.isdigit() else 0,
                             int(revoked) if revoked.isdigit() else 0, clause))
    return tuple(found)


_DERIVED_PREFIX = "derived-"


def _parse_derivation(text: str) -> Derivation:
    head, _, summary = text.partition("\n")
    verdict, _, why = head.partition("\t")
    items = []
    for line in summary.splitlines():
        kind, _, value = line.partition("\t")
        if kind.startswith(_DERIVED_PREFIX):
            items.append((kind[len(_DERIVED_PREFIX):], value))
    return Derivation(verdict == "derived", why, tuple(items))


def _parse_trace(text: str) -> Trace:
    capability = risk = source = ""
    steps: list[TraceStep] = []
    for line in text.splitlines():
        kind, *fields = line.split("\t")
        if kind == "class":
            capability, risk, source = fields
        elif kind == "test":
            rule, predicate, subject, held, negated = fields
            steps.append(TraceStep(rule, predicate, subject, held == "held", negated == "negated", held == "maybe"))
        elif kind == "decide":
            rule, effect, ends = fields
            steps.append(TraceStep(rule, "decide", effect, ends == "ends", False, ends == "passed"))
    return Trace(capability, risk, source, tuple(steps))


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else text


def _read(source: bytes | str | os.PathLike[str], what: str) -> bytes:
    if isinstance(source, (bytes, bytearray)):
        return bytes(source)
    try:
        return Path(source).read_bytes()
    except OSError as error:
        raise FenceError(f"cannot read {what} at {source}: {error.strerror or error}") from error


def _policy_bytes(policy: bytes | str | os.PathLike[str] | None) -> bytes:
    if policy is None:
        return _read(data.path("default.afb"), "the shipped policy (default.afb)")
    if isinstance(policy, (bytes, bytearray)):
        return bytes(policy)
    if Path(policy).suffix.lower() in (".yaml", ".yml"):
        from .compiler import compile_policy

        return compile_policy([Path(policy)])
    return _read(policy, "the policy")
