import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { defineConfig } from "vitest/config";

// The plugin imports the wasm as gzip bytes (esbuild.config.mjs does it for main.js); this does the
// same for the tests, and `obsidian` is the in-memory stand-in of harness/obsidian.ts.
export default defineConfig({
	plugins: [
		{
			name: "gzipped-wasm",
			enforce: "pre",
			load(id) {
				if (!id.endsWith(".wasm")) return null;
				const base64 = gzipSync(readFileSync(id), { level: 9 }).toString("base64");
				return `export default Uint8Array.from(atob(${JSON.stringify(base64)}), (c) => c.charCodeAt(0));`;
			},
		},
	],
	resolve: {
		alias: { obsidian: fileURLToPath(new URL("./harness/obsidian.ts", import.meta.url)) },
	},
	test: {
		include: ["test/**/*.test.ts"],
		setupFiles: ["test/setup.ts"],
	},
});
