"""The pytest plugin `make test-py314` loads: on Debian's python3.14, a test that needs Hermes
(hermes-agent 0.19.0 requires Python < 3.14) is skipped with that reason, whether its module
imports Hermes or the test reaches for Hermes' modules or its `hermes` command while it runs;
every other test runs and must pass."""
from __future__ import annotations

import os
from importlib.metadata import PackageNotFoundError

import pytest

# The top-level modules of hermes-agent (and `mcp`, the SDK its MCP client and the tests' server use).
HERMES_MODULES = frozenset({"hermes_cli", "model_tools", "tools", "run_agent", "hermes_constants", "agent", "toolsets",
                            "mcp"})
REASON = "needs Hermes ({what}): hermes-agent 0.19.0 requires Python < 3.14, so the project's venv tests it"


def hermes_missing(error: BaseException | None) -> str | None:
    """What of Hermes `error` says is missing, or None."""
    if isinstance(error, ModuleNotFoundError) and (error.name or "").split(".")[0] in HERMES_MODULES:
        return f"module {error.name!r} is not importable"
    if isinstance(error, PackageNotFoundError) and error.name == "hermes-agent":
        return "the hermes-agent distribution is not installed"
    if isinstance(error, FileNotFoundError) and os.path.basename(str(error.filename or "")) == "hermes":
        return "the `hermes` command is not installed"
    return None


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector):
    outcome = yield
    report = outcome.get_result()
    if not report.failed or not isinstance(collector, pytest.Module):
        return
    message = str(report.longrepr)
    missing = next((name for name in HERMES_MODULES if f"No module named '{name}'" in message
                    or f"No module named '{name}." in message), None)
    if missing is not None:
        report.outcome = "skipped"
        report.longrepr = (str(collector.path), 0, "Skipped: " + REASON.format(what=f"module {missing!r} is not importable"))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    outcome = yield
    report = outcome.get_result()
    what = hermes_missing(call.excinfo.value) if report.failed and call.excinfo is not None else None
    if what is not None:
        report.outcome = "skipped"
        report.longrepr = (str(item.path), item.location[1] or 0, "Skipped: " + REASON.format(what=what))
