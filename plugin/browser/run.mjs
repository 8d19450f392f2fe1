// The browser test: headless Chromium (Debian's, driven by playwright-core) loads the real built
// main.js into the harness page (harness/), enables the plugin on an empty vault, adds annotation
// notes, runs "Synthesize selected" (explorer selection, then the picker), the ribbon summary, and
// changes settings through the settings tab. Saves a screenshot and prints the load and run figures.
import assert from "node:assert/strict";
import { readFile, readdir, mkdir } from "node:fs/promises";
import { createServer } from "node:http";
import { fileURLToPath } from "node:url";
import esbuild from "esbuild";
import { chromium } from "playwright-core";

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const out = here("./out/");
await mkdir(out, { recursive: true });

await esbuild.build({
	entryPoints: [here("../harness/page.ts")],
	bundle: true,
	format: "iife",
	target: "es2021",
	outfile: `${out}harness.js`,
	logLevel: "warning",
});

const files = {
	"/": [here("../harness/index.html"), "text/html"],
	"/harness.js": [`${out}harness.js`, "text/javascript"],
	"/harness.css": [here("../harness/harness.css"), "text/css"],
	"/styles.css": [here("../../styles.css"), "text/css"],
	"/main.js": [here("../../main.js"), "text/javascript"],
};
const server = createServer(async (req, res) => {
	const entry = files[req.url ?? ""];
	if (!entry) return res.writeHead(404).end();
	res.writeHead(200, { "content-type": entry[1] }).end(await readFile(entry[0]));
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const url = `http://127.0.0.1:${server.address().port}/`;

const examples = here("../../examples/vault/References/");
const notes = {};
for (const name of (await readdir(examples)).sort()) notes[`References/${name}`] = await readFile(examples + name, "utf8");

const browser = await chromium.launch({
	executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
	args: [
		"--no-sandbox",
		"--disable-gpu",
		"--disable-quic",
		"--no-first-run",
		"--disable-background-networking",
		"--disable-component-update",
		"--disable-sync",
	],
});
let checks = 0;
const check = (ok, what) => {
	assert.ok(ok, what);
	checks++;
};
try {
	const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
	const errors = [];
	page.on("pageerror", (e) => errors.push(String(e)));
	await page.goto(url);

	// Enable on an empty vault.
	const onloadMs = await page.evaluate(async () => window.harness.enable(await (await fetch("/main.js")).text()));
	check((await page.evaluate(() => window.harness.writes().length)) === 0, "enabling writes nothing");
	await page.waitForFunction(() => window.harness.plugin().engineLoadMillis().total > 0);
	const engine = await page.evaluate(() => window.harness.plugin().engineLoadMillis());
	check(engine.total > 0, "the inlined wasm engine compiles and instantiates in Chromium");

	// Zotero Integration adds annotation notes; a plain note sits beside them.
	await page.evaluate((notes) => {
		for (const [path, text] of Object.entries(notes)) window.harness.addNote(path, text);
		window.harness.addNote("Projects/Plan.md", "# Plan\n\nRead [[@kim2020spacing]].\n");
	}, notes);

	// "Synthesize selected" on three notes selected in the file explorer.
	const three = ["@moreau2024ragsurvey", "@okafor2023judges", "@brandt2024benchmarks"];
	for (const key of three) await page.check(`input[data-path="References/${key}.md"]`);
	await page.click('button.palette-command:has-text("Synthesize selected")');
	await page.waitForFunction(() => window.harness.writes().length === 1);
	const synthesis = await page.evaluate(() => window.harness.writes()[0]);
	check(/^Synthesis\/Synthesis - .+\.md$/u.test(synthesis.path), `synthesis written to the synthesis folder (${synthesis.path})`);
	for (const key of three) check(synthesis.text.includes(`[[${key}`), `synthesis links to ${key}`);
	check((await page.textContent(".view-header")) === synthesis.path, "the synthesis is opened");

	// The ribbon button summarizes the active note.
	await page.click('.nav-file-title:text-is("References/@sato2024freshqa.md")');
	await page.click('.side-dock-ribbon-action[aria-label="Summarize current note"]');
	await page.waitForFunction(() => window.harness.writes().length === 2);
	const summary = await page.evaluate(() => window.harness.writes()[1]);
	check(summary.path.startsWith("Synthesis/Summary - "), `summary written (${summary.path})`);
	check(summary.text.includes("[[@sato2024freshqa"), "the summary links to its paper");

	// Settings: a bad hex gives an inline error; a new synthesis folder is used.
	await page.evaluate(() => window.harness.openSettings());
	await page.waitForSelector('.scholia-setup-line:has-text("Templates: none found")');
	check(true, "the settings say what was found of the Zotero setup");
	const hex = page.locator(".scholia-color-row input").first();
	await hex.fill("#12345z");
	await page.waitForSelector('.scholia-settings-problem:has-text("#12345z")');
	check(true, "a bad hex shows an inline error");
	await hex.fill("#2ea8e5");
	await page.waitForFunction(() => !document.querySelector(".scholia-settings-problem"));
	check(true, "fixing it clears the error");
	const folder = page.locator('.setting-item:has(.setting-item-name:text-is("Synthesis folder")) input');
	await folder.fill("Reviews/2024");

	// No selection: the picker, filtered, one note checked.
	for (const key of three) await page.uncheck(`input[data-path="References/${key}.md"]`);
	await page.click('button.palette-command:has-text("Synthesize selected")');
	await page.waitForSelector(".scholia-picker-row");
	const listed = await page.locator(".scholia-picker-row").count();
	check(listed === 12, `the picker lists the 12 annotation notes, not the plan (${listed})`);
	await page.fill(".scholia-picker-filter", "okafor");
	check((await page.locator(".scholia-picker-row").count()) === 1, "the filter narrows the list");
	await page.check(".scholia-picker-row input");
	check((await page.textContent(".scholia-picker .mod-cta")) === "Synthesize 1 note", "the button counts the checked notes");
	await page.click(".scholia-picker .mod-cta");
	await page.waitForFunction(() => window.harness.writes().length === 3);
	const picked = await page.evaluate(() => window.harness.writes()[2]);
	check(picked.path.startsWith("Reviews/2024/Synthesis - "), `the changed synthesis folder is used (${picked.path})`);

	// The annotation notes are untouched.
	const untouched = await page.evaluate(
		async (notes) => {
			const { app } = window.harness;
			for (const [path, text] of Object.entries(notes)) if ((await app.vault.read(app.vault.getFileByPath(path))) !== text) return path;
			return null;
		},
		notes,
	);
	check(untouched === null, "annotation notes are never modified");
	await page.click(`.nav-file-title:text-is("${synthesis.path}")`);
	await page.screenshot({ path: `${out}harness.png` });
	check(errors.length === 0, `no page errors (${errors.join("; ")})`);

	// 50 annotation notes, synthesized end to end (read, render in wasm, write).
	const fifty = await page.evaluate((notes) => {
		const texts = Object.values(notes);
		const paths = [];
		for (let i = 0; i < 50; i++) {
			const key = `bench${String(i).padStart(2, "0")}`;
			const text = texts[i % texts.length].replace(/^citekey: .*$/mu, `citekey: ${key}`);
			window.harness.addNote(`Bench/@${key}.md`, text);
			paths.push(`Bench/@${key}.md`);
		}
		return paths;
	}, notes);
	const fiftyMs = await page.evaluate(async (paths) => {
		const { app } = window.harness;
		const files = paths.map((p) => app.vault.getFileByPath(p));
		return window.harness.time(() => window.harness.plugin().synthesize(files));
	}, fifty);
	check((await page.evaluate(() => window.harness.writes().length)) === 4, "the 50-note synthesis is written");

	const size = (await readFile(files["/main.js"][0])).length;
	console.log(`figures: main.js ${(size / 1024).toFixed(0)} KB; onload ${onloadMs.toFixed(2)} ms; engine load ${engine.total.toFixed(1)} ms (gunzip ${engine.decompress.toFixed(1)}, compile ${engine.compile.toFixed(1)}, instantiate ${engine.instantiate.toFixed(1)}); synthesize 50 notes ${fiftyMs.toFixed(1)} ms`);
	console.log(`screenshot: ${out}harness.png`);
	console.log(`${checks} passed`);
} finally {
	await browser.close();
	server.close();
}
