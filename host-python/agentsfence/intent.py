"""What the evaluator bound from the user's messages: `Intent`, read from the summary record
the `intent` export answers with (docs/bytecode.md §8), each value with the role and mood the
user's words gave it (`Binding`, §7.3) and each verb with what it granted or ruled out
(`VerbUse`). Plain data: nothing here runs the evaluator or imports wasmtime."""
from __future__ import annotations

import sys
import zlib
from dataclasses import dataclass
from typing import Any


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
    lines += _describe_derived(intent.derived)
    return lines or ["  nothing: no target named, no verb read"]


_DERIVED_SHOWN = 12


def _describe_derived(derived: tuple[tuple[str, str], ...]) -> list[str]:
    """Where the values the user did not write came from: the task's own records (objects and
    sums), or the output of a call the user pointed at (addresses, links, paths)."""
    lines = []
    for label, kinds in (("read from the task's own records", ("object", "amount")),
                         ("found in output the user pointed at", ("email", "url", "domain", "path", "recipient"))):
        values = [value for kind, value in derived if kind in kinds]
        if values:
            more = f", and {len(values) - _DERIVED_SHOWN} more" if len(values) > _DERIVED_SHOWN else ""
            lines.append(f"  {label}: {', '.join(values[:_DERIVED_SHOWN])}{more}")
    return lines


# The summary record's kinds (§8 `intent`), in Intent's field order.
_SUMMARY_KINDS = ("email", "url", "domain", "path", "recipient", "name", "prohibit", "grant", "ask", "object", "amount")
_INTENT_FIELDS = ("emails", "urls", "domains", "paths", "recipients", "names", "prohibited", "granted", "asked",
                  "objects", "amounts")
_SUMMARY_INDEX = {kind: i for i, kind in enumerate(_SUMMARY_KINDS)}
_VERB_FIELDS = frozenset({6, 7, 8})


# The words every summary is written with (§8: kinds, roles, moods, attributes), the dictionary
# its compression starts from: each session keeps its summary as long as it lives.
_SUMMARY_WORDS = ("grant-maybe\tprohibit\task\tderived-email\tderived-url\tderived-domain\tderived-path\t"
                  "derived-recipient\tderived-object\tderived-amount\tamount\turl\tdomain\trecipient\tquoted\t"
                  "mention\tsource\tquestion\tcondition\tnegated\tunknown-language\tuncertain\tstatement\t"
                  "destination-maybe,source-maybe,named-maybe,revoked,whole-host,ruled-out\tnone\t"
                  "\ngrant\tfile.write\tmessage.send\temail.send\t\nobject\t\nname\t\npath\t/home/\t"
                  "destination\trequest\t1\tdestination,source,named\t0\t\nemail\t").encode()


class Intent:
    """What the evaluator bound from the user's messages (its summary record, §8): the e-mail
    addresses, URLs, domains, paths, recipients and names (people and quoted names, lower-cased:
    recipients without '#' or '@') they name, (capability, verb word) pairs they prohibited,
    granted, or asked about ("(model)": a narrowing turns its allows into asks), and the objects
    and sums they name (§7.3: "hotel lumen", "200 EUR").

    Immutable. Read from the summary text when a field is first read: every user message is
    bound, and its fields are read only to show or compare them. The text is kept compressed,
    at the fastest level: each value's line repeats its clause, a session holds its intent as
    long as it lives, and a message is bound once per user turn."""

    __slots__ = ("_packed", "_fields")

    def __init__(self, emails: tuple[str, ...] = (), urls: tuple[str, ...] = (), domains: tuple[str, ...] = (),
                 paths: tuple[str, ...] = (), recipients: tuple[str, ...] = (), names: tuple[str, ...] = (),
                 prohibited: tuple[tuple[str, str], ...] = (), granted: tuple[tuple[str, str], ...] = (),
                 asked: tuple[tuple[str, str], ...] = (), objects: tuple[str, ...] = (), amounts: tuple[str, ...] = ()):
        self._packed = b""
        self._fields: tuple[tuple[Any, ...], ...] | None = tuple(
            tuple(v) for v in (emails, urls, domains, paths, recipients, names, prohibited, granted, asked, objects, amounts))

    @classmethod
    def from_summary(cls, summary: str) -> Intent:
        intent = cls.__new__(cls)
        if summary:
            packer = zlib.compressobj(1, zdict=_SUMMARY_WORDS)
            intent._packed = packer.compress(summary.encode("utf-8")) + packer.flush()
        else:
            intent._packed = b""
        intent._fields = None
        return intent

    @property
    def _summary(self) -> str:
        if not self._packed:
            return ""
        unpacker = zlib.decompressobj(zdict=_SUMMARY_WORDS)
        return (unpacker.decompress(self._packed) + unpacker.flush()).decode("utf-8")

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
    def derived(self) -> tuple[tuple[str, str], ...]:
        """The values read from tool output, each (kind, value): the task's own records' objects
        and sums, and what a call the user pointed at named (§7.1). Empty for an Intent built by hand."""
        prefix = "derived-"
        return tuple((kind[len(prefix):], value) for kind, value, *_ in
                     (line.split("\t") + [""] for line in self._summary.splitlines()) if kind.startswith(prefix))

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


# The intent of a session no message has bound: immutable, so every such session shares it.
NO_INTENT = Intent()


@dataclass(frozen=True, slots=True)
class Amendment:
    """What a later user message added to a session's intent (the evaluator's union of both):
    the record of a widening, which the policy's rules still bound."""

    message_index: int  # 1 for the second message of the session, ...
    added: Intent


def added_to(before: Intent, after: Intent) -> Intent:
    """What `after` holds that `before` does not, field by field."""
    fields = {name: tuple(v for v in getattr(after, name) if v not in getattr(before, name))
              for name in _INTENT_FIELDS}
    return Intent(**fields)


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
