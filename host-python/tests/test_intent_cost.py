"""What binding a message costs grows with the message: a message sixteen times as long binds within
sixteen times the fuel, whatever it holds many of (objects, names, verbs that grant, verbs negated
beside them). Measured in the fuel the evaluator burns, which the host meters, not in time."""
from __future__ import annotations

import pytest

from agentsfence import Fence
from agentsfence._abi import FUEL_BASE, FUEL_PER_TEXT_BYTE

HOME, CWD = "/home/user", "/home/user/project"

# One sentence each, repeated with a counter until the message is as long as asked: every
# repetition names new values, so nothing is merged away as already known.
SENTENCES = {
    "objects": "Please review src/module{i}.py and send the summary to dev{i}@example.com, then check "
               "https://docs{i}.example.org/guide. ",
    "names beside objects": "Ana{i} got a{i}.py; Bo{i} got b{i}.py. ",
    "Namen neben Objekten": "Frag Jana{i} nach x{i}.md und Uwe{i} nach y{i}.md. ",
    "名前と物": "田中{i}さんにa{i}.txtを送って、佐藤{i}さんにb{i}.txtを送って。",
    "a negation beside grants": "Don't delete a{i}.txt; send, post and share b{i}.txt. ",
    "Verneinung neben Erlaubnis": "Lösche a{i}.txt nicht; schicke, poste und teile b{i}.txt. ",
    "négation et permissions": "Ne supprime pas a{i}.txt ; envoie, publie et partage b{i}.txt. ",
    "negación y permisos": "No borres a{i}.txt pero lee, descarga y envía b{i}.txt. ",
    "a negation beside objects": "Do not remove backup{i}.tar but copy data/set{i}.csv to out/set{i}.csv. ",
}


def message(sentence: str, size: int) -> str:
    parts: list[str] = []
    total = i = 0
    while total < size:
        part = sentence.format(i=i)
        parts.append(part)
        total += len(part.encode())
        i += 1
    return "".join(parts).encode()[:size].decode("utf-8", "ignore")


@pytest.fixture(scope="module")
def fence() -> Fence:
    return Fence(home=HOME, cwd=CWD)


def fuel_to_bind(fence: Fence, text: str) -> int:
    session = fence.session("cost")
    try:
        session.intent(text)
        return FUEL_BASE + FUEL_PER_TEXT_BYTE * len(text.encode()) - fence._wasm._store.get_fuel()
    finally:
        fence.drop_session("cost")


@pytest.mark.parametrize("shape", SENTENCES)
def test_a_message_sixteen_times_as_long_binds_within_sixteen_times_the_fuel(fence, shape):
    short = fuel_to_bind(fence, message(SENTENCES[shape], 1024))
    long = fuel_to_bind(fence, message(SENTENCES[shape], 16 * 1024))
    assert long <= 16 * short, f"{shape}: 16 KiB took {long / short:.1f} times the fuel of 1 KiB"
