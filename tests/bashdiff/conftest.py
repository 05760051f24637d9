"""Prints the bash differential's disagreements at the end of the session, whatever the tests'
outcome (an expected failure still shows every vector), and keeps them in build/bashdiff/."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

OUT = Path(__file__).resolve().parents[2] / "build" / "bashdiff"


class Reports(list):  # type: ignore[type-arg]
    """(title, report text, outcome) of each run; short in a traceback's list of arguments."""

    def __repr__(self) -> str:
        return f"<{len(self)} bash differential reports>"


REPORTS = Reports()


@pytest.fixture
def bashdiff_reports() -> Reports:
    return REPORTS


def pytest_terminal_summary(terminalreporter, exitstatus, config):  # type: ignore[no-untyped-def]
    if not REPORTS:
        return
    OUT.mkdir(parents=True, exist_ok=True)
    for title, text, _ in REPORTS:
        name = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:60]
        (OUT / f"{name}.txt").write_text(text + "\n")
        terminalreporter.section(title)
        terminalreporter.write_line(text)
        terminalreporter.write_line(f"(also in {OUT / (name + '.txt')})")
