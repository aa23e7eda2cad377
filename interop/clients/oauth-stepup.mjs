// The TypeScript SDK client against oauthmcp's step-up server
// (oauthmcp/internal/stepupserver) and a real authorization server (Ory
// Hydra), run by scripts/test.d/oauth.sh: OAuth discovery from the 401,
// a client_credentials token with scope notes:read, a tools/call of
// notes_write refused with 403 insufficient_scope, a new token with the
// union of scopes, and the call retried and served. Exits 1 on any
// mismatch, 2 on bad usage.
//
//   node oauth-stepup.mjs MCP_URL ISSUER ADMIN_URL
//
// The SDK's transport answers a 403 insufficient_scope by running auth()
// again and retrying, but its client_credentials providers ask for the
// scope of their clientMetadata, not the challenged one. So this client
// drives the step-up through the SDK's own hooks: a fetch wrapper (the
// transport's `fetch` option) reads the challenge's scope, and a
// ClientCredentialsProvider subclass asks for the union of the scopes it
// held and the challenged ones (clientMetadata.scope, which fetchToken
// passes to prepareTokenRequest). prepareTokenRequest also adds Hydra's
// `audience` parameter: Hydra 2.3 binds a token's audience with it, not
// with RFC 8707's `resource`, which the SDK sends too.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ClientCredentialsProvider } from "@modelcontextprotocol/sdk/client/auth-extensions.js";

const [url, issuer, admin] = process.argv.slice(2);
if (!url || !issuer || !admin) {
  console.error("usage: node oauth-stepup.mjs MCP_URL ISSUER ADMIN_URL");
  process.exit(2);
}

const failures = [];
let passed = 0;
function check(name, ok, detail) {
  if (ok) {
    passed++;
    console.log(`  ✓ ${name}`);
  } else {
    failures.push(name);
    console.log(`  ✗ ${name}: ${detail}`);
  }
}

// A client allowed both scopes, whose tokens may name this MCP server.
const secret = "stepup-secret-0123456789abcdef";
const reg = await fetch(`${admin}/admin/clients`, {
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({
    client_name: "ts-stepup", client_secret: secret, grant_types: ["client_credentials"],
    scope: "notes:read notes:write", audience: [url], token_endpoint_auth_method: "client_secret_basic",
  }),
});
if (reg.status !== 201) {
  console.error(`registering the client: ${reg.status} ${await reg.text()}`);
  process.exit(1);
}
const { client_id: clientId } = await reg.json();

class StepUpProvider extends ClientCredentialsProvider {
  constructor(options) {
    super(options);
    this.scopes = new Set(options.scope.split(" "));
    this.tokenRequests = []; // the scope of every token request
  }
  get clientMetadata() {
    return { ...super.clientMetadata, scope: [...this.scopes].join(" ") };
  }
  challenged(scope) {
    for (const s of scope.split(" ")) if (s) this.scopes.add(s);
  }
  prepareTokenRequest(scope) {
    const params = super.prepareTokenRequest(scope);
    params.set("audience", url);
    this.tokenRequests.push(params.get("scope"));
    return params;
  }
}

const provider = new StepUpProvider({ clientId, clientSecret: secret, scope: "notes:read", expectedIssuer: issuer });
const challenges = [];
const statuses = [];
async function stepUpFetch(input, init) {
  const res = await fetch(input, init);
  if (String(input) === url) statuses.push(res.status);
  const h = res.headers.get("www-authenticate") ?? "";
  if (res.status === 403 && /error="insufficient_scope"/.test(h)) {
    challenges.push(h);
    const m = h.match(/scope="([^"]*)"/);
    if (m) provider.challenged(m[1]);
  }
  return res;
}

const client = new Client({ name: "embedmcp-oauth-stepup", version: "1.0.0" });
const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider, fetch: stepUpFetch });
const text = (res) => res?.structuredContent ?? res?.content?.[0]?.text;
try {
  await client.connect(transport);
  check("connect: 401, discovery (RFC 9728, then the issuer's metadata), client_credentials token",
    statuses[0] === 401 && provider.tokenRequests.length === 1 && provider.tokenRequests[0] === "notes:read",
    `statuses ${statuses}, token requests ${JSON.stringify(provider.tokenRequests)}`);

  let { tools } = await client.listTools();
  check("tools/list with notes:read shows notes_read only", tools.map((t) => t.name).join() === "notes_read",
    JSON.stringify(tools.map((t) => t.name)));

  const read = await client.callTool({ name: "notes_read", arguments: {} });
  check("notes_read served, as the client", !read.isError && text(read)?.caller === clientId, JSON.stringify(read));

  const before = statuses.length;
  const write = await client.callTool({ name: "notes_write", arguments: { text: "hi" } });
  check("notes_write: refused with 403 insufficient_scope naming notes:write",
    challenges.length === 1 && /scope="notes:write"/.test(challenges[0]) &&
      /resource_metadata="http:\/\/[^"]+\/\.well-known\/oauth-protected-resource\/mcp"/.test(challenges[0]) &&
      statuses[before] === 403,
    `challenges ${JSON.stringify(challenges)}, statuses ${statuses.slice(before)}`);
  check("step-up: a new token with the union of scopes",
    provider.tokenRequests.length === 2 && provider.tokenRequests[1] === "notes:read notes:write",
    JSON.stringify(provider.tokenRequests));
  check("notes_write retried and served", !write.isError && text(write)?.note === "written: hi" &&
    statuses[statuses.length - 1] === 200, JSON.stringify(write));

  ({ tools } = await client.listTools());
  check("tools/list after the step-up shows both tools", tools.map((t) => t.name).sort().join() === "notes_read,notes_write",
    JSON.stringify(tools.map((t) => t.name)));
  const again = await client.callTool({ name: "notes_read", arguments: {} });
  check("notes_read still served (no scope lost)", !again.isError && provider.tokenRequests.length === 2,
    JSON.stringify(again));
} catch (err) {
  failures.push(`exception: ${err?.stack ?? err}`);
  console.log(`  ✗ ${err?.stack ?? err}`);
} finally {
  await client.close().catch(() => {});
}

// Without the hooks: the SDK's own ClientCredentialsProvider (only
// Hydra's audience added) retries with a token of the same scope, and the
// transport gives up. This pins down why the hooks above are needed; if a
// later SDK asks for the challenged scope itself, this check says so.
class AudienceOnlyProvider extends ClientCredentialsProvider {
  constructor(options) {
    super(options);
    this.tokenRequests = [];
  }
  prepareTokenRequest(scope) {
    const params = super.prepareTokenRequest(scope);
    params.set("audience", url);
    this.tokenRequests.push(params.get("scope"));
    return params;
  }
}
const plain = new AudienceOnlyProvider({ clientId, clientSecret: secret, scope: "notes:read", expectedIssuer: issuer });
const plainClient = new Client({ name: "embedmcp-oauth-plain", version: "1.0.0" });
try {
  await plainClient.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: plain }));
  let outcome;
  try {
    outcome = await plainClient.callTool({ name: "notes_write", arguments: { text: "hi" } });
  } catch (err) {
    outcome = err;
  }
  check("without the hooks, SDK client_credentials step-up re-requests the same scope and stops at 403 (SDK limitation)",
    outcome instanceof Error && /403 after trying upscoping/.test(outcome.message) &&
      plain.tokenRequests.length === 2 && plain.tokenRequests.every((s) => s === "notes:read"),
    `outcome ${outcome?.message ?? JSON.stringify(outcome)}, token requests ${JSON.stringify(plain.tokenRequests)} ` +
      "(if the SDK now steps up by itself, drop the hooks)");
} catch (err) {
  failures.push(`exception without the hooks: ${err?.stack ?? err}`);
  console.log(`  ✗ ${err?.stack ?? err}`);
} finally {
  await plainClient.close().catch(() => {});
}

console.log(`TypeScript SDK step-up: ${passed} passed, ${failures.length} failed`);
process.exit(failures.length ? 1 : 0);
