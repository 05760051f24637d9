"""`agentsfence rules`: list, explain, remove and adopt the learned rules (agentsfence/rules.py)
of a state folder."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import yaml

from .report import ReportError, records
from .rules import RulesError, add_rule, read_rules, remove_rule, rules_path, suggestions


def _state_dir(options: Any) -> Path:
    from .layout import hermes_state

    return Path(options.state) if options.state else hermes_state().path


def _list(options: Any) -> int:
    path = rules_path(_state_dir(options))
    rules = read_rules(path)
    if not rules:
        print(f"no learned rules in {path}")
        return 0
    print(f"{len(rules)} learned rule{'s' if len(rules) != 1 else ''} in {path}:")
    for rule in rules:
        print(f"  {rule.id}  {rule.describe()}")
    return 0


def _show(options: Any) -> int:
    path = rules_path(_state_dir(options))
    found = [r for r in read_rules(path) if r.id == options.id]
    if not found:
        raise RulesError(f"no learned rule {options.id} in {path} (`agentsfence rules` lists them)")
    rule = found[0]
    print(f"{rule.id} in {path}")
    print(f"allows: {rule.describe()}")
    print("it holds only when every value the fence reads in the call is one listed; any block or ask rule "
          "of the policy still wins over it")
    print(f"made: {rule.message}")
    print(yaml.safe_dump({"rules": [rule.as_policy()]}, sort_keys=False, allow_unicode=True, width=100).rstrip())
    return 0


def _remove(options: Any) -> int:
    path = rules_path(_state_dir(options))
    rule = remove_rule(path, options.id)
    print(f"removed {rule.id} ({rule.describe()}); a running Hermes asks again from its next turn")
    return 0


def _adopt(options: Any) -> int:
    from .audit import default_path

    state = _state_dir(options)
    audit = Path(options.audit) if options.audit else (state / "audit.jsonl" if options.state else default_path())
    found = [rule for _, rule in suggestions(r for r in records(audit) if r is not None) if rule.id == options.id]
    if not found:
        raise RulesError(f"{audit} suggests no rule {options.id} (`agentsfence report` lists its suggestions)")
    add_rule(rules_path(state), found[0])
    print(f"added {found[0].id} ({found[0].describe()}); a running Hermes uses it from its next turn")
    return 0


def _command(options: Any) -> int:
    try:
        return {"list": _list, "show": _show, "remove": _remove, "adopt": _adopt}[options.rules_command or "list"](options)
    except (RulesError, ReportError) as error:
        print(f"agentsfence rules: {error}", file=sys.stderr)
        return 1


def add_cli(commands: Any) -> None:
    rules = commands.add_parser(
        "rules", help="list, explain and remove the rules your \"always\" answers made",
        description="The learned rules in $HERMES_HOME/agentsfence/rules.yaml: each allows one call that was asked "
                    "about, by its tool and the exact values the fence read in it.")
    rules.add_argument("--state", metavar="DIR", help="the state folder; default: $HERMES_HOME/agentsfence")
    verbs = rules.add_subparsers(dest="rules_command", metavar="VERB")
    verbs.add_parser("list", help="every learned rule (the default)")
    show = verbs.add_parser("show", help="what one rule allows, when it was made and from which question")
    show.add_argument("id", metavar="ID")
    remove = verbs.add_parser("remove", help="remove one rule: its calls are asked about again from the next turn")
    remove.add_argument("id", metavar="ID")
    adopt = verbs.add_parser("adopt", help="make a rule `agentsfence report` suggests a learned rule")
    adopt.add_argument("id", metavar="ID")
    adopt.add_argument("--audit", metavar="FILE", help="the audit log; default: the state folder's")
    rules.set_defaults(run=_command, passes_on=False)
