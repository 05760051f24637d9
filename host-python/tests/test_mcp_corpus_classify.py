"""The shipped policy's classifier against the MCP corpus (tests/mcp-corpus): real servers' tool
definitions, each described to the fence as the Hermes plugin describes it, against a careful
reader's label. The targets: no tool with a side effect classified as a read, and at least 325
of the 364 read tools (89%) classified as reads. The confusion table is printed (`pytest -s`)
and is in every failure's message; `python tests/mcp-corpus/score.py --show` lists each
disagreement."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from agentsfence.api import Fence

SCORE = Path(__file__).resolve().parents[2] / "tests" / "mcp-corpus" / "score.py"


def _score_module():
    spec = importlib.util.spec_from_file_location("mcp_corpus_score", SCORE)
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def scored():
    score = _score_module()
    rows = score.classify_all(Fence())
    table = score.render(rows)
    print("\n" + table)
    return score, rows, table


def test_no_side_effecting_tool_is_classified_as_a_read(scored):
    score, rows, table = scored
    as_read = [f"{server}:{tool} ({label})" for server, tool, label, got in rows
               if label in score.SIDE_EFFECTS and got == "read"]
    assert as_read == [], table


def test_most_read_tools_are_classified_as_reads(scored):
    _, rows, table = scored
    reads = [got for _, _, label, got in rows if label == "read"]
    assert len(reads) == 364
    # 90% (328) until every action a compound joins counted (docs/bytecode.md §3.3): the three
    # reads that went are the price of reading each verb a description's first sentence joins.
    # confluence_get_page_restrictions ("Get view and edit restrictions") uses "edit" as a
    # modifier; get_prompts ("... by ID and execute it") says it executes; git_diff ("Shows
    # differences between branches or commits") has a "commits" that, beside "Shows", may as
    # well be a verb.
    assert sum(got == "read" for got in reads) >= 325, table


def test_the_table_counts_every_tool(scored):
    score, rows, _ = scored
    table = score.confusion(rows)
    assert sum(table.values()) == len(rows) == 723
    # Every class the shipped policy gives an unmapped tool is one the table has a column for.
    assert {got for _, _, _, got in rows} <= set(score.COLUMNS)
