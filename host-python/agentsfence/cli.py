"""The `agentsfence` command: author policies (compile, check, test), read decisions (explain,
decide, disasm), put the fence in an agent's shell hooks (hook), and measure it (bench, dojo, taubench)."""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from pathlib import Path
from typing import Any

from .audit import add_cli as add_audit
from .bundle import add_cli as add_bundle
from .report import add_cli as add_report
from .errors import FenceError

EXIT_ALLOW = 0
EXIT_ERROR = 1  # the fence could not be built or the input was unusable
EXIT_USAGE = 2  # argparse's own code for a bad command line
EXIT_BLOCK = 3
EXIT_ASK = 4
EXIT_CONFINE = 5
_EXIT_FOR_KIND = {"allow": EXIT_ALLOW, "block": EXIT_BLOCK, "ask": EXIT_ASK, "confine": EXIT_CONFINE}

DECIDE_EPILOG = f"""\
Prints the decision as one JSON object: kind, reason, rule, capability, risk, message.
Exit status: {EXIT_ALLOW} allow, {EXIT_BLOCK} block, {EXIT_ASK} ask, {EXIT_CONFINE} confine (allowed inside the task's
sandbox), {EXIT_ERROR} the fence could not decide
(a bad policy, unreadable --args), {EXIT_USAGE} a bad command line."""


def _call_arguments(options: argparse.Namespace) -> dict[str, Any] | None:
    """--args as JSON, or None after saying why it is not."""
    try:
        return json.loads(options.args)
    except json.JSONDecodeError as error:
        print(f"agentsfence: --args is not JSON: {error}", file=sys.stderr)
        return None


def _decide(options: argparse.Namespace) -> int:
    args = _call_arguments(options)
    if args is None:
        return EXIT_ERROR
    session = _fence(options).session("cli")
    for message in options.intent:
        session.intent(message)
    decision = session.decide(options.tool, args)
    print(json.dumps(dataclasses.asdict(decision), ensure_ascii=False))
    return _EXIT_FOR_KIND[decision.kind]


def _fence(options: argparse.Namespace, **settings: Any) -> Any:
    """The fence with the policy of --policy, else the one Hermes uses (installed.policy_in_use),
    after one line on stderr naming it."""
    from .api import Fence
    from .hermes.homes import hermes_homes
    from .installed import policy_in_use

    in_use = policy_in_use(options.policy, options.profile)
    fence = Fence(in_use.policy, hermes_homes=hermes_homes(), **settings)
    print(f"agentsfence: policy {fence.policy_name} ({fence.policy_hash[:12]}) from {in_use.origin}", file=sys.stderr)
    return fence


RUN_EPILOG = f"""\
Runs the command only when the fence allows it (as is) or confines it (inside the task's sandbox,
as Hermes would); a block or an ask prints the fence's message on stderr and runs nothing.
Exit status: the command's own when it ran; {EXIT_BLOCK} block, {EXIT_ASK} ask (not run), {EXIT_ERROR} the fence
or the sandbox could not be set up, {EXIT_USAGE} a bad command line."""


def _run(options: argparse.Namespace) -> int:
    import subprocess

    from .sandbox import probe, run as run_confined

    command = " ".join(options.command[1:] if options.command[:1] == ["--"] else options.command)
    if not command.strip():
        print("agentsfence run: no command given (agentsfence run --intent TEXT -- COMMAND)", file=sys.stderr)
        return EXIT_USAGE
    found = probe()
    fence = _fence(options, cwd=os.getcwd(), sandbox=found.ok)
    session = fence.session("run")
    for message in options.intent:
        session.intent(message)
    args = {"command": command}
    decision = session.decide("terminal", args)
    print(f"agentsfence: {decision.kind}: {decision.message}", file=sys.stderr)
    if decision.kind in ("block", "ask"):
        if decision.reason == "sandbox_unavailable" and not found.ok:
            print(f"agentsfence: {found.why} ({found.fix})", file=sys.stderr)
        return _EXIT_FOR_KIND[decision.kind]
    if decision.kind == "allow":
        return subprocess.run(["bash", "-c", command]).returncode
    profile = session.sandbox_profile("terminal", args)
    result = run_confined(profile, command, timeout=options.timeout)
    sys.stdout.write(result.stdout)
    sys.stderr.write(result.stderr)
    for note in result.notes:
        print(f"agentsfence: {note}", file=sys.stderr)
    for host, why in result.refused:
        print(f"agentsfence: the sandbox refused to reach {host}: {why}", file=sys.stderr)
    return result.returncode


def _explain(options: argparse.Namespace) -> int:
    from .explaining import explain

    args = _call_arguments(options)
    if args is None:
        return EXIT_ERROR
    explained = explain(_fence(options), "cli", options.intent, options.tool, args)
    if options.json:
        print(json.dumps(explained.as_json(), ensure_ascii=False))
    else:
        print("\n".join(explained.lines()))
    return _EXIT_FOR_KIND[explained.decision.kind]


def _compile(options: argparse.Namespace) -> int:
    from .compiler import run_compiler

    return run_compiler([*map(str, options.sources), "-o", str(options.output)])


def _check(options: argparse.Namespace) -> int:
    from .compiler import run_compiler

    flags = [*(["--json"] if options.json else []), *(["--strict"] if options.strict else [])]
    return run_compiler(["check", *map(str, options.sources), *flags])


def _test(options: argparse.Namespace) -> int:
    from . import data
    from .compiler import run_compiler

    policy = ["--policy", str(options.policy)] if options.policy else []
    return run_compiler(["test", *map(str, options.files), "--wasm", str(data.path("fence.wasm")), *policy])


def _disasm(options: argparse.Namespace) -> int:
    if options.file is not None:
        if options.policy is not None:
            raise FenceError("disasm takes a policy as FILE or as --policy, not both")
        options.policy = options.file
    sys.stdout.write(_fence(options).disasm())
    return 0


def _init(options: argparse.Namespace) -> int:
    from .layout import hermes_state, use_hermes_profile
    from .starter import init

    out = options.out if options.out is not None else hermes_state(use_hermes_profile(options.profile)).path
    project, written = init(options.project, out, force=options.force)
    print(f"Read: {', '.join(project.found) or 'no file a known tool reads'}")
    for request, command in project.commands:
        print(f"  {command}  ({request.lower()}): runs in the task's sandbox")
    for programs, host in project.registries:
        print(f"  {host}: reachable from the sandbox for {', '.join(programs)}")
    print(f"Wrote {written[0]} and {written[1]}: `agentsfence check` and `agentsfence test` pass on them.")
    if options.out is None:
        print("Hermes uses the policy from its next user turn.")
    return 0


def _hook(options: argparse.Namespace) -> int:
    from .hooks import run

    return run(options.agent, options.policy, options.state)


def _find_checkout(given: Path | None) -> Path:
    """The repository checkout the benchmark lives in: --checkout, else the nearest directory
    above the working directory that holds bench/run.py, else the one this package was
    installed from in editable mode."""
    here = Path.cwd().resolve()
    candidates = [given] if given is not None else [here, *here.parents, *Path(__file__).resolve().parents]
    for candidate in candidates:
        if (candidate / "bench" / "run.py").is_file():
            return candidate
    where = given if given is not None else "the working directory or above it"
    raise FenceError(f"agentsfence bench needs the repository checkout (bench/run.py, bench/setup.sh), "
                     f"and {where} holds none: run it inside the checkout, or give --checkout DIR")


def _bench(options: argparse.Namespace) -> int:
    import subprocess

    checkout = _find_checkout(options.checkout)
    # bench/setup.sh installs the peers into the checkout's virtualenv, so the bench runs there.
    python = checkout / ".venv" / "bin" / "python"
    if not python.is_file():
        raise FenceError(f"{checkout} has no .venv: run `make setup` there first (or `make bench`)")
    if not options.no_setup:
        setup = subprocess.run([str(checkout / "bench" / "setup.sh")], cwd=checkout)
        if setup.returncode != 0:
            return setup.returncode
    return subprocess.run([str(python), str(checkout / "bench" / "run.py"), *options.passed_on], cwd=checkout).returncode


def _dojo(options: argparse.Namespace) -> int:
    from .dojo import main as dojo_main

    return dojo_main(options.passed_on, prog="agentsfence dojo")


def _taubench(options: argparse.Namespace) -> int:
    from .taubench import main as taubench_main

    return taubench_main(options.passed_on, prog="agentsfence taubench")


def _command(commands: argparse._SubParsersAction, name: str, summary: str, description: str,
             run: Any, epilog: str | None = None, passes_on: bool = False, **parser_options: Any) -> argparse.ArgumentParser:
    """passes_on: the arguments this parser does not know go to the program the command runs."""
    import textwrap

    description = "\n\n".join(textwrap.fill(paragraph, 96) for paragraph in description.split("\n\n"))
    parser = commands.add_parser(name, help=summary, description=description, epilog=epilog,
                                 formatter_class=argparse.RawDescriptionHelpFormatter, **parser_options)
    parser.set_defaults(run=run, passes_on=passes_on)
    return parser


def _add_call_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--intent", action="append", default=[], metavar="TEXT",
                        help="the user's message (repeat for later turns); none: an empty intent")
    parser.add_argument("--tool", required=True, metavar="NAME", help="the tool's name, e.g. write_file")
    parser.add_argument("--args", required=True, metavar="JSON", help="the call's arguments, a JSON object")
    _add_policy_arguments(parser)


POLICY_HELP = ("a .afb or a .yaml (compiled first); default: the policy Hermes uses, from "
               "$HERMES_HOME/agentsfence (policy.yaml, else policy.afb, else the shipped one)")


def _add_policy_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--policy", metavar="FILE", help=POLICY_HELP)
    parser.add_argument("-p", "--profile", metavar="NAME",
                        help="the Hermes profile whose policy to use, as `hermes -p NAME` (default: the one "
                             "Hermes would use: HERMES_HOME, or the profile `hermes profile use` chose)")


def _add_decide(commands: argparse._SubParsersAction) -> None:
    decide = _command(commands, "decide", "decide one tool call",
                      "Decide one tool call the way the Hermes plugin would.", _decide, DECIDE_EPILOG)
    _add_call_arguments(decide)


def _add_run(commands: argparse._SubParsersAction) -> None:
    run = _command(commands, "run", "decide a shell command and run it as Hermes would",
                   "Decide a terminal command for the request given with --intent, then run it the way the "
                   "Hermes plugin would: as is when allowed, inside the task's sandbox (bubblewrap: the "
                   "working directory writable, secrets hidden, only the hosts the request named reachable) "
                   "when confined, not at all when blocked or asked about.", _run, RUN_EPILOG)
    run.add_argument("--intent", action="append", default=[], metavar="TEXT",
                     help="the user's message (repeat for later turns); none: an empty intent")
    _add_policy_arguments(run)
    run.add_argument("--timeout", type=float, default=600.0, metavar="SECONDS", help="kill the command after this long")
    run.add_argument("command", nargs=argparse.REMAINDER, metavar="-- COMMAND", help="the command line, after --")


def _add_explain(commands: argparse._SubParsersAction) -> None:
    explain = _command(commands, "explain", "say how a call is decided",
                       "Print the compiled intent in plain words, the tool's class, the rules the evaluator "
                       "tested and which one decided, and what the decision means.", _explain,
                       "Exit status as for decide.")
    _add_call_arguments(explain)
    explain.add_argument("--json", action="store_true",
                         help="print one JSON object: policy, tool, intent, class, steps, decision")


NO_NODE = ("\n\nThe compiler is the project's TypeScript compiler, bundled, run in this process on "
           "QuickJS in wasmtime: no Node.js is needed.")


def _add_compile(commands: argparse._SubParsersAction) -> None:
    compile_ = _command(commands, "compile", "compile YAML policies to bytecode",
                        "Compile YAML policy files, merged in order, to one .afb bytecode file. Warnings and "
                        "errors are printed as FILE:LINE:COL lines." + NO_NODE, _compile,
                        "Exit status: 0 compiled, 1 the policy has errors, 2 a bad command line.")
    compile_.add_argument("sources", nargs="+", type=Path, metavar="POLICY.yaml")
    compile_.add_argument("-o", "--output", required=True, type=Path, metavar="OUT", help="the .afb file to write")


def _add_check(commands: argparse._SubParsersAction) -> None:
    check = _command(commands, "check", "validate policies without compiling them",
                     "Validate YAML policy files, merged in order, and print each error and warning as "
                     "FILE:LINE:COL: error|warning: MESSAGE. Warnings name rules that can never apply (no "
                     "tool class matches them, or their conditions contradict), rules that can never "
                     "decide because a rule that runs before them holds whenever they do, tool names no tool "
                     "of Hermes or of the policy has, risk classes and capabilities no tool class has, and "
                     "globs with a { or [ (the fence's globs have neither), with the nearest known name." + NO_NODE,
                     _check, "Exit status: 0 no errors (warnings allowed, unless --strict), 1 errors (or warnings "
                     "with --strict), 2 a bad command line.")
    check.add_argument("sources", nargs="+", type=Path, metavar="POLICY.yaml")
    check.add_argument("--json", action="store_true", help="print one JSON object: ok, errors, warnings")
    check.add_argument("--strict", action="store_true", help="warnings fail the check too (exit status 1)")


def _add_test(commands: argparse._SubParsersAction) -> None:
    test = _command(commands, "test", "run policy test files",
                    "Run policy test files (docs/policy-tests.md): each case's intent and call, or its steps "
                    "in one session, are decided by fence.wasm on the compiled policy and compared with the "
                    "expected decision. Failing "
                    "cases are printed as FILE:LINE:COL: FAIL NAME with what differed; the last line sums "
                    "up." + NO_NODE, _test, "Exit status: 0 every case passed, 1 a case failed or a "
                    "file has errors, 2 a bad command line.")
    test.add_argument("files", nargs="+", type=Path, metavar="TESTS.yaml")
    test.add_argument("--policy", type=Path, metavar="FILE",
                      help="test this policy (.yaml or .afb) instead of the one each file names")


def _add_disasm(commands: argparse._SubParsersAction) -> None:
    disasm = _command(commands, "disasm", "print a policy's bytecode as text",
                      "Print the policy as the evaluator installed it: tables, classes, rules, code.", _disasm)
    disasm.add_argument("file", nargs="?", metavar="FILE", help="a .afb or .yaml (as --policy)")
    _add_policy_arguments(disasm)


def _add_init(commands: argparse._SubParsersAction) -> None:
    init = _command(commands, "init", "write a starting policy and its tests for this project",
                    "Read the project's files for the commands its people run (package.json scripts and its "
                    "lockfile's package manager, pyproject.toml, tox.ini, Makefile targets, Cargo.toml, go.mod) "
                    "and the package registries it names (.npmrc, .yarnrc.yml, pip.conf, pyproject.toml "
                    "indexes, .cargo/config.toml); write policy.yaml, which extends the shipped policy so that "
                    "these commands run in the task's sandbox and those registries are reachable from it, and "
                    "policy.test.yaml, a case for each command and for what the shipped policy keeps out. Both "
                    "pass `agentsfence check --strict` and `agentsfence test` before they are written." + NO_NODE,
                    _init, "Exit status: 0 written, 1 a file is there already (see --force) or the project "
                    "cannot be read, 2 a bad command line.")
    init.add_argument("project", nargs="?", type=Path, default=Path("."), metavar="PROJECT",
                      help="the project's folder (default: the working directory)")
    init.add_argument("--out", type=Path, metavar="DIR",
                      help="where to write policy.yaml and policy.test.yaml (default: $HERMES_HOME/agentsfence, "
                           "where Hermes reads its policy)")
    init.add_argument("-p", "--profile", metavar="NAME", help="write into this Hermes profile's home")
    init.add_argument("--force", action="store_true", help="replace policy.yaml and policy.test.yaml if they exist")


HOOK_EPILOG = """Hermes (config.yaml; a shell hook fires only for the events it is registered on):
  hooks:
    pre_llm_call:   [{command: "agentsfence hook hermes"}]
    subagent_start: [{command: "agentsfence hook hermes"}]
    pre_tool_call:  [{command: "agentsfence hook hermes", fail_closed: true}]
    on_session_finalize: [{command: "agentsfence hook hermes"}]   # forgets ended sessions
  A block prints {"action": "block", "message": ...} and exits 2. Shell hooks cannot ask a
  person, so a call the fence would ask about is blocked. Hermes 0.19 runs the call when the
  hook crashes or times out; newer Hermes blocks it with fail_closed: true.
Claude Code (.claude/settings.json):
  "hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "agentsfence hook claude-code"}]}],
            "PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "agentsfence hook claude-code"}]}],
            "SessionEnd": [{"hooks": [{"type": "command", "command": "agentsfence hook claude-code"}]}]}
  A block exits 2 with the reason on stderr; an ask prints permissionDecision "ask"; an allowed
  call prints nothing, so Claude Code's own permission rules still apply.
Exit status: 0 (nothing to say, or an ask for Claude Code), 2 block. Any fault blocks."""


def _add_hook(commands: argparse._SubParsersAction) -> None:
    from .hooks import AGENTS

    hook = _command(commands, "hook", "decide one hook event read as JSON on stdin",
                    "Answer one shell-hook event of an agent (JSON on stdin) with the fence's decision. "
                    "Each event is a new process: the user's messages are saved per session in the state "
                    "directory and replayed for every decision.", _hook, HOOK_EPILOG)
    hook.add_argument("agent", choices=AGENTS, help="whose hook contract to speak")
    hook.add_argument("--policy", type=Path, metavar="FILE.afb",
                      help="default: policy.afb in the state directory, else the policy shipped for the agent "
                           "(Claude Code: policies/claude-code.yaml, which maps its tools)")
    hook.add_argument("--state", type=Path, metavar="DIR",
                      help="where sessions are saved; default: $HERMES_HOME/agentsfence (hermes), "
                           "~/.claude/agentsfence (claude-code)")


def _add_sessions(commands: argparse._SubParsersAction) -> None:
    from .state import sessions_command

    sessions = _command(commands, "sessions", "list saved sessions, or reset one whose state cannot be read",
                        "List the sessions the state store holds (agentsfence.state in $HERMES_HOME/config.yaml: "
                        "state.db in $HERMES_HOME/agentsfence, or PostgreSQL), with their budget counts and whether "
                        "their state can be read; or reset one. A session whose saved state cannot be read blocks "
                        "every call until it is reset: reset sets its rows aside (kept as text in the store's "
                        "resets table) and the session starts again with no saved state.", sessions_command)
    sessions.add_argument("action", nargs="?", choices=["list", "reset"], default="list", help="default: list")
    sessions.add_argument("session_id", nargs="?", metavar="ID", help="the session to reset")
    sessions.add_argument("--state", type=Path, metavar="DIR",
                          help="the state folder; default: $HERMES_HOME/agentsfence (its store as config.yaml sets it)")


def _add_bench(commands: argparse._SubParsersAction) -> None:
    bench = _command(commands, "bench", "run the benchmark (needs the repository checkout)",
                     "Run the benchmark beside Cedar, OPA and hand-written Python (bench/run.py), after "
                     "bench/setup.sh installs the peers into the checkout's .venv. It needs the repository "
                     "checkout (after `make setup`), not only the installed package: the workloads and peers "
                     "live in bench/. Same as `make bench`.",
                     _bench, "Other arguments go to bench/run.py (--quick, --rounds N).", passes_on=True)
    bench.add_argument("--checkout", type=Path, metavar="DIR",
                       help="the repository checkout; default: the working directory or the nearest one above it")
    bench.add_argument("--no-setup", action="store_true", help="skip bench/setup.sh (the peers are installed)")


def _add_dojo(commands: argparse._SubParsersAction) -> None:
    # Every argument, --help too, goes to the dojo runner, which has its own help.
    _command(commands, "dojo", "score a policy on an AgentDojo suite (agentsfence dojo --help)",
             "Score a policy on an AgentDojo suite.", _dojo, passes_on=True, add_help=False)


def _add_taubench(commands: argparse._SubParsersAction) -> None:
    _command(commands, "taubench", "score the fence on a tau-bench suite (agentsfence taubench --help)",
             "Score the fence on a tau-bench suite by replaying its calls.", _taubench, passes_on=True, add_help=False)


def _add_rules(commands: argparse._SubParsersAction) -> None:
    from .rules_cli import add_cli as add_rules

    add_rules(commands)


# One function per command, in the order `agentsfence --help` lists them. A new command adds
# its own `_add_*` here (audit: host-python/agentsfence/audit.py; bundle: bundle.py).
COMMANDS = [_add_init, _add_compile, _add_check, _add_test, _add_explain, _add_decide, _add_run, _add_disasm, _add_hook,
            _add_sessions, _add_bench, _add_dojo, _add_taubench, add_audit, add_bundle, add_report, _add_rules]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="agentsfence", description="A policy fence for Hermes Agent's tool calls.",
        epilog="`agentsfence COMMAND --help` describes each command.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in COMMANDS:
        add(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    options, unknown = parser.parse_known_args(argv)
    if unknown and not options.passes_on:
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    options.passed_on = unknown
    try:
        return options.run(options)
    except FenceError as error:
        print(f"agentsfence: {error}", file=sys.stderr)
        return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
