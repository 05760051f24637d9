"""Runs commands through the oracle and the fence, and reports where they disagree."""
from __future__ import annotations

import collections
import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import hypothesis
from hypothesis import HealthCheck, Phase, given, settings

from .compare import Verdict, check
from .grammar import Cmd, commands

CORPUS = Path(__file__).resolve().with_name("corpus.txt")


def corpus(path: Path = CORPUS) -> list[Cmd]:
    """corpus.txt's commands: one a line, `| ` continuing the one above, `#` a comment. A
    comment after a blank line heads a section: its commands are labelled with it."""
    commands: list[tuple[str, str]] = []
    section = ""
    blank = True
    for line in path.read_text().splitlines():
        if line.startswith("| ") or line == "|":
            if not commands:
                raise ValueError(f"{path}: a continuation line with no command above it")
            commands[-1] = (commands[-1][0] + "\n" + line[2:], commands[-1][1])
        elif line.lstrip().startswith("#"):
            if blank:
                section = line.lstrip("# ").strip()
        elif line.strip():
            commands.append((line, section))
        blank = not line.strip()
    return [Cmd(text, ("corpus", section)) for text, section in commands]


def generated(count: int, seed: int | None = 0) -> list[Cmd]:
    """Up to `count` distinct commands drawn from the grammar: the same ones for the same seed
    and grammar; seed None draws a new set every time."""
    drawn: dict[str, Cmd] = {}

    def draw(command: Cmd) -> None:
        drawn.setdefault(command.text, command)

    test = settings(max_examples=count, phases=[Phase.generate], database=None, deadline=None,
                    suppress_health_check=list(HealthCheck))(given(commands())(draw))
    if seed is not None:
        test = hypothesis.seed(seed)(test)
    test()
    return list(drawn.values())


@dataclass
class Outcome:
    verdicts: list[Verdict]
    seconds: float

    @property
    def disagreements(self) -> list[Verdict]:
        return [v for v in self.verdicts if v.disagrees]

    @property
    def worst(self) -> list[Verdict]:
        return [v for v in self.verdicts if v.worst]


def run_all(cmds: list[Cmd], workers: int | None = None) -> Outcome:
    """Every command through the sandbox and the fence, a few at a time."""
    workers = workers or max(2, os.cpu_count() or 2)
    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        verdicts = list(pool.map(lambda c: check(c.text, c.labels), cmds))
    return Outcome(verdicts, time.monotonic() - started)


def by_construct(verdicts: list[Verdict]) -> dict[str, tuple[int, list[Verdict]]]:
    """label -> (commands built with it, those of them that disagree)."""
    counts: collections.Counter[str] = collections.Counter()
    disagreeing: dict[str, list[Verdict]] = collections.defaultdict(list)
    for v in verdicts:
        for label in v.constructs:
            counts[label] += 1
            if v.disagrees:
                disagreeing[label].append(v)
    return {label: (counts[label], disagreeing.get(label, [])) for label in counts}


def report(outcome: Outcome, title: str) -> str:
    """Every disagreement as a ready-to-paste vector, the worst (allowed) first."""
    verdicts = outcome.verdicts
    bad = outcome.disagreements
    worst = outcome.worst
    head = (f"{title}: {len(bad)} of {len(verdicts)} commands disagree with bash, {len(worst)} of them allowed "
            f"({outcome.seconds:.0f} s)")
    lines = [head, "=" * len(head)]
    for v in sorted(bad, key=lambda v: (not v.worst, len(v.command))):
        lines.append(v.vector())
        lines.append("")
    table = by_construct(verdicts)
    lines.append("disagreements by construct (commands built with it: disagreeing / all)")
    for label, (total, wrong) in sorted(table.items(), key=lambda kv: (-len(kv[1][1]), kv[0])):
        if label in ("plain", "corpus"):
            continue
        lines.append(f"  {label:24} {len(wrong):4} / {total}")
    return "\n".join(lines)
