from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import registry
from engine.fixtures import duel
from server.app import Settings
from server.clock import ManualClock
from tests.support.server import ServerThread

registry.register(duel.GAME)


@pytest.fixture(autouse=True)
def _credentials_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """matchctl keeps tokens in a file: never touch the developer's own."""
    monkeypatch.setenv("MATCHCTL_CREDENTIALS", str(tmp_path / "credentials.json"))


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


def make_server(tmp_path: Path, clock: ManualClock | None = None, store: str = "") -> ServerThread:
    settings = Settings(
        address="127.0.0.1:0", var_dir=str(tmp_path / "var"), store=store, clock=clock, tick_interval=0.05
    )
    return ServerThread(settings).start()


@pytest.fixture
def server(tmp_path: Path, clock: ManualClock) -> Iterator[ServerThread]:
    running = make_server(tmp_path, clock)
    yield running
    running.stop()


POSTGRES_ENV = "MATCHSERVER_TEST_POSTGRES"


def postgres_url() -> str:
    """A fresh schema in the test PostgreSQL. In CI it must be there: fail, never skip."""
    dsn = os.environ.get(POSTGRES_ENV, "host=127.0.0.1 port=5432 user=postgres dbname=test")
    try:
        import psycopg

        schema = f"t_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(dsn + " connect_timeout=3", autocommit=True) as conn:
            conn.execute(f"CREATE SCHEMA {schema}")
    except Exception as exc:
        if os.environ.get("CI"):
            pytest.fail(f"PostgreSQL is required in CI and unreachable at {dsn!r}: {exc}")
        pytest.skip(f"no PostgreSQL at {dsn!r}: {exc}")
    return f"postgres:{dsn} schema={schema}"
