"""A program for `python -c` that sends itself SIGINT inside the making of a gRPC stream's call object,
before the call has its state: the window where a real Ctrl-C, now and then, left a half-made call that
printed a traceback as it was collected (it failed the example bots' test in CI once). Here it is hit
every time."""

from __future__ import annotations

PATCH = """
import os, signal, sys
import grpc._channel as channel
made = channel._MultiThreadedRendezvous.__init__
def interrupted_while_made(self, *args, **kwargs):
    os.kill(os.getpid(), signal.SIGINT)  # Python raises KeyboardInterrupt here, before `made` runs
    made(self, *args, **kwargs)
channel._MultiThreadedRendezvous.__init__ = interrupted_while_made
"""


def interrupted_inside_a_call(then: str) -> str:
    """The program: the patch, then `then` (Python source that runs what is tested, from sys.argv)."""
    return PATCH + then
