"""Fixtures of the Python MCP SDK suite.

scripts/test.d/python-sdk.sh builds and starts the servers and passes them
in the environment: HELLO_URL (examples/hello over Streamable HTTP, with
-page-size 3) and HELLO_BIN (the binary, run with -stdio);
CODESERVER_URL, CODESERVER_TOKEN (examples/codeserver with -token) and
CODESERVER_BIN; CONFORMANCE_URL (examples/conformance, whose tools ask for
input); STEPUP_URL, HYDRA_ISSUER and HYDRA_ADMIN (oauthmcp's
step-up server behind Ory Hydra).
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

# The ways the SDK connects: the initialize handshake (2025-11-25), its
# default (server/discover, which picks 2026-07-28 here), and 2026-07-28
# adopted without a probe.
MODES = {"legacy": "2025-11-25", "auto": "2026-07-28", "2026-07-28": "2026-07-28"}
MODERN = "2026-07-28"


def env(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        pytest.fail(f"{name} is not set: run the suite with scripts/test.d/python-sdk.sh")
    return value


@dataclass(frozen=True)
class Target:
    """A server the SDK connects to, over one transport."""

    server: str  # "hello" or "codeserver"
    transport: str  # "http" or "stdio"

    @property
    def id(self) -> str:
        return f"{self.server}-{self.transport}"

    def connect(self, mode: str = "auto", **kwargs: Any) -> Client:
        """A Client (enter it with async with) for this target."""
        kwargs.setdefault("read_timeout_seconds", 60)  # a hung answer fails its check, not the run
        if self.transport == "stdio":
            binary = env("HELLO_BIN" if self.server == "hello" else "CODESERVER_BIN")
            return Client(StdioServerParameters(command=binary, args=["-stdio"]), mode=mode, **kwargs)
        if self.server == "hello":
            return Client(env("HELLO_URL"), mode=mode, **kwargs)
        return Client(bearer(env("CODESERVER_URL"), env("CODESERVER_TOKEN")), mode=mode, **kwargs)


def bearer(url: str, token: str | None, **client_options: Any):
    """A Streamable HTTP transport whose requests carry Authorization: Bearer token."""

    @asynccontextmanager
    async def transport() -> AsyncIterator[Any]:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        timeout = httpx2.Timeout(30.0, read=300.0)
        async with httpx2.AsyncClient(headers=headers, timeout=timeout, **client_options) as http:
            async with streamable_http_client(url, http_client=http) as streams:
                yield streams

    return transport()


HELLO_HTTP = Target("hello", "http")
HELLO_STDIO = Target("hello", "stdio")
CODESERVER_HTTP = Target("codeserver", "http")
CODESERVER_STDIO = Target("codeserver", "stdio")
TARGETS = [HELLO_HTTP, HELLO_STDIO, CODESERVER_HTTP, CODESERVER_STDIO]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(params=list(MODES), ids=[f"mode={m}" for m in MODES])
def mode(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture(params=TARGETS, ids=[t.id for t in TARGETS])
def target(request: pytest.FixtureRequest) -> Target:
    return request.param


@pytest.fixture(params=[HELLO_HTTP, HELLO_STDIO], ids=["hello-http", "hello-stdio"])
def hello(request: pytest.FixtureRequest) -> Target:
    return request.param


@pytest.fixture(params=[CODESERVER_HTTP, CODESERVER_STDIO], ids=["codeserver-http", "codeserver-stdio"])
def codeserver(request: pytest.FixtureRequest) -> Target:
    return request.param
