"""Fixtures of the state store's tests: a Hermes home with a one-send policy, and a PostgreSQL
server started for the run (servers.py)."""
from __future__ import annotations

import shutil
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Iterator

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from servers import PostgresServer  # noqa: E402

# The shipped policy with one budget of sends per session (examples/budgets/one-send.yaml), its limit set per test.
POLICY = """version: 1
name: sends
extends: [defaults]
budgets:
  - id: sends
    capability: ["email.*", message.send]
    limit: {limit}
"""


def make_home(folder: Path, limit: int, state: str = "", budgets: str = "") -> Path:
    """A Hermes home with the fence enabled, a policy of `limit` sends per session (and the
    `budgets` entries given, YAML lines) and the store `state`."""
    from agentsfence.compiler import compile_policy

    home = folder / "hermes-home"
    (home / "agentsfence").mkdir(parents=True)
    config = "plugins:\n  enabled: [agentsfence]\n"
    if state:
        config += f"agentsfence:\n  state: {state}\n"
    (home / "config.yaml").write_text(config)
    source = folder / "sends.yaml"
    source.write_text(POLICY.format(limit=limit) + budgets)
    compile_policy([source], home / "agentsfence" / "policy.afb")
    return home


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    # Its own folder under /tmp: pytest's are private to root, and the server may run as nobody.
    folder = Path(tempfile.mkdtemp(prefix="agentsfence-postgres-"))
    try:
        server = PostgresServer(folder)
        server.start()
        try:
            yield server
        finally:
            try:
                server.stop()
            except RuntimeError:
                pass  # a test stopped it
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def database(postgres: PostgresServer) -> str:
    """A URL of a new empty database on the test run's server."""
    return postgres.database(f"t{uuid.uuid4().hex[:12]}")
