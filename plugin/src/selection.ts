// Which notes "Synthesize selected" means: the file explorer's selection, else the links in the
// editor's selection.

import { type App, TFile } from "obsidian";
import type { VaultAdapter } from "./adapter";
import type { Core } from "./core";

interface SelectedItem {
	file?: unknown;
}

/**
 * The Markdown files selected in the file explorer. Obsidian keeps the explorer's multi-selection in
 * `view.tree.selectedDoms`, which is not public API: read defensively, empty when it is not there.
 */
export function explorerSelection(app: App): TFile[] {
	const out: TFile[] = [];
	for (const leaf of app.workspace.getLeavesOfType("file-explorer")) {
		const view = leaf.view as unknown as { tree?: { selectedDoms?: unknown } };
		const selected = view.tree?.selectedDoms;
		if (!(selected instanceof Set)) continue;
		for (const item of selected as Set<SelectedItem>) {
			if (item.file instanceof TFile && item.file.extension === "md" && !out.includes(item.file)) {
				out.push(item.file);
			}
		}
	}
	return out;
}

/** The notes the links in the active editor's selection point to. */
export function editorSelection(app: App, adapter: VaultAdapter, core: Core): TFile[] {
	const editor = app.workspace.activeEditor;
	const text = editor?.editor?.getSelection() ?? "";
	if (text.trim() === "") return [];
	return adapter.linkedFiles(core.noteLinks(text), editor?.file?.path ?? "");
}
