"""The wire contract: buf's STANDARD lint accepts protos/, and buf's breaking check (protos/buf.yaml)
refuses every change that would break a v1 client while letting additions through."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from google.protobuf.message import Message

from matchserver.v1 import matchserver_pb2 as pb

ROOT = Path(__file__).resolve().parents[1]
PROTOS = ROOT / "protos"
SERVICE = Path("matchserver") / "v1" / "matchserver.proto"
COOKOFF = Path("matchserver") / "cookoff" / "v1" / "cookoff.proto"
# buf-bin (a dev dependency) installs the binary beside the interpreter running the tests.
BUF = Path(sys.executable).parent / "buf"


def buf(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BUF), *args], cwd=ROOT, capture_output=True, text=True, timeout=300)


def edited_copy(tmp_path: Path, file: Path, edit: Callable[[str], str]) -> Path:
    copy = tmp_path / "protos"
    shutil.copytree(PROTOS, copy)
    before = (copy / file).read_text()
    after = edit(before)
    assert after != before, "the edit must change the file"
    (copy / file).write_text(after)
    return copy


def test_buf_lint_accepts_the_protos_without_a_finding() -> None:
    result = buf("lint", "protos")
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


def test_the_protos_only_add_to_the_commit_named_in_breaking_base() -> None:
    base = (PROTOS / "BREAKING_BASE").read_text().strip()
    assert re.fullmatch(r"[0-9a-f]{40}", base), "BREAKING_BASE holds one full commit hash"
    if not (ROOT / ".git").exists() and not os.environ.get("CI"):
        pytest.skip("not a git checkout: the base commit cannot be read")
    result = buf("breaking", "protos", "--against", f".git#ref={base},subdir=protos")
    assert result.returncode == 0, result.stdout + result.stderr


# Each edit (file, text, replacement) would break a v1 client; buf must name it (finding).
BREAKING_EDITS = {
    "renumbered field": (
        SERVICE,
        "  int64 from_version = 2;",
        "  int64 from_version = 12;",
        'Previously present field "2" with name "from_version"',
    ),
    "renamed field (JSON)": (
        SERVICE,
        "  int64 from_version = 2;",
        "  int64 start_version = 2;",
        'changed name from "from_version" to "start_version"',
    ),
    "changed scalar type": (
        SERVICE,
        "  int64 checked_batches = 2;",
        "  int32 checked_batches = 2;",
        'changed type from "int64" to "int32"',
    ),
    "deleted RPC": (
        SERVICE,
        "  rpc Audit(AuditRequest) returns (AuditResponse);\n",
        "",
        'Previously present RPC "Audit"',
    ),
    "renamed service": (
        SERVICE,
        "service MatchService {",
        "service MatchesService {",
        'Previously present service "MatchService"',
    ),
    "changed response type": (
        SERVICE,
        "returns (ForkResponse);",
        "returns (CreateMatchResponse);",
        'RPC "Fork" on service "MatchService" changed response type',
    ),
    "game command lost a field": (
        COOKOFF,
        "  int32 count = 2;\n",
        "",
        'Previously present field "2" with name "count"',
    ),
}


@pytest.mark.parametrize("name", sorted(BREAKING_EDITS))
def test_buf_breaking_refuses_a_change_that_breaks_v1_clients(tmp_path: Path, name: str) -> None:
    file, text, replacement, finding = BREAKING_EDITS[name]
    copy = edited_copy(tmp_path, file, lambda source: source.replace(text, replacement, 1))
    result = buf("breaking", str(copy), "--against", "protos")
    assert result.returncode != 0
    assert finding in result.stdout, result.stdout + result.stderr


def test_buf_breaking_lets_new_fields_and_rpcs_through(tmp_path: Path) -> None:
    def add(text: str) -> str:
        text = text.replace("  int64 from_version = 2;", "  int64 from_version = 2;\n  string resume_token = 99;", 1)
        text = text.replace(
            "  rpc Audit(AuditRequest) returns (AuditResponse);\n",
            "  rpc Audit(AuditRequest) returns (AuditResponse);\n  rpc Ping(PingRequest) returns (PingResponse);\n",
            1,
        )
        return text + "\nmessage PingRequest {}\n\nmessage PingResponse {}\n"

    copy = edited_copy(tmp_path, SERVICE, add)
    assert buf("lint", str(copy)).returncode == 0
    result = buf("breaking", str(copy), "--against", "protos")
    assert result.returncode == 0, result.stdout + result.stderr


def fields(message: type[Message]) -> set[tuple[str, int, int, str]]:
    return {
        (field.name, field.number, field.type, field.message_type.full_name if field.message_type else "")
        for field in message.DESCRIPTOR.fields
    }


@pytest.mark.parametrize(
    ("response", "split_from"),
    [
        (pb.ForcePhaseEndResponse, pb.SubmitResponse),
        (pb.HostActionResponse, pb.SubmitResponse),
        (pb.RollbackResponse, pb.SubmitResponse),
        (pb.ForkResponse, pb.CreateMatchResponse),
    ],
)
def test_a_response_split_from_a_shared_type_keeps_its_fields_so_old_clients_read_it(
    response: type[Message], split_from: type[Message]
) -> None:
    assert fields(split_from) <= fields(response)
    sample = split_from(version=7)
    assert response.FromString(sample.SerializeToString()).version == 7
