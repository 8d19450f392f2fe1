// The MCP Inspector's CLI (npm @modelcontextprotocol/inspector, on Node 22) against `scholia mcp`
// over stdio, as a user checks a server: list the tools, prompts and resources, call tools, get a
// prompt, read a note. Each check runs the inspector once and reads the JSON it prints.
// Env: SCHOLIA_BIN (the built binary), VAULT (a copy of the example vault), NODE22 (a Node >= 22).
import { execFileSync } from "node:child_process";
import assert from "node:assert/strict";

const { SCHOLIA_BIN: bin, VAULT: vault, NODE22: node22 } = process.env;
if (!bin || !vault || !node22) {
  throw new Error("set SCHOLIA_BIN, VAULT and NODE22");
}

// The inspector exits non-zero when a tool answers with an error, and still prints the answer.
function inspect(...args) {
  let out;
  try {
    out = execFileSync(
      node22,
      ["node_modules/.bin/mcp-inspector", "--cli", bin, "mcp", "--vault", vault, ...args],
      { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 60_000 },
    );
  } catch (e) {
    if (!e.stdout || !e.stderr.includes("tool_is_error")) throw e;
    out = e.stdout;
  }
  return JSON.parse(out);
}

let passed = 0;
function check(name, run) {
  run();
  passed += 1;
  console.log(`ok - ${name}`);
}

check("tools/list: every tool, each with a schema and annotations", () => {
  const { tools } = inspect("--method", "tools/list");
  assert.ok(tools.length >= 39, `${tools.length} tools`);
  for (const tool of tools) {
    assert.equal(tool.inputSchema.type, "object", tool.name);
    assert.equal(tool.annotations.openWorldHint, false, tool.name);
  }
  const names = tools.map((t) => t.name);
  for (const name of ["obsidian_read_annotations", "search_vault", "obsidian_synthesize", "find_related_notes"]) {
    assert.ok(names.includes(name), name);
  }
});

check("tools/call obsidian_read_annotations with a Zotero colour name", () => {
  const answer = inspect(
    "--method", "tools/call", "--tool-name", "obsidian_read_annotations",
    "--tool-arg", "citekey=moreau2024ragsurvey", "--tool-arg", 'colors=["green"]',
  );
  assert.equal(answer.isError, false);
  const colors = answer.structuredContent.annotations.map((a) => a.color);
  assert.deepEqual(colors, ["positive", "positive"]);
});

check("tools/call search_vault finds a paper by its title words", () => {
  const answer = inspect("--method", "tools/call", "--tool-name", "search_vault", "--tool-arg", "query=stale benchmarks");
  assert.equal(answer.structuredContent.results[0].path, "References/@brandt2024benchmarks.md");
});

check("tools/call create_note writes and lists the link that opens nothing", () => {
  const answer = inspect(
    "--method", "tools/call", "--tool-name", "create_note",
    "--tool-arg", "path=Inbox/From the inspector.md",
    "--tool-arg", "content=See [[@brandt2024benchmarks]] and [[No such note]].",
  );
  assert.equal(answer.structuredContent.path, "Inbox/From the inspector.md");
  assert.deepEqual(answer.structuredContent.unresolved_links.map((l) => l.target), ["No such note"]);
});

check("tools/call with a bad argument is a tool error that says what to do", () => {
  const answer = inspect("--method", "tools/call", "--tool-name", "get_note_content", "--tool-arg", "path=../outside.md");
  assert.equal(answer.isError, true);
  assert.match(answer.content[0].text, /vault/);
});

check("prompts/get summarize guides read then write", () => {
  const { prompts } = inspect("--method", "prompts/list");
  assert.deepEqual(prompts.map((p) => p.name).sort(), ["summarize", "synthesize"]);
  const prompt = inspect("--method", "prompts/get", "--prompt-name", "summarize", "--prompt-args", "citekey=brandt2024benchmarks");
  const text = prompt.messages.map((m) => m.content.text).join("\n");
  assert.match(text, /obsidian_read_annotations/);
});

check("resources: notes listed, a template for paths, a note read", () => {
  const { resources } = inspect("--method", "resources/list");
  assert.ok(resources.length > 10, `${resources.length} resources`);
  const { resourceTemplates } = inspect("--method", "resources/templates/list");
  assert.ok(resourceTemplates.some((t) => t.uriTemplate.includes("{path}")));
  const note = resources.find((r) => r.uri.includes("brandt2024benchmarks"));
  const read = inspect("--method", "resources/read", "--uri", note.uri);
  assert.match(read.contents[0].text, /citekey: brandt2024benchmarks/);
});

console.log(`${passed} passed`);
