"""One-line notices to the person in Hermes' own interface: a block, a rule kept, a degraded start.

Hermes 0.19 has no notice call for plugins; a blocked call's result goes to the model only, and
the CLI shows nothing for it (agent/tool_executor.py skips the tool's progress lines). What it
has is the agent's own channel for "a user-visible warning" of a degraded side path,
`AIAgent._emit_warning` (run_agent.py): in the CLI it prints through the agent's printer, forced
past the streaming and quiet guards, which the CLI routes above its prompt; in the gateway it is
the agent's `status_callback("warn", ...)`, which reaches the chat. A plugin reaches the CLI's
agent through `PluginManager._cli_ref`, the reference Hermes sets for plugins
(`ctx.inject_message` uses it). Where there is none (a one-shot `hermes chat -q`, whose agent
is told to keep stdout for the answer, or a gateway process), the notice goes to stderr, where
Hermes' one-shot mode writes its own errors.
"""
from __future__ import annotations

import logging
import sys
import threading
from typing import Any

logger = logging.getLogger("agentsfence")


class Notices:
    def __init__(self, manager: Any):
        self._manager = manager  # Hermes' PluginManager (ctx._manager); None outside Hermes
        self._lock = threading.Lock()
        self._started: list[str] = []  # start-up notices not shown yet

    @property
    def wanted(self) -> bool:
        """Whether there is a Hermes to show notices in."""
        return self._manager is not None

    def show(self, text: str) -> None:
        # One line, and one any terminal can print (a lone surrogate in a command would not encode).
        line = " ".join(text.split()).encode("utf-8", "backslashreplace").decode("utf-8")
        logger.info("%s", line)
        if not self.wanted:  # a fence outside Hermes (a benchmark, a test): the log is all
            return
        agent = getattr(getattr(self._manager, "_cli_ref", None), "agent", None)
        emit = getattr(agent, "_emit_warning", None)
        try:
            if emit is not None and not getattr(agent, "suppress_status_output", False):
                emit(line)
            else:
                print(line, file=sys.stderr, flush=True)
        except Exception as error:  # a notice that cannot be shown changes no decision
            logger.warning("AgentsFence could not show a notice: %s", error)

    def at_start(self, text: str) -> None:
        """A notice for the person's first turn: at start-up the CLI has not drawn its screen yet."""
        with self._lock:
            self._started.append(text)

    def show_started(self) -> None:
        with self._lock:
            started, self._started = self._started, []
        for text in started:
            self.show(text)
