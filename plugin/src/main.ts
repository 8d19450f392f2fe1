// Scholia for Obsidian: summaries and syntheses of Zotero annotation notes, rendered by the Rust
// core (compiled to wasm, inlined in main.js, loaded on first use).

import { Notice, Plugin, TFile } from "obsidian";
import { type Context, type Outcome, summarizeFile, synthesizeFiles } from "./actions";
import { VaultAdapter } from "./adapter";
import { type Core, loadCore, loadMillis, type SetupReport } from "./core";
import { PickerModal } from "./picker";
import { editorSelection, explorerSelection } from "./selection";
import { coreSettings, type ScholiaSettings, ScholiaSettingTab, withDefaults } from "./settings";

/** The report of a setup that could not be read. */
const EMPTY_SETUP: SetupReport = {
	plugin_settings: null,
	output_paths: [],
	templates: [],
	problems: [],
	zotlit_settings: null,
	colour_labels: [],
};

export default class ScholiaPlugin extends Plugin {
	settings!: ScholiaSettings;
	private adapter!: VaultAdapter;
	private setup: Promise<SetupReport> | null = null;

	async onload(): Promise<void> {
		this.settings = withDefaults(await this.loadData());
		this.adapter = new VaultAdapter(this.app);

		this.addRibbonIcon("book-open-check", "Summarize current note", () => {
			void this.summarizeActive();
		});
		this.addCommand({
			id: "synthesize-selected",
			name: "Synthesize selected",
			callback: () => {
				void this.synthesizeSelected();
			},
		});
		this.addCommand({
			id: "summarize-current-note",
			name: "Summarize current note",
			checkCallback: (checking) => {
				const file = this.app.workspace.getActiveFile();
				if (!(file instanceof TFile) || file.extension !== "md") return false;
				if (!checking) void this.summarize(file);
				return true;
			},
		});
		this.registerEvent(
			this.app.workspace.on("files-menu", (menu, files) => {
				const notes = files.filter((f): f is TFile => f instanceof TFile && f.extension === "md");
				if (notes.length === 0) return;
				menu.addItem((item) =>
					item
						.setTitle(`Synthesize ${notes.length} ${notes.length === 1 ? "note" : "notes"}`)
						.setIcon("book-open-check")
						.onClick(() => {
							void this.synthesize(notes);
						}),
				);
			}),
		);
		this.registerEvent(
			this.app.workspace.on("file-menu", (menu, file) => {
				if (!(file instanceof TFile) || file.extension !== "md") return;
				menu.addItem((item) =>
					item
						.setTitle("Summarize note")
						.setIcon("book-open-check")
						.onClick(() => {
							void this.summarize(file);
						}),
				);
			}),
		);
		this.addSettingTab(
			new ScholiaSettingTab(this.app, this, {
				settings: this.settings,
				save: () => this.saveData(this.settings),
				core: () => this.core(),
				zoteroSetup: async () => this.zoteroSetup(await this.core(), true),
			}),
		);
		// Compile the core in the background once Obsidian has laid out, so the first command is quick.
		this.app.workspace.onLayoutReady(() => {
			this.core().catch(() => {
				// Reported when a command needs it.
			});
		});
	}

	/** How long loading the engine took, in milliseconds (in all and each step); 0 before. */
	engineLoadMillis(): typeof loadMillis {
		return { ...loadMillis };
	}

	/** The core, loaded once, with the vault's Zotero setup; a Notice says what to do when it cannot load. */
	async core(): Promise<Core> {
		let core: Core;
		try {
			core = await loadCore();
		} catch (error) {
			new Notice(`Scholia could not load its engine (${String(error)}); reload the plugin or update Obsidian.`);
			throw error;
		}
		await this.zoteroSetup(core, false);
		return core;
	}

	/**
	 * The vault's Zotero setup (Zotero Integration's and ZotLit's settings and templates) handed to
	 * the core: read on first use, and again when `fresh` (the settings tab opens). A setup that
	 * cannot be read leaves the built-in rules, and says why.
	 */
	async zoteroSetup(core: Core, fresh: boolean): Promise<SetupReport> {
		if (fresh || this.setup === null) {
			this.setup = this.adapter.loadSetup(core).catch((error: unknown) => {
				new Notice(`Scholia could not read the Zotero templates (${String(error)}); notes are read with the built-in rules.`);
				this.setup = null;
				return { ...EMPTY_SETUP, problems: [String(error)] };
			});
		}
		return this.setup;
	}

	private context(): Context {
		return { adapter: this.adapter, core: () => this.core(), settings: this.settings };
	}

	/** "Synthesize selected": the explorer's selection, else the editor selection's links, else the picker. */
	async synthesizeSelected(): Promise<Outcome | null> {
		const selected = explorerSelection(this.app);
		if (selected.length > 0) return this.synthesize(selected);
		const core = await this.core();
		const linked = editorSelection(this.app, this.adapter, core);
		if (linked.length > 0) return this.synthesize(linked);
		const settings = coreSettings(this.settings, "", "");
		const candidates = await this.adapter.annotationNotes(this.settings.annotationsFolder, core, settings);
		new PickerModal(this.app, candidates, (files) => {
			void this.synthesize(files);
		}).open();
		return null;
	}

	async synthesize(files: TFile[]): Promise<Outcome | null> {
		return this.guard(() => synthesizeFiles(this.context(), files));
	}

	async summarize(file: TFile): Promise<Outcome | null> {
		return this.guard(() => summarizeFile(this.context(), file));
	}

	async summarizeActive(): Promise<Outcome | null> {
		const file = this.app.workspace.getActiveFile();
		if (!(file instanceof TFile) || file.extension !== "md") {
			new Notice("Open an annotation note first, then summarize it.");
			return null;
		}
		return this.summarize(file);
	}

	/** Runs a job; an unexpected failure becomes a Notice instead of a silent console error. */
	private async guard(job: () => Promise<Outcome>): Promise<Outcome | null> {
		try {
			return await job();
		} catch (error) {
			new Notice(`Scholia: ${error instanceof Error ? error.message : String(error)}`);
			console.error("Scholia", error);
			return null;
		}
	}
}
