"""Secrets are compared in constant time: no `==` or `!=` on a token, key, invitation or digest in server/."""

from __future__ import annotations

import ast
from pathlib import Path

SERVER = Path(__file__).parents[2] / "server"
SECRET_WORDS = ("token", "secret", "invitation", "digest", "fingerprint", "host_key", "chain_head")


def plain_comparisons_of_secrets(source: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Compare):
            continue
        if not any(isinstance(op, (ast.Eq, ast.NotEq)) for op in node.ops):
            continue
        sides = [node.left, *node.comparators]
        if any(isinstance(side, ast.Constant) for side in sides):
            continue  # a comparison with a literal (a record kind, an empty string) holds no secret
        text = ast.unparse(node)
        if "key_id" in text:
            continue  # host key ids are public (lists, logs, records); their secrets are compared by hash
        if any(word in text.lower() for word in SECRET_WORDS):
            found.append(f"line {node.lineno}: {text}")
    return found


def test_the_check_finds_a_plain_comparison_of_a_token() -> None:
    assert plain_comparisons_of_secrets("ok = token == self.admin_token\n") == ["line 1: token == self.admin_token"]
    assert plain_comparisons_of_secrets("ok = hmac.compare_digest(token, admin)\n") == []


def test_no_module_of_the_server_compares_a_secret_with_equals() -> None:
    found = {
        path.name: hits
        for path in sorted(SERVER.glob("*.py"))
        if (hits := plain_comparisons_of_secrets(path.read_text()))
    }
    assert found == {}
