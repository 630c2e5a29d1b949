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


def renumber_a_field(text: str) -> str:
    return text.replace("  int64 from_version = 2;", "  int64 from_version = 12;", 1)


def rename_a_field(text: str) -> str:
    return text.replace("  int64 from_version = 2;", "  int64 start_version = 2;", 1)


def change_a_field_type(text: str) -> str:
    return text.replace("  int64 checked_batches = 2;", "  int32 checked_batches = 2;", 1)


def delete_an_rpc(text: str) -> str:
    return text.replace("  rpc Audit(AuditRequest) returns (AuditResponse);\n", "", 1)


def rename_the_service(text: str) -> str:
    return text.replace("service MatchService {", "service MatchesService {", 1)


def change_a_response_type(text: str) -> str:
    return text.replace("returns (ForkResponse);", "returns (CreateMatchResponse);", 1)


@pytest.mark.parametrize(
    ("edit", "finding"),
    [
        (renumber_a_field, 'Previously present field "2" with name "from_version"'),
        (rename_a_field, 'changed name from "from_version" to "start_version"'),
        (change_a_field_type, 'changed type from "int64" to "int32"'),
        (delete_an_rpc, 'Previously present RPC "Audit"'),
        (rename_the_service, 'Previously present service "MatchService"'),
        (change_a_response_type, 'RPC "Fork" on service "MatchService" changed response type'),
    ],
)
def test_buf_breaking_refuses_a_change_that_breaks_v1_clients(
    tmp_path: Path, edit: Callable[[str], str], finding: str
) -> None:
    copy = edited_copy(tmp_path, SERVICE, edit)
    result = buf("breaking", str(copy), "--against", "protos")
    assert result.returncode != 0
    assert finding in result.stdout, result.stdout + result.stderr


def test_buf_breaking_refuses_a_game_command_losing_a_field(tmp_path: Path) -> None:
    copy = edited_copy(tmp_path, COOKOFF, lambda text: text.replace("  int32 count = 2;\n", "", 1))
    result = buf("breaking", str(copy), "--against", "protos")
    assert result.returncode != 0
    assert 'Previously present field "2" with name "count"' in result.stdout, result.stdout + result.stderr


def test_buf_breaking_lets_new_fields_and_rpcs_through(tmp_path: Path) -> None:
    def add(text: str) -> str:
        text = text.replace("  int64 from_version = 2;", "  int64 from_version = 2;\n  string resume_token = 3;", 1)
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
