"""The plugin's settings: the `agentsfence:` mapping in Hermes' own $HERMES_HOME/config.yaml.

One file per profile, the one the operator already edits (`hermes config set agentsfence.KEY
VALUE` writes it). A key that is missing takes its default; a key with a value outside its
choices is an error, so the plugin fails closed rather than run with a setting it misread. Each
error says how to fix it (`fix`): `hermes fence status` prints both.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import yaml

# libyaml's loader when PyYAML has it: Hermes' own config.yaml runs to hundreds of lines, which
# the pure-Python loader takes about five times as long to read at start-up.
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

PluginConflicts = Literal["first", "strict"]
NoToolCallId = Literal["decide", "block"]
Mode = Literal["enforce", "observe"]


class SettingsError(Exception):
    def __init__(self, message: str, fix: str = "correct it in the agentsfence section of $HERMES_HOME/config.yaml "
                                                "(hermes config set agentsfence.KEY VALUE), or remove the key for its default"):
        super().__init__(message)
        self.fix = fix


@dataclass(frozen=True, slots=True)
class Settings:
    """The `agentsfence:` section, each key at its default unless set."""

    # enforce: the fence's blocks and asks are acted on. observe: every call is decided and
    # recorded as under enforce, and none is blocked or asked about; the audit record says what
    # enforce would have done (`"mode": "observe"`). Faults still block: the fence never fails open.
    mode: Mode = "enforce"
    # first: the fence's pre_tool_call is kept first, so its directive is the one Hermes 0.19
    # acts on. strict: also, another plugin's approve becomes a block when the fence would
    # have asked or blocked (for dispatchers that look past the first directive).
    plugin_conflicts: PluginConflicts = "first"
    # When Hermes' gate would approve without a human (yolo, an allowlisted plugin_rule key the
    # fence never saw a human grant, cron with cron_mode approve), block instead of asking.
    strict_yolo: bool = True
    # Calls with no tool_call_id (execute_code's nested calls, plugins' own dispatch): decide
    # them like any other call (their post_tool_call is paired by session, tool and arguments,
    # so a change to their arguments after the decision cannot be seen), or block them all.
    no_tool_call_id: NoToolCallId = "decide"
    # Also ask Hermes' model (ctx.llm) to read each user message for prohibitions and asks the
    # grammar missed; its answer can only narrow (agentsfence/llm.py). Off: the deterministic
    # binding alone decides.
    llm_intent: bool = False
    # Seconds the model may take before the deterministic binding stands alone.
    llm_timeout: float = 10.0
    # auto: a command the fence confines runs in the task's sandbox where one can run here
    # (bubblewrap, the local terminal backend); off: it is asked about instead.
    sandbox: str = "auto"
    # Policy from one place (agentsfence/bundle.py, docs/operators.md): the https:// URL of a
    # signed policy bundle; set, it is the policy of this home (policy.yaml and policy.afb are not
    # read). bundle_keys: the Ed25519 public keys (PEM files, relative to HERMES_HOME, or PEM text)
    # whose signature makes a bundle good; bundle_poll: seconds between polls; bundle_ca: a CA file
    # for the server's certificate (default: the system's).
    bundle_url: str = ""
    bundle_keys: tuple[str, ...] = ()
    bundle_poll: float = 60.0
    bundle_ca: str = ""
    # Audit off the box (agentsfence/shipping.py): each audit record sent as RFC 5424 syslog to
    # tcp://HOST:PORT or tls://HOST:PORT (RFC 6587 octet counting); audit_syslog_ca: the CA file
    # for tls:// (default: the system's).
    audit_syslog: str = ""
    audit_syslog_ca: str = ""
    # Where sessions, grants and budget counts are kept (docs/operators.md): "" for the SQLite
    # file state.db in the state folder, which the processes of this Hermes home share; or a
    # postgresql:// URL, which every gateway of a fleet shares.
    state: str = ""


def load_settings(hermes_home: Path) -> Settings:
    path = hermes_home / "config.yaml"
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Settings()
    except OSError as error:
        raise SettingsError(f"cannot read {path}: {error.strerror or error}", f"make {path} readable") from error
    try:
        section = _section(text)
    except yaml.YAMLError as error:
        raise SettingsError(f"{path} is not valid YAML: {error}", f"correct {path} at the place named (Hermes reads it too)") from error
    if section is None:
        return Settings()
    if not isinstance(section, dict):
        raise SettingsError(f"{path}: `agentsfence` must be a mapping",
                            f"make `agentsfence:` in {path} a mapping of settings, or remove it for the defaults")
    unknown = set(section) - set(Settings.__dataclass_fields__)
    if unknown:
        raise SettingsError(f"{path}: unknown agentsfence keys {sorted(unknown)}",
                            f"remove them from the agentsfence section of {path} (the keys: "
                            f"{', '.join(Settings.__dataclass_fields__)})")
    return Settings(
        mode=_choice(section, "mode", ("enforce", "observe"), "enforce"),
        plugin_conflicts=_choice(section, "plugin_conflicts", ("first", "strict"), "first"),
        strict_yolo=_flag(section, "strict_yolo", True),
        no_tool_call_id=_choice(section, "no_tool_call_id", ("decide", "block"), "decide"),
        llm_intent=_flag(section, "llm_intent", False),
        llm_timeout=_seconds(section, "llm_timeout", 10.0),
        sandbox=_choice(section, "sandbox", ("auto", "off"), "auto"),
        **_fleet(section, hermes_home),
        state=_state(section),
    )


MAX_BUNDLE_POLL = 86400.0


def _fleet(section: dict[str, Any], hermes_home: Path) -> dict[str, Any]:
    """The bundle and shipping keys, checked together: a bundle URL without a key to trust it by
    could never be used, and a policy that cannot be had must not pass for none configured."""
    def text(key: str) -> str:
        value = section.get(key, "")
        if not isinstance(value, str):
            raise SettingsError(f"agentsfence.{key} must be a string, not {value!r}")
        return value

    def file(key: str) -> str:
        value = text(key)
        return str(hermes_home / value) if value else ""

    url, syslog = text("bundle_url"), text("audit_syslog")
    if url and not url.startswith("https://"):
        raise SettingsError(f"agentsfence.bundle_url must be an https:// URL, not {url!r}")
    keys = section.get("bundle_keys", [])
    if isinstance(keys, str):
        keys = [keys]
    if not isinstance(keys, list) or not all(isinstance(key, str) and key for key in keys):
        raise SettingsError(f"agentsfence.bundle_keys must be a list of public keys (PEM files or PEM text), not {keys!r}")
    if url and not keys:
        raise SettingsError("agentsfence.bundle_url needs agentsfence.bundle_keys: the public keys a bundle must be signed by")
    poll = section.get("bundle_poll", 60.0)
    if isinstance(poll, bool) or not isinstance(poll, (int, float)) or not 0 < poll <= MAX_BUNDLE_POLL:
        raise SettingsError(f"agentsfence.bundle_poll must be a number of seconds in (0, {MAX_BUNDLE_POLL:.0f}], not {poll!r}")
    if syslog:
        scheme, _, rest = syslog.partition("://")
        host, _, port = rest.rpartition(":")
        if scheme not in ("tcp", "tls") or not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise SettingsError(f"agentsfence.audit_syslog must be tcp://HOST:PORT or tls://HOST:PORT, not {syslog!r}")
    return {"bundle_url": url, "bundle_poll": float(poll), "bundle_ca": file("bundle_ca"),
            "bundle_keys": tuple(key if key.lstrip().startswith("-----BEGIN") else str(hermes_home / key) for key in keys),
            "audit_syslog": syslog, "audit_syslog_ca": file("audit_syslog_ca")}


def _section(text: str) -> Any:
    """The value of the document's top-level `agentsfence` key (None without one). The whole
    text is parsed, so a syntax error anywhere is an error, but only this value is built into
    Python objects: building all of Hermes' config.yaml took as long as parsing it."""
    loader = _Loader(text)
    try:
        root = loader.get_single_node()
        if not isinstance(root, yaml.MappingNode):
            return None
        loader.flatten_mapping(root)  # `<<` merge keys, as the full load would
        value = None
        for key, node in root.value:  # the last of repeated keys wins, as in the full load
            if isinstance(key, yaml.ScalarNode) and key.tag == "tag:yaml.org,2002:str" and key.value == "agentsfence":
                value = node
        return None if value is None else loader.construct_document(value)
    finally:
        loader.dispose()


def _state(section: dict[str, Any]) -> str:
    value = section.get("state", "")
    if value in ("", None, "sqlite"):
        return ""
    if not isinstance(value, str) or not value.startswith(("postgresql://", "postgres://")):
        raise SettingsError(f"agentsfence.state must be sqlite (the default) or a postgresql:// URL, not {value!r}")
    return value


def _seconds(section: dict[str, Any], key: str, default: float) -> float:
    value = section.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 600:
        raise SettingsError(f"agentsfence.{key} must be a number of seconds in (0, 600], not {value!r}",
                            f"hermes config set agentsfence.{key} {default:g}")
    return float(value)


def _choice(section: dict[str, Any], key: str, choices: tuple[str, ...], default: str) -> Any:
    value = section.get(key, default)
    if value not in choices:
        raise SettingsError(f"agentsfence.{key} must be one of {', '.join(choices)}, not {value!r}",
                            f"hermes config set agentsfence.{key} {default}   (or another of: {', '.join(choices)})")
    return value


def _flag(section: dict[str, Any], key: str, default: bool) -> bool:
    value = section.get(key, default)
    if not isinstance(value, bool):
        raise SettingsError(f"agentsfence.{key} must be true or false, not {value!r}",
                            f"hermes config set agentsfence.{key} {'true' if default else 'false'}")
    return value
