"""The policy in force in a running Hermes: the state folder's policy put in place at start, and
again at a user turn when policy.yaml, a file it extends or policy.afb changed (installed.py),
or when the bundle poller has a new good bundle (bundle.py, for a home set to take its policy
from a bundle URL), sessions kept. A policy that does not compile, or that the evaluator rejects, blocks every call
until it is fixed (`error`). Each start and reload is an audit record (`policy`); a policy whose
hash differs from the one the state folder last saw is one more (`policy_changed`, both hashes).
"""
from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING

from ..errors import FenceError
from ..layout import StateFolder

if TYPE_CHECKING:
    from ..api import Fence
    from ..audit import AuditLog
    from ..bundle import BundleSource
    from ..installed import Installed, PolicyFiles

logger = logging.getLogger("agentsfence")


class PolicyWatch:
    """Where the fence's policy comes from, whether it can be used, and what it replaced."""

    def __init__(self, fence: Fence, audit: AuditLog):
        self.fence = fence
        self.audit = audit
        self.files: PolicyFiles | BundleSource | None = None  # where the policy comes from (watch)
        self.origin = "the shipped default"
        self.error: str | None = None  # why the installed policy cannot be used: every call is blocked
        self.change: tuple[str, str, str] | None = None  # (previous hash, current, "start" | "reload")
        self._digest = ""

    def watch(self, files: PolicyFiles | BundleSource, installed: Installed) -> None:
        """Follows the state folder's policy files, or the bundle URL, from now on (refresh), and
        records the policy this start put in place: a policy that changed since the last start is
        an event of its own, with both hashes. A bundle's poller starts here, off the decision path."""
        from ..bundle import BundleSource

        self.files = files
        self.origin = installed.origin
        self.error = installed.error
        self._digest = installed.digest
        self._record("start")
        if isinstance(files, BundleSource):
            files.start(self.audit.event)

    def _record(self, why: str) -> None:
        """An audit record of the policy in force (`policy`), and when its hash differs from the one
        the state folder last saw (at an earlier start, or before a reload) a `policy_changed`
        record with both. The last hash is kept beside the log (`policy.last`)."""
        last = StateFolder(self.files.state_dir).last_policy if self.files is not None else None
        current = self.fence.policy_hash
        previous = None
        if last is not None:
            try:
                previous = last.read_text().strip() or None
            except OSError:
                previous = None
        details = {"policy": self.fence.policy_name, "policy_hash": current, "origin": self.origin, "why": why}
        try:
            self.audit.event("policy", "", "", **details)
            if previous is not None and previous != current:
                self.audit.event("policy_changed", "", "", policy=self.fence.policy_name, policy_hash=current,
                                 previous_hash=previous, origin=self.origin, why=why)
                self.change = (previous, current, why)
        except Exception as error:
            logger.error("AgentsFence: the policy in force could not be recorded in the audit log: %s", error)
        if last is not None and previous != current:
            try:
                temporary = last.with_name(f"{last.name}.{os.getpid()}.tmp")
                temporary.write_text(current + "\n")
                os.replace(temporary, last)
            except OSError as error:
                logger.warning("AgentsFence: cannot keep the policy's hash in %s: %s", last, error)

    def refresh(self) -> None:
        """At a user turn: when policy.yaml, a file it extends or policy.afb changed, the new policy
        is compiled (or read from the cache) and put in place, sessions kept. One that does not
        compile, or that the evaluator rejects, blocks every call until it is fixed."""
        files = self.files
        if files is None or not files.changed():
            return
        try:
            installed = files.current()
            if installed.error is None and installed.digest != self._digest:
                try:
                    self.fence.install(installed.bytecode)
                except FenceError:
                    if not installed.cached:
                        raise
                    files.forget_cache()
                    installed = files.current()
                    if installed.error is None:
                        self.fence.install(installed.bytecode)
                if installed.error is None:
                    logger.info("AgentsFence: policy %s (%s) from %s is in place", self.fence.policy_name,
                                self.fence.policy_hash[:12], installed.origin)
                    self.origin = installed.origin
                    self._record("reload")
            self.origin = installed.origin
            self.error = installed.error
            if installed.error is None:
                self._digest = installed.digest
            else:
                logger.error("AgentsFence: every tool call is blocked until the policy compiles: %s", installed.error)
        except Exception as error:
            self.error = f"the policy in {files.state_dir} cannot be put in place ({type(error).__name__}: {error})"
            logger.error("AgentsFence: %s", self.error)
