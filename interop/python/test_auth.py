"""Bearer tokens (codeserver -token) and OAuth (oauthmcp's step-up server behind Ory Hydra)."""

from __future__ import annotations

import secrets
from urllib.parse import parse_qsl

import httpx2
import jwt
import pytest
from mcp import Client, MCPError
from mcp.client.auth.extensions.client_credentials import ClientCredentialsOAuthProvider
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

from conftest import CODESERVER_HTTP, bearer, env

pytestmark = pytest.mark.anyio


def leaf(exc: BaseException) -> BaseException:
    """The error inside the SDK's task-group exception groups."""
    while isinstance(exc, BaseExceptionGroup):
        exc = exc.exceptions[0]
    return exc


@pytest.mark.parametrize("token", [None, "wrong-token"], ids=["no-token", "wrong-token"])
async def test_bearer_refused(token: str | None, mode: str) -> None:
    with pytest.raises(BaseException) as err:
        async with Client(bearer(env("CODESERVER_URL"), token), mode=mode) as client:
            await client.list_tools()  # 2026-07-28 adopted without a probe: the first request
    e = leaf(err.value)
    assert isinstance(e, MCPError), repr(e)
    assert e.error.message.startswith("Unauthorized")
    assert ("rejected" in e.error.message) == (token is not None)


async def test_bearer_accepted(mode: str) -> None:
    async with CODESERVER_HTTP.connect(mode) as client:
        result = await client.call_tool("echo", {"text": "with a token"})
        assert result.structured_content == {"text": "with a token"}


class MemoryStorage:
    """The SDK's TokenStorage, in memory."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client_info: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info


class HydraProvider(ClientCredentialsOAuthProvider):
    """The SDK's client_credentials provider, recording its token requests.

    Ory Hydra 2.3 binds a token's audience with its own `audience`
    parameter, not with RFC 8707's `resource` (which the SDK sends too), so
    this adds it; the scopes requested are the SDK's own choice.
    """

    def __init__(self, resource: str, **kwargs) -> None:
        super().__init__(**kwargs)
        self.resource = resource
        self.token_requests: list[dict[str, str]] = []

    async def _exchange_token_client_credentials(self) -> httpx2.Request:
        request = await super()._exchange_token_client_credentials()
        form = dict(parse_qsl(request.content.decode()))
        self.token_requests.append(form)
        form["audience"] = self.resource
        headers = {k: v for k, v in request.headers.items() if k.lower() not in ("content-length",)}
        return httpx2.Request("POST", request.url, data=form, headers=headers)


async def register(scope: str, audience: str) -> tuple[str, str]:
    """A client of Hydra allowed scope, whose tokens may name audience."""
    secret = secrets.token_urlsafe(24)
    async with httpx2.AsyncClient() as http:
        resp = await http.post(f"{env('HYDRA_ADMIN')}/admin/clients", json={
            "client_name": "python-sdk", "client_secret": secret, "grant_types": ["client_credentials"],
            "scope": scope, "audience": [audience], "token_endpoint_auth_method": "client_secret_basic",
        })
        assert resp.status_code == 201, resp.text
        return resp.json()["client_id"], secret


async def test_oauth_step_up(mode: str) -> None:
    url, issuer = env("STEPUP_URL"), env("HYDRA_ISSUER")
    client_id, secret = await register("notes:read notes:write", url)
    provider = HydraProvider(url, server_url=url, storage=MemoryStorage(), client_id=client_id,
                             client_secret=secret, issuer=issuer)
    async with Client(bearer(url, None, auth=provider), mode=mode) as client:
        tools = await client.list_tools()  # the first request when 2026-07-28 is adopted without a probe
        assert [t.name for t in tools.tools] == ["notes_read"]
        # The 401 led to the protected resource metadata (RFC 9728), then to
        # Hydra's metadata, then to a token for the scope the 401 named.
        ctx = provider.context
        prm = ctx.protected_resource_metadata
        assert prm is not None and str(prm.resource) == url
        assert [str(s).rstrip("/") for s in prm.authorization_servers] == [issuer]
        assert ctx.oauth_metadata is not None and str(ctx.oauth_metadata.issuer).rstrip("/") == issuer
        assert [r.get("scope") for r in provider.token_requests] == ["notes:read"]
        assert all(r["grant_type"] == "client_credentials" for r in provider.token_requests)
        claims = jwt.decode(ctx.current_tokens.access_token, options={"verify_signature": False})
        assert url in claims["aud"] and claims["client_id"] == client_id

        read = await client.call_tool("notes_read", {})
        assert read.structured_content == {"caller": client_id, "note": "the last note"}

        # notes_write needs notes:write: 403 insufficient_scope, a token for
        # the union of the scopes (SEP-2350), the call sent again.
        write = await client.call_tool("notes_write", {"text": "hi"})
        assert not write.is_error and write.structured_content == {"caller": client_id, "note": "written: hi"}
        assert [r.get("scope") for r in provider.token_requests] == ["notes:read", "notes:read notes:write"]
        assert set(jwt.decode(ctx.current_tokens.access_token, options={"verify_signature": False})["scp"]) >= {
            "notes:read", "notes:write"}
        # With the new token both tools are listed: the listing's caching
        # hints (ttlMs 0, private) keep the SDK's cache from serving the old one.
        names = {t.name for t in (await client.list_tools()).tools}
        assert names == {"notes_read", "notes_write"}


async def test_oauth_wrong_audience() -> None:
    # A token Hydra issued for another resource is refused with 401.
    url, issuer = env("STEPUP_URL"), env("HYDRA_ISSUER")
    other = "http://127.0.0.1:1/other"
    client_id, secret = await register("notes:read", other)
    async with httpx2.AsyncClient() as http:
        resp = await http.post(f"{issuer}/oauth2/token", auth=(client_id, secret),
                               data={"grant_type": "client_credentials", "scope": "notes:read", "audience": other})
        assert resp.status_code == 200, resp.text
        token = resp.json()["access_token"]
    with pytest.raises(BaseException) as err:
        async with Client(bearer(url, token)):
            pass
    e = leaf(err.value)
    assert isinstance(e, MCPError) and "rejected" in e.error.message, repr(e)
