"""One gateway process of the state tests: the real Hermes plugin manager (hermes-agent 0.19)
loads AgentsFence from $HERMES_HOME, and each call goes through Hermes' own hook entry points
(resolve_pre_tool_block, invoke_hook), as a gateway's turn would. (Not named gateway.py: that
would hide Hermes' own `gateway` package.)

    python fence_gateway.py SESSION ATTEMPTS SENDS_FILE [PAUSE_SECONDS]

One user turn (pre_llm_call) asks to e-mail bob@example.com; then ATTEMPTS sends. A send the
fence lets through prints `RUN <call id>`, waits PAUSE_SECONDS (the send under way, where a kill
lands), appends its call id to SENDS_FILE (fsynced: the test's record of what was sent), and
reports its outcome (post_tool_call, status ok). Prints READY once loaded, TURN once the turn is
bound and saved, and at the end one JSON line: {"sent": n, "blocked": {reason: count}}.
"""
from __future__ import annotations

import json
import os
import sys
import time
import uuid

import hermes_cli.plugins as hermes_plugins

TOOL = "mcp__gmail__send_email"


def main() -> int:
    session, attempts, sends = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    pause = float(sys.argv[4]) if len(sys.argv) > 4 else 0.0
    manager = hermes_plugins.PluginManager()
    hermes_plugins._plugin_manager = manager
    manager.discover_and_load()
    print("READY", flush=True)
    task = f"task-{uuid.uuid4().hex[:12]}"
    hermes_plugins.invoke_hook("pre_llm_call", session_id=session, task_id=task, turn_id=f"turn-{task}",
                               user_message=f"Email bob@example.com the report ({task})", conversation_history=[],
                               is_first_turn=False, model="scripted", platform="telegram", sender_id=f"user-of-{session}")
    print("TURN", task, flush=True)
    sent, blocked = 0, {}
    for attempt in range(attempts):
        call_id = f"call-{os.getpid()}-{attempt}"
        args = {"to": "bob@example.com", "subject": f"Report {attempt}"}
        refused = hermes_plugins.resolve_pre_tool_block(TOOL, args, task_id=task, session_id=session, tool_call_id=call_id)
        if refused is not None:
            reason = refused.rsplit("[", 1)[-1].rstrip("]") if refused.endswith("]") else refused
            blocked[reason] = blocked.get(reason, 0) + 1
            continue
        print("RUN", call_id, flush=True)
        time.sleep(pause)
        with open(sends, "a", encoding="utf-8") as log:
            log.write(call_id + "\n")
            log.flush()
            os.fsync(log.fileno())
        hermes_plugins.invoke_hook("post_tool_call", tool_name=TOOL, args=args, result='{"ok": true}', task_id=task,
                                   session_id=session, tool_call_id=call_id, turn_id=f"turn-{task}", status="ok",
                                   duration_ms=1)
        sent += 1
    print(json.dumps({"sent": sent, "blocked": blocked}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
