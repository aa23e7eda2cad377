"""Tool calls: typed results the SDK validates, errors, progress, logs, cancellation."""

from __future__ import annotations

import time

import anyio
import pytest
from mcp import MCPError
from mcp_types import INVALID_PARAMS, CallToolResult, LoggingMessageNotificationParams, TextContent

from conftest import MODERN, MODES, Target

pytestmark = pytest.mark.anyio


def text(result: CallToolResult) -> str:
    assert result.content and isinstance(result.content[0], TextContent), result
    return result.content[0].text


async def test_typed_results(target: Target, mode: str) -> None:
    async with target.connect(mode) as client:
        await client.list_tools()  # the output schemas the SDK validates against
        # call_tool validates structuredContent against the listed outputSchema
        # (jsonschema): a result that did not match would raise.
        added = await client.call_tool("add", {"a": 0.5, "b": -2})
        assert not added.is_error and added.structured_content == {"sum": -1.5}
        phrase = 'Grüße, "MCP"\n\t<b>&</b> \u2028 😀'
        echoed = await client.call_tool("echo", {"text": phrase})
        assert echoed.structured_content == {"text": phrase}
        # The text copy of the structured content, for clients without it.
        assert phrase in text(echoed) or '"text"' in text(echoed)
        # The SDK holds the server's outputSchema: content that breaks it is refused.
        with pytest.raises(RuntimeError, match="Invalid structured content"):
            await client.session.validate_tool_result(
                "add", CallToolResult(content=[], structured_content={"sum": "not a number"})
            )
        if MODES[mode] == MODERN:
            assert added.meta and added.meta["io.modelcontextprotocol/serverInfo"]["name"] == target.server
            assert added.result_type == "complete"


async def test_tool_execution_errors(target: Target, mode: str) -> None:
    # Errors a model can correct come back as isError results (SEP-1303,
    # from 2025-11-25 on): wrong argument types, missing ones, a tool's own
    # refusal. The SDK does not validate isError results against outputSchema.
    async with target.connect(mode) as client:
        wrong = await client.call_tool("add", {"a": "one", "b": 2})
        assert wrong.is_error and '/a' in text(wrong) and "number" in text(wrong)
        missing = await client.call_tool("add", {})
        assert missing.is_error and "missing required" in text(missing)
        if target.server == "hello":
            refused = await client.call_tool("countdown", {"from": 99})
            assert refused.is_error and "between 1 and 10" in text(refused)
        else:
            refused = await client.call_tool("count", {"to": 99})
            assert refused.is_error and "to must be 1..20" in text(refused)
        assert refused.structured_content is None


async def test_protocol_errors(target: Target, mode: str) -> None:
    async with target.connect(mode) as client:
        with pytest.raises(MCPError) as err:
            await client.call_tool("no_such_tool", {})
        assert err.value.code == INVALID_PARAMS
        assert err.value.error.data == {"reason": "unknownTool", "tool": "no_such_tool"}
        # The session stays usable after an error.
        assert (await client.call_tool("echo", {"text": "still here"})).structured_content == {"text": "still here"}


async def test_progress_and_logs(target: Target, mode: str) -> None:
    logs: list[LoggingMessageNotificationParams] = []
    progress: list[tuple[float, float | None, str | None]] = []

    async def on_log(params: LoggingMessageNotificationParams) -> None:
        logs.append(params)

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, total, message))

    # 2026-07-28: a request opts in to log messages with its _meta log level
    # (the Client's log_level); 2025-11-25: logging/setLevel.
    async with target.connect(mode, logging_callback=on_log, log_level="info") as client:
        if MODES[mode] != MODERN:
            await client.set_logging_level("info")
        if target.server == "hello":
            result = await client.call_tool("countdown", {"from": 3}, progress_callback=on_progress)
            assert result.structured_content == {"message": "lift-off"}
            assert progress == [(1, 3, "3"), (2, 3, "2"), (3, 3, "1")]
            assert [(m.level, m.logger, m.data) for m in logs] == [("info", "countdown", "lift-off")]
        else:
            result = await client.call_tool("count", {"to": 3}, progress_callback=on_progress)
            assert result.structured_content == {"counted": 3}
            assert progress == [(i, 3, f"step {i} of 3") for i in (1, 2, 3)]
            assert [(m.level, m.logger, m.data) for m in logs] == [("info", "count", {"step": i}) for i in (1, 2, 3)]


async def test_logs_need_opt_in(hello: Target) -> None:
    # Under 2026-07-28 a request without a log level gets no log messages.
    logs: list[LoggingMessageNotificationParams] = []

    async def on_log(params: LoggingMessageNotificationParams) -> None:
        logs.append(params)

    async with hello.connect(MODERN, logging_callback=on_log) as client:
        result = await client.call_tool("countdown", {"from": 1})
        assert result.structured_content == {"message": "lift-off"} and logs == []


async def busy_counting(client) -> bool:
    """Whether a goroutine of codeserver still runs the count tool, as runtime_goroutines tells."""
    result = await client.call_tool("runtime_goroutines", {})
    assert not result.is_error, text(result)
    return any(
        frame["file"].endswith("examples/codeserver/tools.go")
        for group in result.structured_content["groups"]
        for frame in group["frames"]
    )


async def test_cancellation(codeserver: Target, mode: str) -> None:
    # The caller gives up on a long call (20 steps of 500 ms): the SDK sends
    # notifications/cancelled (2025-11-25, where a disconnect is not a
    # cancellation) or closes the request's stream (2026-07-28 over HTTP);
    # either way the tool must stop on the server.
    progress: list[float] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append(done)

    async with codeserver.connect(mode) as client:
        assert not await busy_counting(client)
        with anyio.move_on_after(1.2) as scope:
            await client.call_tool("count", {"to": 20, "delayMs": 500}, progress_callback=on_progress)
        assert scope.cancelled_caught and 1 <= len(progress) < 20
        deadline = time.monotonic() + 3
        while await busy_counting(client):
            assert time.monotonic() < deadline, "the count tool still runs 3 s after the client cancelled it"
            await anyio.sleep(0.1)
        # The session goes on.
        assert (await client.call_tool("add", {"a": 1, "b": 2})).structured_content == {"sum": 3}


async def test_set_level_over_stdio(hello: Target) -> None:
    # 2025-11-25: logging/setLevel sets the level for the connection. Over
    # stdio the connection is the session; over HTTP there is none (the
    # server is stateless), and the server's default level applies.
    logs: list[LoggingMessageNotificationParams] = []

    async def on_log(params: LoggingMessageNotificationParams) -> None:
        logs.append(params)

    async with hello.connect("legacy", logging_callback=on_log) as client:
        await client.set_logging_level("error")
        await client.call_tool("countdown", {"from": 1})
        if hello.transport == "stdio":
            assert logs == []
        else:
            assert [m.data for m in logs] == ["lift-off"]
        await client.set_logging_level("debug")
        await client.call_tool("countdown", {"from": 1})
        assert logs and logs[-1].data == "lift-off"
