"""codeserver's code and runtime tools, called as an agent calls them, answers read through the SDK's types."""

from __future__ import annotations

import pytest
from mcp_types import CallToolResult, TextContent

from conftest import Target

pytestmark = pytest.mark.anyio

HANDLER = "github.com/embedmcp/mcp.(*Handler).ServeHTTP"


@pytest.fixture(params=["legacy", "auto"], ids=["mode=legacy", "mode=auto"])
def agent_mode(request: pytest.FixtureRequest) -> str:
    return request.param


async def call(client, name: str, arguments: dict) -> CallToolResult:
    result = await client.call_tool(name, arguments)
    assert isinstance(result, CallToolResult)
    assert not result.is_error, f"{name}: {result.content}"
    assert result.content and all(isinstance(c, TextContent) for c in result.content)
    # Text for the model, never a JSON dump of the structured content.
    assert not result.content[0].text.lstrip().startswith("{"), result.content[0].text[:200]
    return result


async def test_find_and_read_code(codeserver: Target, agent_mode: str) -> None:
    async with codeserver.connect(agent_mode) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert tools["code_search"].annotations and tools["code_search"].annotations.read_only_hint
        found = await call(client, "code_search", {"query": "ServeHTTP"})
        ids = [r["id"] for r in found.structured_content["results"]]
        assert ids[0] == HANDLER
        # One line per item: "id file:line".
        assert f"{HANDLER} http.go:" in found.content[0].text
        # The definition, a chunk at a time, as the answer says how to go on.
        definition = await call(client, "code_definition", {"name": ids[0], "maxCharacters": 2000})
        d = definition.structured_content
        assert d["name"] == HANDLER and d["source"] == "snapshot" and d["sourceFile"] == "github.com/embedmcp/mcp/http.go"
        source = definition.content[1].text
        assert "func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {" in source
        assert d["more"] and d["nextArguments"]["offset"] == 2000
        rest = await call(client, "code_definition", d["nextArguments"])
        assert rest.structured_content["offset"] == 2000 and rest.content[1].text not in source


async def test_follow_references(codeserver: Target, agent_mode: str) -> None:
    async with codeserver.connect(agent_mode) as client:
        refs = await call(client, "code_references", {"name": "mcp.NewHandler", "relation": "callers"})
        items = refs.structured_content["items"]
        assert any(i["id"] == "github.com/embedmcp/mcp/examples/codeserver.newMux" and i["how"] == "call" for i in items)
        assert "mcp.NewHandler(server" in refs.content[0].text
        gomod = await call(client, "code_file", {"path": "go.mod"})
        assert gomod.structured_content["text"].startswith("module github.com/embedmcp/mcp\n")


async def test_runtime_tools(codeserver: Target, agent_mode: str) -> None:
    async with codeserver.connect(agent_mode) as client:
        health = await call(client, "runtime_health", {})
        assert health.structured_content["status"] == "ok"
        assert {c["name"] for c in health.structured_content["checks"]} == {"goroutines", "snapshot"}
        build = await call(client, "runtime_build", {})
        assert build.structured_content["goVersion"].startswith("go")
        assert build.structured_content["path"] == "github.com/embedmcp/mcp/examples/codeserver"
        metrics = await call(client, "runtime_metrics", {"names": ["/sched/goroutines:goroutines"]})
        [goroutines] = metrics.structured_content["metrics"]
        assert goroutines["kind"] == "gauge" and goroutines["value"] >= 1
        stacks = await call(client, "runtime_goroutines", {})
        assert stacks.structured_content["total"] >= 1 and stacks.structured_content["groups"]
        logs = await call(client, "runtime_logs", {"contains": "runtime_metrics"})
        assert any(r["message"] == "mcp request" and r["attrs"]["tool"] == "runtime_metrics"
                   for r in logs.structured_content["records"])
        heap = await call(client, "runtime_profile", {"kind": "heap"})
        assert heap.structured_content["kind"] == "heap" and heap.structured_content["top"]
        await call(client, "runtime_vars", {})


async def test_find_the_right_tool(codeserver: Target, agent_mode: str) -> None:
    async with codeserver.connect(agent_mode) as client:
        catalogue = await call(client, "tool_catalogue", {})
        names = {t["name"] for c in catalogue.structured_content["categories"] for t in c["tools"]}
        assert {"code_search", "code_definition", "runtime_health", "echo"} <= names
        detail = await call(client, "tool_detail", {"tool": "code_search"})
        assert detail.structured_content["match"] == "exact"
