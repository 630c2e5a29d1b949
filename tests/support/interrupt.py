"""Programs for `python -c` that send themselves SIGINT where a real Ctrl-C lands only now and then, so
that the example bots' tests hit those windows every time:

- inside the making of a gRPC stream's call object, before the call has its state: a half-made call then
  printed a traceback as it was collected (it failed the example bots' test in CI once);
- while a stream waits for its next message, just after the wait has let go of the call's lock and before it
  takes it back: the KeyboardInterrupt then leaves gRPC's `with` block, whose exit releases a lock it no
  longer holds, and what reaches the bot is a RuntimeError ("cannot release un-acquired lock"), not a
  KeyboardInterrupt (it failed a fresh clone's run on 2026-12-07)."""

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


# Only a stream's wait for its next message (grpc._channel's _next): the bot has connected and subscribed.
PATCH_WAITING = """
import os, signal, sys, time
import grpc._common as common
real_wait = common.wait
def interrupted_while_waiting(wait_fn, wait_complete_fn, *args, **kwargs):
    if sys._getframe(1).f_code.co_name == "_next" and not wait_complete_fn():
        wait_fn.__self__._release_save()  # the condition's wait has let go of its lock...
        os.kill(os.getpid(), signal.SIGINT)  # ...and Ctrl-C lands before it takes it back
        time.sleep(60)
    return real_wait(wait_fn, wait_complete_fn, *args, **kwargs)
common.wait = interrupted_while_waiting
"""


def interrupted_inside_a_call(then: str) -> str:
    """The program: the patch, then `then` (Python source that runs what is tested, from sys.argv)."""
    return PATCH + then


def interrupted_while_waiting(then: str) -> str:
    """The program: the waiting patch, then `then`."""
    return PATCH_WAITING + then
