"""bench/peers.py's unary figure takes a Submit's and an echo's windows in turns (procs.load_windows): two
loads alternate window by window, each client set waiting idle while the other's window runs, and both
stop their clients and servers once run out."""

from __future__ import annotations

from contextlib import closing

from bench import echo


def test_two_loads_take_turns_window_by_window_and_stop_when_run_out() -> None:
    first, second = echo.unary_windows(1, 2, 0.2), echo.unary_windows(1, 2, 0.2)
    with closing(first), closing(second):
        windows = [next(source) for _ in range(2) for source in (first, second)]
        assert next(first, None) is None and next(second, None) is None  # run out: clients and servers stopped
    assert len(windows) == 4
    assert all(window.operations > 0 and window.server_cpu > 0 for window in windows)
