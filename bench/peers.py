"""Cedar (cedarpy) and OPA (opa build -t wasm, run by opa-wasmtime) deciding the same checks.

Both get the facts plain.classify extracts (neither engine reads shell commands or V4A
patches), so their rows pay that Python plus their own call. Sets are passed so that
membership is hashed where the engine can hash it: Rego objects keyed by member, Cedar sets.
"""
from __future__ import annotations

import json
import os
import subprocess
import tarfile
import tempfile
from pathlib import Path
from typing import Any

import plain
from plain import Facts, Intent, ScaledLists

STRENGTH = {"block": 3, "ask": 2, "allow": 1}


def _cedar_set(items: Any) -> str:
    return "[" + ", ".join(json.dumps(item) for item in items) + "]"


# (effect, condition) for the default policy's rules the calls reach; Cedar permits are used
# as "matched" markers and the host picks the strongest effect among the matched ones.
def _default_cedar_rules() -> list[tuple[str, str]]:
    persist, creds = _cedar_set(plain.PERSISTENCE_ABS), _cedar_set(plain.CREDENTIAL_ABS)
    read_only = _cedar_set(sorted(plain.READ_ONLY_PROGRAMS))
    return [
        ("block", f'["file.write", "media.generate"].contains(context.capability) && context.path_ancestors.containsAny({persist})'),
        ("block", 'context.capability == "file.write" && context.path_ancestors.containsAny(["/.git/hooks"])'),
        ("block", '["shell.exec", "code.exec"].contains(context.capability) && !context.intent_domains.containsAll(context.domains)'),
        ("block", 'context.capability == "message.send" && !context.intent_emails.containsAll(context.emails)'),
        ("ask", f'["file.read", "file.search", "shell.exec"].contains(context.capability) && context.path_ancestors.containsAny({creds}) && !context.intent_paths.containsAll(context.paths)'),
        ("ask", '["file.read", "shell.exec"].contains(context.capability) && context.path_names.contains(".env") && !context.intent_paths.containsAll(context.paths)'),
        ("ask", f'context.capability == "shell.exec" && context.path_ancestors.containsAny({persist})'),
        ("ask", 'context.capability == "message.send" && !context.intent_emails.containsAll(context.recipients)'),
        ("allow", 'context.capability == "message.send" && (context.emails != [] || context.recipients != [])'),
        ("allow", 'context.capability == "file.write" && context.paths != [] && context.intent_paths.containsAll(context.paths)'),
        ("allow", f'context.capability == "shell.exec" && context.programs != [] && {read_only}.containsAll(context.programs)'),
        ("allow", '["read", "internal", "delegate"].contains(context.risk)'),
    ]


def _scaled_cedar_rules(lists: ScaledLists) -> list[tuple[str, str]]:
    return [
        ("allow", f'context.capability == "message.send" && context.recipients != [] && {_cedar_set(sorted(lists.recipients))}.containsAll(context.recipients)'),
        ("allow", f'context.capability == "net.fetch" && context.domains != [] && {_cedar_set(sorted(lists.domains))}.containsAny(context.domain_suffixes)'),
        ("allow", f'context.capability == "file.write" && context.paths != [] && {_cedar_set(sorted(lists.directories))}.containsAny(context.path_ancestors)'),
    ]


def _context(facts: Facts, intent: Intent | None) -> dict[str, Any]:
    context: dict[str, Any] = {
        "capability": facts.capability,
        "risk": facts.risk,
        "paths": facts.paths,
        "path_ancestors": sorted({a for p in facts.paths for a in plain.ancestors(p)}),
        "path_names": [os.path.basename(p) for p in facts.paths],
        "programs": facts.programs,
        "emails": facts.emails,
        "recipients": facts.recipients,
        "domains": facts.domains,
        "domain_suffixes": [s for d in facts.domains for s in plain.domain_suffixes(d)],
    }
    if intent is not None:
        context.update(intent_paths=sorted(intent.paths), intent_emails=sorted(intent.emails),
                       intent_domains=sorted(intent.domains))
    return context


class CedarPeer:
    def __init__(self, rules: list[tuple[str, str]], intent: Intent | None):
        import cedarpy

        self._cedarpy = cedarpy
        self._effects = {f"policy{i}": effect for i, (effect, _) in enumerate(rules)}
        # Parsed once: cedarpy's pre-parsed handles, not policy text re-read on every call.
        self._policies = cedarpy.PolicySet.from_str(
            "\n".join(f"permit(principal, action, resource) when {{ {cond} }};" for _, cond in rules))
        self._entities = cedarpy.Entities.from_json_str("[]")
        self._intent = intent

    @classmethod
    def default(cls, intent: Intent) -> "CedarPeer":
        return cls(_default_cedar_rules(), intent)

    @classmethod
    def scaled(cls, lists: ScaledLists) -> "CedarPeer":
        return cls(_scaled_cedar_rules(lists), None)

    def decide(self, tool: str, args: dict[str, Any]) -> str:
        request = {"principal": 'Agent::"hermes"', "action": 'Action::"call"', "resource": f'Tool::{json.dumps(tool)}',
                   "context": _context(plain.classify(tool, args), self._intent)}
        result = self._cedarpy.is_authorized(request, self._policies, self._entities)
        effects = [self._effects[r] for r in result.diagnostics.reasons]
        return max(effects, key=STRENGTH.__getitem__) if effects else "ask"


# ---- OPA ---------------------------------------------------------------------------------

DEFAULT_REGO = """package fence
import rego.v1

cap := input.capability
ancestor_in(set) if { some a in input.path_ancestors; set[a] }
paths_named if { every p in input.paths { input.intent_paths[p] } }

blocks contains "persistence-write" if { cap in {"file.write", "media.generate"}; ancestor_in(data.persistence) }
blocks contains "egress-unnamed-host" if { cap in {"shell.exec", "code.exec"}; some d in input.domains; not input.intent_domains[d] }
blocks contains "email-unnamed-recipient" if { cap == "message.send"; some e in input.emails; not input.intent_emails[e] }
asks contains "credentials-read" if { cap in {"file.read", "file.search", "shell.exec"}; ancestor_in(data.credentials); not paths_named }
asks contains "dotenv-read" if { cap in {"file.read", "shell.exec"}; some n in input.path_names; n == ".env"; not paths_named }
asks contains "shell-persistence" if { cap == "shell.exec"; ancestor_in(data.persistence) }
asks contains "recipient-unnamed" if { cap == "message.send"; some r in input.recipients; not input.intent_emails[r] }
allows contains "send-to-named" if { cap == "message.send"; count(input.emails) + count(input.recipients) > 0 }
allows contains "write-named" if { cap == "file.write"; count(input.paths) > 0; paths_named }
allows contains "shell-read-only" if { cap == "shell.exec"; count(input.programs) > 0; every p in input.programs { data.read_only[p] } }

decision := "block" if { count(blocks) > 0 }
else := "ask" if { count(asks) > 0 }
else := "allow" if { count(allows) > 0 }
else := data.defaults[input.risk] if { data.defaults[input.risk] }
else := "ask"
"""

SCALED_REGO = """package fence
import rego.v1

cap := input.capability
listed if { cap == "message.send"; count(input.recipients) > 0; every r in input.recipients { data.recipients[r] } }
listed if { cap == "net.fetch"; count(input.domain_suffixes) > 0; some s in input.domain_suffixes; data.domains[s] }
listed if { cap == "file.write"; count(input.paths) > 0; some a in input.path_ancestors; data.directories[a] }

decision := "allow" if { listed }
else := "ask"
"""


def opa_binary() -> Path | None:
    candidate = Path(__file__).parent / ".bin" / "opa"
    return candidate if candidate.is_file() else None


def build_opa_wasm(rego: str, opa: Path) -> bytes:
    """`opa build -t wasm -e fence/decision`, returning the policy.wasm of the bundle."""
    with tempfile.TemporaryDirectory() as work:
        source = Path(work) / "fence.rego"
        source.write_text(rego)
        bundle = Path(work) / "bundle.tar.gz"
        subprocess.run([str(opa), "build", "-t", "wasm", "-e", "fence/decision", "-o", str(bundle), str(source)],
                       check=True, capture_output=True)
        with tarfile.open(bundle) as archive:
            member = archive.extractfile("/policy.wasm") or archive.extractfile("policy.wasm")
            assert member is not None
            return member.read()


def _keyed(items: Any) -> dict[str, bool]:
    return {item: True for item in items}


class OpaPeer:
    def __init__(self, wasm: bytes, data: dict[str, Any], intent: Intent | None):
        # opa-wasmtime, not opa-py-wasm: the latter pins a wasmtime older than the fence's.
        from opa_wasmtime import OPAPolicy

        with tempfile.NamedTemporaryFile(suffix=".wasm") as file:
            file.write(wasm)
            file.flush()
            self._policy = OPAPolicy(file.name)
        self._policy.set_data(data)
        self._intent = None if intent is None else {
            "intent_paths": _keyed(intent.paths), "intent_emails": _keyed(intent.emails),
            "intent_domains": _keyed(intent.domains)}

    @classmethod
    def default(cls, opa: Path, intent: Intent) -> "OpaPeer":
        data = {"persistence": _keyed(plain.PERSISTENCE_ABS), "credentials": _keyed(plain.CREDENTIAL_ABS),
                "read_only": _keyed(plain.READ_ONLY_PROGRAMS), "defaults": plain.DEFAULTS}
        return cls(build_opa_wasm(DEFAULT_REGO, opa), data, intent)

    @classmethod
    def scaled(cls, opa: Path, lists: ScaledLists, wasm_cache: dict[str, bytes]) -> "OpaPeer":
        if "scaled" not in wasm_cache:
            wasm_cache["scaled"] = build_opa_wasm(SCALED_REGO, opa)
        data = {"recipients": _keyed(lists.recipients), "domains": _keyed(lists.domains),
                "directories": _keyed(lists.directories)}
        return cls(wasm_cache["scaled"], data, None)

    def decide(self, tool: str, args: dict[str, Any]) -> str:
        facts = _context(plain.classify(tool, args), None)
        if self._intent is not None:
            facts.update(self._intent)
        return self._policy.evaluate(facts)[0]["result"]
