"""The chain key: the secret under which match records are chained (HMAC-SHA256, server/records.py).

SQLite (one process): created on first start as VAR/chain.key, readable by its owner only.
PostgreSQL (several processes): every node must be given the same file with --chain-key-file, so the
server refuses to start without one (each node making its own key would split the chain).
The key id, recorded in every keyed record and receipt, is a short digest of the key: it names the
key without revealing it.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
from pathlib import Path

from server.errors import StartupRefused
from server.records import ChainKey

log = logging.getLogger(__name__)

FILE_NAME = "chain.key"
MIN_LENGTH = 32  # characters of key text: 32 hex digits are 128 bits
CREATE_HINT = "create one with `openssl rand -hex 32 > FILE; chmod 600 FILE`"


def key_id(secret: bytes) -> str:
    return "k1-" + hashlib.sha256(b"matchserver chain key id\n" + secret).hexdigest()[:16]


def read_key(path: Path) -> ChainKey:
    """The key in `path` (its text, stripped); refuses a missing, unreadable or short key file."""
    try:
        text = path.read_text().strip()
    except OSError as exc:
        raise StartupRefused(f"chain key file {path} cannot be read ({exc.strerror}); {CREATE_HINT}") from None
    except UnicodeDecodeError:
        raise StartupRefused(f"chain key file {path} is not text; {CREATE_HINT}") from None
    if len(text) < MIN_LENGTH:
        raise StartupRefused(
            f"chain key file {path} holds {len(text)} characters, fewer than {MIN_LENGTH}; {CREATE_HINT}"
        )
    if path.stat().st_mode & 0o077:
        log.warning("chain key file %s is readable by others than its owner: chmod 600 it", path)
    secret = text.encode()
    return ChainKey(secret, key_id(secret))


def load_or_create(var_dir: str) -> ChainKey:
    """VAR/chain.key, created (0600) on first start. An existing but empty file is refused, not replaced:
    a new key would make every keyed record unverifiable."""
    path = Path(var_dir) / FILE_NAME
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("x") as out:  # never overwrite a key another start just made
            path.chmod(0o600)
            out.write(secrets.token_hex(32) + "\n")
    return read_key(path)


def for_store(store_url: str, var_dir: str, key_file: str = "") -> ChainKey:
    """The key a server uses: the file it was given, else (not on PostgreSQL) the one under var/."""
    if key_file:
        return read_key(Path(key_file))
    if store_url.startswith("postgres:"):
        raise StartupRefused(
            "a PostgreSQL store needs --chain-key-file: every node must be given the same key file; " + CREATE_HINT
        )
    return load_or_create(var_dir)
