"""A PostgreSQL server of the test's own: initdb and postgres in a temporary folder, listening on
127.0.0.1 on a free port, run as a user that is not root (postgres refuses root: as root, the
server runs as `nobody`). scripts/install-state-servers.sh installs Debian's postgresql."""
from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

USER = "agentsfence"  # the database's superuser, trusted on 127.0.0.1 only


def _binaries() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/postgres"), key=lambda p: int(p.split("/")[4]))
    if found:
        return Path(found[-1]).parent
    on_path = shutil.which("postgres")
    if on_path:
        return Path(on_path).resolve().parent
    raise RuntimeError("PostgreSQL is not installed: run scripts/install-state-servers.sh")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PostgresServer:
    def __init__(self, folder: Path):
        self.bin = _binaries()
        self.folder = folder
        self.data = folder / "data"
        self.port = _free_port()
        self.url = f"postgresql://{USER}@127.0.0.1:{self.port}/postgres"
        self._as = ["runuser", "-u", "nobody", "--"] if os.geteuid() == 0 else []
        folder.mkdir(parents=True, exist_ok=True)
        if os.geteuid() == 0:
            os.chown(folder, 65534, 65534)
        self._run(str(self.bin / "initdb"), "-D", str(self.data), "-U", USER, "--auth=trust", "--no-sync", "-E", "UTF8")

    def _run(self, *command: str) -> None:
        done = subprocess.run([*self._as, *command], capture_output=True, text=True, timeout=120, cwd=self.folder)
        if done.returncode != 0:
            raise RuntimeError(f"{command[0]} failed: {done.stdout}{done.stderr}")

    def start(self) -> None:
        options = f"-h 127.0.0.1 -p {self.port} -k {self.folder} -c fsync=off -c max_connections=200"
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-o", options, "-l", str(self.folder / "log"), "-w", "start")
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("postgres did not start listening")

    def stop(self) -> None:
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop")

    def database(self, name: str) -> str:
        """A new empty database's URL: each test its own."""
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
        return f"postgresql://{USER}@127.0.0.1:{self.port}/{name}"
