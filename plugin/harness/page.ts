// The browser harness: an in-memory vault and enough of Obsidian's window around it (file
// explorer with multi-selection, command palette, ribbon, note view, notices, settings) to run the
// real built main.js as Obsidian would: `require("obsidian")`, `module.exports.default`, onload.

import * as obsidian from "./obsidian";
import { App, Modal, Notice, Plugin, TFile } from "./obsidian";

interface Loaded {
	plugin: Plugin & { settings: Record<string, unknown>; onload(): Promise<void> };
	onloadMillis: number;
}

const app = new App();
let loaded: Loaded | null = null;

function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls: string, text?: string): HTMLElementTagNameMap[K] {
	const node = document.createElement(tag);
	node.className = cls;
	if (text !== undefined) node.textContent = text;
	return node;
}

const ui = {
	ribbon: document.getElementById("ribbon")!,
	explorer: document.getElementById("explorer")!,
	view: document.getElementById("view")!,
	palette: document.getElementById("palette")!,
	notices: document.getElementById("notices")!,
	settings: document.getElementById("settings")!,
};

Notice.onShow = (notice) => {
	const item = el("div", "notice", notice.message);
	ui.notices.prepend(item);
};

function renderExplorer(): void {
	ui.explorer.replaceChildren();
	const selected = new Set<TFile>();
	const view = app.workspace.explorer.view as { tree: { selectedDoms: Set<{ file: TFile }> } };
	for (const item of view.tree.selectedDoms) selected.add(item.file);
	for (const file of app.vault.getFiles().sort((a, b) => a.path.localeCompare(b.path))) {
		const row = el("label", "nav-file");
		const box = document.createElement("input");
		box.type = "checkbox";
		box.checked = selected.has(file);
		box.dataset.path = file.path;
		box.addEventListener("change", () => {
			const now = [...app.vault.getFiles()].filter((f) =>
				f === file ? box.checked : selected.has(f),
			);
			app.workspace.select(now);
			renderExplorer();
		});
		const name = el("span", "nav-file-title", file.path);
		name.addEventListener("click", (event) => {
			event.preventDefault();
			void app.workspace.getLeaf().openFile(file);
		});
		row.append(box, name);
		if (file === app.workspace.getActiveFile()) row.classList.add("is-active");
		ui.explorer.append(row);
	}
}

async function renderView(): Promise<void> {
	const file = app.workspace.getActiveFile();
	ui.view.replaceChildren();
	if (!file) return;
	ui.view.append(el("div", "view-header", file.path), el("pre", "view-content", await app.vault.read(file)));
}

app.vault.on("create", () => renderExplorer());
app.workspace.on("file-open", () => {
	renderExplorer();
	void renderView();
});

/** Loads main.js as Obsidian does and enables the plugin; returns how long onload took. */
async function enable(source: string): Promise<number> {
	const module = { exports: {} as Record<string, unknown> };
	const require = (name: string): unknown => {
		if (name === "obsidian") return obsidian;
		throw new Error(`main.js asked for ${name}, which a plugin cannot require in the browser`);
	};
	new Function("require", "module", "exports", source)(require, module, module.exports);
	const PluginClass = module.exports.default as new (app: App, manifest: object) => Loaded["plugin"];
	const plugin = new PluginClass(app, { id: "scholia", name: "Scholia", version: "0.1.0" });
	const start = performance.now();
	await plugin.onload();
	const onloadMillis = performance.now() - start;
	loaded = { plugin, onloadMillis };
	for (const ribbon of (plugin as unknown as { ribbon: { icon: string; title: string; callback: () => void }[] }).ribbon) {
		const button = el("button", "side-dock-ribbon-action", ribbon.icon);
		button.setAttribute("aria-label", ribbon.title);
		button.addEventListener("click", () => ribbon.callback());
		ui.ribbon.append(button);
	}
	for (const command of plugin.commands) {
		const button = el("button", "palette-command", command.name);
		button.dataset.id = command.id;
		button.addEventListener("click", () => plugin.runCommand(command.id));
		ui.palette.append(button);
	}
	app.workspace.layoutIsReady();
	return onloadMillis;
}

function openSettings(): void {
	const tab = loaded?.plugin.settingTabs[0];
	if (!tab) return;
	ui.settings.replaceChildren(tab.containerEl);
	tab.display();
}

const harness = {
	app,
	enable,
	openSettings,
	/** Adds a note as another plugin (Zotero Integration) would. */
	addNote(path: string, text: string): void {
		const file = app.vault.put(path, text);
		app.vault.trigger("create", file);
	},
	open(path: string): Promise<void> {
		const file = app.vault.getFileByPath(path);
		if (!file) throw new Error(`no note ${path}`);
		return app.workspace.getLeaf().openFile(file);
	},
	writes: () => app.vault.writes,
	notices: () => [...Notice.shown],
	modalOpen: () => Modal.open.length,
	plugin: () => loaded?.plugin ?? null,
	/** Times one call, in milliseconds. */
	async time(job: () => Promise<unknown>): Promise<number> {
		const start = performance.now();
		await job();
		return performance.now() - start;
	},
};

(window as unknown as { harness: typeof harness }).harness = harness;
renderExplorer();
