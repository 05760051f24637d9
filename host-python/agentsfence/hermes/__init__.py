"""The Hermes Agent plugin: Hermes loads `agentsfence.hermes` (the entry point `agentsfence` of
group `hermes_agent.plugins`, or the directory plugin in host-python/hermes-plugin) and calls its
`register(ctx)`, which puts the fence in front of every tool call.

    plugin.py       register(), and HermesFence: the hooks, each adapting Hermes' keyword
                    arguments to the parts below and answering Hermes
    sessions.py     Hermes' session and task ids to fence sessions, saved for `hermes --resume`
    ledger.py       what a decided call holds until its post_tool_call: budget reservations, and
                    the arguments it was decided on
    gate.py         the directives (block, approve), strict_yolo, and the hook order against
                    other plugins
    approvals.py    what people answered at Hermes' approval gate
    question.py     the words of a question at that gate, and of a block's notice
    notices.py      one-line notices to the person in Hermes' own interface
    policy.py       the policy in force: put in place at start, reloaded at a user turn, recorded
    view.py         /fence in a CLI session, `hermes fence` in the shell
    payloads.py     what the hooks hand over, as the fence reads it: the user's message, a tool's
                    output, the files of a patch
    turns.py        which words of a turn a person typed: the turns, scaffolding and notes Hermes
                    writes in the user's role, by its marks and its own wording
    environment.py  Hermes' own state while it runs: working directories, tool schemas, MCP
                    servers, its approval gate
    homes.py        HERMES_HOME and the root, as Hermes resolves them

Only register() is here, and it imports the plugin when Hermes calls it: the shell hooks and the
CLI read homes, payloads, turns and the state folder without loading the plugin (or wasmtime).
"""
from __future__ import annotations

from typing import Any


def register(ctx: Any, **kwargs: Any) -> None:
    try:
        from .plugin import register as register_plugin
    except Exception as error:
        # Hermes treats a plugin whose register() raises as absent, so tools would run unfenced:
        # a hook that blocks every call says why instead.
        message = f"AgentsFence could not load ({type(error).__name__}: {error}), so every tool call is blocked"
        ctx.register_hook("pre_tool_call", lambda **_: {"action": "block", "message": message})
        return
    register_plugin(ctx, **kwargs)
