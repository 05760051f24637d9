"""Fuzzing the intent reader across sessions: many random multi-turn sessions (corpus messages cut
and joined) bound one after another in ONE Fence, as a long-lived host binds them. What one
message leaves in the reader's state or its scratch memory must not reach the next: every
message binds, and every call is decided, without an evaluator fault.

FUZZ_RUNS sets the sessions (`make fuzz` runs many, `make test` a thousand); FUZZ_SEED
repeats a run.
"""
from __future__ import annotations

import os
import random

import yaml

from agentsfence.api import Fence, FenceError

from .conftest import REPO

FUZZ_RUNS = int(os.environ.get("FUZZ_RUNS", "1000"))
FUZZ_SEED = int(os.environ.get("FUZZ_SEED", "3"))
CALLS = [
    ("read_file", {"path": "/home/u/p/a"}),
    ("send_message", {"target": "slack:#general", "message": "done"}),
    ("mcp_gmail_send_email", {"to": "bob@example.com", "subject": "notes", "body": "see notes.txt"}),
]

# Sessions that once trapped in the reader, in this order in one instance: "only" gave the third's
# first message a destination with no verb, read at a position an earlier message had left.
TRAPPED = [
    ["nder from order #W7273336 and check my inbox for anything the shop sent about it. o send the report to "
     "bob@example.com? iles in the project  the outage note in #support", "List the files in the project"],
    ["注文#W8632528の配送先を大阪市北区梅田1-2-3、〒530-0001に変更してください ll@example.com. Rotate the logs in logs/. "
     "Summarize https://acme.github.io/widgets/guide.html how me what README.md says",
     "ect 'Q3 notes' carol@example.com the plan  it's 200 EUR, not 300 le.com (tim.berger@example.com took them, "
     "he doesn't need a copy)", "Summarize notes.txt into summary.md"],
    ["only #general", "给liu.yang@example.cn ic school, IBAN AT61 1904 3002 3457 3201, on January 5th, reference "
     "\"Kurs Jänner\". tmp/ folder in the project"],
]


def corpus_messages() -> list[str]:
    found: list[str] = []
    for path in sorted((REPO / "tests" / "corpora").glob("*.yaml")):
        data = yaml.safe_load(path.read_text()) or []
        cases = data.get("cases", []) if isinstance(data, dict) else data
        for case in cases:
            said = case.get("intent") if isinstance(case, dict) else None
            found += [said] if isinstance(said, str) else [m for m in said or [] if isinstance(m, str)]
    return found


def random_session(rng: random.Random, messages: list[str]) -> list[str]:
    turns = []
    for _ in range(rng.randint(1, 3)):
        said = rng.choice(messages)
        if rng.random() < 0.5:  # tails of several messages joined: words cut mid-way, clauses without verbs
            parts = [rng.choice(messages) for _ in range(rng.randint(1, 4))]
            said = " ".join(p[rng.randint(0, len(p) // 2):] for p in parts)
        if rng.random() < 0.2:
            said = said[:rng.randint(0, 8)]
        turns.append(said)
    return turns


def test_many_sessions_in_one_instance_bind_without_a_fault():
    messages = corpus_messages()
    assert len(messages) > 100
    rng = random.Random(FUZZ_SEED)
    fence = Fence(home="/home/u", cwd="/home/u/p")
    faults = []
    for n, turns in enumerate(TRAPPED + [random_session(rng, messages) for _ in range(FUZZ_RUNS)]):
        session = fence.session(f"s{n}")
        try:
            for said in turns:
                session.intent(said)
        except FenceError as error:
            faults.append((n, turns, str(error)))
            continue
        for tool, args in CALLS:
            decision = session.decide(tool, args)
            if decision.reason in ("engine_fault", "host_error"):
                faults.append((n, turns, decision.message))
    assert not faults, f"{len(faults)} sessions faulted, the first: {faults[0]}"

