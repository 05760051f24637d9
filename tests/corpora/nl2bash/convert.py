#!/usr/bin/env python3
"""Draw the fixed NL2Bash sample that the labels in labels.tsv are about.

NL2Bash (https://github.com/TellinaTool/nl2bash, Lin et al., LREC 2018) holds 12,607 pairs of
an English request (`data/bash/all.nl`) and a bash command (`data/bash/all.cm`), one pair a
line. Its data directory is MIT licensed (`data/bash/LICENSE`, since 2020-04-24; the rest of
that repository, the code, is GPL-3.0 and none of it is used here), so the sample is
committed beside this script with the licence text (NL2BASH-LICENSE) and this script only
re-derives it:

    python3 tests/corpora/nl2bash/convert.py CHECKOUT          # a clone of TellinaTool/nl2bash
    python3 tests/corpora/nl2bash/convert.py --git-dir DIR.git   # or a bare repository (reads HEAD)
    python3 tests/corpora/nl2bash/convert.py CHECKOUT --check   # compare with sample.jsonl, write nothing

The sample: `random.Random(SEED).sample(range(12607), 800)`, sorted; line numbers are 1-based
lines of all.nl/all.cm. Each record keeps the line, the request, the command and the SHA-256
of `request + "\\n" + command` (UTF-8), which labels.tsv repeats so a label can never be read
against another pair.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import random
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SAMPLE = HERE / "sample.jsonl"
SEED = 20261201
SIZE = 800
PAIRS = 12607
# The upstream files the sample was drawn from (commit 466c5fe873ab08c7cc0112ea1521cc6ad9c20992).
SHA256 = {
    "all.nl": "1db0c529c350b463919624550b8f5882a97c42ad5051c7d49fbc496bc4e8b770",
    "all.cm": "3a72eaced7fa14a0938354cefc42b2dcafb2d47297102f1279086e18c3abe57e",
}


def pair_sha(nl: str, cm: str) -> str:
    return hashlib.sha256(f"{nl}\n{cm}".encode()).hexdigest()


def read_upstream(checkout: Path | None, git_dir: Path | None) -> dict[str, bytes]:
    out = {}
    for name in ("all.nl", "all.cm"):
        if git_dir is not None:
            out[name] = subprocess.run(["git", f"--git-dir={git_dir}", "show", f"HEAD:data/bash/{name}"],
                                       check=True, capture_output=True).stdout
        else:
            out[name] = (checkout / "data" / "bash" / name).read_bytes()
        got = hashlib.sha256(out[name]).hexdigest()
        if got != SHA256[name]:
            print(f"warning: {name} has sha256 {got}, the sample was drawn from {SHA256[name]}", file=sys.stderr)
    return out


def draw(files: dict[str, bytes]) -> list[dict]:
    nl = files["all.nl"].decode().split("\n")
    cm = files["all.cm"].decode().split("\n")
    nl, cm = nl[:PAIRS], cm[:PAIRS]
    if len(nl) != PAIRS or len(cm) != PAIRS:
        raise SystemExit(f"expected {PAIRS} lines in each file, got {len(nl)} and {len(cm)}")
    picked = sorted(random.Random(SEED).sample(range(PAIRS), SIZE))
    return [{"line": i + 1, "nl": nl[i], "cm": cm[i], "sha256": pair_sha(nl[i], cm[i])} for i in picked]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("checkout", nargs="?", type=Path, help="a checkout of TellinaTool/nl2bash")
    ap.add_argument("--git-dir", type=Path, help="a (bare) git repository of TellinaTool/nl2bash instead")
    ap.add_argument("--check", action="store_true", help="compare with the committed sample; write nothing")
    ap.add_argument("-o", "--output", type=Path, default=SAMPLE)
    a = ap.parse_args()
    if (a.checkout is None) == (a.git_dir is None):
        ap.error("give a checkout or --git-dir")
    records = draw(read_upstream(a.checkout, a.git_dir))
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    if a.check:
        same = a.output.exists() and a.output.read_text(encoding="utf-8") == text
        print(f"{a.output.name}: {'matches' if same else 'DIFFERS from'} the draw from upstream")
        sys.exit(0 if same else 1)
    a.output.write_text(text, encoding="utf-8")
    print(f"wrote {len(records)} pairs to {a.output}")


if __name__ == "__main__":
    main()
