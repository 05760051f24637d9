"""What Hermes' hooks hand the fence, as the fence reads it: the text of the user's message, a
tool's result as text, the files a V4A patch names as Hermes' own parser reads them, and a
call's arguments as the JSON the evaluator decides on. The plugin and the shell hooks
(agentsfence/hooks.py) read them alike.
"""
from __future__ import annotations

import json
from typing import Any

from ..codec import encode_call

PATCH_PATHS_ARG = "agentsfence_patch_paths"  # policies/defaults.yaml gives it the path role

# The evaluator reads at most the policy's max_intent_bytes of an output (64 KiB by default):
# a longer result is cut here, before it costs a JSON decode on every call.
OUTPUT_LIMIT = 1 << 20


def message_text(user_message: Any) -> str:
    """The text of the user's message: a string, or the text parts of a multimodal list. Parts
    an image splits ("Summarize notes.txt into", image, "summary.md") are one sentence: two
    one-line parts join with a space, unless the later one opens a block of its own (a quote,
    code, a tag, pasted JSON, a list); other parts join with a line break."""
    if isinstance(user_message, str):
        return user_message
    if isinstance(user_message, list):
        parts = [p.get("text") for p in user_message if isinstance(p, dict) and p.get("type") == "text"]
        text = ""
        for part in (p for p in parts if isinstance(p, str) and p.strip()):
            if not text:
                text = part
                continue
            head = part.lstrip()[:1]
            inline = "\n" not in text.strip() and "\n" not in part.strip() and (head.isalnum() or head in "~/.#@$\"'(")
            text = text.rstrip() + " " + part.lstrip() if inline else text + "\n" + part
        return text
    return ""


def output_text(result: Any) -> str:
    """A tool's result as the text its reader sees: a JSON result's strings, one a line (so an
    escaped newline does not glue an address to the next word), else the text itself."""
    if isinstance(result, str):
        if len(result) > OUTPUT_LIMIT:
            return result[:OUTPUT_LIMIT]
        try:
            result = json.loads(result)
        except ValueError:
            return result
    strings: list[str] = []
    stack = [result]
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            strings.append(value)
        elif isinstance(value, dict):
            stack.extend(reversed(list(value.values())))
        elif isinstance(value, list):
            stack.extend(reversed(value))
    return "\n".join(strings)


def with_patch_paths(tool_name: str, args: Any) -> Any:
    """patch in patch mode names its files inside the V4A text. The evaluator scans the headers
    itself; Hermes' own parser (tools/patch_parser.py) is what the tool obeys, so its files are
    added as one more argument and the decision covers both readings."""
    if tool_name != "patch" or not isinstance(args, dict) or not isinstance(args.get("patch"), str):
        return args
    try:
        from tools.patch_parser import parse_v4a_patch
    except ImportError:  # another Hermes layout: the evaluator's own scan still decides
        return args
    operations, _ = parse_v4a_patch(args["patch"])
    paths = [p for op in operations for p in (op.file_path, op.new_path) if isinstance(p, str) and p]
    return {**args, PATCH_PATHS_ARG: paths}


def arguments_json(args: Any) -> bytes:
    """The call's arguments as the JSON the evaluator reads (what post_tool_call compares with
    what was decided), or their repr when they are not JSON."""
    encoded = encode_call("", args)
    return encoded[1] if isinstance(encoded, tuple) else repr(args).encode("utf-8", "replace")
