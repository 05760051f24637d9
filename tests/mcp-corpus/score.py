"""Scores the shipped policy's classifier on the MCP corpus: each tool is described to the fence
as Hermes' plugin describes it (`mcp__<server>__<tool>`, the description, the input schema and the
server's annotations), and the class the fence gives is set against the hand label.

`python tests/mcp-corpus/score.py [--show]` prints the confusion table (rows: label, columns: the
fence's class) and, with --show, every tool whose class differs from its label. The labels are
read only here, to score, and never reach the fence.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
LABELS = ("read", "write", "send", "destructive", "exec", "egress", "money")
COLUMNS = (*LABELS, "unknown")
SIDE_EFFECTS = frozenset(LABELS) - {"read"}


def servers() -> list[dict[str, Any]]:
    return [json.loads(path.read_text(encoding="utf-8")) for path in sorted(HERE.glob("*.json"))]


def fence_label(capability: str, risk: str) -> str:
    """The corpus' word for a class: its risk, with money.* as money (the shipped policy gives
    moving money the risk `destructive`)."""
    if capability.startswith("money."):
        return "money"
    return risk


def classify_all(fence: Any) -> list[tuple[str, str, str, str]]:
    """(server, tool, label, the fence's label) for every tool of the corpus."""
    rows = []
    for server in servers():
        for tool in server["tools"]:
            name = f"mcp__{server['server']}__{tool['name']}"
            capability, risk = describe(fence, name, server["server"], tool)
            rows.append((server["server"], tool["name"], tool["label"], fence_label(capability, risk)))
    return rows


def describe(fence: Any, name: str, server: str, tool: dict[str, Any]) -> tuple[str, str]:
    try:
        return fence.describe_tool(name, tool.get("description") or "", tool.get("inputSchema"),
                                   server=server, annotations=tool.get("annotations"))
    except TypeError:  # an API without servers and annotations
        return fence.describe_tool(name, tool.get("description") or "", tool.get("inputSchema"))


def confusion(rows: list[tuple[str, str, str, str]]) -> Counter[tuple[str, str]]:
    return Counter((label, got) for _, _, label, got in rows)


def render(rows: list[tuple[str, str, str, str]]) -> str:
    table = confusion(rows)
    width = max(len(c) for c in COLUMNS) + 1
    lines = ["label \\ fence".ljust(14) + "".join(c.rjust(width) for c in COLUMNS) + "total".rjust(width)]
    for label in LABELS:
        total = sum(table[(label, c)] for c in COLUMNS)
        lines.append(label.ljust(14) + "".join(str(table[(label, c)]).rjust(width) for c in COLUMNS) + str(total).rjust(width))
    reads = sum(table[("read", c)] for c in COLUMNS)
    as_read = sum(table[(label, "read")] for label in SIDE_EFFECTS)
    lines.append(f"read tools classified read: {table[('read', 'read')]}/{reads} "
                 f"({100 * table[('read', 'read')] / reads:.1f}%); side-effecting tools classified read: {as_read}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", action="store_true", help="list every tool whose class differs from its label")
    parser.add_argument("--policy", help="a policy (.yaml or .afb) instead of the shipped one")
    options = parser.parse_args(argv)
    sys.path.insert(0, str(HERE.parents[1] / "host-python"))
    from agentsfence.api import Fence

    rows = classify_all(Fence(options.policy))
    print(render(rows))
    if options.show:
        for server, tool, label, got in rows:
            if label != got:
                print(f"  {server}:{tool}  label {label}, fence {got}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
