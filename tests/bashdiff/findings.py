"""Writes FINDINGS.md: the disagreements of the corpus and the bounded generated run (the ones
`make test` reports), grouped by construct, and how often each construct disagrees over a
longer run. The text above the marker line is kept as it is.

    cd tests && ../.venv/bin/python -m bashdiff.findings [--long N]
"""
from __future__ import annotations

import argparse
import collections
import subprocess
from pathlib import Path

from . import runner
from .compare import SHOWN, Verdict, implied

FINDINGS = Path(__file__).resolve().with_name("FINDINGS.md")
MARKER = "<!-- Everything below is written by tests/bashdiff/findings.py. -->"

# The grammar's labels by the construct they exercise, in the order FINDINGS.md shows them.
FAMILIES: dict[str, tuple[str, ...]] = {
    "Globs the reader cannot resolve": ("glob-question", "glob-bracket", "glob-star"),
    "Brace lists": ("brace",),
    "Variables and parameter expansions": (
        "variable", "var-home", "var-pwd", "param-expansion", "tilde-plus", "tilde-user", "nameref",
        "indirect-expansion", "array", "positional", "ifs", "cd", "dot-segments", "relative", "absolute", "tilde"),
    "Quoting": ("quotes", "backslash", "ansi-c-quote", "backslash-program", "quoted-program"),
    "Command substitution and arithmetic": (
        "command-substitution", "backticks", "arithmetic", "arithmetic-old", "arithmetic-subscript",
        "process-substitution", "dollar-read"),
    "Redirections of every form": (
        "dev-tcp", "redirect-out", "redirect-append", "redirect-readwrite", "redirect-clobber", "redirect-both",
        "redirect-dup-word", "redirect-fd", "redirect-dup", "redirect-only", "redirect-in", "redirect-first",
        "exec-redirect", "heredoc", "herestring", "read-builtin"),
    "Prefix assignments and environment": (
        "assignment", "assignment-ld-preload", "env", "command", "exec", "nice", "timeout", "nohup", "time",
        "stdbuf", "builtin"),
    "Programs named by a path": ("program-path", "hash", "assignment-path"),
    "Shells, eval, source, exec, command, builtin": (
        "sh-c", "bash-c", "eval", "source", "shell-stdin", "bash-env", "sh-env", "script-operand"),
    "Functions, coproc, trap, alias": ("function", "coproc", "trap", "alias"),
    "Pipelines, lists, subshells, compound commands": (
        "subshell", "group", "if", "for", "case", "while", "and-list", "or-list", "list", "pipeline", "newline",
        "background"),
    "Programs that read or delete a whole tree: naming ~ tells no policy about ~/.ssh in it": (),
    "Programs that run code or write where their options say": (
        "find-exec", "rg-pre", "git-pager", "git-alias", "tar-checkpoint", "tar-to-command", "sed-e", "awk-system",
        "awk-pipe", "xargs", "awk", "sed", "find", "tar", "git", "tee", "curl", "wget", "getent", "cp", "mv", "dd",
        "install", "ln", "touch", "rm", "chmod", "truncate", "sort", "cat", "head", "grep", "rg", "base64", "echo",
        "printf"),
}
FAMILY_OF = {label: family for family, labels in FAMILIES.items() for label in labels}
ORDER = {family: i for i, family in enumerate(FAMILIES)}


def family(verdict: Verdict, rates: dict[str, float]) -> str:
    """A corpus command's section; a generated command's construct that disagrees most often
    (over the whole run) among those it was built from."""
    if verdict.constructs[:1] == ("corpus",):
        return verdict.constructs[1] if len(verdict.constructs) > 1 else "Corpus"
    labels = [label for label in verdict.constructs if label in FAMILY_OF]
    if not labels:
        return "Other"
    best = max(labels, key=lambda label: (rates.get(label, 0.0), -ORDER[FAMILY_OF[label]]))
    return FAMILY_OF[best]


def rates_of(verdicts: list[Verdict]) -> dict[str, float]:
    return {label: len(wrong) / total for label, (total, wrong) in runner.by_construct(verdicts).items()}


def entry(verdict: Verdict) -> str:
    command = verdict.command.replace("\n", "\n| ")
    missing = "; ".join(str(e) for e in verdict.unreported[:SHOWN])
    if len(verdict.unreported) > SHOWN:
        missing += f"; … and {len(verdict.unreported) - SHOWN} more"
    own = [str(e) for e in verdict.run.effects if implied(e)][:SHOWN]
    reading = verdict.reading.summary()
    if verdict.worst:
        reading = "ALLOW" + reading[len("allow"):]
    lines = [f"$ {command}", f"  bash did, unreported: {missing}"]
    if own:
        lines.append(f"  (the program's own: {'; '.join(own)})")
    lines.append(f"  fence: {reading}")
    return "\n".join(lines)


def section(title: str, verdicts: list[Verdict], total: int) -> str:
    allowed = sum(v.worst for v in verdicts)
    generated = sum(v.constructs[:1] != ("corpus",) for v in verdicts)
    head = (f"### {title}\n\n{len(verdicts)} disagreements ({len(verdicts) - generated} from the corpus, "
            f"{generated} generated) of {total} commands; {allowed} allowed.\n")
    ordered = sorted(verdicts, key=lambda v: (v.constructs[:1] != ("corpus",), not v.worst, len(v.command)))
    return head + "\n```\n" + "\n\n".join(entry(v) for v in ordered) + "\n```\n"


def construct_table(verdicts: list[Verdict], title: str) -> str:
    rows = []
    for label, (total, wrong) in sorted(runner.by_construct(verdicts).items(),
                                        key=lambda kv: (-len(kv[1][1]) / kv[1][0], -kv[1][0], kv[0])):
        if label not in FAMILY_OF:
            continue
        allowed = sum(v.worst for v in wrong)
        rows.append(f"| {label} | {FAMILY_OF[label]} | {total} | {len(wrong)} | {allowed} |")
    return (f"{title}\n\n| construct | group | commands | disagree | allowed |\n|---|---|---:|---:|---:|\n"
            + "\n".join(rows) + "\n")


def write(long_runs: int) -> str:
    corpus = runner.run_all(runner.corpus())
    bounded = runner.run_all(runner.generated(300, 0))
    verdicts = corpus.verdicts + bounded.verdicts
    rates = rates_of(bounded.verdicts)
    groups: dict[str, list[Verdict]] = collections.defaultdict(list)
    totals: collections.Counter[str] = collections.Counter()
    for v in verdicts:
        name = family(v, rates)
        totals[name] += 1
        if v.disagrees:
            groups[name].append(v)
    # The reader's version: the last commit that changed the evaluator's source.
    commit = subprocess.run(["git", "log", "-1", "--format=%h %cs", "--", "assembly"], capture_output=True,
                            text=True, cwd=FINDINGS.parents[2]).stdout.strip()
    bad = [v for v in verdicts if v.disagrees]
    worst = [v for v in bad if v.worst]
    out = [MARKER, "",
           f"## The disagreements (assembly/ at {commit})", "",
           f"The corpus ({len(corpus.verdicts)} commands) and the bounded run (BASHDIFF_SEED=0, "
           f"{len(bounded.verdicts)} distinct commands): {len(bad)} disagree, {len(worst)} of them allowed. "
           f"Corpus {corpus.seconds:.0f} s, generated {bounded.seconds:.0f} s of sandbox and fence time.", "",
           "Each entry: the command (`| ` continues it on a new line, as in corpus.txt), what bash did that "
           "the reading does not report, and the fence's decision and targets. ALLOW (capitals) marks the worst "
           "case: the fence allowed the command.", "",
           "| group | commands | disagree | allowed |", "|---|---:|---:|---:|"]
    names = sorted(totals, key=lambda n: ORDER.get(n, -1 if n.startswith("Plain") else len(ORDER)))
    for name in names:
        out.append(f"| {name} | {totals[name]} | {len(groups.get(name, []))} | "
                   f"{sum(v.worst for v in groups.get(name, []))} |")
    out.append("")
    for name in names:
        if groups.get(name):
            out.append(section(name, groups[name], totals[name]))
    if long_runs:
        long = runner.run_all(runner.generated(long_runs, 1))
        out.append(construct_table(long.verdicts, (
            f"## How often each construct disagrees\n\n{len(long.verdicts)} distinct generated commands "
            f"(BASHDIFF_SEED=1, FUZZ_RUNS={long_runs}, {long.seconds:.0f} s): "
            f"{len(long.disagreements)} disagree, {len(long.worst)} of them allowed. A command counts under every "
            f"construct it was built from.")))
    text = FINDINGS.read_text() if FINDINGS.exists() else ""
    head = text.split(MARKER)[0].rstrip() + "\n\n" if MARKER in text else text
    FINDINGS.write_text(head + "\n".join(out))
    return f"{len(bad)} disagreements, {len(worst)} allowed"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--long", type=int, default=2000, help="commands of the longer run (0: none)")
    args = parser.parse_args()
    print(write(args.long))


if __name__ == "__main__":
    main()
