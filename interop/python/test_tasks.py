"""The Tasks extension (2026-07-28) through the SDK's ClientExtension interface."""

from __future__ import annotations

import time

import anyio
import pytest

from conftest import MODERN, Target
from tasks_extension import IDENTIFIER, TERMINAL, CreateTaskResult, TasksExtension, cancel_task, get_task

pytestmark = pytest.mark.anyio


async def test_task_polled_to_its_result(hello: Target) -> None:
    ext = TasksExtension()
    async with hello.connect("auto", extensions=[ext]) as client:
        assert client.protocol_version == MODERN
        assert IDENTIFIER in (client.server_capabilities.extensions or {})
        await client.list_tools()
        started = time.monotonic()
        result = await client.call_tool("report", {"seconds": 1})
        assert time.monotonic() - started >= 1
        # report answered with a task at once; tasks/get returned the report.
        assert len(ext.created) == 1
        created = ext.created[0]
        assert created.status == "working" and created.task_id
        assert ext.polls and ext.polls[-1].status == "completed"
        assert all(p.task_id == created.task_id for p in ext.polls)
        report = result.structured_content
        assert not result.is_error and report["taskId"] == created.task_id and report["lines"] >= 5
        assert report["took"].endswith("s") and report["finished"]


async def test_task_cancelled(hello: Target) -> None:
    async with hello.connect("auto", extensions=[TasksExtension()]) as client:
        created = await client.session.call_tool("report", {"seconds": 30}, allow_claimed=True)
        assert isinstance(created, CreateTaskResult) and created.status == "working"
        await cancel_task(client.session, created.task_id)
        deadline = time.monotonic() + 5
        while (state := await get_task(client.session, created.task_id)).status not in TERMINAL:
            assert time.monotonic() < deadline, f"task still {state.status} 5 s after tasks/cancel"
            await anyio.sleep(0.1)
        assert state.status == "cancelled"


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_no_task_without_the_extension(hello: Target, mode: str) -> None:
    # A client that does not declare the extension (and every 2025-11-25
    # client) gets the report as the call's own result.
    async with hello.connect(mode) as client:
        result = await client.call_tool("report", {"seconds": 1})
        assert not result.is_error and "taskId" not in result.structured_content
        assert result.structured_content["lines"] >= 5

