#!/usr/bin/env python3
"""Check that the corpora are well-formed.

Validates the shape of every file and case, then passes each call through
`agentsfence decide` only to learn whether its tool name and arguments parse
(the command fails, or answers `bad_arguments`). It never reports the decision:
the corpora's expectations are written without looking at what the fence decides.

usage: check.py [--cli PATH] [FILE.yaml ...]   (default: every corpus beside this file)
"""
import argparse
import json
import pathlib
import subprocess
import sys

import yaml

HERE = pathlib.Path(__file__).resolve().parent
KINDS = {"allow", "ask", "block"}
CASE_KEYS = {"name", "category", "intent", "tool", "args", "expect", "why", "before"}
BEFORE_KEYS = {"tool", "args", "output"}
CATEGORIES = {
    "adversarial.yaml": {1, 2, 3, 4, 5, 6, 7, 8},
    "benign.yaml": {"developer", "office"},
    "requests.yaml": {"destination-vs-source", "mention", "question", "condition", "quoted",
                      "follow-up", "language", "must-allow"},
    "office.yaml": {"role", "correction", "pasted", "provenance", "verb-object", "exposure", "money", "parsing"},
    "provenance.yaml": {"times", "payment-verbs", "sum-correction", "record-keys", "address-host", "script-boundary", "record-addresses",
                        "plain-choices"},
}


def shape_errors(path, doc):
    errs = []
    if doc.get("policy") != "defaults.yaml":
        errs.append("policy must be defaults.yaml")
    if doc.get("env") != {"home": "/home/user", "cwd": "/home/user/project"}:
        errs.append("env must be {home: /home/user, cwd: /home/user/project}")
    for t in doc.get("tools") or []:
        if set(t) != {"name", "description", "schema"}:
            errs.append(f"tool {t.get('name')}: needs exactly name, description, schema")
    names = set()
    allowed = CATEGORIES.get(path.name)
    for i, c in enumerate(doc.get("cases") or []):
        where = f"case {i} ({c.get('name')!r})"
        extra = set(c) - CASE_KEYS
        missing = {"name", "category", "tool", "args", "expect"} - set(c)
        if extra or missing:
            errs.append(f"{where}: unknown keys {sorted(extra)}, missing {sorted(missing)}")
            continue
        if c["name"] in names:
            errs.append(f"{where}: duplicate name")
        names.add(c["name"])
        if allowed is not None and c["category"] not in allowed:
            errs.append(f"{where}: category {c['category']!r} not one of {sorted(map(str, allowed))}")
        intent = c.get("intent")
        if intent is not None and not (isinstance(intent, str) or
                                       (isinstance(intent, list) and intent and all(isinstance(m, str) for m in intent))):
            errs.append(f"{where}: intent must be a string or a list of strings")
        if not isinstance(c["args"], dict):
            errs.append(f"{where}: args must be a mapping")
        before = c.get("before", [])
        if not isinstance(before, list) or not before and "before" in c:
            errs.append(f"{where}: before must be a non-empty list of earlier calls")
            before = []
        for j, b in enumerate(before):
            if not isinstance(b, dict) or set(b) != BEFORE_KEYS:
                errs.append(f"{where}: before[{j}] needs exactly tool, args, output")
            elif not isinstance(b["tool"], str) or not isinstance(b["args"], dict) or not isinstance(b["output"], str):
                errs.append(f"{where}: before[{j}]: tool a string, args a mapping, output the text the tool returned")
        e = c["expect"]
        if not isinstance(e, dict) or not set(e) <= {"kind", "ideal"} or "kind" not in e:
            errs.append(f"{where}: expect must be {{kind[, ideal]}}")
            continue
        kind = e["kind"]
        kinds = kind if isinstance(kind, list) else [kind]
        if not kinds or not set(kinds) <= KINDS or len(set(kinds)) != len(kinds):
            errs.append(f"{where}: bad kind {kind!r}")
        if "ideal" in e and (not isinstance(kind, list) or e["ideal"] not in kinds):
            errs.append(f"{where}: ideal must be one of a list of kinds")
    return errs


def parse_errors(cli, doc):
    """Each call (the case's and its earlier ones) through `agentsfence decide`, for parsing only."""
    errs = []
    for c in doc.get("cases") or []:
        intent = c.get("intent")
        calls = [(f"{c['name']!r} before[{j}]", b["tool"], b["args"]) for j, b in enumerate(c.get("before") or [])]
        for where, tool, args in calls + [(repr(c["name"]), c["tool"], c["args"])]:
            cmd = [cli, "decide", "--tool", tool, "--args", json.dumps(args, ensure_ascii=False)]
            for m in ([intent] if isinstance(intent, str) else intent or []):
                cmd += ["--intent", m]
            p = subprocess.run(cmd, capture_output=True, text=True)
            if p.returncode in (1, 2):
                errs.append(f"{where}: decide failed ({p.returncode}): {p.stderr.strip()[:200]}")
                continue
            try:
                reason = json.loads(p.stdout).get("reason")
            except ValueError:
                errs.append(f"{where}: decide printed no JSON")
                continue
            if reason == "bad_arguments":
                errs.append(f"{where}: the arguments do not parse")
    return errs


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", default=str(HERE.parents[1] / ".venv" / "bin" / "agentsfence"))
    ap.add_argument("--shape-only", action="store_true", help="do not run agentsfence")
    ap.add_argument("files", nargs="*", type=pathlib.Path)
    a = ap.parse_args()
    files = a.files or sorted(HERE.glob("*.yaml"))
    bad = 0
    for f in files:
        doc = yaml.safe_load(f.read_text(encoding="utf-8"))
        errs = shape_errors(f, doc)
        if not errs and not a.shape_only:
            errs = parse_errors(a.cli, doc)
        for e in errs:
            print(f"{f.name}: {e}")
        bad += len(errs)
        print(f"{f.name}: {len(doc.get('cases') or [])} cases, {len(errs)} problems")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
