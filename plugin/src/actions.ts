// The two jobs: summarize one annotation note, synthesize several. They read through the vault
// adapter, render with the core, write a new note (never over an existing one), and say what they did.

import { moment, Notice, type TFile } from "obsidian";
import type { VaultAdapter } from "./adapter";
import type { Core, CoreSettings } from "./core";
import { coreSettings, type ScholiaSettings } from "./settings";

export interface Context {
	adapter: VaultAdapter;
	core: () => Promise<Core>;
	settings: ScholiaSettings;
}

/** What a job wrote, or why it wrote nothing. */
export interface Outcome {
	file: TFile | null;
	used: string[];
	skipped: string[];
}

/** Files read between two yields to the UI, so a large selection never freezes Obsidian. */
const BATCH = 20;
/** Selections at least this large show a progress notice. */
const PROGRESS_FROM = 10;

function nextFrame(): Promise<void> {
	return new Promise((resolve) => window.setTimeout(resolve, 0));
}

/** The core's settings for a run today; a Notice and `null` when the settings have problems. */
async function prepare(ctx: Context): Promise<{ core: Core; settings: CoreSettings } | null> {
	const core = await ctx.core();
	const now = moment();
	const settings = coreSettings(ctx.settings, now.format("YYYY-MM-DD"), now.format(ctx.settings.dateFormat));
	const problems = core.validateSettings(settings);
	if (problems.length > 0) {
		new Notice(`Scholia's settings need fixing first (Settings → Scholia): ${problems.join("; ")}`);
		return null;
	}
	return { core, settings };
}

async function write(ctx: Context, core: Core, pattern: string, vars: Record<string, string>, markdown: string) {
	const folder = ctx.settings.synthesisFolder;
	for (let attempt = 0; ; attempt++) {
		const path = core.resultPath(folder, pattern, vars, ctx.adapter.existingPaths(folder));
		try {
			return await ctx.adapter.create(path, markdown);
		} catch (error) {
			// Someone created the same name in between: the next call numbers past it.
			if (attempt >= 3 || ctx.adapter.existingPaths(folder).every((p) => p !== path)) throw error;
		}
	}
}

function names(files: string[]): string {
	const shown = files.slice(0, 5).join(", ");
	return files.length > 5 ? `${shown} and ${files.length - 5} more` : shown;
}

/** Synthesizes the annotation notes among `files`; the others are skipped with a notice. */
export async function synthesizeFiles(ctx: Context, files: TFile[]): Promise<Outcome> {
	const outcome: Outcome = { file: null, used: [], skipped: [] };
	if (files.length === 0) {
		new Notice("Select annotation notes first: in the file explorer, as links in the editor, or in the picker.");
		return outcome;
	}
	const ready = await prepare(ctx);
	if (!ready) return outcome;
	const { core, settings } = ready;
	const progress = files.length >= PROGRESS_FROM ? new Notice(`Reading 0 of ${files.length} notes…`, 0) : null;
	try {
		const inputs = [];
		for (const [i, file] of files.entries()) {
			const input = await ctx.adapter.noteInput(file);
			if (core.isAnnotationNote(input.text, settings)) {
				inputs.push(input);
				outcome.used.push(file.path);
			} else {
				outcome.skipped.push(file.path);
			}
			if ((i + 1) % BATCH === 0) {
				progress?.setMessage(`Reading ${i + 1} of ${files.length} notes…`);
				await nextFrame();
			}
		}
		if (outcome.skipped.length > 0) {
			new Notice(`Skipped ${outcome.skipped.length} that are not annotation notes: ${names(outcome.skipped)}`);
		}
		if (inputs.length === 0) {
			new Notice("Nothing to synthesize: none of the selected notes is an annotation note (category: Annotations).");
			return outcome;
		}
		progress?.setMessage(`Synthesizing ${inputs.length} notes…`);
		await nextFrame();
		const rendered = core.synthesize(inputs, settings);
		const file = await write(ctx, core, ctx.settings.synthesisPattern, rendered.vars, rendered.markdown);
		outcome.file = file;
		new Notice(`Synthesis of ${inputs.length} ${inputs.length === 1 ? "note" : "notes"} on "${rendered.title}" written to ${file.path}`);
		if (ctx.settings.openAfterCreate) await ctx.adapter.open(file);
		return outcome;
	} finally {
		progress?.hide();
	}
}

/** Writes the summary of one annotation note. */
export async function summarizeFile(ctx: Context, file: TFile): Promise<Outcome> {
	const outcome: Outcome = { file: null, used: [], skipped: [] };
	const ready = await prepare(ctx);
	if (!ready) return outcome;
	const { core, settings } = ready;
	const input = await ctx.adapter.noteInput(file);
	if (!core.isAnnotationNote(input.text, settings)) {
		outcome.skipped.push(file.path);
		new Notice(`${file.path} is not an annotation note (category: Annotations); open one from Zotero Integration.`);
		return outcome;
	}
	outcome.used.push(file.path);
	const rendered = core.summarize(input, settings);
	const written = await write(ctx, core, ctx.settings.summaryPattern, rendered.vars, rendered.markdown);
	outcome.file = written;
	new Notice(`Summary of ${rendered.title} written to ${written.path}`);
	if (ctx.settings.openAfterCreate) await ctx.adapter.open(written);
	return outcome;
}
