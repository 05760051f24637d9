"""Writes compiler/hermes-tools.json: the names of the tools Hermes registers, read from the tool
registry of the hermes-agent installed in the running Python (the venv of `make setup`), so
`agentsfence check` can tell a tool name Hermes has from a typo. Run it again after changing the
pinned hermes-agent: host-python/tests/test_lint.py fails while the file and the registry differ.
    .venv/bin/python scripts/hermes-tools.py [OUT]
"""
from __future__ import annotations

import json
import logging
import sys
from importlib.metadata import version
from pathlib import Path


def registered_tools() -> list[str]:
    logging.disable(logging.CRITICAL)  # the tool modules log what they cannot set up here
    from tools.registry import discover_builtin_tools, registry

    discover_builtin_tools()
    return sorted(entry.name for entry in registry._snapshot_entries())


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent / "compiler" / "hermes-tools.json"
    data = {"hermes_agent": version("hermes-agent"), "tools": registered_tools()}
    out.write_text(json.dumps(data, indent=1) + "\n")
    print(f"{out}: {len(data['tools'])} tools of hermes-agent {data['hermes_agent']}")


if __name__ == "__main__":
    main()
