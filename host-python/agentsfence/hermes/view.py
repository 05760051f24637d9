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

from .environment import forget_granted, in_gateway_process, working_directory

if TYPE_CHECKING:  # argparse only names types here: Hermes hands in the parser (not imported at start-up)
    import argparse

    from ..api import Fence
    from ..settings import Settings
    from .approvals import Approvals
    from .policy import PolicyWatch
    from .sessions import Sessions

FENCE_USAGE = "/fence [show | allow TEXT | deny TEXT | rules]"


class SessionView:
    """A session's policy in plain words, and the /fence command that shows and amends it."""

    def __init__(self, fence: Fence, sessions: Sessions, policy: PolicyWatch, approvals: Approvals, observe: bool,
                 state_dir: Path | None = None):
        self._fence = fence
        self._state_dir = state_dir  # where the learned rules are (None: none are kept)
        self._sessions = sessions
        self._policy = policy
        self._approvals = approvals
        self._observe = observe
        self.sandbox_why = ""  # why confined commands are asked about instead (register() sets it)

    def command(self, raw_args: str) -> str:
        """show: the session's policy in plain words. allow TEXT: widen it as if you had said TEXT.
        deny TEXT: narrow it as if you had said "do not TEXT", and withdraw the session's earlier
        approvals (a grant must not outvote the deny). rules: the learned rules. The policy's
        ceiling still applies. Words the fence does not read as a change change nothing, and the
        answer says so."""
        if in_gateway_process():
            return ("AgentsFence: /fence works only in the Hermes CLI. In a gateway one handler serves every chat and "
                    "is not told who is asking, so it shows and changes no session's policy.")
        verb, _, text = raw_args.strip().partition(" ")
        text = text.strip()
        if verb == "rules":
            return self.learned_rules()
        if verb not in ("", "show", "allow", "deny") or (verb in ("allow", "deny") and not text):
            return f"AgentsFence did not understand `/fence {raw_args.strip()}`; nothing changed. Usage: {FENCE_USAGE}"
        session_id = self._sessions.current
        if session_id is None:
            return "AgentsFence: no session has had a user turn yet; send a message first."
        if verb in ("", "show"):
            return self.describe(session_id)
        before = self._sessions.view(session_id)[1]
        self.amend(session_id, text if verb == "allow" else f"do not {text}")
        after = self._sessions.view(session_id)[1]
        if after is None or (before == after and (before is None or before.revoked == after.revoked)):
            example = "write notes.md" if verb == "allow" else "send email"
            return (f"AgentsFence did not understand \"{text}\" as something to {verb}: this session's policy did not "
                    f"change. Name an action or a target, as in `/fence {verb} {example}`.")
        lines = [f"AgentsFence: this session now {'allows' if verb == 'allow' else 'rules out'} what you said (\"{text}\")."]
        if verb == "deny":
            keys = self._approvals.withdraw(session_id)
            forget_granted(keys)
            withdrawn = len(keys)
            if withdrawn:
                lines.append(f"{withdrawn} approval{'s' if withdrawn != 1 else ''} given earlier in this session "
                             f"{'are' if withdrawn != 1 else 'is'} withdrawn: {'they are' if withdrawn != 1 else 'it is'} asked again.")
            self._sessions.save(session_id)
        return "\n".join(lines + [self.describe(session_id)])

    def learned_rules(self) -> str:
        from ..rules import RulesError, read_rules, rules_path

        if self._state_dir is None:
            return "AgentsFence: this fence keeps no learned rules."
        path = rules_path(self._state_dir)
        try:
            rules = read_rules(path)
        except RulesError as error:
            return f"AgentsFence: the learned rules are not in force: {error}"
        if not rules:
            return f"AgentsFence: no learned rules in {path} (an \"always\" answer adds one)."
        return "\n".join([f"AgentsFence: {len(rules)} learned rule(s) in {path} (`agentsfence rules remove ID` removes one):"]
                         + [f"  {rule.id}  {rule.describe()}" for rule in rules])

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
    from ..errors import FenceError
    from ..layout import hermes_state
    from ..settings import SettingsError, load_settings
    from .homes import hermes_home, hermes_homes

    home = hermes_home()
    state = hermes_state(home)
    try:
        settings = load_settings(home)
    except SettingsError as error:
        # The fence blocks every call while a setting is wrong: say which, and how to fix it.
        print(f"settings: unusable, so AgentsFence blocks every tool call: {error}")
        print(f"fix: {error.fix}")
        return 1
    source = policy_source(state.path, settings)
    installed = source.current()
    if installed.error is not None:
        print(f"policy: none in force, every tool call is blocked: {installed.error}")
        print(f"fix: correct the lines above in {installed.origin}, or move it aside to use the shipped policy; "
              "the fence takes it up at the next turn")
        if options.fence_command != "status":
            return 1
    if installed.learned_error is not None:
        print(f"learned rules: not in force (their calls are asked about): {installed.learned_error}")
    try:
        fence = Fence(installed.bytecode, hermes_homes=hermes_homes())
    except FenceError as error:
        print(f"policy: {installed.origin} cannot be used, so every tool call is blocked: {error}")
        print("fix: compile it again (agentsfence compile POLICY.yaml -o FILE), or move it aside to use the shipped policy")
        return 1
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
        if installed.learned_error is None:
            from ..rules import read_rules, rules_path

            learned = read_rules(rules_path(state.path))
            print(f"learned rules: {len(learned)} in {rules_path(state.path)} (`agentsfence rules` lists them)")
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
