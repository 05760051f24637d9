"""What the fence shows a person inside Hermes: `/fence` in a CLI session, `hermes fence` in the shell.

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

from .environment import in_gateway_process, working_directory

if TYPE_CHECKING:  # argparse only names types here: Hermes hands in the parser (not imported at start-up)
    import argparse

    from ..api import Fence
    from ..settings import Settings
    from .approvals import Approvals
    from .policy import PolicyWatch
    from .sessions import Sessions

FENCE_USAGE = "/fence [show | allow TEXT | deny TEXT]"


class SessionView:
    """A session's policy in plain words, and the /fence command that shows and amends it."""

    def __init__(self, fence: Fence, sessions: Sessions, policy: PolicyWatch, approvals: Approvals, observe: bool):
        self._fence = fence
        self._sessions = sessions
        self._policy = policy
        self._approvals = approvals
        self._observe = observe
        self.sandbox_why = ""  # why confined commands are asked about instead (register() sets it)

    def command(self, raw_args: str) -> str:
        """show: the session's policy in plain words. allow TEXT: widen it as if you had said TEXT.
        deny TEXT: narrow it as if you had said "do not TEXT". The policy's ceiling still applies."""
        if in_gateway_process():
            return ("AgentsFence: /fence works only in the Hermes CLI. In a gateway one handler serves every chat and "
                    "is not told who is asking, so it shows and changes no session's policy.")
        verb, _, text = raw_args.strip().partition(" ")
        session_id = self._sessions.current
        if session_id is None:
            return "AgentsFence: no session has had a user turn yet; send a message first."
        if verb in ("", "show"):
            return self.describe(session_id)
        if verb in ("allow", "deny") and text.strip():
            self.amend(session_id, text.strip() if verb == "allow" else f"do not {text.strip()}")
            return self.describe(session_id)
        return f"AgentsFence: usage: {FENCE_USAGE}"

    def amend(self, session_id: str, text: str) -> None:
        """The CLI user's own words through /fence: bound and saved like a user message."""
        self._sessions.amend(session_id, text, working_directory(""))

    def describe(self, session_id: str) -> str:
        record, intent, recent, fault = self._sessions.view(session_id)
        fence, policy = self._fence, self._policy
        lines = [f"AgentsFence, session {session_id} (policy {fence.policy_name}, {fence.policy_hash[:12]}, from {policy.origin})"]
        if policy.change is not None:
            previous, current, why = policy.change
            lines.append(f"The policy changed ({'since the last start' if why == 'start' else 'while running'}): "
                         f"{previous[:12]} -> {current[:12]}")
        if policy.error is not None:
            lines.append(f"Every call is blocked: {policy.error}")
        if self.sandbox_why:
            lines.append(f"No sandbox: {self.sandbox_why}")
        if self._observe:
            lines.append("Observe mode: every call is decided and recorded, none is blocked or asked about "
                         "(agentsfence report lists what enforce would have done)")
        if fault is not None:
            lines.append(f"Every call is blocked: {fault}")
        if record is not None and record.messages:
            lines.append(f"Task: {record.messages[0][0][:200]}")
        if intent is not None:
            named = [*intent.paths, *intent.emails, *intent.recipients, *intent.urls, *intent.domains]
            lines.append("Allowed where the policy lets the user decide: " + (", ".join(named) if named else "nothing named"))
            lines.append("Prohibited: " + (", ".join(f"{c} ('{v}')" for c, v in intent.prohibited) or "nothing"))
            lines.append("The request, as the fence reads it (role, mood, turn, clause):")
            lines += intent.describe()
        budgets = fence.session(session_id).budgets()
        if budgets:
            lines.append("Budgets: " + "; ".join(
                f"{b.id}: {b.remaining} of {b.limit}{' ' + b.currency if b.currency else ''} left ({b.spent} spent, {b.reserved} under way)"
                if b.sums else f"{b.id}: {b.remaining} of {b.limit} left ({b.spent} made, {b.reserved} under way)" for b in budgets))
        grants = self._approvals.session_grants(session_id)
        lines.append(f"Approvals granted for this session: {len(grants)}")
        if record is not None and record.senders:
            lines.append("Senders: " + ", ".join(record.senders))
        lines.append("Recent decisions:" + ("".join(f"\n  {m}" for m in recent) if recent else " none"))
        return "\n".join(lines)


# ---- `hermes fence`, in the shell ----

def setup_cli(parser: argparse.ArgumentParser) -> None:
    commands = parser.add_subparsers(dest="fence_command", required=True, metavar="COMMAND")
    commands.add_parser("status", help="the installed policy, the settings and the saved sessions")
    explain = commands.add_parser("explain", help="decide one call against the installed policy and say why")
    explain.add_argument("tool", metavar="TOOL", help="the tool's name, e.g. write_file")
    explain.add_argument("args", metavar="JSON", help="the call's arguments, a JSON object")
    explain.add_argument("--intent", action="append", default=[], metavar="TEXT",
                         help="a user message to decide against (repeat for later turns); none: an empty intent")
    explain.add_argument("--json", action="store_true", help="print one JSON object instead of words")


def run_cli(options: argparse.Namespace) -> int:
    from ..api import Fence
    from ..bundle import policy_source
    from ..layout import hermes_state
    from ..settings import load_settings
    from .homes import hermes_home, hermes_homes

    home = hermes_home()
    state = hermes_state(home)
    settings = load_settings(home)
    source = policy_source(state.path, settings)
    installed = source.current()
    if installed.error is not None:
        print(f"policy: none in force, every tool call is blocked: {installed.error}")
        if options.fence_command != "status":
            return 1
    fence = Fence(installed.bytecode, hermes_homes=hermes_homes())
    if options.fence_command == "status":
        from ..state import StateCorrupt, StoreUnavailable
        from ..store import open_store
        if installed.error is None:
            print(f"policy: {fence.policy_name} ({fence.policy_hash[:12]}) from {installed.origin}"
                  + (" (compiled earlier, from the cache)" if installed.cached else ""))
        for line in _fleet_lines(source, settings, state.path):
            print(line)
        print(f"mode: {settings.mode}" + (" (decisions are recorded, none is acted on)" if settings.mode == "observe" else ""))
        print(f"settings: {json.dumps(dataclasses.asdict(settings))}")
        from .confine import sandbox_support

        can_confine, why = sandbox_support(settings.sandbox)
        print("sandbox: commands the fence cannot prove run confined (bubblewrap)" if can_confine else f"sandbox: none: {why}")
        store = open_store(settings.state, state.path)
        try:
            saved = store.sessions()
            unreadable = sum(1 for s in saved if s.fault)
            print(f"saved sessions: {len(saved)} in {store.where}" + (f"; {unreadable} unreadable, blocked until "
                                                                     "`agentsfence sessions reset ID`" if unreadable else ""))
        except (StoreUnavailable, StateCorrupt) as error:
            print(f"saved sessions: the state store cannot be read: {error}")
        finally:
            store.close()
        return 0
    from ..explaining import explain

    explained = explain(fence, "hermes-fence-explain", options.intent, options.tool, json.loads(options.args), str(Path.cwd()))
    print(json.dumps(explained.as_json(), ensure_ascii=False) if options.json else "\n".join(explained.lines()))
    return 0


def _fleet_lines(source: object, settings: Settings, state_dir: Path) -> list[str]:
    """The bundle in force (its revision, where and when it came from) and the audit shipping backlog."""
    from ..bundle import BundleSource
    from ..shipping import backlog

    lines = []
    if isinstance(source, BundleSource):
        kept = source.status()
        if kept["revision"] is None:
            lines.append(f"bundle: none fetched yet from {kept['url']}")
        else:
            import time

            lines.append(f"bundle: revision {kept['revision']} from {kept['url']}, signed by key {kept['keyid']}, fetched "
                         f"{time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime(kept['fetched'] or 0))}")
    if settings.audit_syslog:
        lines.append(f"audit shipping: to {settings.audit_syslog}; {backlog(state_dir)} bytes of records not yet confirmed sent")
    return lines
