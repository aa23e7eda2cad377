"""Multi round-trip tool calls (SEP-2322, 2026-07-28) through the SDK's input_required driver.

examples/conformance's input-required tools ask for elicitation, sampling
and roots by answering tools/call with an InputRequiredResult; the SDK
hands each request to the client's callbacks and retries with the
responses and the sealed requestState until the tool finishes.
"""

from __future__ import annotations

import pytest
from mcp import Client, MCPError
from mcp.client.context import ClientRequestContext
from mcp_types import (
    CreateMessageRequestParams,
    CreateMessageResult,
    ElicitRequestParams,
    ElicitResult,
    INVALID_PARAMS,
    InputRequiredResult,
    ListRootsResult,
    Root,
    TextContent,
)

from conftest import MODERN, env

pytestmark = pytest.mark.anyio


class Person:
    """The client's side: a user who answers forms, a model, two roots."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def elicit(self, ctx: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult:
        self.asked.append(f"elicit: {params.message}")
        props = params.requested_schema["properties"]
        answers = {"name": "Ada", "color": "green", "ok": True}
        return ElicitResult(action="accept", content={k: answers[k] for k in props})

    async def sample(self, ctx: ClientRequestContext, params: CreateMessageRequestParams) -> CreateMessageResult:
        self.asked.append(f"sample: {params.messages[0].content.text}")
        return CreateMessageResult(role="assistant", content=TextContent(type="text", text="Paris"), model="stub")

    async def roots(self, ctx: ClientRequestContext) -> ListRootsResult:
        self.asked.append("roots")
        return ListRootsResult(roots=[Root(uri="file:///work/a"), Root(uri="file:///work/b")])

    def client(self) -> Client:
        return Client(env("CONFORMANCE_URL"), elicitation_callback=self.elicit, sampling_callback=self.sample,
                      list_roots_callback=self.roots)


@pytest.mark.parametrize(("tool", "want", "asked"), [
    ("test_input_required_result_elicitation", "Hello, Ada!", ["elicit: What is your name?"]),
    ("test_input_required_result_sampling", "Paris", ["sample: What is the capital of France?"]),
    ("test_input_required_result_list_roots", "Roots: file:///work/a, file:///work/b", ["roots"]),
    ("test_input_required_result_request_state", "state-ok: confirmed", ["elicit: Please confirm"]),
    ("test_input_required_result_multiple_inputs", "Paris Ada",
     ["elicit: What is your name?", "roots", "sample: Generate a greeting"]),
    ("test_input_required_result_multi_round", "Ada likes green",
     ["elicit: Step 1: What is your name?", "elicit: Step 2: What is your favorite color?"]),
], ids=lambda v: v.removeprefix("test_input_required_result_") if isinstance(v, str) and v.startswith("test_") else "")
async def test_input_required(tool: str, want: str, asked: list[str]) -> None:
    person = Person()
    async with person.client() as client:
        assert client.protocol_version == MODERN
        result = await client.call_tool(tool, {})
        assert not result.is_error and result.content[0].text == want
        assert sorted(person.asked) == sorted(asked)


async def test_tampered_state_refused() -> None:
    # Driving the rounds by hand: the sealed requestState, changed, is refused.
    person = Person()
    async with person.client() as client:
        tool = "test_input_required_result_tampered_state"
        first = await client.session.call_tool(tool, {}, allow_input_required=True)
        assert isinstance(first, InputRequiredResult) and first.request_state
        assert set(first.input_requests) == {"confirm"}
        answer = {"confirm": ElicitResult(action="accept", content={"ok": "yes"})}
        state = first.request_state
        tampered = state[:-4] + ("AAAA" if not state.endswith("AAAA") else "BBBB")
        with pytest.raises(MCPError) as err:
            await client.session.call_tool(tool, {}, input_responses=answer, request_state=tampered,
                                           allow_input_required=True)
        assert err.value.code == INVALID_PARAMS
        done = await client.session.call_tool(tool, {}, input_responses=answer, request_state=state)
        assert done.content[0].text == "state verified"
