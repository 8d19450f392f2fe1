import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { Menu, Notice } from "../harness/obsidian";
import { parsePrefixes, setupLines, withDefaults } from "../src/settings";
import { enable, exampleNotes } from "./vault";

const THREE = ["References/@moreau2024ragsurvey.md", "References/@okafor2023judges.md", "References/@brandt2024benchmarks.md"];

describe("loading", () => {
	it("registers its commands, ribbon and settings without loading the engine", async () => {
		const { plugin } = await enable(exampleNotes());
		const p = plugin as unknown as { commands: { id: string; name: string; hotkeys?: unknown }[]; ribbon: { title: string }[] };
		expect(p.commands.map((c) => c.name)).toEqual(["Synthesize selected", "Summarize current note"]);
		expect(p.commands.every((c) => c.hotkeys === undefined)).toBe(true);
		expect(p.ribbon.map((r) => r.title)).toEqual(["Summarize current note"]);
	});

	it("reads stored settings defensively", () => {
		const s = withDefaults({ synthesisFolder: "Out", colors: [{ hex: "#ff0000", name: "negative" }, { bad: 1 }], titles: { positive: "Findings", x: 3 } });
		expect(s.synthesisFolder).toBe("Out");
		expect(s.colors).toEqual([{ hex: "#ff0000", name: "negative" }]);
		expect(s.titles).toEqual({ positive: "Findings" });
		expect(withDefaults("junk").summaryPattern).toBe("Summary - {{title}}");
		expect(parsePrefixes("THESIS: positive\n\nUNCLEAR: negative, question")).toEqual([
			{ prefix: "THESIS:", colors: ["positive"] },
			{ prefix: "UNCLEAR:", colors: ["negative", "question"] },
		]);
	});
});

describe("Synthesize selected", () => {
	it("synthesizes the notes selected in the file explorer, links resolving to each", async () => {
		const { app, plugin, vault, file } = await enable({ ...exampleNotes(), "Projects/Plan.md": "# Plan\n" });
		app.workspace.select(THREE.map(file));
		const outcome = await plugin.synthesizeSelected();
		expect(outcome?.used).toEqual(THREE);
		expect(vault.writes).toHaveLength(1);
		const written = vault.writes[0]!;
		expect(written.path).toMatch(/^Synthesis\/Synthesis - .+ - \d{4}-\d{2}-\d{2}\.md$/u);
		for (const key of ["moreau2024ragsurvey", "okafor2023judges", "brandt2024benchmarks"]) {
			expect(written.text).toContain(`[[@${key}`);
			expect(app.metadataCache.getFirstLinkpathDest(`@${key}`, written.path)?.path).toBe(`References/@${key}.md`);
		}
		expect(app.workspace.opened).toEqual([written.path]);
		expect(Notice.shown.at(-1)).toContain(`Synthesis of 3 notes`);
	});

	it("skips notes that are not annotation notes and names them", async () => {
		const { app, plugin, vault, file } = await enable({ ...exampleNotes(), "Projects/Plan.md": "# Plan\n" });
		app.workspace.select([file(THREE[0]!), file("Projects/Plan.md")]);
		const outcome = await plugin.synthesizeSelected();
		expect(outcome?.skipped).toEqual(["Projects/Plan.md"]);
		expect(Notice.shown.some((n) => n.includes("Skipped 1") && n.includes("Projects/Plan.md"))).toBe(true);
		expect(vault.writes).toHaveLength(1);
	});

	it("takes the notes the editor selection links to", async () => {
		const { app, plugin, vault, file } = await enable({ ...exampleNotes(), "Projects/Review.md": "See [[@kim2020spacing]] and [[@ruiz2021forgetting|Ruiz]].\n`[[@weber2022seeds]]`" });
		app.workspace.activeEditor = { file: file("Projects/Review.md"), editor: { getSelection: () => "See [[@kim2020spacing]] and [[@ruiz2021forgetting|Ruiz]].\n`[[@weber2022seeds]]`" } };
		const outcome = await plugin.synthesizeSelected();
		expect(outcome?.used).toEqual(["References/@kim2020spacing.md", "References/@ruiz2021forgetting.md"]);
		expect(vault.writes).toHaveLength(1);
	});

	it("never overwrites: a taken name gets a number", async () => {
		const { app, plugin, vault, file } = await enable(exampleNotes());
		app.workspace.select(THREE.map(file));
		await plugin.synthesizeSelected();
		await plugin.synthesizeSelected();
		const [first, second] = vault.writes.map((w) => w.path);
		expect(second).toBe(first!.replace(/\.md$/u, " 1.md"));
	});

	it("never modifies the annotation notes", async () => {
		const notes = exampleNotes();
		const { app, plugin, vault, file } = await enable(notes);
		app.workspace.select(Object.keys(notes).map(file));
		await plugin.synthesizeSelected();
		for (const [path, text] of Object.entries(notes)) expect(await vault.read(file(path))).toBe(text);
		expect(vault.writes.every((w) => w.path.startsWith("Synthesis/"))).toBe(true);
	});

	it("refuses to run on settings with a bad colour, and says why", async () => {
		const { app, plugin, vault, file } = await enable(exampleNotes(), { colors: [{ hex: "#zzz", name: "positive" }] });
		app.workspace.select(THREE.map(file));
		await plugin.synthesizeSelected();
		expect(vault.writes).toHaveLength(0);
		expect(Notice.shown.at(-1)).toContain("#zzz");
	});

	it("is on the file explorer's multi-selection menu", async () => {
		const { app, vault, file } = await enable(exampleNotes());
		const menu = new Menu();
		app.workspace.trigger("files-menu", menu, THREE.map(file), "file-explorer");
		expect(menu.items.map((i) => i.title)).toEqual(["Synthesize 3 notes"]);
		menu.items[0]!.activate();
		await expect.poll(() => vault.writes.length).toBe(1);
	});
});

describe("Summarize current note", () => {
	it("writes the summary of the active note from the ribbon", async () => {
		const { app, plugin, vault, file } = await enable(exampleNotes(), { synthesisFolder: "Summaries", summaryPattern: "{{citekey}} summary" });
		app.workspace.activeFile = file("References/@kim2020spacing.md");
		const p = plugin as unknown as { ribbon: { callback: () => void }[] };
		p.ribbon[0]!.callback();
		await expect.poll(() => vault.writes.length).toBe(1);
		expect(vault.writes[0]!.path).toBe("Summaries/kim2020spacing summary.md");
		expect(vault.writes[0]!.text).toContain("[[@kim2020spacing");
	});

	it("says so when the active note is not an annotation note", async () => {
		const { app, plugin, vault, file } = await enable({ ...exampleNotes(), "Plan.md": "# Plan" });
		app.workspace.activeFile = file("Plan.md");
		await plugin.summarizeActive();
		expect(vault.writes).toHaveLength(0);
		expect(Notice.shown.at(-1)).toContain("Plan.md is not an annotation note");
	});

	it("is on the file menu", async () => {
		const { app, vault, file } = await enable(exampleNotes());
		const menu = new Menu();
		app.workspace.trigger("file-menu", menu, file(THREE[1]!), "file-explorer");
		expect(menu.items.map((i) => i.title)).toEqual(["Summarize note"]);
		menu.items[0]!.activate();
		await expect.poll(() => vault.writes.length).toBe(1);
		expect(vault.writes[0]!.path).toMatch(/^Synthesis\/Summary - /u);
	});
});

describe("the user's Zotero setup", () => {
	const FAMILY = new URL("../../tests/cases/families/category_callout_persist/", import.meta.url);
	const read = (path: string) => readFileSync(new URL(path, FAMILY), "utf8");
	const NOTE = "References/okaforCoastalSensorDrift2022.md";

	it("reads notes the way Zotero Integration's template wrote them", async () => {
		const { app, plugin, vault, file } = await enable({
			".obsidian/plugins/obsidian-zotero-desktop-connector/data.json": read(".obsidian/plugins/obsidian-zotero-desktop-connector/data.json"),
			"Templates/zotero.md": read("Templates/zotero.md"),
			[NOTE]: read(NOTE),
		});
		// The settings folder stays out of Obsidian's index, as in a real vault.
		expect(app.vault.getMarkdownFiles().map((f) => f.path).sort()).toEqual(["References/okaforCoastalSensorDrift2022.md", "Templates/zotero.md"]);
		await plugin.summarize(file(NOTE) as never);
		expect(vault.writes).toHaveLength(1);
		// The template's own colour labels name the summary's sections.
		expect(vault.writes[0]!.text).toContain("## Main claim");
		const report = await plugin.zoteroSetup(await plugin.core(), true);
		expect(report.plugin_settings).toBe(".obsidian/plugins/obsidian-zotero-desktop-connector/data.json");
		expect(report.templates.map((t) => [t.path, t.compiled])).toEqual([["Templates/zotero.md", true]]);
		expect(setupLines(report)).toContain("Template Templates/zotero.md (from data.json): read, 1 annotation loop.");
	});

	it("finds the settings in a renamed settings folder, and says when there is none", async () => {
		const { app, plugin } = await enable({});
		app.vault.configDir = ".config";
		app.vault.put(".config/plugins/zotlit/data.json", '{"template":{"folder":"Zt"}}');
		app.vault.put("Zt/zt-annots.eta.md", '<% const label = { "red": "Gaps" } %>');
		const report = await plugin.zoteroSetup(await plugin.core(), true);
		expect(report.zotlit_settings).toBe(".config/plugins/zotlit/data.json");
		expect(report.colour_labels).toEqual([{ hex: "#ff6666", name: "Gaps" }]);
		const none = await enable({});
		const empty = await none.plugin.zoteroSetup(await none.plugin.core(), true);
		expect(setupLines(empty)).toEqual(["Zotero Integration settings: none found.", "Templates: none found; notes are read with the built-in rules."]);
	});
});
