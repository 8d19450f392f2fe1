// The plugin's settings: what is stored in data.json, and the tab that edits it.

import { type App, normalizePath, PluginSettingTab, Setting } from "obsidian";
import type { ColorEntry, Core, CoreSettings, PrefixEntry, SetupReport } from "./core";

export interface ScholiaSettings {
	/** Where annotation notes are looked for ("" is the whole vault). */
	annotationsFolder: string;
	/** Where summaries and syntheses are written. */
	synthesisFolder: string;
	/** Name pattern of summaries: {{title}}, {{citekey}}, {{date}}. */
	summaryPattern: string;
	/** Name pattern of syntheses: {{theme}}, {{date}}. */
	synthesisPattern: string;
	/** Hex → meaning; null means the core's defaults (seed 001's table). */
	colors: ColorEntry[] | null;
	/** Comment prefixes; null means the core's defaults. */
	prefixes: PrefixEntry[] | null;
	/** Section titles by colour meaning; missing keys take the core's defaults. */
	titles: Record<string, string>;
	/** moment.js format of {{date}} in file names. */
	dateFormat: string;
	/** Open a note after writing it. */
	openAfterCreate: boolean;
}

export const DEFAULT_SETTINGS: ScholiaSettings = {
	annotationsFolder: "",
	synthesisFolder: "Synthesis",
	summaryPattern: "Summary - {{title}}",
	synthesisPattern: "Synthesis - {{theme}} - {{date}}",
	colors: null,
	prefixes: null,
	titles: {},
	dateFormat: "YYYY-MM-DD",
	openAfterCreate: true,
};

/** Stored data (possibly from an older version, possibly hand-edited) merged over the defaults. */
export function withDefaults(stored: unknown): ScholiaSettings {
	const settings: ScholiaSettings = { ...DEFAULT_SETTINGS, titles: {} };
	if (typeof stored !== "object" || stored === null) return settings;
	const data = stored as Partial<Record<keyof ScholiaSettings, unknown>>;
	for (const key of ["annotationsFolder", "synthesisFolder", "summaryPattern", "synthesisPattern", "dateFormat"] as const) {
		const value = data[key];
		if (typeof value === "string") settings[key] = value;
	}
	if (typeof data.openAfterCreate === "boolean") settings.openAfterCreate = data.openAfterCreate;
	if (Array.isArray(data.colors)) settings.colors = (data.colors as unknown[]).filter(isColorEntry);
	if (Array.isArray(data.prefixes)) settings.prefixes = (data.prefixes as unknown[]).filter(isPrefixEntry);
	if (typeof data.titles === "object" && data.titles !== null) {
		for (const [key, value] of Object.entries(data.titles)) {
			if (typeof value === "string" && value.trim() !== "") settings.titles[key] = value;
		}
	}
	return settings;
}

function isColorEntry(row: unknown): row is ColorEntry {
	const r = row as Partial<Record<keyof ColorEntry, unknown>> | null;
	return typeof r?.hex === "string" && typeof r.name === "string";
}

function isPrefixEntry(row: unknown): row is PrefixEntry {
	const r = row as Partial<Record<keyof PrefixEntry, unknown>> | null;
	return typeof r?.prefix === "string" && Array.isArray(r.colors) && r.colors.every((c) => typeof c === "string");
}

/** The settings as the core reads them, for a run on `now` (a moment-like date). */
export function coreSettings(settings: ScholiaSettings, isoDate: string, nameDate: string): CoreSettings {
	const out: CoreSettings = {
		date: isoDate,
		nameDate,
		annotationsFolder: settings.annotationsFolder,
		synthesisFolder: settings.synthesisFolder,
		summaryPattern: settings.summaryPattern,
		synthesisPattern: settings.synthesisPattern,
	};
	if (settings.colors) out.colors = { entries: settings.colors };
	if (settings.prefixes) out.prefixes = { entries: settings.prefixes };
	if (Object.keys(settings.titles).length > 0) out.titles = settings.titles;
	return out;
}

/** A folder setting as the vault spells it ("" for the root). */
export function cleanFolder(folder: string): string {
	const trimmed = folder.trim();
	if (trimmed === "" || trimmed === "/") return "";
	return normalizePath(trimmed);
}

/** What the settings tab needs from the plugin. */
export interface SettingsHost {
	settings: ScholiaSettings;
	save(): Promise<void>;
	core(): Promise<Core>;
	/** The vault's Zotero setup as the core read it, read again from the vault. */
	zoteroSetup(): Promise<SetupReport>;
}

/** The lines the settings tab shows of the Zotero setup: settings found, templates, labels. */
export function setupLines(report: SetupReport): string[] {
	const lines: string[] = [];
	lines.push(
		report.plugin_settings === null
			? "Zotero Integration settings: none found."
			: `Zotero Integration settings: ${report.plugin_settings}.`,
	);
	if (report.output_paths.length > 0) lines.push(`Note paths: ${report.output_paths.join(", ")}.`);
	for (const problem of report.problems) lines.push(`Problem: ${problem}`);
	if (report.zotlit_settings !== null) lines.push(`ZotLit settings: ${report.zotlit_settings} (colour labels are read).`);
	if (report.templates.length === 0) lines.push("Templates: none found; notes are read with the built-in rules.");
	for (const t of report.templates) {
		const state = t.compiled ? `read, ${t.loops} annotation ${t.loops === 1 ? "loop" : "loops"}` : "not read";
		lines.push(`Template ${t.path} (from ${t.found_in}): ${state}.`);
		for (const problem of t.problems) lines.push(`  ${problem}`);
	}
	if (report.colour_labels.length > 0) {
		lines.push(`Colour labels: ${report.colour_labels.map((l) => `${l.hex} = ${l.name}`).join(", ")}.`);
	}
	return lines;
}

const TITLE_KEYS: [string, string][] = [
	["positive", "Green: key points"],
	["negative", "Red: critical notes"],
	["question", "Yellow: questions and gaps"],
	["detail", "Grey: methodology and context"],
	["code", "Orange: data and code"],
	["other", "Colours outside the map"],
	["preamble", "Before the first section"],
];

export class ScholiaSettingTab extends PluginSettingTab {
	private readonly host: SettingsHost;
	private problemsEl: HTMLElement | null = null;

	constructor(app: App, plugin: ConstructorParameters<typeof PluginSettingTab>[1], host: SettingsHost) {
		super(app, plugin);
		this.host = host;
	}

	display(): void {
		void this.render();
	}

	private async render(): Promise<void> {
		const core = await this.host.core();
		const defaults = core.defaultSettings();
		const s = this.host.settings;
		const { containerEl } = this;
		containerEl.empty();
		this.problemsEl = containerEl.createDiv({ cls: "scholia-settings-problems" });

		new Setting(containerEl)
			.setName("Annotations folder")
			.setDesc("Where Zotero Integration writes annotation notes. Empty means the whole vault.")
			.addText((text) =>
				text
					.setPlaceholder("References")
					.setValue(s.annotationsFolder)
					.onChange(async (value) => {
						s.annotationsFolder = cleanFolder(value);
						await this.saveChecked();
					}),
			);
		new Setting(containerEl)
			.setName("Synthesis folder")
			.setDesc("Where summaries and syntheses are written.")
			.addText((text) =>
				text.setValue(s.synthesisFolder).onChange(async (value) => {
					s.synthesisFolder = cleanFolder(value);
					await this.saveChecked();
				}),
			);
		new Setting(containerEl)
			.setName("Summary file name")
			.setDesc("Placeholders: {{title}}, {{citekey}}, {{date}}.")
			.addText((text) =>
				text.setValue(s.summaryPattern).onChange(async (value) => {
					s.summaryPattern = value;
					await this.saveChecked();
				}),
			);
		new Setting(containerEl)
			.setName("Synthesis file name")
			.setDesc("Placeholders: {{theme}}, {{date}}.")
			.addText((text) =>
				text.setValue(s.synthesisPattern).onChange(async (value) => {
					s.synthesisPattern = value;
					await this.saveChecked();
				}),
			);
		new Setting(containerEl)
			.setName("Date format")
			.setDesc("How {{date}} is written in file names (moment.js format).")
			.addText((text) =>
				text.setValue(s.dateFormat).onChange(async (value) => {
					s.dateFormat = value.trim() === "" ? DEFAULT_SETTINGS.dateFormat : value;
					await this.saveChecked();
				}),
			);
		new Setting(containerEl)
			.setName("Open after create")
			.setDesc("Open each summary or synthesis once it is written.")
			.addToggle((toggle) =>
				toggle.setValue(s.openAfterCreate).onChange(async (value) => {
					s.openAfterCreate = value;
					await this.saveChecked();
				}),
			);

		new Setting(containerEl)
			.setName("Zotero templates")
			.setDesc("What Scholia read of Zotero Integration's and ZotLit's settings and templates: notes are read the way their template wrote them.")
			.setHeading();
		const setupEl = containerEl.createDiv({ cls: "scholia-setup" });
		for (const line of setupLines(await this.host.zoteroSetup())) setupEl.createDiv({ cls: "scholia-setup-line", text: line });

		new Setting(containerEl).setName("Colours").setHeading();
		const colors = s.colors ?? defaults.colors.entries.map((row) => ({ ...row }));
		colors.forEach((row, index) => {
			const setting = new Setting(containerEl)
				.setName(`Colour ${index + 1}`)
				.addText((text) =>
					text
						.setPlaceholder("#ffd400")
						.setValue(row.hex)
						.onChange(async (value) => {
							row.hex = value.trim();
							s.colors = colors;
							await this.saveChecked();
						}),
				)
				.addText((text) =>
					text
						.setPlaceholder("Meaning")
						.setValue(row.name)
						.onChange(async (value) => {
							row.name = value.trim();
							s.colors = colors;
							await this.saveChecked();
						}),
				)
				.addExtraButton((button) =>
					button
						.setIcon("trash")
						.setTooltip("Remove this colour")
						.onClick(async () => {
							colors.splice(index, 1);
							s.colors = colors;
							await this.saveChecked();
							this.display();
						}),
				);
			setting.settingEl.addClass("scholia-color-row");
		});
		new Setting(containerEl)
			.addButton((button) =>
				button.setButtonText("Add colour").onClick(async () => {
					colors.push({ hex: "#", name: "" });
					s.colors = colors;
					await this.saveChecked();
					this.display();
				}),
			)
			.addButton((button) =>
				button.setButtonText("Restore default colours").onClick(async () => {
					s.colors = null;
					await this.saveChecked();
					this.display();
				}),
			);

		new Setting(containerEl).setName("Comment prefixes").setHeading();
		const prefixes = s.prefixes ?? defaults.prefixes.entries.map((row) => ({ ...row, colors: [...row.colors] }));
		new Setting(containerEl)
			.setName("Prefixes")
			.setDesc("One per line: the prefix, then the colour meanings it refines.")
			.addTextArea((area) => {
				area.setValue(prefixes.map((p) => `${p.prefix} ${p.colors.join(", ")}`).join("\n")).onChange(
					async (value) => {
						s.prefixes = parsePrefixes(value);
						await this.saveChecked();
					},
				);
				area.inputEl.rows = 8;
			});

		new Setting(containerEl).setName("Section titles").setHeading();
		for (const [key, label] of TITLE_KEYS) {
			new Setting(containerEl).setName(label).addText((text) =>
				text
					.setPlaceholder(defaults.titles[key] ?? "")
					.setValue(s.titles[key] ?? "")
					.onChange(async (value) => {
						if (value.trim() === "") delete s.titles[key];
						else s.titles[key] = value;
						await this.saveChecked();
					}),
			);
		}
		await this.showProblems();
	}

	/** Saves, then shows what is wrong (a bad hex, an empty pattern) above the settings. */
	private async saveChecked(): Promise<void> {
		await this.host.save();
		await this.showProblems();
	}

	private async showProblems(): Promise<void> {
		const el = this.problemsEl;
		if (!el) return;
		const core = await this.host.core();
		const s = this.host.settings;
		const problems = core.validateSettings(coreSettings(s, "", ""));
		el.empty();
		for (const problem of problems) el.createDiv({ cls: "scholia-settings-problem", text: problem });
	}
}

/** "THESIS: positive" lines → prefix rows (the last word(s) after the prefix are meanings). */
export function parsePrefixes(text: string): PrefixEntry[] {
	const rows: PrefixEntry[] = [];
	for (const line of text.split("\n")) {
		const trimmed = line.trim();
		if (trimmed === "") continue;
		const match = /^(\S+)\s*(.*)$/u.exec(trimmed);
		if (!match) continue;
		const colors = (match[2] ?? "")
			.split(/[,\s]+/u)
			.map((c) => c.trim())
			.filter((c) => c !== "");
		rows.push({ prefix: match[1] ?? "", colors });
	}
	return rows;
}
