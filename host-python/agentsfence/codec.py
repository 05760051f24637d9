"""The bytes of the evaluator's ABI (docs/bytecode.md §8): a call's name and arguments as the
input buffer takes them, and the records the exports answer with, read into records.py's values.
The numbers (record layout sizes, flags, subjects) are generated from bytecode/format.ts
(`_abi.py`, scripts/gen-abi.mjs)."""
from __future__ import annotations

import json
import struct
from decimal import Decimal
from json.encoder import c_make_encoder, encode_basestring  # type: ignore[attr-defined]
from typing import Any, Callable, Iterable

from ._abi import (
    ANNOTATION_DESTRUCTIVE,
    ANNOTATION_OPEN_WORLD,
    ANNOTATION_READ_ONLY,
    DECISION_MOVES,
    DECISION_OPAQUE,
    DECISION_POSSIBLE,
    KIND_ALLOW,
    KIND_ASK,
    KIND_CONFINE,
    SANDBOX_CLASSIFY_CREATED,
    SANDBOX_CLASSIFY_ENV,
    SANDBOX_CLASSIFY_PATHS,
    SANDBOX_HIDDEN,
    SANDBOX_PLAIN,
    SANDBOX_READ_ONLY,
    KIND_BLOCK,
    SUBJECT_NAMES,
    TARGET_PATTERN,
    TARGET_TREE,
)
from .records import Budget, Decision, DecisionKind, Derivation, Trace, TraceStep, host_decision
from .sandbox.profile import SandboxProfile

# The kinds by their number in the record (§8.1).
_KIND_NUMBERS: dict[int, DecisionKind] = {KIND_ALLOW: "allow", KIND_BLOCK: "block", KIND_ASK: "ask", KIND_CONFINE: "confine"}
_KINDS: tuple[DecisionKind, ...] = tuple(_KIND_NUMBERS[number] for number in range(len(_KIND_NUMBERS)))
# §8.1: kind, reason, rule, capability, risk, flags, message, witness, reservation, warned
# (DECISION_HEAD_SIZE bytes: test_abi checks the two agree).
DECISION_HEAD = struct.Struct("<BBHHBBIIII")
_SUBJECT_ENTRY = struct.Struct("<BI")  # §8.1, an entry of the witness or the targets: subject, length
_HEAD_SIZE = DECISION_HEAD.size
_ENTRY_HEAD_SIZE = _SUBJECT_ENTRY.size
_WARNED_ENTRY = struct.Struct("<H")
# Subject names by number (docs/bytecode.md §5.1), as witnesses and targets name them: the ARG
# subject's values are the call's arguments, "args".
SUBJECTS = tuple("args" if name == "arg" else name for name in SUBJECT_NAMES)
# A target whose value is a pattern (§6.7) is named with this suffix: ("path:pattern", "/home/u/**");
# one that stands for a directory and everything below it (§6.9) with TREE_SUFFIX ("path:tree").
PATTERN_SUFFIX = ":pattern"
TREE_SUFFIX = ":tree"
# MCP tool annotations as `describe` takes them (§8): two bits each, given and value.
_ANNOTATIONS = (("readOnlyHint", ANNOTATION_READ_ONLY), ("destructiveHint", ANNOTATION_DESTRUCTIVE),
                ("openWorldHint", ANNOTATION_OPEN_WORLD))


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


def parse_decision(record: bytes, tool_name: str) -> Decision:
    """The decision record (§8.1); one that does not read back is an engine_fault block."""
    try:
        (kind, reason_length, rule_length, capability_length, risk_length, flags, message_length, witness_length,
         reservation, warned_length) = DECISION_HEAD.unpack_from(record)
        # The five fields' ends, from their lengths in bytes: slice, then decode each.
        reason_end = _HEAD_SIZE + reason_length
        rule_end = reason_end + rule_length
        capability_end = rule_end + capability_length
        risk_end = capability_end + risk_length
        message_end = risk_end + message_length
        witness_end = message_end + witness_length
        warned_end = witness_end + warned_length
        if kind >= len(_KINDS) or warned_end > len(record) or flags & ~(DECISION_POSSIBLE | DECISION_OPAQUE | DECISION_MOVES):
            raise ValueError("its lengths do not add up")
        # Positional arguments: a frozen dataclass's keywords cost a third more.
        return Decision(_KINDS[kind], record[_HEAD_SIZE:reason_end].decode("utf-8"),
                        record[reason_end:rule_end].decode("utf-8"), record[rule_end:capability_end].decode("utf-8"),
                        record[capability_end:risk_end].decode("utf-8"), record[risk_end:message_end].decode("utf-8"),
                        _subject_values(record, message_end, witness_end, "witness"),
                        _subject_values(record, warned_end, len(record), "targets"),  # they run to the record's end
                        reservation, bool(flags & DECISION_POSSIBLE), bool(flags & DECISION_OPAQUE),
                        _warned(record, witness_end, warned_end) if warned_length else (),
                        bool(flags & DECISION_MOVES))
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
        number = subject & ~(TARGET_PATTERN | TARGET_TREE)
        if number >= len(SUBJECTS) or offset + length > end:
            raise ValueError(f"its {what} is malformed")
        name = SUBJECTS[number]
        if subject & TARGET_TREE:
            name += TREE_SUFFIX
        if subject & TARGET_PATTERN:
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


def parse_budgets(text: bytes) -> tuple[Budget, ...]:
    budgets = []
    for line in text.decode("utf-8").splitlines():
        budget_id, limit, spent, reserved, *flags = line.split("\t")
        per = "user" if "user" in flags else "team" if "team" in flags else "session"
        period = "day" if "day" in flags else "week" if "week" in flags else ""
        if "sum" in flags:  # a budget of sums: its cap ("500 EUR"), decimals spent and reserved
            cap, _, currency = limit.partition(" ")
            budgets.append(Budget(budget_id, Decimal(cap), Decimal(spent), Decimal(reserved), True, currency, per, period))
        else:
            budgets.append(Budget(budget_id, int(limit), int(spent), int(reserved), per=per, period=period))
    return tuple(budgets)


def _restore_count(count: object, least: int) -> str | None:
    """A count budget_restore reads (§8): a whole number of calls or a decimal sum, above zero
    (least 1) or from zero (least 0)."""
    if isinstance(count, bool):
        return None
    if isinstance(count, int):
        return str(count) if least <= count <= 0xFFFFFFFF else None
    try:
        value = Decimal(str(count))
    except ArithmeticError:
        return None
    return format(value, "f") if value.is_finite() and (value > 0 if least else value >= 0) else None


def restore_lines(spent: dict[str, int | str | Decimal], zero: bool = False) -> bytes:
    """budget_restore's input (§8): `id<TAB>count` lines; an id with a tab or newline names no budget.
    Counts of 0 are left out, except for budget_set (zero), which lowers a count to them."""
    lines = []
    for budget_id, count in spent.items():
        text = _restore_count(count, 0 if zero else 1)
        if text is not None and "\t" not in budget_id and "\n" not in budget_id:
            lines.append(f"{budget_id}\t{text}\n")
    return "".join(lines).encode("utf-8")


def i32(value: int) -> int:
    """A u32 as the i32 the raw call path passes."""
    return value - (1 << 32) if value >= 1 << 31 else value


_DERIVED_PREFIX = "derived-"


def parse_derivation(text: str) -> Derivation:
    head, _, summary = text.partition("\n")
    verdict, _, why = head.partition("\t")
    items = []
    for line in summary.splitlines():
        kind, _, value = line.partition("\t")
        if kind.startswith(_DERIVED_PREFIX):
            items.append((kind[len(_DERIVED_PREFIX):], value))
    return Derivation(verdict == "derived", why, tuple(items))


def parse_trace(text: str) -> Trace:
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


# What sandbox_classify answers, by its byte (§8.3).
_PATH_CLASSES = {SANDBOX_PLAIN: "", SANDBOX_READ_ONLY: "read_only", SANDBOX_HIDDEN: "hide"}


def parse_profile(text: str, classify: Callable[[int, list[str]], bytes]) -> SandboxProfile:
    """The lines of the sandbox export (§8.3) as a SandboxProfile whose questions go to `classify`
    (the evaluator's sandbox_classify for the same session)."""
    fields: dict[str, list[str]] = {"cwd": [], "home": [], "write": [], "hide": [], "host": [], "show": []}
    for line in text.splitlines():
        key, _, value = line.partition("\t")
        if key in fields and value and value not in fields[key]:
            fields[key].append(value)

    def paths(found: list[str]) -> list[str]:
        return [_PATH_CLASSES.get(b, "hide") for b in classify(SANDBOX_CLASSIFY_PATHS, found)]

    def created(found: list[str]) -> list[str]:
        return [_PATH_CLASSES.get(b, "hide") for b in classify(SANDBOX_CLASSIFY_CREATED, found)]

    def env(entries: list[str]) -> list[str]:
        return [entry.partition("=")[0] for entry, b in zip(entries, classify(SANDBOX_CLASSIFY_ENV, entries)) if b != SANDBOX_PLAIN]

    return SandboxProfile(cwd=(fields["cwd"] or [""])[0], home=(fields["home"] or [""])[0], write=tuple(fields["write"]),
                          hide=tuple(fields["hide"]), hosts=tuple(fields["host"]),
                          classify=paths, env_drop=env, show=tuple(fields["show"]), classify_created=created)
