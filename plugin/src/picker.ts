// The picker: annotation notes with a filter box, their tags and a checkbox each, and a button that
// synthesizes the checked ones.

import { type App, Modal, type TFile } from "obsidian";
import type { Candidate } from "./adapter";

export class PickerModal extends Modal {
	private readonly checked = new Set<TFile>();
	private filter = "";
	private listEl!: HTMLElement;
	private buttonEl!: HTMLButtonElement;

	constructor(
		app: App,
		private readonly candidates: Candidate[],
		private readonly onChoose: (files: TFile[]) => void,
	) {
		super(app);
	}

	onOpen(): void {
		const { contentEl } = this;
		contentEl.addClass("scholia-picker");
		this.setTitle("Synthesize annotation notes");
		if (this.candidates.length === 0) {
			contentEl.createEl("p", {
				text: "No annotation notes found here. Check the annotations folder in the settings: it should hold the notes that Zotero Integration exports.",
			});
			return;
		}
		const input = contentEl.createEl("input", {
			type: "search",
			cls: "scholia-picker-filter",
			attr: { placeholder: "Filter by title, citekey or tag", "aria-label": "Filter" },
		});
		input.addEventListener("input", () => {
			this.filter = input.value.trim().toLowerCase();
			this.renderList();
		});
		this.listEl = contentEl.createDiv({ cls: "scholia-picker-list" });
		const footer = contentEl.createDiv({ cls: "scholia-picker-footer" });
		const all = footer.createEl("button", { text: "Select shown" });
		all.addEventListener("click", () => {
			for (const c of this.shown()) this.checked.add(c.file);
			this.renderList();
		});
		this.buttonEl = footer.createEl("button", { cls: "mod-cta", text: "Synthesize" });
		this.buttonEl.addEventListener("click", () => {
			const files = this.candidates.filter((c) => this.checked.has(c.file)).map((c) => c.file);
			this.close();
			this.onChoose(files);
		});
		this.renderList();
		input.focus();
	}

	onClose(): void {
		this.contentEl.empty();
	}

	private shown(): Candidate[] {
		if (this.filter === "") return this.candidates;
		return this.candidates.filter(({ file, info }) =>
			[info.title, info.citekey, file.path, ...info.tags.map((t) => `#${t}`)].some((s) =>
				s.toLowerCase().includes(this.filter),
			),
		);
	}

	private renderList(): void {
		this.listEl.empty();
		for (const { file, info } of this.shown()) {
			const row = this.listEl.createEl("label", { cls: "scholia-picker-row" });
			const box = row.createEl("input", { type: "checkbox" });
			box.checked = this.checked.has(file);
			box.addEventListener("change", () => {
				if (box.checked) this.checked.add(file);
				else this.checked.delete(file);
				this.updateButton();
			});
			const text = row.createDiv({ cls: "scholia-picker-text" });
			text.createDiv({ cls: "scholia-picker-title", text: info.title });
			const meta = text.createDiv({ cls: "scholia-picker-meta" });
			meta.createSpan({ text: `@${info.citekey} · ${info.annotations} annotations` });
			for (const tag of info.tags) meta.createSpan({ cls: "scholia-picker-tag", text: `#${tag}` });
		}
		this.updateButton();
	}

	private updateButton(): void {
		const n = this.checked.size;
		this.buttonEl.disabled = n === 0;
		this.buttonEl.setText(n === 0 ? "Synthesize" : `Synthesize ${n} ${n === 1 ? "note" : "notes"}`);
	}
}
