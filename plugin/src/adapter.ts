// The vault adapter: everything the plugin reads and writes goes through Obsidian's Vault,
// MetadataCache and Workspace APIs here. The core (wasm) decides what is an annotation note, how a
// result is named and what it says; this file only feeds it.

import { type App, normalizePath, TFile, TFolder } from "obsidian";
import type { Core, CoreSettings, LinkRef, NoteInfo, NoteInput } from "./core";

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
