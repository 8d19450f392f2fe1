// The Rust core, compiled to wasm and inlined into main.js (gzip-compressed): loaded once, on first
// use, off the plugin's load path. Every call here is a typed wrapper over `pkg/scholia.js`.

import init, * as wasm from "../../pkg/scholia.js";
import wasmImport from "../../pkg/scholia_bg.wasm";

// esbuild inlines the gzip of the wasm as bytes (esbuild.config.mjs); wasm-bindgen's own .d.ts for
// the file describes its exports instead, hence the cast.
const compressedWasm = wasmImport as unknown as Uint8Array<ArrayBuffer>;

/** Settings as the core reads them (see `src/wasm.rs`). */
export interface CoreSettings {
	colors?: { entries: ColorEntry[] };
	prefixes?: { entries: PrefixEntry[] };
	titles?: Record<string, string>;
	date?: string;
	nameDate?: string;
	theme?: string;
	annotationsFolder?: string;
	synthesisFolder?: string;
	summaryPattern?: string;
	synthesisPattern?: string;
}

export interface ColorEntry {
	hex: string;
	name: string;
}

export interface PrefixEntry {
	prefix: string;
	colors: string[];
}

/** A note handed to the renderer: its text, vault path and the link text that resolves to it. */
export interface NoteInput {
	text: string;
	path: string;
	link: string;
}

/** A rendered note and the variables its name pattern may use. */
export interface Rendered {
	markdown: string;
	title: string;
	vars: Record<string, string>;
}

/** What the picker shows of a note. */
export interface NoteInfo {
	isAnnotation: boolean;
	citekey: string;
	title: string;
	tags: string[];
	annotations: number;
}

/** A link found in Markdown text. */
export interface LinkRef {
	target: string;
	subpath: string | null;
	embed: boolean;
}

/** One template the setup looked at, and how it compiled. */
export interface TemplateReport {
	path: string;
	found_in: string;
	compiled: boolean;
	loops: number;
	problems: string[];
}

/** What the core found of the user's Zotero setup (`SetupReport` in `src/library/setup.rs`). */
export interface SetupReport {
	plugin_settings: string | null;
	output_paths: string[];
	templates: TemplateReport[];
	problems: string[];
	zotlit_settings: string | null;
	colour_labels: ColorEntry[];
}

/** One round of `loadSetup`: the files still to read (a folder ends with `/`), and the report. */
export interface SetupRound {
	needs: string[];
	report: SetupReport;
}

/** The core's calls, typed. */
export interface Core {
	/** Reads the vault's Zotero setup from the files handed over; later calls parse with it. */
	loadSetup(files: Record<string, string | null>, configDir: string): SetupRound;
	isAnnotationNote(text: string, settings: CoreSettings): boolean;
	describeNote(text: string, path: string, settings: CoreSettings): NoteInfo;
	noteLinks(text: string): LinkRef[];
	summarize(note: NoteInput, settings: CoreSettings): Rendered;
	synthesize(notes: NoteInput[], settings: CoreSettings): Rendered;
	resultPath(folder: string, pattern: string, vars: Record<string, string>, existing: string[]): string;
	validateSettings(settings: CoreSettings): string[];
	defaultSettings(): Required<Pick<CoreSettings, "colors" | "prefixes" | "titles">>;
}

const core: Core = {
	loadSetup: (files, configDir) => wasm.loadSetup(files, configDir) as SetupRound,
	isAnnotationNote: (text, settings) => wasm.isAnnotationNote(text, settings),
	describeNote: (text, path, settings) => wasm.describeNote(text, path, settings) as NoteInfo,
	noteLinks: (text) => wasm.noteLinks(text) as LinkRef[],
	summarize: (note, settings) => wasm.summarize(note, settings) as Rendered,
	synthesize: (notes, settings) => wasm.synthesize(notes, settings) as Rendered,
	resultPath: (folder, pattern, vars, existing) => wasm.resultPath(folder, pattern, vars, existing),
	validateSettings: (settings) => wasm.validateSettings(settings),
	defaultSettings: () => wasm.defaultSettings() as ReturnType<Core["defaultSettings"]>,
};

let loading: Promise<Core> | null = null;

/** How long the last load took, in milliseconds: in all, and each step. */
export const loadMillis = { total: 0, decompress: 0, compile: 0, instantiate: 0 };

/** The core, compiled and instantiated on the first call; later calls share that promise. */
export function loadCore(): Promise<Core> {
	loading ??= (async () => {
		const start = performance.now();
		const stream = new Blob([compressedWasm]).stream().pipeThrough(new DecompressionStream("gzip"));
		const bytes = await new Response(stream).arrayBuffer();
		const decompressed = performance.now();
		const module = await WebAssembly.compile(bytes);
		const compiled = performance.now();
		await init({ module_or_path: module });
		const end = performance.now();
		Object.assign(loadMillis, {
			total: end - start,
			decompress: decompressed - start,
			compile: compiled - decompressed,
			instantiate: end - compiled,
		});
		return core;
	})();
	loading.catch(() => {
		// A failed load can be retried (the next call starts over).
		loading = null;
	});
	return loading;
}
