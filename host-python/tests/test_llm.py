"""The model's reading of the user's message (agentsfence/llm.py) with a fake ctx.llm: it can
only narrow, it is cached per message, and every failure leaves the deterministic binding."""
from __future__ import annotations

import json
import threading
from types import SimpleNamespace

import pytest

from agentsfence import Fence
from agentsfence.llm import IntentReader, ReadingFailed, load_schema, reader_for
from agentsfence.settings import Settings, SettingsError, load_settings

REQUEST = "Tidy up my inbox; check with me before anything leaves"
TO_BOB = {"to": "bob@example.com", "subject": "hi", "body": "x"}


class FakeLlm:
    """Hermes' PluginLlm surface as the reader uses it: complete_structured(...) -> .parsed/.text."""

    def __init__(self, answer=None, text=None, error=None, delay=None):
        self.answer, self.text, self.error, self.delay = answer, text, error, delay
        self.calls: list[dict] = []
        self.release = threading.Event()

    def complete_structured(self, **kwargs):
        self.calls.append(kwargs)
        if self.delay:
            self.release.wait(self.delay)
        if self.error:
            raise self.error
        return SimpleNamespace(parsed=self.answer, text=self.text)


def test_the_schema_is_the_one_the_build_exports():
    schema = load_schema()
    assert schema["$schema"].endswith("2020-12/schema")
    assert schema["additionalProperties"] is False and set(schema["required"]) == {"prohibit", "ask"}


def test_an_answer_narrows_the_session_and_only_narrows():
    fence = Fence()
    session = fence.session("s")
    session.intent("Email bob@example.com the report")
    assert session.decide("send_email", TO_BOB).kind == "allow"
    llm = FakeLlm(answer={"prohibit": ["data.delete"], "ask": ["email.*"]})
    narrowing = IntentReader(llm, timeout=5).read("Email bob@example.com the report")
    intent = session.narrow(list(narrowing.prohibit), list(narrowing.ask))
    assert ("email.send", "(model)") in intent.asked and ("data.delete", "(model)") in intent.prohibited
    decision = session.decide("send_email", TO_BOB)
    assert (decision.kind, decision.reason) == ("ask", "intent_narrowed")
    assert session.decide("delete_file", {"path": "notes.txt"}).reason == "intent_prohibited"
    assert llm.calls[0]["json_schema"] == load_schema() and llm.calls[0]["timeout"] == 5


def test_answers_are_cached_per_message():
    llm = FakeLlm(answer={"prohibit": [], "ask": ["message.send"]})
    reader = IntentReader(llm, timeout=5)
    assert reader.read(REQUEST) == reader.read(REQUEST)
    reader.read(REQUEST + ".")
    assert len(llm.calls) == 2


@pytest.mark.parametrize("llm, reason", [
    (FakeLlm(text="prohibit everything"), "not JSON"),
    (FakeLlm(text=json.dumps({"prohibit": [], "ask": []}) + "x"), "not JSON"),
    (FakeLlm(answer={"prohibit": [], "ask": [], "allow": ["email.send"]}), "does not fit the intent schema"),
    (FakeLlm(answer={"prohibit": ["Email Send"], "ask": []}), "does not fit the intent schema"),
    (FakeLlm(answer={"prohibit": []}), "does not fit the intent schema"),
    (FakeLlm(error=RuntimeError("provider down")), "the model call failed: RuntimeError: provider down"),
    (FakeLlm(answer=None, text=None), "has no text"),
])
def test_every_failure_says_why(llm, reason):
    with pytest.raises(ReadingFailed, match=reason):
        IntentReader(llm, timeout=5).read(REQUEST)


def test_a_model_that_does_not_answer_in_time_is_not_waited_for():
    llm = FakeLlm(answer={"prohibit": ["email.*"], "ask": []}, delay=30)
    with pytest.raises(ReadingFailed, match="did not answer within 0.05 s"):
        IntentReader(llm, timeout=0.05).read(REQUEST)
    llm.release.set()


def test_a_failure_is_not_cached():
    llm = FakeLlm(error=RuntimeError("flaky"))
    reader = IntentReader(llm, timeout=5)
    with pytest.raises(ReadingFailed):
        reader.read(REQUEST)
    llm.error, llm.answer = None, {"prohibit": [], "ask": []}
    assert reader.read(REQUEST).ask == ()


def test_the_setting_is_off_by_default_and_checked(tmp_path):
    assert (Settings().llm_intent, load_settings(tmp_path).llm_intent) == (False, False)
    (tmp_path / "config.yaml").write_text("agentsfence:\n  llm_intent: yes please\n")
    with pytest.raises(SettingsError, match="llm_intent must be true or false"):
        load_settings(tmp_path)
    (tmp_path / "config.yaml").write_text("agentsfence:\n  llm_intent: true\n  llm_timeout: 0\n")
    with pytest.raises(SettingsError, match="llm_timeout"):
        load_settings(tmp_path)


def test_without_ctx_llm_the_reader_is_off_and_says_so(caplog):
    assert reader_for(SimpleNamespace(), enabled=True, timeout=5)() is None
    assert "no ctx.llm" in caplog.text
    assert reader_for(SimpleNamespace(llm=FakeLlm()), enabled=False, timeout=5)() is None
    assert isinstance(reader_for(SimpleNamespace(llm=FakeLlm()), enabled=True, timeout=5)(), IntentReader)
