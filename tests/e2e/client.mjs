// End to end: the official TypeScript SDK client drives the built `scholia mcp` binary over stdio
// and over streamable HTTP (with and without the bearer token), as an agent's client would.
// Usage: SCHOLIA_BIN=/path/to/scholia VAULT=/path/to/copy/of/vault node client.mjs
import { spawn } from "node:child_process";
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

const bin = process.env.SCHOLIA_BIN;
const vault = process.env.VAULT;
if (!bin || !vault) {
  console.error("set SCHOLIA_BIN and VAULT");
  process.exit(2);
}

let passed = 0;
let failed = 0;
async function check(name, fn) {
  try {
    await fn();
    passed++;
    console.log(`ok   ${name}`);
  } catch (err) {
    failed++;
    console.log(`FAIL ${name}: ${err?.message ?? err}`);
  }
}
function assert(cond, message) {
  if (!cond) throw new Error(message);
}

const TOOLS = [
  "obsidian_read_annotations", "obsidian_write_note", "obsidian_list_annotation_files", "obsidian_search",
  "search_vault", "get_note_metadata", "get_note_content", "create_note", "append_to_note", "patch_note",
  "daily_note_append", "obsidian_summarize", "obsidian_synthesize",
  "obsidian_list_files", "obsidian_get_properties", "obsidian_manage_frontmatter", "obsidian_get_tags",
  "obsidian_read_file", "obsidian_update_file", "obsidian_delete_file", "obsidian_move_file",
  "obsidian_update_properties", "obsidian_manage_tags", "obsidian_get_periodic_note",
  "obsidian_delete_periodic_note", "obsidian_check_status", "read_note", "update_note", "delete_note",
  "list_notes", "obsidian_global_search", "text_search", "tag_search", "metadata_search",
  "find_related_notes", "validate_vault", "get_vault_stats", "get_roots", "rebuild_index",
];

// One call of every tool, in an order where each call's note exists, with what its answer must hold.
// `L` is the run's label, so the stdio and HTTP runs (same vault) use their own notes.
function everyCall(L) {
  const dir = `E2E ${L}/Every`;
  const log = `${dir}/Log ${L}.md`;
  const paper = "References/@weber2022seeds.md";
  return [
    ["create_note", { path: log, content: "# Log\n\n## Done\n- first\n" }, (r) => r.path === log],
    ["append_to_note", { path: log, content: "- appended" }, (r) => r.success],
    ["patch_note", { path: log, operation: "append", targetType: "heading", target: "Done", content: "- patched" }, (r) => r.success],
    ["obsidian_write_note", { path: `${dir}/Written.md`, content: "Body", frontmatter: { type: "note" } }, (r) => r.file_path?.endsWith("Written.md")],
    ["obsidian_list_annotation_files", {}, (r) => JSON.stringify(r).includes("weber2022seeds")],
    ["obsidian_search", { query: "leaderboard" }, (r) => JSON.stringify(r).includes("@weber2022seeds.md")],
    ["get_note_metadata", { path: paper }, (r) => r.frontmatter?.citekey === "weber2022seeds"],
    ["get_note_content", { path: paper }, (r) => r.content.length > 100],
    ["daily_note_append", { content: `- e2e ${L}`, year: 2024, month: 6, day: 13 }, (r) => r.success],
    ["obsidian_summarize", { citekey: "weber2022seeds", overwrite: true, confirm: true }, (r) => typeof r.path === "string"],
    ["obsidian_list_files", { dirPath: "" }, (r) => JSON.stringify(r).includes("References/")],
    ["obsidian_get_properties", { filepath: paper }, (r) => JSON.stringify(r).includes("weber2022seeds")],
    ["obsidian_manage_frontmatter", { filePath: log, operation: "set", key: "status", value: "done" }, (r) => r.success],
    ["obsidian_update_properties", { filepath: log, properties: { tags: ["e2e"] } }, (r) => r.success],
    ["obsidian_manage_tags", { filePath: log, operation: "add", tags: ["e2e/more"] }, (r) => r.success],
    ["obsidian_get_tags", {}, (r) => JSON.stringify(r).includes("reproducibility")],
    ["obsidian_read_file", { filePath: `[[Log ${L}]]`, format: "json" }, (r) => r.content.includes("- patched") && r.frontmatter.status === "done"],
    ["obsidian_update_file", { targetType: "filePath", targetIdentifier: log, modificationType: "patch", patchOperation: "append", patchTargetType: "heading", patchTarget: "Log::Done", content: "- via update_file\n" }, (r) => r.success],
    ["obsidian_get_periodic_note", { period: "daily", date: "2024-06-12" }, (r) => r.success],
    ["obsidian_delete_periodic_note", { period: "daily", date: "2024-06-13", confirm: true }, (r) => r.success],
    ["obsidian_check_status", {}, (r) => r.service === "scholia"],
    ["read_note", { note: "[[@weber2022seeds]]" }, (r) => r.path === paper],
    ["update_note", { note: `Log ${L}`, content: "- by name", mode: "append" }, (r) => r.success],
    ["list_notes", { folder: "References" }, (r) => JSON.stringify(r).includes("@weber2022seeds.md")],
    ["obsidian_global_search", { query: "/seeds? variance/i" }, (r) => JSON.stringify(r).includes("@weber2022seeds.md")],
    ["text_search", { query: "seed variance" }, (r) => JSON.stringify(r).includes("@weber2022seeds.md")],
    ["tag_search", { tags: ["reproducibility", "variance"] }, (r) => JSON.stringify(r).includes("@weber2022seeds.md")],
    ["metadata_search", { where: { citekey: "weber2022seeds" } }, (r) => JSON.stringify(r).includes("@weber2022seeds.md")],
    ["find_related_notes", { path: "[[@weber2022seeds]]" }, (r) => Array.isArray(r.related)],
    ["validate_vault", {}, (r) => r.success],
    ["get_vault_stats", {}, (r) => r.success],
    ["get_roots", {}, (r) => JSON.stringify(r).includes("References")],
    ["rebuild_index", { confirm: true }, (r) => r.success],
    ["obsidian_delete_file", { filePath: `${dir}/Written.md`, confirm: true }, (r) => r.success],
    ["delete_note", { note: `Log ${L}`, confirm: true }, (r) => r.success],
  ];
}

async function exercise(client, label) {
  await check(`${label}: lists every tool with schemas`, async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const t of TOOLS) assert(names.includes(t), `${t} missing`);
    for (const t of tools) assert(t.inputSchema?.type === "object", `${t.name} has no input schema`);
  });
  await check(`${label}: reads annotations by citekey`, async () => {
    const r = await client.callTool({ name: "obsidian_read_annotations", arguments: { citekey: "moreau2024ragsurvey", colors: ["positive"] } });
    assert(!r.isError, JSON.stringify(r.content));
    assert(r.structuredContent.annotations.length === 2, "two positive annotations expected");
    assert(r.structuredContent.success === true, "success flag");
  });
  await check(`${label}: ranked search finds the paper first`, async () => {
    const r = await client.callTool({ name: "search_vault", arguments: { query: "seed variance leaderboards", folder: "References" } });
    assert(r.structuredContent.results[0].path === "References/@weber2022seeds.md", JSON.stringify(r.structuredContent.results[0]));
  });
  await check(`${label}: refuses a path out of the vault`, async () => {
    const r = await client.callTool({ name: "create_note", arguments: { path: "../escape.md", content: "x" } });
    assert(r.isError === true, "escape accepted");
  });
  await check(`${label}: writes a synthesis`, async () => {
    const r = await client.callTool({ name: "obsidian_synthesize", arguments: { citekeys: ["kim2020spacing", "haddad2022adaptive"], date: "2024-06-01" } });
    assert(!r.isError, JSON.stringify(r.content));
    assert(r.structuredContent.path.startsWith("Synthesis/"), r.structuredContent.path);
  });
  await check(`${label}: moves a note and rewrites the links to it`, async () => {
    const call = async (name, args) => {
      const r = await client.callTool({ name, arguments: args });
      assert(!r.isError, `${name}: ${JSON.stringify(r.content)}`);
      return r.structuredContent;
    };
    await call("create_note", { path: `E2E ${label}/Target ${label}.md`, content: "# Target\n\n## Part\n" });
    await call("create_note", { path: `E2E ${label}/Linker.md`, content: `See [[Target ${label}#Part|the part]].\n` });
    const moved = await call("obsidian_move_file", { filePath: `[[Target ${label}]]`, newPath: `E2E ${label}/Archive/Moved ${label}.md`, confirm: true });
    assert(moved.path === `E2E ${label}/Archive/Moved ${label}.md`, JSON.stringify(moved));
    const linker = await call("obsidian_read_file", { filePath: `E2E ${label}/Linker.md`, format: "json" });
    assert(linker.content.includes(`[[Moved ${label}#Part|the part]]`), linker.content);
    const stale = await client.callTool({ name: "obsidian_update_file", arguments: {
      targetType: "filePath", targetIdentifier: `E2E ${label}/Linker.md`, modificationType: "wholeFile",
      wholeFileMode: "append", content: "more\n", ifMatch: "0000000000000000" } });
    assert(stale.isError === true, "a stale ifMatch was accepted");
    await call("obsidian_update_file", {
      targetType: "filePath", targetIdentifier: `E2E ${label}/Linker.md`, modificationType: "wholeFile",
      wholeFileMode: "append", content: "more\n", ifMatch: linker.hash });
  });
  await check(`${label}: calls every tool once`, async () => {
    const calls = everyCall(label);
    const called = new Set(calls.map(([name]) => name));
    for (const t of TOOLS) {
      assert(called.has(t) || ["obsidian_read_annotations", "search_vault", "obsidian_move_file", "obsidian_synthesize"].includes(t), `no call of ${t}`);
    }
    for (const [name, args, holds] of calls) {
      const r = await client.callTool({ name, arguments: args });
      assert(!r.isError, `${name}: ${JSON.stringify(r.content)}`);
      assert(r.structuredContent?.status !== undefined, `${name}: no status`);
      assert(holds(r.structuredContent), `${name}: unexpected answer ${JSON.stringify(r.structuredContent).slice(0, 400)}`);
    }
  });
  await check(`${label}: prompts and resources`, async () => {
    const { prompts } = await client.listPrompts();
    assert(prompts.some((p) => p.name === "synthesize"), "synthesize prompt missing");
    const { resources } = await client.listResources();
    assert(resources.length > 10, "resources missing");
    const read = await client.readResource({ uri: resources[0].uri });
    assert(read.contents[0].text.length > 0, "empty resource");
  });
}

// A note edited on disk, outside the server, while the client follows it.
async function subscription(client, label) {
  await check(`${label}: a subscribed note edited on disk is notified`, async () => {
    assert(client.getServerCapabilities()?.resources?.subscribe === true, "resources.subscribe not advertised");
    const path = `E2E ${label}/Followed.md`;
    const made = await client.callTool({ name: "create_note", arguments: { path, content: "# Followed\n" } });
    assert(!made.isError, JSON.stringify(made.content));
    const { resources } = await client.listResources();
    const uri = resources.find((r) => decodeURIComponent(r.uri) === `scholia://note/${path}`)?.uri;
    assert(uri, `${path} is not among the resources`);
    const updated = new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("no notifications/resources/updated within 20 s")), 20000);
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
        if (n.params.uri === uri) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    await client.subscribeResource({ uri });
    appendFileSync(join(vault, path), "Edited outside the server.\n");
    await updated;
    await client.unsubscribeResource({ uri });
  });
}

// stdio
{
  const client = new Client({ name: "scholia-e2e", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command: bin, args: ["mcp", "--vault", vault], stderr: "ignore" }));
  await check("stdio: server info", async () => assert(client.getServerVersion()?.name === "scholia", "server name"));
  await exercise(client, "stdio");
  await subscription(client, "stdio");
  await client.close();
}

// streamable HTTP
const server = spawn(bin, ["mcp", "--vault", vault, "--http", "127.0.0.1:0"], {
  env: { ...process.env, SCHOLIA_TOKEN: "e2e-token" },
  stdio: ["ignore", "ignore", "pipe"],
});
const url = await new Promise((resolve, reject) => {
  let buffer = "";
  server.stderr.on("data", (chunk) => {
    buffer += chunk;
    const m = buffer.match(/(http:\/\/[^ ]+\/mcp)/);
    if (m) resolve(m[1]);
  });
  server.on("exit", () => reject(new Error("server exited")));
  setTimeout(() => reject(new Error("server did not start")), 10000);
});
try {
  const client = new Client({ name: "scholia-e2e-http", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: "Bearer e2e-token" } } }));
  await exercise(client, "http");
  await subscription(client, "http");
  await client.close();
  await check("http: refused without the token", async () => {
    const anonymous = new Client({ name: "no-token", version: "1.0.0" });
    let refused = false;
    try {
      await anonymous.connect(new StreamableHTTPClientTransport(new URL(url)));
    } catch {
      refused = true;
    }
    assert(refused, "connected without a token");
  });
} finally {
  server.kill();
}

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
