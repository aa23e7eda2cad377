"""The Tasks extension (io.modelcontextprotocol/tasks, SEP-2663) for the Python SDK's client.

mcp 2.3.0 ships no client for it, but its extension interface
(mcp.client.ClientExtension) is made for one: the extension declares itself
in the client's capabilities, claims the `resultType: "task"` answer of
tools/call, and finishes it by polling tasks/get, so that Client.call_tool
returns the tool's CallToolResult as for any other call.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Literal

import anyio
from mcp import MCPError
from mcp.client import ClaimContext, ClientExtension, ResultClaim
from mcp_types import CallToolResult, ErrorData, Request, RequestParams, Result
from pydantic import ConfigDict

IDENTIFIER = "io.modelcontextprotocol/tasks"
TERMINAL = ("completed", "failed", "cancelled")


class CreateTaskResult(Result):
    """A tools/call answered with a task."""

    model_config = ConfigDict(extra="allow")
    result_type: Literal["task"] = "task"
    task_id: str
    status: str
    status_message: str | None = None
    created_at: str
    last_updated_at: str
    ttl_ms: int | None
    poll_interval_ms: int | None = None


class TaskState(Result):
    """A tasks/get answer (a DetailedTask)."""

    model_config = ConfigDict(extra="allow")
    result_type: str | None = None
    task_id: str
    status: str
    status_message: str | None = None
    ttl_ms: int | None = None
    poll_interval_ms: int | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None


class TaskIDParams(RequestParams):
    task_id: str


class GetTask(Request[TaskIDParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    params: TaskIDParams
    name_param: ClassVar[str | None] = "taskId"  # Mcp-Name: the task's id (SEP-2663)


class CancelTask(Request[TaskIDParams, Literal["tasks/cancel"]]):
    method: Literal["tasks/cancel"] = "tasks/cancel"
    params: TaskIDParams
    name_param: ClassVar[str | None] = "taskId"


class EmptyAck(Result):
    model_config = ConfigDict(extra="allow")
    result_type: str | None = None


async def get_task(session, task_id: str) -> TaskState:
    return await session.send_request(GetTask(params=TaskIDParams(task_id=task_id)), TaskState)


async def cancel_task(session, task_id: str) -> EmptyAck:
    return await session.send_request(CancelTask(params=TaskIDParams(task_id=task_id)), EmptyAck)


class TasksExtension(ClientExtension):
    """Declares the Tasks extension and polls the tasks tools/call answers with."""

    identifier = IDENTIFIER

    def __init__(self, max_poll_seconds: float = 1.0) -> None:
        self.created: list[CreateTaskResult] = []
        self.polls: list[TaskState] = []
        self.max_poll_seconds = max_poll_seconds

    def claims(self) -> Sequence[ResultClaim[Any]]:
        return [ResultClaim(result_type="task", model=CreateTaskResult, resolve=self.resolve)]

    async def resolve(self, created: CreateTaskResult, ctx: ClaimContext) -> CallToolResult:
        self.created.append(created)
        interval = created.poll_interval_ms
        while True:
            # pollIntervalMs is honoured, within the bound a test can wait.
            await anyio.sleep(min((interval or 100) / 1000, self.max_poll_seconds))
            state = await get_task(ctx.session, created.task_id)
            self.polls.append(state)
            interval = state.poll_interval_ms or interval
            if state.status == "completed":
                assert state.result is not None
                return CallToolResult.model_validate(state.result)
            if state.status == "failed":
                assert state.error is not None
                raise MCPError.from_error_data(ErrorData.model_validate(state.error))
            if state.status == "cancelled":
                raise MCPError(code=-32800, message=f"task {created.task_id} cancelled")
