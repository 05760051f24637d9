"""The `agentsfence` command: decide one call, compile policies, show a policy's bytecode."""
from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

from .api import Intent, TraceStep
from .errors import FenceError

EXIT_ALLOW = 0
EXIT_ERROR = 1  # the fence could not be built or the input was unusable
EXIT_USAGE = 2  # argparse's own code for a bad command line
EXIT_BLOCK = 3
EXIT_ASK = 4
_EXIT_FOR_KIND = {"allow": EXIT_ALLOW, "block": EXIT_BLOCK, "ask": EXIT_ASK}

DECIDE_EPILOG = f"""\
Prints the decision as one JSON object: kind, reason, rule, capability, risk, message.
Exit status: {EXIT_ALLOW} allow, {EXIT_BLOCK} block, {EXIT_ASK} ask, {EXIT_ERROR} the fence could not decide
(a bad policy, unreadable --args), {EXIT_USAGE} a bad command line."""


def _call_arguments(options: argparse.Namespace) -> dict[str, Any] | None:
    """--args as JSON, or None after saying why it is not."""
    try:
        return json.loads(options.args)
    except json.JSONDecodeError as error:
        print(f"agentsfence: --args is not JSON: {error}", file=sys.stderr)
        return None


def _decide(options: argparse.Namespace) -> int:
    from .api import Fence

    args = _call_arguments(options)
    if args is None:
        return EXIT_ERROR
    session = Fence(options.policy).session("cli")
    for message in options.intent:
        session.intent(message)
    decision = session.decide(options.tool, args)
    print(json.dumps(dataclasses.asdict(decision), ensure_ascii=False))
    return _EXIT_FOR_KIND[decision.kind]


_SOURCE_WORDS = {
    "mapped": "mapped by the policy",
    "name": "classified by the words of its name",
    "inferred": "inferred from its description",
    "unknown": "unknown: nothing maps or classifies it",
}


def _intent_lines(intent: Intent) -> list[str]:
    named = [("e-mail addresses", intent.emails), ("URLs", intent.urls), ("domains", intent.domains),
             ("paths", intent.paths), ("channels and handles", intent.recipients), ("names", intent.names)]
    lines = [f"  named {what}: {', '.join(values)}" for what, values in named if values]
    lines += [f"  granted {capability} (\"{verb}\")" for capability, verb in intent.granted]
    lines += [f"  prohibited {capability} (\"{verb}\")" for capability, verb in intent.prohibited]
    return lines or ["  nothing: no target named, no verb read"]


def _step_line(step: TraceStep) -> str:
    if step.predicate == "decide":
        return f"  -> {step.subject} by {step.rule}"
    test = f"{step.subject}: {'not ' if step.negated else ''}{step.predicate}"
    return f"  {step.rule:<28} {test:<34} {'held' if step.held else 'failed'}"


def _explain(options: argparse.Namespace) -> int:
    from .api import Fence

    args = _call_arguments(options)
    if args is None:
        return EXIT_ERROR
    session = Fence(options.policy).session("cli")
    intent = Intent()
    for message in options.intent:
        intent = session.intent(message)  # each summary holds every message so far
    trace = session.explain(options.tool, args)
    decision = session.decide(options.tool, args)
    lines = ["The request, as the fence reads it:", *_intent_lines(intent),
             f"The tool {options.tool}: {trace.capability or '?'} ({trace.risk or '?'}), "
             f"{_SOURCE_WORDS.get(trace.source, trace.source)}"]
    if trace.steps:
        lines.append("Rules tested, in order (a failed test skips to the next rule):")
        lines += [_step_line(step) for step in trace.steps]
    else:
        lines.append("No rule ran: the call was decided before the rules.")
    lines.append(f"Decision: {decision.kind} [{decision.reason}] {decision.message}")
    print("\n".join(lines))
    return _EXIT_FOR_KIND[decision.kind]


def _compile(options: argparse.Namespace) -> int:
    from .compiler import compile_policy

    bytecode = compile_policy(options.sources, options.output)
    print(f"wrote {options.output} ({len(bytecode)} bytes)", file=sys.stderr)
    return 0


def _disasm(options: argparse.Namespace) -> int:
    from .api import Fence

    sys.stdout.write(Fence(options.policy).disasm())
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="agentsfence", description="A policy fence for Hermes Agent's tool calls."
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    decide = commands.add_parser(
        "decide", help="decide one tool call", description="Decide one tool call the way the Hermes plugin would.",
        epilog=DECIDE_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    decide.add_argument("--intent", action="append", default=[], metavar="TEXT",
                        help="the user's message (repeat for later turns); none: an empty intent")
    decide.add_argument("--tool", required=True, metavar="NAME", help="the tool's name, e.g. write_file")
    decide.add_argument("--args", required=True, metavar="JSON", help="the call's arguments, a JSON object")
    decide.add_argument("--policy", metavar="FILE", help="a .afb (or a .yaml, compiled with Node); default: the shipped policy")
    decide.set_defaults(run=_decide)

    explain = commands.add_parser(
        "explain", help="say how a call is decided",
        description="Print the compiled intent in plain words, the tool's class, the rules the evaluator "
                    "tested and which one decided. Exit status as for decide.",
    )
    explain.add_argument("--intent", action="append", default=[], metavar="TEXT",
                         help="the user's message (repeat for later turns)")
    explain.add_argument("--tool", required=True, metavar="NAME")
    explain.add_argument("--args", required=True, metavar="JSON")
    explain.add_argument("--policy", metavar="FILE", help="a .afb or .yaml; default: the shipped policy")
    explain.set_defaults(run=_explain)

    compile_ = commands.add_parser(
        "compile", help="compile YAML policies to bytecode (needs Node.js)",
        description="Compile YAML policy files, merged in order, to one .afb bytecode file. Needs `node` on PATH.",
    )
    compile_.add_argument("sources", nargs="+", type=Path, metavar="POLICY.yaml")
    compile_.add_argument("-o", "--output", required=True, type=Path, metavar="OUT", help="the .afb file to write")
    compile_.set_defaults(run=_compile)

    disasm = commands.add_parser(
        "disasm", help="print a policy's bytecode as text",
        description="Print the policy as the evaluator installed it: tables, classes, rules, code.",
    )
    disasm.add_argument("policy", nargs="?", metavar="FILE", help="a .afb or .yaml; default: the shipped policy")
    disasm.set_defaults(run=_disasm)

    from .audit import add_cli as add_audit_cli

    add_audit_cli(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    options = build_parser().parse_args(argv)
    try:
        return options.run(options)
    except FenceError as error:
        print(f"agentsfence: {error}", file=sys.stderr)
        return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
