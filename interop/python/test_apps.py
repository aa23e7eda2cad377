"""MCP Apps (io.modelcontextprotocol/ui): the views codeserver's tools name, as the SDK exposes them.

The SDK's client has no MCP Apps API (no typed `_meta.ui`, nothing that
renders a view or relays its messages: its Apps support is server-side,
mcp.server.apps). What a host needs reaches it through the SDK's generic
types: each tool's `_meta` (a dict), the capabilities, resources/list and
resources/read (typed), and each result's `_meta`.
"""

from __future__ import annotations

import pytest
from mcp import MCPError
from mcp.client import advertise
from mcp_types import INVALID_PARAMS, METHOD_NOT_FOUND, TextResourceContents

from conftest import Target

pytestmark = pytest.mark.anyio

UI = "io.modelcontextprotocol/ui"
MIME = "text/html;profile=mcp-app"
VIEWS = {
    "code_definition": "ui://embedmcp/code/definition",
    "runtime_goroutines": "ui://embedmcp/runtime/goroutines",
    "runtime_metrics": "ui://embedmcp/runtime/metrics",
    "runtime_profile": "ui://embedmcp/runtime/profile",
}


@pytest.fixture(params=["legacy", "auto"], ids=["mode=legacy", "mode=auto"])
def apps_mode(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture(params=[False, True], ids=["no-ui-ad", "ui-ad"])
def declares_ui(request: pytest.FixtureRequest) -> bool:
    return request.param


async def test_views(codeserver: Target, apps_mode: str, declares_ui: bool) -> None:
    extensions = [advertise(UI, {"mimeTypes": [MIME]})] if declares_ui else None
    async with codeserver.connect(apps_mode, extensions=extensions) as client:
        caps = client.server_capabilities
        assert caps.resources is not None
        if apps_mode == "auto":
            assert caps.extensions and caps.extensions[UI] == {"mimeTypes": [MIME]}
        named = {t.name: t.meta["ui"]["resourceUri"] for t in (await client.list_tools()).tools
                 if t.meta and "ui" in t.meta}
        assert named == VIEWS
        resources = (await client.list_resources()).resources
        assert {str(r.uri) for r in resources} == set(VIEWS.values())
        for resource in resources:
            assert resource.mime_type == MIME and resource.name
            [content] = (await client.read_resource(str(resource.uri))).contents
            assert isinstance(content, TextResourceContents) and content.mime_type == MIME
            assert "<html" in content.text.lower() and str(content.uri) == str(resource.uri)
        # The data only the view reads rides in the result's _meta.
        result = await client.call_tool("code_definition", {"name": "mcp.NewHandler"})
        assert result.meta and result.meta["embedmcp/view"]["view"] == "source"
        with pytest.raises(MCPError) as err:
            await client.read_resource("ui://embedmcp/no/such/view")
        assert err.value.code == (-32002 if apps_mode == "legacy" else INVALID_PARAMS)


async def test_no_views(hello: Target) -> None:
    # hello registers no view: no resources capability, resources/* unknown.
    async with hello.connect("auto") as client:
        assert client.server_capabilities.resources is None
        assert UI not in (client.server_capabilities.extensions or {})
        assert not any((t.meta or {}).get("ui") for t in (await client.list_tools()).tools)
        with pytest.raises(MCPError) as err:
            await client.list_resources()
        assert err.value.code == METHOD_NOT_FOUND
