"""The local credentials file of `matchctl`: the admin, host and player tokens it was given or made.

Default `~/.config/matchctl/credentials.json` (or $MATCHCTL_CREDENTIALS), readable by its owner only.
The server's admin token is also read from the server's `VAR/admin.token` when it is on this machine (VAR:
matchctl's --var, else $MATCHSERVER_VAR as the server reads it, else ./var).
Entries are keyed by server address; the loopback names of one port (`localhost`, `127.0.0.1`, `[::1]`)
are one server, kept under `127.0.0.1:PORT` (a file written under several of them is merged on reading).
It also keeps the receipts of the writes it made (per server and match): `matchctl verify MATCH
--receipts` sends them, and the server proves its log still holds each one unchanged.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

RECEIPTS_KEPT = 50  # per match: the latest prove the most (a receipt binds every record before it)
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1", "[::1]")
ADMIN_TOKEN_FILE = "admin.token"


def server_key(server: str) -> str:
    """The key a server's entries are kept under: one for every loopback name of the same port."""
    host, sep, port = server.rpartition(":")
    if not sep:
        return server
    return f"127.0.0.1:{port}" if host.lower() in LOOPBACK_NAMES else server


def _merge(into: dict[str, Any], other: dict[str, Any]) -> None:
    """Merge one server entry into another, losing no token: tables merge, a value already set stays."""
    for name, value in other.items():
        if name == "receipts" and isinstance(value, list):
            seen = {int(r["version"]): r for r in [*value, *into.get(name, [])]}
            into[name] = [seen[v] for v in sorted(seen)][-RECEIPTS_KEPT:]
        elif isinstance(value, dict) and isinstance(into.get(name), dict):
            _merge(into[name], value)
        else:
            into.setdefault(name, value)


def merged_by_server(data: dict[str, Any]) -> dict[str, Any]:
    """The file's entries with every loopback name of a port under one key."""
    out: dict[str, Any] = {}
    for server in sorted(data, key=lambda name: server_key(name) != name):  # the canonical key's values win
        entry = data[server]
        key = server_key(server)
        if key in out and isinstance(entry, dict):
            _merge(out[key], entry)
        else:
            out[key] = entry
    return out


def admin_token_path(var_dir: str) -> Path:
    """Where a server started with `--var var_dir` keeps its admin token (server/app.py admin_token)."""
    return Path(var_dir) / ADMIN_TOKEN_FILE


def default_path() -> Path:
    configured = os.environ.get("MATCHCTL_CREDENTIALS")
    return Path(configured) if configured else Path.home() / ".config" / "matchctl" / "credentials.json"


class Credentials:
    def __init__(self, path: Path | None = None) -> None:
        self.path = path or default_path()
        self.data: dict[str, Any] = merged_by_server(json.loads(self.path.read_text())) if self.path.exists() else {}

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(json.dumps(self.data, indent=2, sort_keys=True))
        self.path.chmod(0o600)

    def _match(self, server: str, match_id: str) -> dict[str, Any]:
        matches = self.data.setdefault(server_key(server), {}).setdefault("matches", {})
        entry: dict[str, Any] = matches.setdefault(match_id, {"players": {}})
        return entry

    def set_host(self, server: str, match_id: str, token: str) -> None:
        self._match(server, match_id)["host"] = token
        self.save()

    def set_player(self, server: str, match_id: str, player: str, token: str) -> None:
        self._match(server, match_id)["players"][player] = token
        self.save()

    def host(self, server: str, match_id: str) -> str | None:
        token = self._match(server, match_id).get("host")
        return str(token) if token else None

    def player(self, server: str, match_id: str, player: str) -> str | None:
        token = self._match(server, match_id)["players"].get(player)
        return str(token) if token else None

    def players(self, server: str, match_id: str) -> dict[str, str]:
        return dict(self._match(server, match_id)["players"])

    def admin(self, server: str, var_dir: str = "var") -> str | None:
        """The admin token saved for `server`, else the one the server wrote in `var_dir` (its --var)."""
        stored = self.data.get(server_key(server), {}).get("admin")
        if stored:
            return str(stored)
        path = admin_token_path(var_dir)
        try:
            return path.read_text().strip() or None
        except OSError:  # none there, or not ours to read (the server's folder is 0700)
            return None

    def set_admin(self, server: str, token: str) -> None:
        self.data.setdefault(server_key(server), {})["admin"] = token
        self.save()

    def host_key(self, server: str) -> str | None:
        stored = self.data.get(server_key(server), {}).get("host_key")
        return str(stored) if stored else None

    def set_host_key(self, server: str, key: str) -> None:
        self.data.setdefault(server_key(server), {})["host_key"] = key
        self.save()

    def host_credential(self, server: str, var_dir: str = "var") -> str | None:
        """What creates matches and fills seats here: a saved host key, else the admin token."""
        return self.host_key(server) or self.admin(server, var_dir)

    def set_invitation(self, server: str, match_id: str, player: str, code: str) -> None:
        self._match(server, match_id).setdefault("invitations", {})[player] = code
        self.save()

    def add_receipt(self, server: str, match_id: str, version: int, chain_head: str, key_id: str) -> None:
        """Keep the receipt of a write (the latest RECEIPTS_KEPT per match, one per version)."""
        if not chain_head:  # a server of an older release gives none
            return
        entry = self._match(server, match_id)
        kept = [r for r in entry.get("receipts", []) if r["version"] != version]
        kept.append({"version": version, "chain_head": chain_head, "key_id": key_id})
        entry["receipts"] = sorted(kept, key=lambda r: int(r["version"]))[-RECEIPTS_KEPT:]
        self.save()

    def receipts(self, server: str, match_id: str) -> list[dict[str, Any]]:
        return [dict(r) for r in self._match(server, match_id).get("receipts", [])]
