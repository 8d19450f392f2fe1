// Test vaults: the bundled example vault's annotation notes (real Zotero Integration exports) in
// an in-memory stand-in vault, and the plugin enabled on it.
import { readdirSync, readFileSync } from "node:fs";
import { App, Notice, TFile } from "../harness/obsidian";
import ScholiaPlugin from "../src/main";

const EXAMPLE = new URL("../../examples/vault/", import.meta.url);

/** The example vault's notes under `folder`, by vault path. */
export function exampleNotes(folder = "References"): Record<string, string> {
	const out: Record<string, string> = {};
	for (const name of readdirSync(new URL(`${folder}/`, EXAMPLE)).sort()) {
		if (name.endsWith(".md")) out[`${folder}/${name}`] = readFileSync(new URL(`${folder}/${name}`, EXAMPLE), "utf8");
	}
	return out;
}

export async function enable(notes: Record<string, string>, data: unknown = null) {
	const app = new App();
	for (const [path, text] of Object.entries(notes)) app.vault.put(path, text);
	const plugin = new ScholiaPlugin(app as never, { id: "scholia", name: "Scholia", version: "0.1.0" } as never);
	(plugin as unknown as { data: unknown }).data = data;
	await plugin.onload();
	Notice.shown.length = 0;
	return { app, plugin, vault: app.vault, file: (path: string) => { const f = app.vault.getFileByPath(path); if (!(f instanceof TFile)) throw new Error(`no file ${path}`); return f; } };
}
