// Bundles the plugin into one main.js at the repository root, with the wasm core inlined
// (gzip-compressed, decompressed by DecompressionStream at load). `--dev` skips minification.
import { readFile } from "node:fs/promises";
import { gzipSync } from "node:zlib";
import esbuild from "esbuild";

const dev = process.argv.includes("--dev");

/** `import bytes from "x.wasm"` → the gzip of the file, as a Uint8Array. */
const gzippedWasm = {
	name: "gzipped-wasm",
	setup(build) {
		build.onLoad({ filter: /\.wasm$/ }, async (args) => ({
			contents: gzipSync(await readFile(args.path), { level: 9 }),
			loader: "binary",
		}));
	},
};

const banner = "/* Scholia: Zotero annotations into summaries and syntheses. The engine is Rust compiled to wasm, inlined below. */";

await esbuild.build({
	entryPoints: ["src/main.ts"],
	bundle: true,
	format: "cjs",
	platform: "browser",
	target: "es2021",
	external: ["obsidian", "electron", "@codemirror/*", "@lezer/*"],
	// The wasm-bindgen glue's default URL is never used (the module is always passed in).
	define: { "import.meta.url": '"about:blank"' },
	plugins: [gzippedWasm],
	minify: !dev,
	sourcemap: dev ? "inline" : false,
	legalComments: "none",
	banner: { js: banner },
	outfile: "../main.js",
	logLevel: "warning",
});
