"""Which words of a turn the person typed.

pre_llm_call's `user_message` is the turn's user-role message, and Hermes puts text there that
nobody typed in that turn: whole turns it writes itself (a background process finished, a
subagent dispatched in the background is done, a /goal or kanban judge wants another step, a
kanban card or a CLI session handed off, a /browser connect note, the self-improvement review's
prompt), scaffolding around what was typed (a /skill's body, /learn's instructions, a /blueprint
seed), and text it adds to what was typed (what @file:, @url:, @diff name; a description of an
image; in the gateway, the message replied to, the channel's recent messages, an attached
document's text). Some whole sessions are no person's: cron jobs, the curator, webhooks, kanban
workers. Only the person's words may widen a session's intent, so the fence binds what this
module finds of them, and nothing for a turn that has none.

The text Hermes writes is found by Hermes' own wording, each kind read from the code that writes
it (`hermes_templates`, the plugin: it runs inside Hermes) or as recorded from hermes-agent
0.19.0 (`PINNED`, the shell hooks: a process per event, which must not start Hermes' process
registry to learn a template); the tests check the two against the installed Hermes. Where one
side of the person's words is text Hermes added, the words are what its wording leaves
certain: what follows the last paragraph break after notes put before them, what comes before
the first separator of an appendix; where both sides are, nothing. So, of every turn whose
wording it knows, what this module returns is a part of what the person typed, or nothing, and
a person who types Hermes' wording loses that turn's grants, never gains any. Hermes' marks are
read where it leaves them: the platform of a cron job, the curator or a webhook, the review's
write origin (a context variable only the plugin can see), a kanban worker's environment.
Paths with no mark and no wording of Hermes' (a plugin's `ctx.inject_message` as the user, a
gateway platform that composes a turn in words of its own) are bound as the person's:
docs/threat-model.md lists them.
"""
from __future__ import annotations

import functools
import logging
import os
import tempfile
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterable

from .payloads import message_text

logger = logging.getLogger("agentsfence")

# A character no template holds: a template filled with it shows its fixed parts.
_HOLE = "\ue000"


@dataclass(frozen=True)
class Scaffold:
    """The marks of a /skill (and a bundle's, or skills stacked) turn, as agent/skill_commands.py
    and agent/skill_bundles.py write them: the skill's body, then the typed instruction; or a
    header ending with the typed instruction, then each skill's body."""

    prefix: str = ""                 # how the turn opens
    single: str = ""                 # on the first line of one skill's turn
    instruction: str = ""            # before the typed instruction, after the skill's body
    runtime_note: str = ""           # what Hermes may put after the instruction
    after_body: tuple[str, ...] = ()  # notes Hermes puts after a skill's body, before the instruction
    bundle: str = ""                 # on the first line of a bundle's (or stacked skills') turn
    bundle_instruction: str = ""     # the header's last paragraph opens with it
    bundle_block: str = ""           # what opens each skill's body after the header

    def typed(self, text: str) -> str:
        """The instruction typed after the skill's command, or "" (a bare /skill, or marks out of
        place: a body can quote the marker, so it counts only where Hermes puts it)."""
        first = text.split("\n", 1)[0]
        if self.bundle and self.bundle in first:
            header = text.split(self.bundle_block, 1)[0]
            last = header.rsplit("\n\n", 1)[-1]
            opening = self.bundle_instruction.lstrip("\n")
            return last[len(opening):].strip() if last.startswith(opening) else ""
        if not (self.single and self.single in first):
            return ""
        at = text.rfind(self.instruction)
        if at < 0:
            return ""
        typed = text[at + len(self.instruction):]
        if self.runtime_note and self.runtime_note in typed:
            typed = typed[:typed.index(self.runtime_note)]
        if any(note in typed for note in self.after_body):
            return ""  # the marker was inside the skill's body: Hermes' own notes follow it
        return typed.strip()


@dataclass(frozen=True)
class Templates:
    """Hermes' wording of what it puts in a user message, by what the fence makes of it."""

    # A line that opens with one of these (the later fragments following on the same line, in
    # order; after a shared session's "[sender] " too) is Hermes': the turn has no typed words.
    whole: frozenset[tuple[str, ...]] = frozenset()
    # The self-improvement review's prompts: a turn that opens with one is the review's.
    review: frozenset[str] = frozenset()
    # /learn: its opening, the first paragraph of its closing (the typed request is between),
    # and the request Hermes writes when none was typed.
    learn: frozenset[tuple[str, str, str]] = frozenset()
    skill: Scaffold = field(default_factory=Scaffold)
    # Notes Hermes puts before the typed words: a turn that opens with one has its words (if
    # any) in its last paragraph.
    notes: frozenset[str] = frozenset()
    # Between a channel's recent messages and the new one (the gateway): the same, anywhere.
    new_message: frozenset[str] = frozenset()
    # The end of a note that stands where typed words would be (an image with no caption).
    note_ends: frozenset[str] = frozenset()
    # What opens the text @-references name, appended after the typed words.
    attached: frozenset[str] = frozenset()
    # Platforms (pre_llm_call's `platform`) whose turns no person types.
    platforms: frozenset[str] = frozenset()
    # Environment variables that mark a process whose every turn is Hermes'.
    environment: frozenset[str] = frozenset()

    def __or__(self, other: Templates) -> Templates:
        """Both readings: what either recognises is Hermes'."""
        if not isinstance(other, Templates):
            return NotImplemented
        merged = {name: getattr(self, name) | getattr(other, name)
                  for name in ("whole", "review", "learn", "notes", "new_message", "note_ends", "attached",
                               "platforms", "environment")}
        return Templates(skill=other.skill if other.skill.prefix else self.skill, **merged)


# As hermes-agent 0.19.0 writes them (the file and function in Hermes beside each).
PINNED = Templates(
    whole=frozenset({
        # tools/process_registry.py, format_process_notification: completion and watch_match
        ("[IMPORTANT: Background process ",),
        # its watch_disabled event, around ProcessRegistry's message
        ("[IMPORTANT: Watch patterns disabled for process ",),
        # its _format_async_delegation, one subagent and a fan-out
        ("[ASYNC DELEGATION COMPLETE — ",),
        ("[ASYNC DELEGATION BATCH COMPLETE — ",),
        # gateway/run.py, GatewayRunner._run_process_watcher: the chat notices, which come back
        # in a reply or a channel's history
        ("[Background process ", " finished with exit code "),
        ("[Background process ", " is still running~ "),
        # hermes_cli/goals.py: the /goal continuation templates, and the kanban goal loop's
        ("[Continuing toward your standing goal]",),
        ("[Continuing toward this kanban task — judge says it is not done yet]",),
        ("[The work looks complete, but the task is still open]",),
        # gateway/kanban_watchers.py: t("gateway.kanban.wake.message"), in each locale
        ("[kanban] Task ",),
        ("[kanban] 任务 ",),
        # gateway/run.py, GatewayRunner._process_handoff
        ("[Session was just handed off from CLI (",),
        # Hermes' system notes: hermes_cli/cli_commands_mixin.py (/browser connect and
        # disconnect), gateway/run.py (build_resume_recovery_note, _AUTO_CONTINUE_*_PREFIX)
        ("[System note: ",),
        # gateway/platforms/yuanbao.py, a recalled message; plugins/platforms/raft, a wake
        ("[CRITICAL — MESSAGE RECALLED]",),
        ("Raft wake hint received. New Raft messages may be pending. If you have not read the Raft manual "
         "in this session, run `raft manual get raft-cli-overview` before using Raft commands.",),
        # hermes_cli/blueprint_cmd.py, build_blueprint_seed
        ("Set up the '", "' automation for me (automation blueprint '", "'). "),
        # tui_gateway/server.py, preview.restart
        ("The desktop preview pane cannot load a local server URL.",),
        # plugins/platforms/feishu/feishu_comment.py, build_whole_/build_local_comment_prompt
        ('The user added a comment in "', '".'),
        ('The user added a reply in "', '".'),
        # A document's text put in the turn (the platform adapters' "[Content of NAME]:", and
        # gateway/run.py's _build_document_context_note for it): where a caption would start in
        # it cannot be told.
        ("[Content of ", "]:"),
        ("[The user sent a text document: '",),
        # Scaffolding (below) anywhere but where it opens the turn
        ("[IMPORTANT: The user has invoked the ",),
        ("[/learn] ",),
    }),
    # agent/background_review.py
    review=frozenset({
        "Review the conversation above and consider saving to memory if appropriate.\n\n",
        "Review the conversation above and update the skill library. Be ACTIVE — most sessions produce at "
        "least one skill update, even if small.",
        "Review the conversation above and update two things:\n\n",
    }),
    # agent/learn_prompt.py, build_learn_prompt
    learn=frozenset({(
        "[/learn] The user wants you to learn a reusable skill from the request below, and save it.\n\n"
        "THE REQUEST:\n",
        '\n\nThe request is open-ended and may mix two kinds of content, in any order: SOURCES to gather '
        '(directories, file paths, URLs, "what we just did", pasted notes) AND REQUIREMENTS that shape the '
        'skill (what to focus on, what to leave out, scope, naming, the angle to take). Treat EVERY part of '
        'the request as load-bearing. In particular, prose that comes after a path or link is NOT incidental '
        '— it is the user telling you what they want from that source. A request like `<url> focus on the '
        'auth flow, skip the deprecated endpoints` means: gather the URL AND honor "focus on auth, skip '
        'deprecated" as authoring requirements. Never fetch the first source and ignore the rest.',
        "the workflow we just went through in this conversation — review the steps taken and distill them "
        "into a reusable skill",
    )}),
    # agent/skill_commands.py (build_skill_invocation_message, _build_skill_message,
    # build_stacked_skill_invocation_message, extract_user_instruction_from_skill_message's
    # markers) and agent/skill_bundles.py (build_bundle_invocation_message)
    skill=Scaffold(
        prefix="[IMPORTANT: The user has invoked the ",
        single="The full skill content is loaded below.]",
        instruction="The user has provided the following instruction alongside the skill invocation: ",
        runtime_note="\n\n[Runtime note:",
        after_body=("\n[Skill directory: ", "\n[Skill setup note: ", "\n[This skill has supporting files:]"),
        bundle=" skill bundle,",
        bundle_instruction="\nUser instruction: ",
        bundle_block="\n\n[Loaded as part of the ",
    ),
    notes=frozenset({
        # gateway/run.py, _prepare_inbound_message_text: the message replied to, attachments
        # (_build_document_context_note's binary form, audio and video files), Discord's
        # triggering message id; _enrich_message_with_vision and _enrich_message_with_transcription
        '[Replying to: "',
        '[Replying to your previous message: "',
        "[The user sent a document: '",
        "[The user sent an audio file attachment: '",
        "[The user sent a video attachment: '",
        "[The user sent a voice message: ",
        "[voice message could not be transcribed]",
        "[Triggering message id: `",
        "[The user sent an image",
        # cli.py, _preprocess_images_with_vision; tui_gateway/server.py, _enrich_with_attached_images
        "[The user attached an image",
        # gateway/slash_commands.py and cli.py, /reload-skills
        "[USER INITIATED SKILLS RELOAD:",
        # gateway/run.py, a channel's skill auto-loaded on a new session
        '[IMPORTANT: The "',
    }),
    # gateway/run.py, _prepare_inbound_message_text: after event.channel_context
    new_message=frozenset({"\n\n[New message]\n"}),
    # The image notes' last line (the three writers above)
    note_ends=frozenset({"vision_analyze with image_url: ", "vision_analyze using image_url: "}),
    # agent/context_references.py, preprocess_context_references
    attached=frozenset({"\n\n--- Attached Context ---", "\n\n--- Context Warnings ---"}),
    # cron/scheduler.py (platform="cron"), agent/curator.py (platform="curator"),
    # gateway/config.py (Platform.WEBHOOK, Platform.MSGRAPH_WEBHOOK)
    platforms=frozenset({"cron", "curator", "webhook", "msgraph_webhook"}),
    # hermes_cli/kanban_db.py: a worker is `hermes chat -q "work kanban task ID"` with this set
    environment=frozenset({"HERMES_KANBAN_TASK"}),
)


def typed_text(user_message: Any, platform: Any = "", templates: Templates = PINNED,
               review: Callable[[], bool] = lambda: False) -> str:
    """What the person typed in this turn: "" when the turn is Hermes' (its platform or process
    says so, or `review()`, the review's mark) or holds no typed words."""
    if isinstance(platform, str) and platform in templates.platforms:
        return ""
    if any(os.environ.get(name) for name in templates.environment) or review():
        return ""
    return typed_words(message_text(user_message), templates)


def typed_words(text: str, templates: Templates = PINNED) -> str:
    """The typed part of a user message's text, by Hermes' wording (see the module's doc)."""
    t = templates
    if not text.strip() or any(text.startswith(prompt) for prompt in t.review):
        return ""
    if t.skill.prefix and text.startswith(t.skill.prefix):
        if _first(text, t.attached) is not None:
            return ""  # a skill's body before the words and attachments after: no certain edge
        return typed_words(t.skill.typed(text), t)
    for opening, closing, default in t.learn:
        end = text.rfind(closing)  # the last: the typed request may quote it, Hermes' text after it does not
        if text.startswith(opening) and end >= len(opening):
            request = text[len(opening):end]
            return "" if request == default else typed_words(request, t)
    if _hermes_line(text, t.whole):
        return ""
    composed = text.startswith(tuple(t.notes)) or any(marker in text for marker in t.new_message)
    cut = _first(text, t.attached)
    if cut is not None:
        if composed:
            return ""  # notes before, attachments after: either's text may hold the other's mark
        text = text[:cut]
    if not composed:
        return text
    # Every note Hermes puts before the words ends with a paragraph break: the words are at
    # least their last paragraph, and nothing of a note is after it.
    last = text.rsplit("\n\n", 1)[-1]
    for marker in t.new_message:
        opening = marker.lstrip("\n")
        if last.startswith(opening):
            last = last[len(opening):]
    if last.startswith(tuple(t.notes)) or any(end in last for end in t.note_ends):
        return ""  # the last paragraph is a note, or ends one: no words were typed
    return last


def _first(text: str, marks: Iterable[str]) -> int | None:
    found = [at for at in (text.find(mark) for mark in marks) if at >= 0]
    return min(found) if found else None


def _hermes_line(text: str, whole: Iterable[tuple[str, ...]]) -> bool:
    """Whether a line opens with Hermes' wording of a whole turn (also after a "[sender] " the
    gateway puts before a turn in a shared session, and after a line break, where Hermes joins
    messages that arrived together)."""
    whole = tuple(whole)
    firsts = tuple(fragments[0] for fragments in whole)
    for line in text.split("\n"):
        starts = [line]
        if line.startswith("["):
            at = line.find("] ")
            while at >= 0:
                starts.append(line[at + 2:])
                at = line.find("] ", at + 2)
        for start in starts:
            if start.startswith(firsts) and any(_opens(start, fragments) for fragments in whole):
                return True
    return False


def _opens(line: str, fragments: tuple[str, ...]) -> bool:
    if not line.startswith(fragments[0]):
        return False
    at = len(fragments[0])
    for fragment in fragments[1:]:
        at = line.find(fragment, at)
        if at < 0:
            return False
        at += len(fragment)
    return True


# ---- the same, read from the Hermes this process runs in ----

def _opening(text: str) -> tuple[str, ...]:
    """A template filled with holes, as fragments of its first line: what is fixed before the
    first hole, and the fixed parts after it up to the line's end."""
    line = text.split("\n", 1)[0]
    return tuple(part for part in line.split(_HOLE) if part)


def _process_notifications() -> Templates:
    from tools.process_registry import format_process_notification as notify

    events = [{"type": "completion", "session_id": _HOLE, "command": _HOLE, "output": _HOLE, "exit_code": 0},
              {"type": "watch_match", "session_id": _HOLE, "command": _HOLE, "pattern": _HOLE, "output": _HOLE},
              {"type": "async_delegation", "delegation_id": _HOLE, "goal": _HOLE},
              {"type": "async_delegation", "delegation_id": _HOLE, "is_batch": True, "results": []}]
    whole = {_opening(notify(event))[:1] for event in events}
    # The watch_disabled event wraps ProcessRegistry's own message, which names its process.
    whole.add(_opening(notify({"type": "watch_disabled", "message": f"Watch patterns disabled for process {_HOLE}"})))
    return Templates(whole=frozenset(whole))


def _goals() -> Templates:
    from hermes_cli import goals

    names = ("CONTINUATION_PROMPT_TEMPLATE", "CONTINUATION_PROMPT_WITH_CONTRACT_TEMPLATE",
             "CONTINUATION_PROMPT_WITH_SUBGOALS_TEMPLATE", "KANBAN_GOAL_CONTINUATION_TEMPLATE",
             "KANBAN_GOAL_FINALIZE_TEMPLATE")
    return Templates(whole=frozenset((getattr(goals, name).split("\n", 1)[0],) for name in names))


def _kanban_wakes() -> Templates:
    """In English and in the language Hermes is set to now (each catalog costs a YAML load;
    PINNED has every locale of 0.19.0's)."""
    from agent.i18n import DEFAULT_LANGUAGE, t

    holes = dict.fromkeys(("task_id", "status", "title", "assignee", "board"), _HOLE)
    openings = {_opening(t("gateway.kanban.wake.message", **holes))[:1],
                _opening(t("gateway.kanban.wake.message", lang=DEFAULT_LANGUAGE, **holes))[:1]}
    return Templates(whole=frozenset(opening for opening in openings if opening))


def _review() -> Templates:
    from agent import background_review

    prompts = (background_review._MEMORY_REVIEW_PROMPT, background_review._SKILL_REVIEW_PROMPT,
               background_review._COMBINED_REVIEW_PROMPT)
    return Templates(review=frozenset(prompts))


def _learn() -> Templates:
    from agent.learn_prompt import build_learn_prompt

    opening, closing = build_learn_prompt(_HOLE).split(_HOLE)
    default = build_learn_prompt("")[len(opening):-len(closing)]
    first = "\n\n" + closing[2:].split("\n\n", 1)[0]
    return Templates(learn=frozenset({(opening, first, default)}))


def _skills() -> Templates:
    from pathlib import Path

    from agent import skill_commands as skills

    # A skill's body with a setup note, in a directory: what Hermes writes after a body.
    built = skills._build_skill_message({"content": _HOLE, "setup_needed": True, "setup_note": _HOLE},
                                        Path(f"/{_HOLE}"), "")
    _, directory, setup, _ = built.split(_HOLE)
    after_body = ("\n" + directory.strip("\n/"), "\n" + setup.rsplit("\n\n", 1)[-1])
    return Templates(skill=replace(
        PINNED.skill, prefix=skills._SKILL_INVOCATION_PREFIX, single=skills._SINGLE_SKILL_MARKER,
        instruction=skills._SINGLE_SKILL_INSTRUCTION, runtime_note=skills._RUNTIME_NOTE,
        after_body=tuple(dict.fromkeys(after_body + PINNED.skill.after_body)), bundle=skills._BUNDLE_MARKER,
        bundle_instruction=skills._BUNDLE_USER_INSTRUCTION, bundle_block=skills._BUNDLE_FIRST_SKILL_BLOCK))


def _attachments() -> Templates:
    from agent.context_references import preprocess_context_references

    with tempfile.TemporaryDirectory() as folder:
        fetched = preprocess_context_references(f"{_HOLE} @url:https://example.invalid/", cwd=folder,
                                                context_length=1 << 20, url_fetcher=lambda url: _HOLE)
        missing = preprocess_context_references(f"{_HOLE} @file:missing.txt", cwd=folder, context_length=1 << 20,
                                                allowed_root=folder)
    separators = set()
    for result in (fetched.message, missing.message):
        after = result.split(_HOLE, 1)[1]  # "\n\n--- NAME ---\n..."
        separators.add(after[:after.index("---", after.index("---") + 3) + 3])
    return Templates(attached=frozenset(separators))


def _blueprints() -> Templates:
    from types import SimpleNamespace

    from hermes_cli.blueprint_cmd import build_blueprint_seed

    blueprint = SimpleNamespace(title=_HOLE, key=_HOLE, description=_HOLE, slots=[], schedule_template=_HOLE,
                                prompt_template=_HOLE)
    return Templates(whole=frozenset({_opening(build_blueprint_seed(blueprint))}))


def _gateway() -> Templates:
    """Only in a gateway process (where gateway.run is loaded): its notes occur nowhere else."""
    import sys

    run = sys.modules.get("gateway.run")
    if run is None:
        return Templates()
    whole = {_opening(run._build_document_context_note(_HOLE, _HOLE, "text/plain"))[:1],
             _opening(run.build_resume_recovery_note("", ""))[:1],
             (run._AUTO_CONTINUE_NOTE_PREFIX,), (run._AUTO_CONTINUE_FALLBACK_PREFIX,)}
    notes = {_opening(run._build_document_context_note(_HOLE, _HOLE, "application/pdf"))[0]}
    return Templates(whole=frozenset(whole), notes=frozenset(notes))


def _platforms() -> Templates:
    from gateway.config import Platform

    return Templates(platforms=frozenset({Platform.WEBHOOK.value, Platform.MSGRAPH_WEBHOOK.value}))


def _feishu_comments() -> Templates:
    from plugins.platforms.feishu.feishu_comment import build_local_comment_prompt, build_whole_comment_prompt

    common = dict(doc_title=_HOLE, doc_url=_HOLE, file_token=_HOLE, file_type=_HOLE, timeline=[], self_open_id=_HOLE)
    prompts = (build_whole_comment_prompt(comment_text=_HOLE, **common),
               build_local_comment_prompt(comment_id=_HOLE, quote_text=_HOLE, root_comment_text=_HOLE,
                                          target_reply_text=_HOLE, **common))
    return Templates(whole=frozenset(_opening(prompt) for prompt in prompts))


def _raft_wake() -> Templates:
    from plugins.platforms.raft.adapter import RaftAdapter

    return Templates(whole=frozenset({(RaftAdapter._wake_prompt().split("\n", 1)[0],)}))


READERS: tuple[Callable[[], Templates], ...] = (
    _process_notifications, _goals, _kanban_wakes, _review, _learn, _skills, _attachments, _blueprints, _gateway,
    _platforms, _feishu_comments, _raft_wake)


@functools.cache
def hermes_templates() -> Templates:
    """PINNED, and each kind as the Hermes in this process writes it: a template Hermes changed
    is recognised in both wordings. A reader that fails (a module Hermes does not have, or
    changed) leaves the recorded wording alone, and says so."""
    templates = PINNED
    for read in READERS:
        try:
            templates = templates | read()
        except Exception as error:
            logger.warning("AgentsFence could not read a template from Hermes (%s: %s: %s); the wording "
                           "recorded from hermes-agent 0.19.0 stands", read.__name__, type(error).__name__, error)
    return templates


def background_review() -> bool:
    """Whether this turn is the self-improvement review's (or the curator's): Hermes sets the
    write origin (tools/skill_provenance.py) before it fires pre_llm_call, in the same thread.
    The review shares the user's session id, so without this its prompt would be bound there."""
    try:
        from tools.skill_provenance import is_background_review
    except Exception:
        return False
    return bool(is_background_review())
