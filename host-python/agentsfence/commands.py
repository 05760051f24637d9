"""The fence's commands inside Hermes: `/fence` in a CLI session, `hermes fence` in the shell.

Hermes 0.19 calls a slash command's handler with the raw argument text only: no session, no
sender. In the CLI there is one person and one live session, so /fence acts on the session of
the latest user turn. A gateway process serves every chat through the same handler and cannot
tell who is asking, so there /fence refuses to show or change anything.
"""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # argparse only names types here: Hermes hands in the parser (not imported at start-up)
    import argparse

    from .hermes import HermesFence

FENCE_USAGE = "/fence [show | allow TEXT | deny TEXT]"


def in_gateway_process() -> bool:
    from tools.approval import _is_gateway_approval_context

    return _is_gateway_approval_context()


def slash_fence(plugin: HermesFence, raw_args: str) -> str:
    """show: the session's policy in plain words. allow TEXT: widen it as if you had said TEXT.
    deny TEXT: narrow it as if you had said "do not TEXT". The policy's ceiling still applies."""
    if in_gateway_process():
        return ("AgentsFence: /fence works only in the Hermes CLI. In a gateway one handler serves every chat and "
                "is not told who is asking, so it shows and changes no session's policy.")
    verb, _, text = raw_args.strip().partition(" ")
    session_id = plugin.current_session
    if session_id is None:
        return "AgentsFence: no session has had a user turn yet; send a message first."
    if verb in ("", "show"):
        return plugin.describe_session(session_id)
    if verb in ("allow", "deny") and text.strip():
        plugin.amend(session_id, text.strip() if verb == "allow" else f"do not {text.strip()}")
        return plugin.describe_session(session_id)
    return f"AgentsFence: usage: {FENCE_USAGE}"


def setup_cli(parser: argparse.ArgumentParser) -> None:
    commands = parser.add_subparsers(dest="fence_command", required=True, metavar="COMMAND")
    commands.add_parser("status", help="the installed policy, the settings and the saved sessions")
    explain = commands.add_parser("explain", help="decide one call against the installed policy and say why")
    explain.add_argument("tool", metavar="TOOL", help="the tool's name, e.g. write_file")
    explain.add_argument("args", metavar="JSON", help="the call's arguments, a JSON object")
    explain.add_argument("--intent", action="append", default=[], metavar="TEXT",
                         help="a user message to decide against (repeat for later turns); none: an empty intent")


def run_cli(options: argparse.Namespace) -> int:
    from .api import Fence
    from .homes import hermes_home, hermes_homes, state_dir
    from .installed import PolicyFiles
    from .settings import load_settings

    home = hermes_home()
    installed = PolicyFiles(state_dir(home)).current()
    if installed.error is not None:
        print(f"policy: none in force, every tool call is blocked: {installed.error}")
        if options.fence_command != "status":
            return 1
    fence = Fence(installed.bytecode, hermes_homes=hermes_homes())
    if options.fence_command == "status":
        sessions = state_dir(home) / "sessions"
        saved = list(sessions.glob("*.json")) if sessions.is_dir() else []
        corrupt = list(sessions.glob("*.corrupt-*")) if sessions.is_dir() else []
        if installed.error is None:
            print(f"policy: {fence.policy_name} ({fence.policy_hash[:12]}) from {installed.origin}"
                  + (" (compiled earlier, from the cache)" if installed.cached else ""))
        settings = load_settings(home)
        print(f"mode: {settings.mode}" + (" (decisions are recorded, none is acted on)" if settings.mode == "observe" else ""))
        print(f"settings: {json.dumps(dataclasses.asdict(settings))}")
        print(f"saved sessions: {len(saved)} in {sessions}" + (f"; {len(corrupt)} corrupt kept aside" if corrupt else ""))
        return 0
    session = fence.session("hermes-fence-explain")
    for message in options.intent:
        session.intent(message, str(Path.cwd()))
    decision = session.decide(options.tool, json.loads(options.args))
    print(json.dumps(dataclasses.asdict(decision), ensure_ascii=False))
    return 0
