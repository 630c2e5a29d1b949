"""The page tests over plain HTTP: each test's `server` serves its pages."""

from tests.support.live_http import pages_server  # noqa: F401 (the fixture)
