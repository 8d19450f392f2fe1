// The vault adapter: everything the plugin reads and writes goes through Obsidian's Vault,
// MetadataCache and Workspace APIs here. The core (wasm) decides what is an annotation note, how a
// result is named and what it says; this file only feeds it.

import { type App, normalizePath, TFile, TFolder } from "obsidian";
import type { Core, CoreSettings, LinkRef, NoteInfo, NoteInput, SetupReport } from "./core";

/** Rounds of `loadSetup` at most: settings, templates, the templates they include, and so on. */
const SETUP_ROUNDS = 8;

/** An annotation note as the picker lists it. */
export interface Candidate {
	file: TFile;
	info: NoteInfo;
}

export class VaultAdapter {
	constructor(private readonly app: App) {}

	/** The note's text, from Obsidian's cache when it has it. */
	read(file: TFile): Promise<string> {
		return this.app.vault.cachedRead(file);
	}

	/** The note as the renderer needs it: the link text written to it resolves back to it. */
	async noteInput(file: TFile): Promise<NoteInput> {
		return { text: await this.read(file), path: file.path, link: this.linkTo(file) };
	}

	/** The shortest link text that Obsidian resolves to `file` from anywhere in the vault. */
	linkTo(file: TFile): string {
		const cache = this.app.metadataCache;
		const short = cache.fileToLinktext(file, "", true);
		if (cache.getFirstLinkpathDest(short, "") === file) return short;
		return file.path.replace(/\.md$/iu, "");
	}

	/** Markdown files under `folder` ("" = the whole vault), sorted by path. */
	markdownFiles(folder: string): TFile[] {
		const prefix = folder === "" ? "" : `${normalizePath(folder)}/`;
		return this.app.vault
			.getMarkdownFiles()
			.filter((f) => f.path.startsWith(prefix))
			.sort((a, b) => a.path.localeCompare(b.path));
	}

	/**
	 * Hands the core the files its setup reads (Zotero Integration's and ZotLit's settings, the
	 * templates they name), round after round until it needs nothing more; returns its report.
	 */
	async loadSetup(core: Core): Promise<SetupReport> {
		const files: Record<string, string | null> = {};
		const configDir = this.app.vault.configDir;
		let round = core.loadSetup(files, configDir);
		for (let n = 1; n < SETUP_ROUNDS && round.needs.length > 0; n++) {
			// The whole vault (`/`: templates kept as notes) only once nothing else is asked for.
			const needs = round.needs.some((p) => p !== "/") ? round.needs.filter((p) => p !== "/") : round.needs;
			for (const need of needs) await this.handOver(need, files);
			round = core.loadSetup(files, configDir);
		}
		return round.report;
	}

	/** Reads what the core asked for into `files`: a file's text (`null`: none), or a folder's notes. */
	private async handOver(need: string, files: Record<string, string | null>): Promise<void> {
		if (need.endsWith("/")) {
			files[need] = "";
			const prefix = need === "/" ? "" : need;
			for (const file of this.markdownFiles(prefix === "" ? "" : prefix.slice(0, -1))) {
				const text = await this.read(file);
				// Of the whole vault, only notes that may be templates (an annotation loop) are handed over.
				if (need !== "/" || text.includes("annotatedText")) files[file.path] = text;
			}
			return;
		}
		if (need.startsWith(`${this.app.vault.configDir}/`)) {
			// The settings folder is not in Obsidian's file index: read it through the adapter.
			const adapter = this.app.vault.adapter;
			files[need] = (await adapter.exists(need)) ? await adapter.read(need) : null;
			return;
		}
		const file = this.app.vault.getFileByPath(need);
		files[need] = file === null ? null : await this.read(file);
	}

	/** Annotation notes under `folder`, as the core recognises them. */
	async annotationNotes(folder: string, core: Core, settings: CoreSettings): Promise<Candidate[]> {
		const out: Candidate[] = [];
		for (const file of this.markdownFiles(folder)) {
			const info = core.describeNote(await this.read(file), file.path, settings);
			if (info.isAnnotation) {
				// Tags from Obsidian's cache include inline tags the parser leaves to Obsidian.
				const fm: unknown = this.app.metadataCache.getFileCache(file)?.frontmatter?.tags;
				if (info.tags.length === 0 && Array.isArray(fm)) info.tags = fm.map(String);
				out.push({ file, info });
			}
		}
		return out;
	}

	/** The notes the links point to, resolved as Obsidian resolves them from `sourcePath`. */
	linkedFiles(links: LinkRef[], sourcePath: string): TFile[] {
		const out: TFile[] = [];
		for (const link of links) {
			const file = this.app.metadataCache.getFirstLinkpathDest(link.target, sourcePath);
			if (file instanceof TFile && file.extension === "md" && !out.includes(file)) out.push(file);
		}
		return out;
	}

	/** Paths of the files in `folder`, for naming without overwriting. */
	existingPaths(folder: string): string[] {
		const node = folder === "" ? this.app.vault.getRoot() : this.app.vault.getAbstractFileByPath(folder);
		if (!(node instanceof TFolder)) return [];
		return node.children.map((child) => child.path);
	}

	/** Creates a new note (and its folder). Never overwrites: `vault.create` fails on an existing path. */
	async create(path: string, text: string): Promise<TFile> {
		const folder = path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : "";
		if (folder !== "" && !(this.app.vault.getAbstractFileByPath(folder) instanceof TFolder)) {
			await this.app.vault.createFolder(folder);
		}
		return this.app.vault.create(path, text);
	}

	async open(file: TFile): Promise<void> {
		await this.app.workspace.getLeaf(false).openFile(file);
	}
}
