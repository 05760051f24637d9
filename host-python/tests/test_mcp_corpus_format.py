"""The MCP corpus (tests/mcp-corpus/) keeps to its format.

The corpus is the outside oracle for classifying tools the fence has never seen: real MCP
servers' published tool definitions, each labelled by hand with the class of its most dangerous
effect. This checks the files' shape only; how well the classifier agrees with the labels is
measured elsewhere.
"""
from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

CORPUS = Path(__file__).resolve().parents[2] / "tests" / "mcp-corpus"
FILES = sorted(CORPUS.glob("*.json"))

LABELS = {"read", "write", "send", "destructive", "exec", "egress", "money"}
OBTAINED_BY = {"tools/list of the running server", "read from source"}
FILE_KEYS = {"server", "kind", "source", "obtained_by", "tools"}
FILE_OPTIONAL = {"server_info", "invocation"}
TOOL_KEYS = {"name", "description", "inputSchema", "annotations", "label"}
TOOL_OPTIONAL = {"title", "note"}
# An npm spec (@scope/name@version) or a PyPI one (name@version), always pinned.
PACKAGE = re.compile(r"^(@[a-z0-9][\w.-]*/)?[a-z0-9][\w.-]*@\d[\w.+-]*$", re.IGNORECASE)


def load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def test_corpus_is_there() -> None:
    assert len(FILES) >= 15, "at least 15 servers"
    assert sum(len(load(f)["tools"]) for f in FILES) >= 200, "at least 200 tools"


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_server_file(path: Path) -> None:
    doc = load(path)
    assert isinstance(doc, dict)
    assert FILE_KEYS <= doc.keys(), f"missing {FILE_KEYS - doc.keys()}"
    assert doc.keys() <= FILE_KEYS | FILE_OPTIONAL, f"unknown {doc.keys() - FILE_KEYS - FILE_OPTIONAL}"
    assert doc["server"] == path.stem, "the file is named after its server"
    assert isinstance(doc["kind"], str) and doc["kind"].strip()
    assert doc["obtained_by"] in OBTAINED_BY

    source = doc["source"]
    assert isinstance(source, dict)
    if doc["obtained_by"] == "read from source":
        assert source.keys() >= {"repo", "path", "commit"}
        assert re.fullmatch(r"[\w.-]+/[\w.-]+", source["repo"])
        assert isinstance(source["path"], str) and source["path"]
        assert re.fullmatch(r"[0-9a-f]{40}", source["commit"]), "a full commit hash"
    else:
        assert PACKAGE.match(source.get("package", "")), f"a pinned package, not {source.get('package')!r}"
    for key in FILE_OPTIONAL & doc.keys():
        assert isinstance(doc[key], dict if key == "server_info" else str)

    tools = doc["tools"]
    assert isinstance(tools, list) and tools
    names = [t.get("name") for t in tools]
    duplicates = [n for n, c in Counter(names).items() if c > 1]
    assert not duplicates, f"names unique per server: {duplicates}"
    for tool in tools:
        name = tool.get("name")
        assert isinstance(name, str) and name, tool
        assert TOOL_KEYS <= tool.keys(), f"{name}: missing {TOOL_KEYS - tool.keys()}"
        assert tool.keys() <= TOOL_KEYS | TOOL_OPTIONAL, f"{name}: unknown {tool.keys() - TOOL_KEYS - TOOL_OPTIONAL}"
        assert isinstance(tool["description"], str), name
        assert isinstance(tool["inputSchema"], dict), f"{name}: the schema is an object"
        assert tool["annotations"] is None or isinstance(tool["annotations"], dict), name
        assert tool["label"] in LABELS, f"{name}: label {tool['label']!r}"
        if "note" in tool:
            assert isinstance(tool["note"], str) and tool["note"].strip(), name
        if "title" in tool:
            assert tool["title"] is None or isinstance(tool["title"], str), name


def test_readme_counts_match_the_data() -> None:
    """README.md's table of labels is the corpus's, not a stale copy of it."""
    readme = (CORPUS / "README.md").read_text(encoding="utf-8")
    counts = Counter(t["label"] for f in FILES for t in load(f)["tools"])
    for label in LABELS:
        row = re.search(rf"^\| `{label}` \| (\d+) \|", readme, re.MULTILINE)
        assert row, f"README.md has no row for {label}"
        assert int(row.group(1)) == counts[label], f"README.md says {row.group(1)} {label}, the data {counts[label]}"
    for path in FILES:
        doc = load(path)
        row = re.search(rf"^\| `{re.escape(doc['server'])}` \|[^|]*\|[^|]*\| (\d+) \|", readme, re.MULTILINE)
        assert row, f"README.md has no row for server {doc['server']}"
        assert int(row.group(1)) == len(doc["tools"]), f"README.md's tool count for {doc['server']}"
