"""`make dist`: a wheel of the generated stubs and the client library, depending only on grpcio and
protobuf, that a bot author installs without the repository and plays with."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from server.clock import ManualClock
from tests.conftest import make_server
from tests.kit.seats import example_bot, play_with_example_bots

ROOT = Path(__file__).resolve().parents[2]


def test_the_client_wheel_pins_the_runtimes_its_stubs_were_generated_for() -> None:
    deps = tomllib.loads((ROOT / "clients" / "pyproject.toml").read_text())["project"]["dependencies"]
    grpc_generated = re.search(
        r"GRPC_GENERATED_VERSION = '([\d.]+)'", (ROOT / "matchserver/v1/matchserver_pb2_grpc.py").read_text()
    )
    gencode = re.search(
        r"Domain.PUBLIC,\s*(\d+),\s*(\d+),\s*(\d+),", (ROOT / "matchserver/v1/matchserver_pb2.py").read_text()
    )
    assert grpc_generated and gencode
    major = gencode[1]
    assert deps == [f"grpcio>={grpc_generated[1]},<2", f"protobuf>={'.'.join(gencode.groups())},<{int(major) + 1}"]


@pytest.mark.slow
def test_make_dist_builds_a_wheel_that_plays_from_outside_the_repository(tmp_path: Path) -> None:
    dist, stage = tmp_path / "dist", tmp_path / "stage"
    subprocess.run(
        ["make", "--no-print-directory", "dist", f"DIST={dist}", f"DIST_STAGE={stage}"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        timeout=300,
    )
    (wheel,) = dist.glob("matchserver_client-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        metadata = next(archive.read(n).decode() for n in names if n.endswith(".dist-info/METADATA"))
    assert {
        "clients/client.py",
        "clients/botloop.py",
        "matchserver/v1/matchserver_pb2.py",
        "matchserver/v1/arena_pb2_grpc.py",
        "matchserver/v1/matchserver_pb2_grpc.pyi",
        "matchserver/mining/v1/mining_pb2.py",
    } <= names
    assert {n.split("/")[0] for n in names} == {"clients", "matchserver", wheel.name.split("-")[0] + "-0.1.0.dist-info"}
    shipped = ("clients/__init__.py", "clients/client.py", "clients/botloop.py")
    assert not any(n.startswith("clients/") and n not in shipped for n in names)
    requires = sorted(
        re.split(r"[<>=]", line.split(": ", 1)[1])[0]
        for line in metadata.splitlines()
        if line.startswith("Requires-Dist")
    )
    assert requires == ["grpcio", "protobuf"]

    site, outside = tmp_path / "site", tmp_path / "bot"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site), str(wheel)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    outside.mkdir()
    bot = Path(shutil.copy(example_bot("cookoff"), outside))
    env = {**{k: v for k, v in os.environ.items() if k != "PYTHONPATH"}, "PYTHONPATH": str(site)}
    where = subprocess.run(
        [
            sys.executable,
            "-c",
            "import clients.client, matchserver.v1.matchserver_pb2 as pb; print(clients.client.__file__, pb.__file__)",
        ],
        cwd=outside,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert all(path.startswith(str(site)) for path in where.stdout.split()), where.stdout

    server = make_server(tmp_path, ManualClock())
    try:
        played = play_with_example_bots(server, "cookoff", seed=5, bot=bot, cwd=outside, pythonpath=str(site))
        check = (
            "import sys; from clients.client import MatchClient; "
            "print(MatchClient(sys.argv[1]).state(sys.argv[2]).status.finished)"
        )
        finished = subprocess.run(
            [sys.executable, "-c", check, server.address, played.match_id],
            cwd=outside,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
    finally:
        server.stop()
    assert finished.stdout.strip() == "True"
    assert all(out.rstrip().endswith("the match is over") for out in played.outputs.values())
