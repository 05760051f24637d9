"""Recipient strings read by the fence and by Python's own mail stack (the oracle).

Hermes' e-mail adapter puts a send_message target's `email:` list in a To header of a
compat32 message and hands it to smtplib's send_message, which delivers to each address
email.utils.getaddresses finds in it; a message of policy.default delivers to those of its
header's parsed and re-written value; smtplib's sendmail, given the string, sends one RCPT TO
for what smtplib.quoteaddr makes of it. Every address any of them reaches must be an EMAIL
target of the call, or the value must be OPAQUE (never allowed): the fence may read more, never
less.
"""
from __future__ import annotations

import random
import re
import smtplib
from email import policy
from email.message import EmailMessage
from email.utils import getaddresses, parseaddr

import pytest

from agentsfence.api import Fence

SPECIALS = set('()<>[]:;@\\,."')


def ascii_lower(s: str) -> str:
    return "".join(chr(ord(c) | 0x20) if "A" <= c <= "Z" else c for c in s)


def dot_atom(s: str) -> bool:
    if not s or s[0] == "." or s[-1] == "." or ".." in s:
        return False
    return all(not (ord(c) <= 0x20 or c == "\x7f" or (c in SPECIALS and c != ".")) for c in s)


def canon(addr: str) -> str:
    """The fence's normal form of an address (bytecode.md §6): quotes dropped from the local part,
    put back when what is left is no dot-atom; ASCII lower-cased; no trailing dot on the domain."""
    addr = addr.strip()
    local, sep, domain = addr, "", ""
    quoted, i = False, 0
    while i < len(addr):  # the last '@' outside quotes
        if addr[i] == "\\":
            i += 1
        elif addr[i] == '"':
            quoted = not quoted
        elif addr[i] == "@" and not quoted:
            local, sep, domain = addr[:i], "@", addr[i + 1:]
        i += 1
    quoted, out, i = False, [], 0
    while i < len(local):
        c = local[i]
        if c == '"':
            quoted = not quoted
        elif c == "\\" and quoted and i + 1 < len(local):
            i += 1
            out.append(local[i])
        elif not c.isspace() or quoted:
            out.append(c)
        i += 1
    content = "".join(out)
    if not dot_atom(content):
        content = '"' + content.replace("\\", "\\\\").replace('"', '\\"') + '"'
    domain = domain.rstrip(".")
    return ascii_lower(content + sep + domain)


def delivered(value: str) -> set[str]:
    """Every address Python's mail stack would send `value`'s message to."""
    found = {a for _, a in getaddresses([value])}
    try:
        message = EmailMessage(policy=policy.default)
        message["To"] = value
        header = message["To"]
        found |= {a for _, a in getaddresses([str(header)])}
        found |= {a.addr_spec for a in header.addresses}
    except Exception:  # policy.default refuses a value with a line break: compat32 still sends it
        pass
    # sendmail's RCPT TO: the first address parseaddr reads, or the string as given when it reads
    # none, which a server can take for no more than one of the addresses written in it.
    # quoteaddr wraps in <> what it read; a string it cannot read (Python 3.14's stricter
    # parseaddr reads none in a list) that starts with "<" goes as given.
    unread = parseaddr(value) == ("", "")
    quoted = smtplib.quoteaddr(value)
    rcpt = quoted if unread and value.strip().startswith("<") else quoted[1:-1]
    found |= set(re.findall(r'[^\s<>,;:"()\[\]]+@[^\s<>,;:"()\[\]]+', rcpt)) if unread else {rcpt}
    return {a for a in found if a.strip() and a.strip() != "<>"}


def covered(address: str, emails: set[str]) -> bool:
    c = canon(address)
    if c in emails:
        return True
    local, _, domain = c.rpartition("@")
    # No local part ('@example.com'): a route or a stray '@', no mailbox; its domain is read.
    return "@" in c and local in ("", '""') and any(e.endswith("@" + domain) for e in emails)


HAND = [
    "bob@example.com",
    "<bob@example.com>eve@attacker.example",
    '"Bob, Sales" <bob@x.example>',
    "team: a@x.example, b@y.example;",
    "team: a@x.example, b@y.example",
    "a@x.example (comment, c@z.example)",
    "a@x.example (nested (c@z.example) eve@q.example)",
    '"a@b"@x.example',
    '"a b"@x.example',
    '"bob"@example.com',
    '"a\\"b"@x.example',
    "a@x.example; b@y.example",
    "a@x.example;b@y.example,,c@z.example",
    "bob@x.example <eve@y.example>",
    "alice@x.example eve@y.example",
    "<a@x.example> <b@y.example>",
    "a@x.example\nb@y.example",
    "a@x.example\r\n b@y.example",
    "@route:a@x.example",
    "<@r.example:a@x.example>",
    "a@[10.0.0.1]",
    "a b@x.example",
    "Bob Smith <bob@x.example>, <eve@y.example>",
    "Bob A. Smith <bob@x.example>",
    "=?utf-8?q?eve=40y.example?=",
    "=?utf-8?q?Bob?= <bob@x.example>",
    '"eve@y.example"',
    "eve",
    "bob.smith",
    "a . b @ x . example",
    "a@x.example.",
    "BOB@EXAMPLE.COM",
    "Bob <bob@x.example> (x) <eve@y.example>",
    "bob@x.example, @alice",
    "<bob@x.example",
    '"unterminated <eve@y.example>',
    "(unclosed eve@y.example",
    "a@b@c.example",
    "<>",
    "a@",
    "@x.example",
    "undisclosed-recipients:;",
    "Bob <bob@x.example>; team: c@z.example;, d@w.example",
    "bob@x.example>eve@y.example",
    "\\<eve@y.example>",
    "a@x.example) eve@y.example",
    "ü@bücher.example",
    "mailto:bob@x.example",
]

NAMES = ["Bob", '"Bob, Sales"', "Bob Smith", '"Eve (x)"', "Ana M. Ruiz", '"\\"q\\""', "=?utf-8?q?Z?="]
LOCALS = ["bob", "a.b", '"a b"', '"x@y"', "Eve", '"e\\"v"', "x+tag", "ü"]
DOMAINS = ["example.com", "x.example", "Sub.Y.example", "[10.0.0.1]", "q.example."]
JUNK = list("<>,;:@\"()[]\\.") + [" ", "\n", "\t", "=?", "(c)", " (d@z.example) "]


def mailbox(rng: random.Random) -> str:
    addr = f"{rng.choice(LOCALS)}@{rng.choice(DOMAINS)}"
    shape = rng.randrange(4)
    if shape == 0:
        return addr
    if shape == 1:
        return f"<{addr}>"
    if shape == 2:
        return f"{rng.choice(NAMES)} <{addr}>"
    return f"{addr} ({rng.choice(NAMES)})"


def generated(n: int, seed: int = 22) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        items = [mailbox(rng) for _ in range(rng.randint(1, 4))]
        if rng.random() < 0.25:
            k = rng.randint(1, len(items))
            items[:k] = [f"team: {', '.join(items[:k])};"]
        value = ""
        for i, item in enumerate(items):
            value += item if i == 0 else rng.choice([", ", ",", "; ", " ;", ",\n ", " ", ""]) + item
        for _ in range(rng.choice([0, 0, 1, 2])):  # a mutation: a special, a space, a comment spliced in
            at = rng.randrange(len(value) + 1)
            value = value[:at] + rng.choice(JUNK) + value[at:]
        out.append(value)
    return out


CASES = HAND + generated(2500)


@pytest.fixture(scope="module")
def session():
    s = Fence().session("recipients")
    s.intent("Email bob@example.com the notes")
    return s


def fence_reads(session, tool: str, args: dict) -> tuple[set[str], bool]:
    d = session.decide(tool, args)
    emails = {v for k, v in d.targets if k == "email"}
    return emails, any(k == "opaque" for k, _ in d.targets)


def test_every_delivered_address_is_a_target(session):
    misses = []
    for value in CASES:
        want = delivered(value)
        for tool, args in (
            ("mcp_mail_send_email", {"to": value, "body": "hi"}),
            ("send_message", {"action": "send", "target": "email:" + value, "message": "hi"}),
        ):
            emails, opaque = fence_reads(session, tool, args)
            if opaque:
                continue
            lost = sorted(a for a in want if not covered(a, emails))
            if lost:
                misses.append((tool, value, lost, sorted(emails)))
    assert not misses, "\n".join(map(repr, misses[:40])) + f"\n{len(misses)} of {2 * len(CASES)} calls"


def test_well_formed_lists_are_read_not_opaque(session):
    """The forms mail clients write are read, not asked about as opaque."""
    for value in ['"Bob, Sales" <bob@x.example>', "team: a@x.example, b@y.example;", "a@x.example (c@z.example)",
                  '"bob"@x.example', "a@x.example; b@y.example", "Bob A. Smith <bob@x.example>"]:
        emails, opaque = fence_reads(session, "mcp_mail_send_email", {"to": value})
        assert not opaque and emails >= {canon(a) for a in delivered(value)}, value


def test_ids_of_messages_are_no_recipients(session):
    """A Message-ID names a message, not a mailbox: not read where the argument's name says so."""
    for key in ["message_id", "thread_id", "in_reply_to", "references", "reply_to_message_id", "inReplyTo"]:
        emails, _ = fence_reads(session, "mcp_mail_send_email",
                                {"to": "bob@example.com", key: "<CAF123@mail.gmail.com>"})
        assert emails == {"bob@example.com"}, key
    emails, _ = fence_reads(session, "mcp_mail_send_email",
                            {"to": "bob@example.com", "headers": {"In-Reply-To": "<CAF1@mail.gmail.com>",
                                                                  "Reply-To": "<bob@example.com>eve@y.example"}})
    assert emails >= {"bob@example.com", "eve@y.example"} and not any("caf1" in e for e in emails)
