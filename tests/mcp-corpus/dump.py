#!/usr/bin/env python3
"""Dump the published tool definitions of real MCP servers into tests/mcp-corpus/<server>.json.

This script is how the corpus was made; the tests never run it, and nothing it downloads is
committed (it installs into a scratch directory, by default /tmp/mcp-corpus-work). Only the
resulting JSON files are part of the repository.

For each server in SERVERS it:
  1. installs the pinned package from npm (`npm install --ignore-scripts` into its own prefix)
     or PyPI (`pip install` into its own virtual environment);
  2. starts it over stdio inside a fresh network namespace (`unshare -n`, loopback only), so
     nothing it does at start-up can reach any host, with dummy credentials in the environment;
  3. asks it `initialize` and then `tools/list` (following `nextCursor`), speaking JSON-RPC
     itself (see RawClient for why not through the MCP Python SDK's client);
  4. writes name, title (when published), description, inputSchema and annotations exactly as
     returned, keeping the `label` and `note` of every tool that the existing file already had,
     matched by name. A tool that is new gets `"label": null`, which the format test rejects
     until someone labels it by hand.

A server that could not be started here would have its file read from source instead
("obtained_by": "read from source", see README.md); this script touches only the files of the
servers in SERVERS.

Usage (needs root for unshare, Node 20 and Python 3.11; the standard library suffices):
    python3 tests/mcp-corpus/dump.py [--work DIR] [server ...]
With no server named it dumps all of them.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

# Dummy credentials: enough for the servers to start and list their tools; none is real.
DUMMY = "dummy-token-for-tools-list"
# A Google OAuth client file and a saved token of the shapes the Google servers read at start.
GOOGLE_OAUTH_KEYS = json.dumps(
    {"installed": {"client_id": "0.apps.googleusercontent.com", "client_secret": DUMMY,
                   "redirect_uris": ["http://localhost"], "auth_uri": "http://127.0.0.1:9/auth",
                   "token_uri": "http://127.0.0.1:9/token"}}
)
GOOGLE_TOKEN = json.dumps(
    {"access_token": DUMMY, "refresh_token": DUMMY, "scope": "", "token_type": "Bearer", "expiry_date": 4102444800000}
)

KUBECONFIG = """apiVersion: v1
kind: Config
clusters: [{name: dummy, cluster: {server: "https://127.0.0.1:9"}}]
users: [{name: dummy, user: {token: dummy}}]
contexts: [{name: dummy, context: {cluster: dummy, user: dummy}}]
current-context: dummy
"""

PAYPAL_LAUNCHER = """
import { PayPalAgentToolkit } from '@paypal/agent-toolkit/mcp';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
const every = new Proxy({}, { get: () => new Proxy({}, { get: () => true }) });
const server = new PayPalAgentToolkit({
  accessToken: process.env.PAYPAL_ACCESS_TOKEN,
  configuration: { actions: every, context: { sandbox: true } },
});
await server.connect(new StdioServerTransport());
"""

# name -> how to get and start the server.
#   npm / pypi: the pinned package spec; bin: the executable it installs; args: its argv after that;
#   env: environment it needs to start (dummy values); pip_extra: further pins for the venv;
#   launch: (interpreter, code) to start the server from its own package when its executable
#           cannot start here (the code is run by the venv's python or by node in the prefix);
#   node_options: NODE_OPTIONS for the server; invocation_note: said of the invocation in the file;
#   files: dummy files to write under the server's scratch directory (HOME) before it starts;
#   kind: what kind of server it is (for the corpus file).
SERVERS: dict[str, dict] = {
    "aws-iam": dict(
        kind="cloud",
        pypi="awslabs-iam-mcp-server==1.1.2",
        bin="awslabs.iam-mcp-server",
        env={"AWS_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": "AKIA" + "0" * 16, "AWS_SECRET_ACCESS_KEY": DUMMY},
    ),
    "fetch": dict(
        kind="fetch",
        pypi="mcp-server-fetch==2026.10.24",
        bin="mcp-server-fetch",
    ),
    "git": dict(
        kind="git",
        pypi="mcp-server-git==2026.10.19",
        bin="mcp-server-git",
    ),
    "sqlite": dict(
        kind="database",
        pypi="mcp-server-sqlite==2025.4.25",
        bin="mcp-server-sqlite",
        # It was written against the SDK of its day and fails to start under mcp 2.x.
        pip_extra=["mcp==1.6.0", "pydantic==2.11.3"],
        args=["--db-path", "{scratch}/test.db"],
    ),
    "atlassian": dict(
        kind="issue tracker and wiki",
        pypi="mcp-atlassian==0.23.1",
        bin="mcp-atlassian",
        env={
            "JIRA_URL": "https://dummy.atlassian.net", "JIRA_USERNAME": "dummy@example.com", "JIRA_API_TOKEN": DUMMY,
            "CONFLUENCE_URL": "https://dummy.atlassian.net/wiki", "CONFLUENCE_USERNAME": "dummy@example.com",
            "CONFLUENCE_API_TOKEN": DUMMY,
        },
    ),
    "aws-api": dict(
        kind="cloud",
        pypi="awslabs-aws-api-mcp-server==1.5.6",
        bin="awslabs.aws-api-mcp-server",
        # Its main() refuses to start unless it can download AWS's service reference first;
        # the tools are registered when the module is imported, so start its server object directly.
        launch=("python", "from awslabs.aws_api_mcp_server.server import server; server.run(transport='stdio')"),
        env={"AWS_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": "AKIA" + "0" * 16, "AWS_SECRET_ACCESS_KEY": DUMMY},
    ),
    "github": dict(
        kind="code hosting",
        npm="@modelcontextprotocol/server-github@2025.4.8",
        bin="mcp-server-github",
        env={"GITHUB_PERSONAL_ACCESS_TOKEN": DUMMY},
    ),
    "gitlab": dict(
        kind="code hosting",
        npm="@modelcontextprotocol/server-gitlab@2025.4.25",
        bin="mcp-server-gitlab",
        env={"GITLAB_PERSONAL_ACCESS_TOKEN": DUMMY, "GITLAB_API_URL": "http://127.0.0.1:9/api/v4"},
    ),
    "slack": dict(
        kind="chat",
        npm="@modelcontextprotocol/server-slack@2025.4.25",
        bin="mcp-server-slack",
        env={"SLACK_BOT_TOKEN": "xoxb-" + DUMMY, "SLACK_TEAM_ID": "T00000000"},
    ),
    "filesystem": dict(
        kind="files",
        npm="@modelcontextprotocol/server-filesystem@2026.8.31",
        bin="mcp-server-filesystem",
        args=["{scratch}"],
    ),
    "memory": dict(
        kind="memory",
        npm="@modelcontextprotocol/server-memory@2026.8.31",
        bin="mcp-server-memory",
        env={"MEMORY_FILE_PATH": "{scratch}/memory.jsonl"},
    ),
    "puppeteer": dict(
        kind="browser",
        npm="@modelcontextprotocol/server-puppeteer@2025.5.12",
        bin="mcp-server-puppeteer",
    ),
    "postgres": dict(
        kind="database",
        npm="@modelcontextprotocol/server-postgres@0.6.2",
        bin="mcp-server-postgres",
        args=["postgresql://127.0.0.1:9/postgres"],
    ),
    "playwright": dict(
        kind="browser",
        npm="@playwright/mcp@0.0.83",
        bin="playwright-mcp",
    ),
    "gitlab": dict(
        kind="code hosting",
        npm="@zereight/mcp-gitlab@2.1.64",
        bin="zereight-mcp-gitlab",
        env={"GITLAB_PERSONAL_ACCESS_TOKEN": DUMMY, "GITLAB_API_URL": "http://127.0.0.1:9/api/v4"},
    ),
    "stripe": dict(
        kind="payments",
        # 0.3.x only proxies to Stripe's hosted server; 0.2.5 is the last with local tools.
        npm="@stripe/mcp@0.2.5",
        bin="mcp",
        args=["--tools=all", "--api-key=sk_test_" + DUMMY],
    ),
    "paypal": dict(
        kind="payments",
        # PayPal's own launcher, @paypal/mcp, is not on the registry here; it starts this
        # package's PayPalAgentToolkit over stdio with the actions that --tools names enabled.
        # This does the same with every action enabled, as --tools=all does.
        npm="@paypal/agent-toolkit@1.8.0",
        bin="",
        launch=("node", PAYPAL_LAUNCHER),
        env={"PAYPAL_ACCESS_TOKEN": DUMMY, "PAYPAL_ENVIRONMENT": "SANDBOX"},
    ),
    "linear": dict(
        kind="issue tracker",
        npm="linear-mcp@1.2.0",
        # The package declares no executable; its README starts build/index.js with node.
        bin="node_modules/linear-mcp/build/index.js",
        env={"LINEAR_ACCESS_TOKEN": "lin_api_" + DUMMY},
    ),
    "discord": dict(
        kind="chat",
        npm="mcp-discord@1.3.4",
        bin="mcp-discord",
        env={"DISCORD_TOKEN": DUMMY},
    ),
    "kubernetes": dict(
        kind="cloud",
        npm="mcp-server-kubernetes@4.1.7",
        bin="mcp-server-kubernetes",
        files={".kube/config": KUBECONFIG},
        env={"KUBECONFIG": "{scratch}/.kube/config"},
    ),
    "brave-search": dict(
        kind="web search",
        npm="@brave/brave-search-mcp-server@2.1.4",
        bin="brave-search-mcp-server",
        env={"BRAVE_API_KEY": DUMMY},
    ),
    "notion": dict(
        kind="documents",
        npm="@notionhq/notion-mcp-server@2.5.2",
        bin="notion-mcp-server",
        env={"NOTION_TOKEN": "ntn_" + DUMMY},
    ),
    "sentry": dict(
        kind="issue tracker",
        npm="@sentry/mcp-server@0.39.0",
        bin="sentry-mcp",
        args=["--access-token=" + DUMMY],
    ),
    "supabase": dict(
        kind="database",
        npm="@supabase/mcp-server-supabase@0.13.0",
        bin="mcp-server-supabase",
        # Every feature group but "docs": search_docs builds its description from a schema it
        # downloads at listing time, which cannot be had here.
        args=["--access-token=" + DUMMY, "--features=account,database,debugging,development,functions,branching,storage"],
    ),
    "mongodb": dict(
        kind="database",
        npm="mongodb-mcp-server@3.0.4",
        bin="mongodb-mcp-server",
    ),
    "desktop-commander": dict(
        kind="shell and files",
        npm="@wonderwhy-er/desktop-commander@0.2.52",
        bin="desktop-commander",
        # Its descriptions describe the machine it runs on; inside a container they name the
        # container's mounts. Hide the container marker so they read as on a desktop install.
        node_options="--import=data:text/javascript," + "import fs from 'fs'; const e = fs.existsSync; "
        "fs.existsSync = (p) => p !== '/.dockerenv' && e(p);".replace(" ", "%20"),
        invocation_note="with /.dockerenv hidden from it through NODE_OPTIONS",
    ),
    "airbnb": dict(
        kind="booking",
        npm="@openbnb/mcp-server-airbnb@0.3.0",
        bin="mcp-server-airbnb",
    ),
    "gmail": dict(
        kind="mail",
        npm="@gongrzhe/server-gmail-autoauth-mcp@1.1.11",
        bin="gmail-mcp",
        files={".gmail-mcp/gcp-oauth.keys.json": GOOGLE_OAUTH_KEYS, ".gmail-mcp/credentials.json": GOOGLE_TOKEN},
    ),
    "google-calendar": dict(
        kind="calendar",
        npm="@cocal/google-calendar-mcp@2.6.3",
        bin="google-calendar-mcp",
        files={"gcp-oauth.keys.json": GOOGLE_OAUTH_KEYS, ".config/google-calendar-mcp/tokens.json": GOOGLE_TOKEN},
        env={"GOOGLE_OAUTH_CREDENTIALS": "{scratch}/gcp-oauth.keys.json"},
    ),
    "cloudflare": dict(
        kind="cloud",
        npm="@cloudflare/mcp-server-cloudflare@0.2.0",
        bin="mcp-server-cloudflare",
        args=["run", "0123456789abcdef0123456789abcdef"],
        env={"CLOUDFLARE_API_TOKEN": DUMMY, "CLOUDFLARE_ACCOUNT_ID": "0123456789abcdef0123456789abcdef"},
    ),
    "gdrive": dict(
        kind="documents",
        npm="@modelcontextprotocol/server-gdrive@2025.1.14",
        bin="mcp-server-gdrive",
        files={"gcp-oauth.keys.json": GOOGLE_OAUTH_KEYS, ".gdrive-server-credentials.json": GOOGLE_TOKEN},
        env={"GDRIVE_OAUTH_PATH": "{scratch}/gcp-oauth.keys.json", "GDRIVE_CREDENTIALS_PATH": "{scratch}/.gdrive-server-credentials.json"},
    ),
}


def run(cmd: list[str], **kw) -> None:
    print("+", " ".join(cmd), file=sys.stderr)
    subprocess.run(cmd, check=True, **kw)


def install(name: str, spec: dict, work: Path) -> list[str]:
    """Install the server's package into work/<name> and return the argv that starts it."""
    prefix = work / name
    prefix.mkdir(parents=True, exist_ok=True)
    scratch = work / name / "scratch"
    scratch.mkdir(exist_ok=True)
    for rel, content in spec.get("files", {}).items():
        f = scratch / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(content)
    if "npm" in spec:
        if not (prefix / "package.json").exists():
            (prefix / "package.json").write_text('{"private": true}\n')
        if not (prefix / "node_modules" / spec["npm"].rsplit("@", 1)[0]).exists():
            run(["npm", "install", "--no-audit", "--no-fund", "--ignore-scripts", spec["npm"]], cwd=prefix)
        if spec["bin"].endswith(".js"):
            exe = ["node", str(prefix / spec["bin"])]
        else:
            exe = [str(prefix / "node_modules" / ".bin" / spec["bin"])]
    else:
        venv = prefix / "venv"
        if not (venv / "bin" / spec["bin"]).exists():
            run([sys.executable, "-m", "venv", str(venv)])
            run([str(venv / "bin" / "pip"), "install", "-q", spec["pypi"], *spec.get("pip_extra", [])])
        exe = [str(venv / "bin" / spec["bin"])]
    if "launch" in spec:
        interp, code = spec["launch"]
        if interp == "python":
            return [str(prefix / "venv" / "bin" / "python"), "-c", code]
        return ["node", "--input-type=module", "-e", code]
    return [*exe, *(a.format(scratch=scratch) for a in spec.get("args", []))]


def package_of(spec: dict) -> str:
    if "npm" in spec:
        return spec["npm"]
    return spec["pypi"].replace("==", "@")


PROTOCOL_VERSION = "2025-06-18"


class RawClient:
    """A minimal MCP client over stdio: JSON-RPC lines in, JSON-RPC lines out.

    The Python SDK's client validates and rewrites results (it refuses a listing in which one
    inputSchema lacks "type", and may drop tools); the corpus must keep what the server sent, so
    the results are taken from the JSON lines themselves.
    """

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.next_id = 0

    async def send(self, msg: dict) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write((json.dumps(msg) + "\n").encode())
        await self.proc.stdin.drain()

    async def request(self, method: str, params: dict | None = None) -> dict:
        self.next_id += 1
        rid = self.next_id
        msg = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            msg["params"] = params
        await self.send(msg)
        assert self.proc.stdout is not None
        while True:
            line = await self.proc.stdout.readline()
            if not line:
                raise RuntimeError(f"server closed its output before answering {method}")
            try:
                m = json.loads(line)
            except json.JSONDecodeError:
                print("(non-JSON line from server)", line[:200], file=sys.stderr)
                continue
            if not isinstance(m, dict):
                continue
            if "method" in m:  # a request or notification from the server
                if "id" in m:
                    await self.send({"jsonrpc": "2.0", "id": m["id"], "error": {"code": -32601, "message": "not supported"}})
                continue
            if m.get("id") != rid:
                continue
            if "error" in m:
                raise RuntimeError(f"{method}: {m['error']}")
            return m["result"]


async def list_tools(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[dict, list[dict]]:
    # A fresh network namespace: loopback only (brought up), no route to anywhere else.
    wrapped = ["unshare", "-n", "sh", "-c", 'ip link set lo up 2>/dev/null; exec "$@"', "sh", *argv]
    proc = await asyncio.create_subprocess_exec(
        *wrapped, env=env, cwd=cwd, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, limit=64 * 1024 * 1024
    )
    try:
        c = RawClient(proc)
        init = await c.request(
            "initialize",
            {"protocolVersion": PROTOCOL_VERSION, "capabilities": {}, "clientInfo": {"name": "mcp-corpus-dump", "version": "1"}},
        )
        await c.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        si = init.get("serverInfo") or {}
        info = {k: si[k] for k in ("name", "title", "version") if k in si}
        info["protocolVersion"] = init.get("protocolVersion")
        tools: list[dict] = []
        cursor = None
        while True:
            res = await c.request("tools/list", {"cursor": cursor} if cursor else {})
            for d in res["tools"]:
                tool = {"name": d["name"]}
                if "title" in d:
                    tool["title"] = d["title"]
                tool["description"] = d.get("description")
                tool["inputSchema"] = d.get("inputSchema")
                tool["annotations"] = d.get("annotations")
                tools.append(tool)
            cursor = res.get("nextCursor")
            if not cursor:
                break
        return info, tools
    finally:
        if proc.returncode is None:
            proc.kill()
        await proc.wait()


def merge(name: str, spec: dict, info: dict, tools: list[dict]) -> dict:
    path = HERE / f"{name}.json"
    old = json.loads(path.read_text()) if path.exists() else {}
    labels = {t["name"]: t for t in old.get("tools", [])}
    out_tools = []
    for t in tools:
        prev = labels.get(t["name"], {})
        t["label"] = prev.get("label")
        if prev.get("note"):
            t["note"] = prev["note"]
        out_tools.append(t)
    dropped = sorted(set(labels) - {t["name"] for t in tools})
    if dropped:
        print(f"{name}: tools no longer listed: {dropped}", file=sys.stderr)
    if "launch" in spec:
        flag = "-c" if spec["launch"][0] == "python" else "--input-type=module -e"
        invocation = f"{spec['launch'][0]} {flag} {json.dumps(spec['launch'][1].strip())}"
    else:
        exe = ("node " + spec["bin"]) if spec["bin"].endswith(".js") else spec["bin"]
        invocation = " ".join([exe, *spec.get("args", [])]).replace("{scratch}", "DIR")
    if "invocation_note" in spec:
        invocation += f" ({spec['invocation_note']})"
    envnames = sorted(spec.get("env", {}))
    return {
        "server": name,
        "kind": spec["kind"],
        "source": {"package": package_of(spec)},
        "obtained_by": "tools/list of the running server",
        "server_info": info,
        "invocation": invocation + (f" (environment: {', '.join(envnames)} set to dummy values)" if envnames else ""),
        "tools": out_tools,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", type=Path, default=Path("/tmp/mcp-corpus-work"))
    ap.add_argument("servers", nargs="*")
    a = ap.parse_args()
    names = a.servers or list(SERVERS)
    failed = []
    for name in names:
        spec = SERVERS[name]
        try:
            argv = install(name, spec, a.work)
            scratch = str(a.work / name / "scratch")
            env = {
                "PATH": os.environ["PATH"],
                "HOME": scratch,
                **{k: v.format(scratch=scratch) for k, v in spec.get("env", {}).items()},
            }
            if "node_options" in spec:
                env["NODE_OPTIONS"] = spec["node_options"]
            info, tools = asyncio.run(asyncio.wait_for(list_tools(argv, env, a.work / name), 120))
        except Exception as e:  # noqa: BLE001 - report and go on with the next server
            print(f"{name}: FAILED: {e!r}", file=sys.stderr)
            failed.append(name)
            continue
        doc = merge(name, spec, info, tools)
        (HERE / f"{name}.json").write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
        print(f"{name}: {len(tools)} tools", file=sys.stderr)
    if failed:
        print("failed:", " ".join(failed), file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
