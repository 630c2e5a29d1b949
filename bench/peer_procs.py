"""The servers and client processes of `make bench-peers` (bench/peers.py): ours (`python -m bench.serve`,
SQLite) and the peers (node bench/peers/*_server.js), each client a process speaking JSON lines on stdin and
stdout (bench/peer_client.py for ours, bench/peers/client.js for the peers)."""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.procs import ChildServer, start_server

PEERS_DIR = Path(__file__).resolve().parent / "peers"
# name -> (what the tables call it, the node server's arguments; None: ours)
PEERS: dict[str, tuple[str, Sequence[str] | None]] = {
    "ours": ("ours (SQLite)", None),
    "bgio-memory": ("boardgame.io, memory", ("bgio_server.js", "memory")),
    "bgio-flatfile": ("boardgame.io, FlatFile", ("bgio_server.js", "flatfile")),
    "colyseus": ("Colyseus", ("colyseus_server.js",)),
    "bare": ("grpc.aio, no application", ()),  # bench/bare_server.py: our protocol's floor, our clients
    "bare-durable": ("grpc.aio + SQLite commits, no application", ("--durable",)),  # its durable floor
}
FLOOR = "bare"
DURABLE_FLOOR = "bare-durable"
FLOORS = (FLOOR, DURABLE_FLOOR)


@dataclass
class Served:
    """One running server: its process id, and how its clients reach it."""

    name: str
    pid: int
    url: str  # ours: host:port; a peer: http://host:port
    admin: str = ""  # ours: the admin token its clients create matches with
    child: ChildServer | None = None
    process: subprocess.Popen[bytes] | None = None
    tree: Path | None = None  # ours from another checkout (bench/ab.py): its clients run from it too

    def client(self, role: str, *args: str) -> Client:
        env = None
        if self.name in ("ours", *FLOORS) or self.tree is not None:  # our protocol (ours, the floor, another tree)
            command = [sys.executable, "-m", "bench.peer_client", role, self.url]
            command += [self.admin, *args] if role in ("moves", "submit", "create") else list(args)
            if self.tree is not None:
                env = dict(os.environ, PYTHONPATH=str(self.tree))
        else:
            peer = "colyseus" if self.name == "colyseus" else "bgio"
            command = ["node", str(PEERS_DIR / "client.js"), role, peer, self.url, *args]
        cwd = self.tree or _root()
        return Client(subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=cwd, env=env))

    def stop(self) -> None:
        if self.child is not None:
            self.child.stop()
        if self.process is not None:
            self.process.terminate()
            self.process.wait(30)


def _root() -> Path:
    return PEERS_DIR.parent.parent


def serve(name: str, folder: Path) -> Served:
    """Start the named server with its store (if any) under `folder`, and wait until it listens."""
    _, node = PEERS[name]
    if node is None:
        os.environ["BENCH_SPECTATORS"] = "1"  # bench.serve: 200 watchers from one address
        child = start_server(folder / "ours")
        return Served(name, child.pid, child.address, child.admin_token(), child=child)
    args = [*node, str(folder / name)] if name in ("bgio-flatfile", DURABLE_FLOOR) else list(node)
    command = [sys.executable, "-m", "bench.bare_server", *args] if name in FLOORS else ["node", *args]
    log = folder / f"{name}.log"
    cwd = _root() if name in FLOORS else PEERS_DIR
    with log.open("wb") as out:
        process = subprocess.Popen(command, cwd=cwd, stdout=out, stderr=subprocess.STDOUT)
    give_up = time.monotonic() + 60
    while time.monotonic() < give_up:
        for line in log.read_text(errors="replace").splitlines():
            if line.startswith("listening on "):
                address = line.split()[-1]
                url = address if name in FLOORS else "http://" + address
                return Served(name, process.pid, url, process=process)
        if process.poll() is not None:
            break
        time.sleep(0.05)
    process.kill()
    raise RuntimeError(f"{name} did not start: {log.read_text(errors='replace')[-2000:]}")


class Client:
    """One client process: send it a command, read its answer (a JSON line)."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process

    def send(self, command: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(command).encode() + b"\n")
        self.process.stdin.flush()

    def read(self, timeout: float = 120.0) -> Any:
        assert self.process.stdout is not None
        with selectors.DefaultSelector() as selector:
            selector.register(self.process.stdout, selectors.EVENT_READ)
            if not selector.select(timeout):
                raise TimeoutError(f"a bench client said nothing for {timeout:g} s: {self.process.args!r}")
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"a bench client ended (exit {self.process.wait()}): {self.process.args!r}")
        return json.loads(line)

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)
        if self.process.stdout is not None:
            self.process.stdout.close()


def close_all(clients: Sequence[Client]) -> None:
    for client in clients:
        if client.process.stdin is not None:
            client.process.stdin.close()
    for client in clients:
        client.close()


def ask_all(clients: Sequence[Client], command: dict[str, Any], timeout: float = 120.0) -> list[Any]:
    """Send every client the command at once, then read every answer."""
    for client in clients:
        client.send(command)
    return [client.read(timeout) for client in clients]


def npm_ready() -> bool:
    return (PEERS_DIR / "node_modules" / "boardgame.io").is_dir()
