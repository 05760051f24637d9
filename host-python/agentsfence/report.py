"""`agentsfence report [AUDIT]`: what the fence did over a period, from its audit log.

Read from the records of agentsfence/audit.py (the log and the files rotated out of it):
calls per tool and per decision, the rules that decided most, what observe mode let through
that enforce would have blocked or asked about, rules that warned, the approvals people
answered, budget use, outcomes and faults, and whether the hash chain verifies. As a table for
people, as JSON (`--json`), or as one self-contained HTML page with a chart of decisions over
time drawn here as SVG (`--html FILE`: no script, no stylesheet or font from elsewhere).
"""
from __future__ import annotations

import argparse
import html
import json
import re
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from decimal import Decimal
from pathlib import Path
from typing import Any, Iterator

from .audit import default_path, rotated_files, verify

KINDS = ("allow", "confine", "ask", "block")
COLOURS = {"allow": "#2e7d32", "confine": "#1565c0", "ask": "#f9a825", "block": "#c62828"}
FAULT_REASONS = {"host_error", "engine_fault", "policy_error", "unknown_task", "bad_arguments", "no_tool_call_id",
                 "unattended_approval", "plugin_conflict"}
TOP = 10  # rows of the "most" tables
LISTED_CALLS = 200  # the latest blocked and asked calls a report keeps; the text shows the last 2 * TOP
# How a target's subject (docs/bytecode.md §5.1) is named in the table of blocked and asked calls.
TARGET_WORDS = {"program": "runs", "path": "path", "write": "writes", "email": "to", "recipient": "to",
                "domain": "host", "url": "url", "amount": "sum", "object": "object"}
_RELATIVE = re.compile(r"^(\d+(?:\.\d+)?)\s*([smhdw])$")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
BUCKETS = (60, 300, 900, 3600, 6 * 3600, 86400, 7 * 86400)  # chart bar widths, seconds: the first giving <= 60 bars


class ReportError(ValueError):
    pass


def parse_time(text: str, now: float | None = None) -> float:
    """`2026-11-30`, `2026-11-30T13:30`, `2026-11-30 13:30:05+01:00` (local time without an
    offset), or a span back from now: `90m`, `24h`, `7d`, `2w`."""
    now = time.time() if now is None else now
    relative = _RELATIVE.match(text.strip())
    if relative:
        return now - float(relative.group(1)) * _UNITS[relative.group(2)]
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError as error:
        raise ReportError(f"{text!r} is not a time: give e.g. 2026-11-30, 2026-11-30T13:30 or 24h") from error
    if moment.tzinfo is None:
        moment = moment.astimezone()  # local time
    return moment.timestamp()


def records(path: Path) -> Iterator[dict[str, Any] | None]:
    """Every record of the log and its rotated files, oldest first; None for a line that is not one."""
    files = [*rotated_files(path), path] if path.exists() else rotated_files(path)
    if not files:
        raise ReportError(f"{path}: no audit log here")
    for file in files:
        with open(file, "rb") as f:
            for line in f:
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except ValueError:
                    yield None
                    continue
                yield record if isinstance(record, dict) else None


@dataclass
class Report:
    log: str
    since: float | None
    until: float | None
    first: float | None = None
    last: float | None = None
    records: int = 0
    unreadable: int = 0
    decisions: Counter[str] = field(default_factory=Counter)
    modes: Counter[str] = field(default_factory=Counter)
    tools: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    rules: Counter[tuple[str, str]] = field(default_factory=Counter)  # (rule, kind)
    reasons: Counter[tuple[str, str]] = field(default_factory=Counter)  # (reason, kind)
    observed: Counter[tuple[str, str, str]] = field(default_factory=Counter)  # (kind, tool, rule or reason) not acted on
    warned: Counter[tuple[str, str]] = field(default_factory=Counter)  # (rule, tool)
    approvals: Counter[tuple[str, str]] = field(default_factory=Counter)  # (choice, granted)
    budgets: dict[str, dict[str, Any]] = field(default_factory=dict)  # id -> limit, units spent, sessions, top, blocked
    outcomes: Counter[str] = field(default_factory=Counter)
    faults: Counter[str] = field(default_factory=Counter)
    args_changed: int = 0
    sessions: set[str] = field(default_factory=set)
    timeline: list[tuple[float, str, bool]] = field(default_factory=list)  # (time, kind, observed) of each decision
    stopped: list[dict[str, Any]] = field(default_factory=list)  # the latest blocked and asked calls, oldest first
    chain: dict[str, Any] = field(default_factory=dict)
    now: float = field(default_factory=time.time)  # the end of a period asked with --since alone

    # ---- reading ----

    def add(self, record: dict[str, Any]) -> None:
        moment = record.get("time")
        if not isinstance(moment, (int, float)):
            self.unreadable += 1
            return
        if (self.since is not None and moment < self.since) or (self.until is not None and moment >= self.until):
            return
        self.records += 1
        self.first = moment if self.first is None else min(self.first, moment)
        self.last = moment if self.last is None else max(self.last, moment)
        event, tool = str(record.get("event", "")), str(record.get("tool", ""))
        if record.get("session"):
            self.sessions.add(str(record["session"]))
        if event == "decision":
            self._decision(record, moment, tool)
        elif event == "outcome":
            self.outcomes[str(record.get("status") or "?")] += 1
        elif event == "approval":
            self.approvals[(str(record.get("choice") or "?"), str(record.get("granted") or "nothing"))] += 1
        elif event == "budget":
            self._budget(record)
        elif event == "args_changed":
            self.args_changed += 1

    def _decision(self, record: dict[str, Any], moment: float, tool: str) -> None:
        kind = str(record.get("kind", "?"))
        reason, rule = str(record.get("reason", "")), str(record.get("rule", ""))
        mode = "observe" if record.get("mode") == "observe" else "enforce"
        self.decisions[kind] += 1
        self.modes[mode] += 1
        self.tools[tool][kind] += 1
        self.rules[(rule or "(a default)", kind)] += 1
        self.reasons[(reason, kind)] += 1
        self.timeline.append((moment, kind, mode == "observe"))
        if mode == "observe" and kind not in ("allow", "confine"):  # what enforce would not have run
            self.observed[(kind, tool, rule or reason)] += 1
        if kind in ("block", "ask"):
            self.stopped.append({"time": moment, "kind": kind, "observed": mode == "observe", "tool": tool,
                                 "by": rule or reason, "targets": _target_words(record.get("targets")),
                                 "message": str(record.get("message") or "")})
            if len(self.stopped) > 2 * LISTED_CALLS:  # keep the latest, without a copy per record
                del self.stopped[:-LISTED_CALLS]
        for warned in record.get("warned") or ():
            self.warned[(str(warned), tool)] += 1
        if reason in FAULT_REASONS:
            self.faults[reason] += 1
        if reason == "budget_exhausted" and rule:
            self._budget_entry(rule)["blocked"] += 1

    def _budget_entry(self, budget: str) -> dict[str, Any]:
        return self.budgets.setdefault(budget, {"limit": None, "spent": 0, "sessions": {}, "blocked": 0})

    def _budget(self, record: dict[str, Any]) -> None:
        session = str(record.get("session", ""))
        for budget, use in (record.get("budgets") or {}).items():
            if not isinstance(use, dict):
                continue
            entry = self._budget_entry(str(budget))
            entry["limit"] = use.get("limit", entry["limit"])
            spent = use.get("spent", 0)
            if isinstance(spent, str):  # a budget of sums: decimal text
                try:
                    spent = Decimal(spent)
                except ArithmeticError:
                    continue
            before = entry["sessions"].get(session, 0)
            if isinstance(spent, (int, Decimal)) and not isinstance(spent, bool) and spent > before:
                entry["spent"] += spent - before
                entry["sessions"][session] = spent

    # ---- output ----

    def as_json(self) -> dict[str, Any]:
        def stamp(moment: float | None) -> str | None:
            return None if moment is None else datetime.fromtimestamp(moment).astimezone().isoformat(timespec="seconds")

        return {
            "log": self.log,
            "period": {"since": stamp(self.since), "until": stamp(self.until), "first": stamp(self.first),
                       "last": stamp(self.last)},
            "records": self.records,
            "unreadable_lines": self.unreadable,
            "sessions": len(self.sessions),
            "decisions": {kind: self.decisions.get(kind, 0) for kind in (*KINDS, *sorted(set(self.decisions) - set(KINDS)))},
            "modes": dict(self.modes),
            "tools": {tool: {"calls": sum(c.values()), **{k: c.get(k, 0) for k in KINDS}}
                      for tool, c in sorted(self.tools.items(), key=lambda item: (-sum(item[1].values()), item[0]))},
            "rules": [{"rule": rule, "kind": kind, "decisions": n} for (rule, kind), n in self.rules.most_common()],
            "reasons": [{"reason": reason, "kind": kind, "decisions": n} for (reason, kind), n in self.reasons.most_common()],
            "observed": [{"would": kind, "tool": tool, "by": by, "calls": n} for (kind, tool, by), n in self.observed.most_common()],
            "warned": [{"rule": rule, "tool": tool, "calls": n} for (rule, tool), n in self.warned.most_common()],
            "approvals": [{"choice": choice, "granted": granted, "answers": n} for (choice, granted), n in self.approvals.most_common()],
            "budgets": {budget: {"limit": e["limit"], "units_spent": _number(e["spent"]), "sessions": len(e["sessions"]),
                                 "most_in_one_session": _number(max(e["sessions"].values(), default=0)),
                                 "blocked": e["blocked"]}
                        for budget, e in sorted(self.budgets.items())},
            "blocked_and_asked": [{**call, "time": stamp(call["time"])} for call in self.stopped[-LISTED_CALLS:]],
            "outcomes": dict(self.outcomes.most_common()),
            "faults": dict(self.faults.most_common()),
            "args_changed": self.args_changed,
            "chain": self.chain,
        }

    def as_text(self) -> str:
        j = self.as_json()
        period = j["period"]
        lines = [f"AgentsFence report: {self.log}"]
        span = f"{_short(period['first'])} to {_short(period['last'])}" if self.records else "no records"
        asked = ", ".join(f"{k} {_short(period[k])}" for k in ("since", "until") if period[k])
        lines.append(f"Period: {span}" + (f" (asked for: {asked})" if asked else ""))
        mode = ", ".join(f"{n} {m}" for m, n in sorted(self.modes.items())) or "none"
        lines.append(f"Records: {self.records} in {_plural(len(self.sessions), 'session')}; decisions: "
                     + ", ".join(f"{n} {k}" for k, n in j["decisions"].items()) + f" (mode: {mode})")
        chain = self.chain
        if chain:
            lines.append(f"Chain: {'verifies' if chain.get('ok') else 'DOES NOT VERIFY'} ({chain.get('records')} records"
                         + (f"; {len(chain.get('problems', []))} problems: run agentsfence audit verify" if not chain.get("ok") else "")
                         + ")")
        if self.unreadable:
            lines.append(f"Unreadable lines skipped: {self.unreadable}")
        lines += _table("Calls per tool", ["tool", "calls", *KINDS],
                        [[t, v["calls"], *(v[k] for k in KINDS)] for t, v in list(j["tools"].items())[:TOP * 2]])
        lines += _table("Rules that decided most", ["rule", "decision", "calls"],
                        [[r["rule"], r["kind"], r["decisions"]] for r in j["rules"][:TOP]])
        lines += _table("Reasons", ["reason", "decision", "calls"], [[r["reason"], r["kind"], r["decisions"]] for r in j["reasons"][:TOP]])
        if self.modes.get("observe"):
            lines += _table("Observe mode let these through; enforce would have", ["would", "tool", "by", "calls"],
                            [[o["would"], o["tool"], o["by"], o["calls"]] for o in j["observed"][:TOP * 2]],
                            empty="nothing: every observed call would have been allowed")
        lines += _table("Blocked and asked calls, latest last", ["time", "decision", "tool", "targets", "by", "message"],
                        [_stopped_row(call) for call in j["blocked_and_asked"][-TOP * 2:]], empty="none")
        lines += _table("Warned (allowed and recorded)", ["rule", "tool", "calls"],
                        [[f"warned by rule {w['rule']}", w["tool"], w["calls"]] for w in j["warned"][:TOP]], empty="none")
        lines += _table("Approvals answered", ["answer", "granted", "count"],
                        [[a["choice"], a["granted"], a["answers"]] for a in j["approvals"]], empty="none")
        lines += _table("Budgets", ["budget", "limit", "units spent", "sessions", "most in one session", "blocked"],
                        [[b, v["limit"] if v["limit"] is not None else "?", v["units_spent"], v["sessions"],
                          v["most_in_one_session"], v["blocked"]] for b, v in j["budgets"].items()], empty="none used")
        lines += _table("Outcomes", ["status", "calls"], [[s, n] for s, n in j["outcomes"].items()], empty="none")
        faults = [[f, n] for f, n in j["faults"].items()] + ([["args_changed", self.args_changed]] if self.args_changed else [])
        lines += _table("Faults and refusals by the host", ["reason", "calls"], faults, empty="none")
        return "\n".join(lines) + "\n"

    def as_html(self) -> str:
        j = self.as_json()
        e = html.escape

        def table(title: str, head: list[str], rows: list[list[Any]], empty: str = "none") -> str:
            body = "".join("<tr>" + "".join(f"<td{' class=n' if isinstance(c, int) else ''}>{e(str(c))}</td>" for c in row) + "</tr>"
                           for row in rows)
            if not rows:
                body = f"<tr><td colspan={len(head)}>{e(empty)}</td></tr>"
            return (f"<h2>{e(title)}</h2><table><tr>{''.join(f'<th>{e(h)}</th>' for h in head)}</tr>{body}</table>")

        period = j["period"]
        parts = [
            f"<h1>AgentsFence report</h1><p>{e(self.log)}<br>"
            f"{e(_short(period['first']))} to {e(_short(period['last']))}: {self.records} records, "
            f"{_plural(len(self.sessions), 'session')}. Decisions: "
            + ", ".join(f"<b style='color:{COLOURS.get(k, '#555')}'>{n} {e(k)}</b>" for k, n in j["decisions"].items())
            + (f". Mode: {e(', '.join(f'{n} {m}' for m, n in sorted(self.modes.items())))}" if self.modes else "")
            + (f". Chain: {'verifies' if self.chain.get('ok') else 'DOES NOT VERIFY'}" if self.chain else "") + ".</p>",
            "<h2>Decisions over time</h2>", self.chart(),
            table("Calls per tool", ["tool", "calls", *KINDS], [[t, v["calls"], *(v[k] for k in KINDS)] for t, v in j["tools"].items()]),
            table("Rules that decided most", ["rule", "decision", "calls"], [[r["rule"], r["kind"], r["decisions"]] for r in j["rules"][:TOP * 2]]),
        ]
        if self.modes.get("observe"):
            parts.append(table("Observe mode let these through; enforce would have", ["would", "tool", "by", "calls"],
                               [[o["would"], o["tool"], o["by"], o["calls"]] for o in j["observed"]],
                               "nothing: every observed call would have been allowed"))
        parts += [
            table("Blocked and asked calls, latest last", ["time", "decision", "tool", "targets", "by", "message"],
                  [_stopped_row(call) for call in j["blocked_and_asked"]]),
            table("Warned (allowed and recorded)", ["rule", "tool", "calls"], [[f"warned by rule {w['rule']}", w["tool"], w["calls"]] for w in j["warned"]]),
            table("Approvals answered", ["answer", "granted", "count"], [[a["choice"], a["granted"], a["answers"]] for a in j["approvals"]]),
            table("Budgets", ["budget", "limit", "units spent", "sessions", "most in one session", "blocked"],
                  [[b, v["limit"] if v["limit"] is not None else "?", v["units_spent"], v["sessions"], v["most_in_one_session"], v["blocked"]]
                   for b, v in j["budgets"].items()], "none used"),
            table("Outcomes", ["status", "calls"], [[s, n] for s, n in j["outcomes"].items()]),
            table("Faults and refusals by the host", ["reason", "calls"],
                  [[f, n] for f, n in j["faults"].items()] + ([["args_changed", self.args_changed]] if self.args_changed else [])),
        ]
        style = ("body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222;max-width:70em}"
                 "table{border-collapse:collapse;margin-bottom:1em}td,th{border:1px solid #ccc;padding:2px 8px;text-align:left}"
                 "td.n{text-align:right;font-variant-numeric:tabular-nums}th{background:#f3f3f3}h2{font-size:1.1em;margin-top:1.5em}")
        return ("<!DOCTYPE html><html lang=en><head><meta charset=utf-8>"
                "<meta http-equiv=Content-Security-Policy content=\"default-src 'none'; style-src 'unsafe-inline'\">"
                f"<title>AgentsFence report</title><style>{style}</style></head><body>{''.join(parts)}</body></html>\n")

    def chart(self, width: int = 900, height: int = 260) -> str:
        """Decisions over time as stacked bars (allow, ask, block) in inline SVG."""
        if not self.timeline:
            return "<p>No decisions in this period.</p>"
        # The period asked for, where one was: `--since 1h` spans the hour up to now.
        start = self.since if self.since is not None else min(t for t, _, _ in self.timeline)
        end = self.until if self.until is not None else self.now if self.since is not None else max(t for t, _, _ in self.timeline)
        span = max(end - start, 1.0)
        bucket = next((b for b in BUCKETS if span / b <= 60), BUCKETS[-1])
        origin = start - start % bucket
        count = int((end - origin) // bucket) + 1
        bars = [Counter() for _ in range(count)]
        for moment, kind, observed in self.timeline:
            bars[min(count - 1, max(0, int((moment - origin) // bucket)))][(kind, observed)] += 1
        most = max(sum(b.values()) for b in bars) or 1
        tick = -(-most // 4)  # whole calls per grid line
        top = tick * 4
        same_day = _short_time(origin)[:10] == _short_time(origin + (count - 1) * bucket)[:10]
        left, bottom, plot_w, plot_h = 50, 40, width - 100, height - 70
        step = plot_w / count
        bar_w = min(max(step * 0.8, 1.0), 48.0)
        out = [f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}' viewBox='0 0 {width} {height}' "
               "role='img' aria-label='decisions over time' font-family='sans-serif' font-size='11'>"]
        for i in range(5):  # the scale
            value = top * i / 4
            y = height - bottom - plot_h * i / 4
            out.append(f"<line x1='{left}' x2='{left + plot_w}' y1='{y:.1f}' y2='{y:.1f}' stroke='#ddd'/>"
                       f"<text x='{left - 6}' y='{y + 4:.1f}' text-anchor='end'>{int(value)}</text>")
        for index, bar in enumerate(bars):
            y = height - bottom
            x = left + index * step
            for kind in KINDS:
                for observed in (False, True):
                    n = bar.get((kind, observed), 0)
                    if not n:
                        continue
                    h = plot_h * n / top
                    y -= h
                    label = html.escape(f"{_short_time(origin + index * bucket)}: {n} {kind}"
                                        + (" in observe mode (not acted on)" if observed else ""))
                    paler = " fill-opacity='0.4'" if observed else ""
                    out.append(f"<rect x='{x + (step - bar_w) / 2:.1f}' y='{y:.1f}' width='{bar_w:.1f}' height='{h:.1f}' "
                               f"fill='{COLOURS.get(kind, '#777')}'{paler}><title>{label}</title></rect>")
        for index in range(0, count, max(1, -(-count // 6))):  # time labels
            x = left + index * step + step / 2
            label = _short_time(origin + index * bucket)
            label = label[11:] if same_day and index else label
            out.append(f"<text x='{x:.1f}' y='{height - bottom + 16}' text-anchor='middle'>{html.escape(label)}</text>")
        for i, kind in enumerate(KINDS):  # the legend
            out.append(f"<rect x='{left + i * 80}' y='{height - 14}' width='10' height='10' fill='{COLOURS[kind]}'/>"
                       f"<text x='{left + i * 80 + 14}' y='{height - 5}'>{kind}</text>")
        note = "; paler: observe mode, not acted on" if any(observed for _, _, observed in self.timeline) else ""
        out.append(f"<text x='{left + 260}' y='{height - 5}'>each bar: {_bucket_words(bucket)}{note}</text></svg>")
        return "".join(out)


def _target_words(targets: Any) -> str:
    """A decision record's targets ([subject, value] pairs) as `runs curl; host example.com`."""
    words: list[str] = []
    for target in targets if isinstance(targets, list) else ():
        if isinstance(target, list) and len(target) == 2:
            subject, value = str(target[0]), str(target[1])
            if subject == "write" and f"path {value}" in words:
                words[words.index(f"path {value}")] = f"writes {value}"
                continue
            word = f"{TARGET_WORDS.get(subject, subject)} {value}"
            if word not in words:
                words.append(word)
    return "; ".join(words) or "-"


def _stopped_row(call: dict[str, Any]) -> list[Any]:
    kind = call["kind"] + (" (observed)" if call["observed"] else "")
    return [_short(call["time"]), kind, call["tool"], call["targets"], call["by"], call["message"] or "-"]


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _short(stamp: str | None) -> str:
    return "-" if stamp is None else stamp.replace("T", " ")[:19]


def _short_time(moment: float) -> str:
    return datetime.fromtimestamp(moment).strftime("%Y-%m-%d %H:%M")


def _bucket_words(seconds: int) -> str:
    for unit, size in (("week", 7 * 86400), ("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds % size == 0:
            n = seconds // size
            return f"{n} {unit}{'s' if n != 1 else ''}"
    return f"{seconds} s"


def _table(title: str, head: list[str], rows: list[list[Any]], empty: str = "none") -> list[str]:
    lines = ["", title]
    if not rows:
        return lines + [f"  {empty}"]
    cells = [[str(c) for c in row] for row in [head, *rows]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(head))]
    numeric = [all(isinstance(row[i], int) for row in rows) for i in range(len(head))]
    for r, row in enumerate(cells):
        lines.append("  " + "  ".join(c.rjust(w) if numeric[i] and r else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths))).rstrip())
    return lines


def build(path: Path, since: float | None = None, until: float | None = None) -> Report:
    report = Report(str(path), since, until)
    for record in records(path):
        if record is None:
            report.unreadable += 1
        else:
            report.add(record)
    verdict = verify(path)
    report.chain = {"ok": verdict.ok, "records": verdict.records, "head": verdict.head, "problems": verdict.problems[:20]}
    return report


def _command(options: argparse.Namespace) -> int:
    from .errors import FenceError
    from .layout import use_hermes_profile

    try:
        if not options.path:
            use_hermes_profile(options.profile)
    except FenceError as error:
        print(f"agentsfence report: {error}", file=sys.stderr)
        return 1
    path = Path(options.path) if options.path else default_path()
    try:
        since = parse_time(options.since) if options.since else None
        until = parse_time(options.until) if options.until else None
        report = build(path, since, until)
    except (ReportError, OSError) as error:
        print(f"agentsfence report: {error}", file=sys.stderr)
        return 1
    if options.html:
        try:
            Path(options.html).write_text(report.as_html(), encoding="utf-8")
        except OSError as error:
            print(f"agentsfence report: cannot write {options.html}: {error.strerror or error}", file=sys.stderr)
            return 1
    if options.json:
        print(json.dumps(report.as_json(), indent=1, ensure_ascii=False))
    elif not options.html:
        sys.stdout.write(report.as_text())
        from .rules import suggestion_lines  # calls approved again and again: rules to keep

        sys.stdout.write(suggestion_lines(records(path), path.parent))
    else:
        print(f"{options.html}: {report.records} records, {sum(report.decisions.values())} decisions")
    return 0


REPORT_EPILOG = """Times: 2026-11-30, 2026-11-30T13:30 (local time unless an offset is given), or a span
back from now: 90m, 24h, 7d, 2w. Exit status 0, or 1 when the log cannot be read."""


def add_cli(commands: Any) -> None:
    report = commands.add_parser(
        "report", help="what the fence did over a period, from the audit log",
        description="Summarize the audit log: calls per tool and per decision, the rules that decided most, the "
                    "blocked and asked calls with their targets and messages, what observe mode would have blocked "
                    "or asked about, warnings, approvals answered, budget use.",
        epilog=REPORT_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    report.add_argument("path", nargs="?", metavar="AUDIT", help="the audit log; default: $HERMES_HOME/agentsfence/audit.jsonl")
    report.add_argument("-p", "--profile", metavar="NAME",
                        help="the Hermes profile whose log to read (default: the one Hermes would use)")
    report.add_argument("--since", metavar="TIME", help="only records at or after TIME")
    report.add_argument("--until", metavar="TIME", help="only records before TIME")
    report.add_argument("--json", action="store_true", help="print the report as one JSON object")
    report.add_argument("--html", metavar="FILE", help="also write a self-contained HTML page with a chart of decisions over time")
    report.set_defaults(run=_command, passes_on=False)


def _number(value: int | Decimal) -> int | str:
    """A count stays an integer; a sum (a budget of sums) is written as decimal text."""
    return str(value) if isinstance(value, Decimal) else value
