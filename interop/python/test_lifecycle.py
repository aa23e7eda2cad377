"""Connecting under each revision the SDK speaks, and listing tools."""

from __future__ import annotations

import pytest
from mcp import MCPError
from mcp_types import INVALID_PARAMS, METHOD_NOT_FOUND
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

from conftest import HELLO_HTTP, MODERN, MODES, Target

pytestmark = pytest.mark.anyio

HELLO_TOOLS = {"echo", "add", "countdown", "report"}
TASKS = "io.modelcontextprotocol/tasks"


def test_sdk_speaks_both_eras() -> None:
    # The revisions this suite runs under are the ones the SDK offers.
    assert "2025-11-25" in HANDSHAKE_PROTOCOL_VERSIONS
    assert MODERN in MODERN_PROTOCOL_VERSIONS


async def test_connect(target: Target, mode: str) -> None:
    async with target.connect(mode) as client:
        assert client.protocol_version == MODES[mode]
        caps = client.server_capabilities
        if mode == "2026-07-28":
            # Adopted without a probe: nothing is known of the server until
            # its first result, which names it in _meta.
            result = await client.list_tools()
            assert result.meta and result.meta["io.modelcontextprotocol/serverInfo"]["name"] == target.server
            return
        assert client.server_info is not None and client.server_info.name == target.server
        assert caps.tools is not None
        if mode == "auto":
            # server/discover: the Tasks extension is declared, logging is.
            assert caps.extensions is not None and TASKS in caps.extensions
        else:
            assert caps.extensions is None
        if target.server == "codeserver":
            assert client.instructions and "code_search" in client.instructions


async def test_tools_list_pages(mode: str) -> None:
    # hello runs with -page-size 3: four tools in two pages.
    async with HELLO_HTTP.connect(mode) as client:
        first = await client.list_tools()
        assert len(first.tools) == 3 and first.next_cursor
        second = await client.list_tools(cursor=first.next_cursor)
        assert len(second.tools) == 1 and second.next_cursor is None
        assert {t.name for t in first.tools + second.tools} == HELLO_TOOLS
        for tool in first.tools + second.tools:
            assert tool.input_schema["type"] == "object"
            assert tool.output_schema is not None and tool.output_schema["type"] == "object"
            assert tool.description


async def test_tools_list_cursor_refused(mode: str) -> None:
    async with HELLO_HTTP.connect(mode) as client:
        with pytest.raises(MCPError) as err:
            await client.list_tools(cursor="not-a-cursor")
        assert err.value.code == INVALID_PARAMS


async def test_tools_list_whole(target: Target, mode: str) -> None:
    async with target.connect(mode) as client:
        names: list[str] = []
        cursor = None
        while True:
            page = await client.list_tools(cursor=cursor)
            names += [t.name for t in page.tools]
            cursor = page.next_cursor
            if cursor is None:
                break
        assert len(names) == len(set(names))
        if target.server == "hello":
            assert set(names) == HELLO_TOOLS
        else:
            want = {"echo", "add", "count", "code_search", "code_definition", "code_references", "code_file",
                    "runtime_goroutines", "runtime_metrics", "runtime_profile", "runtime_logs", "runtime_build",
                    "runtime_vars", "runtime_health", "tool_catalogue", "tool_detail"}
            assert want <= set(names), want - set(names)


async def test_unknown_method(mode: str) -> None:
    # embedmcp serves tools only: prompts/list is not a method of it.
    async with HELLO_HTTP.connect(mode) as client:
        with pytest.raises(MCPError) as err:
            await client.list_prompts()
        assert err.value.code == METHOD_NOT_FOUND


async def test_ping(target: Target) -> None:
    # ping is a method of the handshake revisions only.
    async with target.connect("legacy") as client:
        with pytest.warns(UserWarning, match="ping is removed"):
            result = await client.send_ping()
        assert result is not None


async def test_listen_acknowledged(target: Target) -> None:
    # subscriptions/listen (2026-07-28): the stream opens and is acknowledged
    # with what the server honours; hello's and codeserver's tool lists do
    # not change, so no event follows.
    async with target.connect("auto") as client:
        async with client.listen(tools_list_changed=True) as sub:
            assert sub.honored.tools_list_changed
