"""`matchctl --help` names every option's value in words (`--as PLAYER`, `--from VERSION`), not as
argparse makes one from the option's variable (`--as AS_`, `--from FROM_VERSION`)."""

from __future__ import annotations

import argparse
from collections.abc import Iterator

from clients.cli_parser import build_parser


def parsers() -> Iterator[tuple[str, argparse.ArgumentParser]]:
    parser = build_parser()
    yield "matchctl", parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield f"matchctl {name}", sub


def shown_values(parser: argparse.ArgumentParser) -> Iterator[tuple[str, str, str]]:
    """(option, what --help shows for its value, its dest) for every option that takes a value."""
    formatter = parser._get_formatter()
    for action in parser._actions:
        if not action.option_strings or action.nargs == 0:
            continue
        default = action.dest.upper()
        shown = formatter._metavar_formatter(action, default)(1)[0]
        yield action.option_strings[-1], str(shown), action.dest


def test_no_option_value_is_named_after_its_variable() -> None:
    bad = []
    for prog, parser in parsers():
        for option, shown, dest in shown_values(parser):
            if shown.endswith("_") or ("_" in dest and shown == dest.upper()):
                bad.append(f"{prog} {option} {shown}")
    assert bad == []


def test_the_options_a_new_user_meets_first_read_as_words() -> None:
    helps = dict(parsers())
    submit = helps["matchctl submit"].format_help()
    assert "--as PLAYER" in submit and "AS_" not in submit
    watch = helps["matchctl watch"].format_help()
    assert "--from VERSION" in watch and "FROM_VERSION" not in watch
    assert "--as PLAYER" in helps["matchctl verify"].format_help()
