// The TypeScript SDK client (@modelcontextprotocol/sdk, Streamable HTTP)
// against an embedmcp server: connect, list tools, call echo (structured
// content), call the error tool (isError). Exits 1 on any mismatch, 2 on
// bad usage.
//
//   node client.mjs http://127.0.0.1:PORT/mcp
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const url = process.argv[2];
if (!url) {
  console.error("usage: node client.mjs <server url>");
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

const client = new Client({ name: "embedmcp-ts-client", version: "1.0.0" });
const transport = new StreamableHTTPClientTransport(new URL(url));
try {
  await client.connect(transport);
  const version = transport.protocolVersion;
  check("connect (initialize + initialized)", client.getServerVersion()?.name === "embedmcp-conformance",
    `serverInfo ${JSON.stringify(client.getServerVersion())}`);
  console.log(`    negotiated protocol version ${version}`);

  const { tools } = await client.listTools();
  const echo = tools.find((t) => t.name === "echo");
  check("tools/list has echo with input and output schemas",
    echo && echo.inputSchema?.type === "object" && echo.outputSchema?.properties?.text?.type === "string",
    JSON.stringify(echo));
  check("tools/list has test_error_handling", tools.some((t) => t.name === "test_error_handling"),
    tools.map((t) => t.name).join(", "));

  const text = "héllo, wörld \u2713";
  const res = await client.callTool({ name: "echo", arguments: { text } });
  check("echo: structuredContent.text round-trips", res.structuredContent?.text === text,
    JSON.stringify(res));
  check("echo: isError is not set", res.isError !== true, JSON.stringify(res));
  check("echo: text content carries the JSON copy",
    res.content?.[0]?.type === "text" && JSON.parse(res.content[0].text).text === text, JSON.stringify(res.content));

  const bad = await client.callTool({ name: "test_error_handling", arguments: {} });
  check("test_error_handling: isError is true", bad.isError === true, JSON.stringify(bad));
  check("test_error_handling: error text", /intentionally returns an error/.test(bad.content?.[0]?.text ?? ""),
    JSON.stringify(bad.content));

  // 2025-11-25 (SEP-1303): invalid arguments are a tool error the model
  // can correct, not a JSON-RPC error.
  let wrong;
  try {
    wrong = await client.callTool({ name: "echo", arguments: { text: 42 } });
  } catch (e) {
    wrong = { threw: String(e) };
  }
  check("echo with a number: invalid arguments reported as isError",
    wrong.isError === true && /text/.test(wrong.content?.[0]?.text ?? ""), JSON.stringify(wrong));
} catch (e) {
  failures.push("unexpected exception");
  console.log(`  ✗ unexpected exception: ${e?.stack ?? e}`);
} finally {
  await client.close().catch(() => {});
}

console.log(`TS SDK client: ${passed} passed, ${failures.length} failed`);
process.exit(failures.length ? 1 : 0);
