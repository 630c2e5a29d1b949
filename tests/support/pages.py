"""A person's side of the pages over plain HTTP: one cookie jar per person, the Origin a browser sends
with every POST, and the form token read off the page, as a browser would carry them."""

from __future__ import annotations

import http.client
import json
import re
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import urlencode, urlsplit

from tests.support.live_http import port
from tests.support.server import ServerThread


@dataclass
class Answer:
    status: int
    body: str
    headers: dict[str, str]
    cookies: list[str]

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Person:
    server: ServerThread
    cookies: dict[str, tuple[str, str]] = field(default_factory=dict)  # name -> (value, path)
    origin: str = ""  # "" is this server's own origin

    def _origin(self) -> str:
        return self.origin or f"http://127.0.0.1:{port(self.server)}"

    def _cookie_header(self, path: str) -> str:
        return "; ".join(f"{n}={v}" for n, (v, p) in self.cookies.items() if path.startswith(p))

    def request(
        self, method: str, path: str, body: bytes | None = None, headers: dict[str, str] | None = None
    ) -> Answer:
        connection = http.client.HTTPConnection("127.0.0.1", port(self.server), timeout=30)
        sent = dict(headers or {})
        jar = self._cookie_header(urlsplit(path).path)
        if jar:
            sent["Cookie"] = jar
        if method == "POST" and "Origin" not in sent and self.origin != "none":
            sent["Origin"] = self._origin()
        connection.request(method, path, body=body, headers=sent)
        response = connection.getresponse()
        text = response.read().decode()
        set_cookies = response.headers.get_all("Set-Cookie") or []
        connection.close()
        for raw in set_cookies:
            parsed = SimpleCookie(raw)
            for name, morsel in parsed.items():
                if morsel["max-age"] == "0" or not morsel.value:
                    self.cookies.pop(name, None)
                else:
                    self.cookies[name] = (morsel.value, morsel["path"] or "/")
        return Answer(response.status, text, dict(response.getheaders()), list(set_cookies))

    def get(self, path: str) -> Answer:
        return self.request("GET", path)

    def post_form(self, path: str, fields: dict[str, str]) -> Answer:
        body = urlencode(fields).encode()
        return self.request("POST", path, body, {"Content-Type": "application/x-www-form-urlencoded"})

    def post_json(self, path: str, fields: dict[str, str], csrf: str) -> Answer:
        headers = {"Content-Type": "application/json", "Accept": "application/json", "X-CSRF-Token": csrf}
        return self.request("POST", path, json.dumps(fields).encode(), headers)


def form_token(page: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', page)
    assert found, "the page has no form token"
    return found.group(1)


def join_path(join_url: str) -> str:
    return urlsplit(join_url).path
