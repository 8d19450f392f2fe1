// The Obsidian plugin guidelines (eslint-plugin-obsidianmd's recommended, type-checked rules) for the
// plugin's sources. The in-memory Obsidian stand-in and the tests run in Node and stand in for
// Obsidian itself, so the plugin-only rules (no Node modules, no globalThis…) are off there.
import obsidianmd from "eslint-plugin-obsidianmd";
import globals from "globals";
import { defineConfig, globalIgnores } from "eslint/config";

export default defineConfig(
	globalIgnores(["node_modules", "**/*.mjs", "*.config.ts", "browser/out"]),
	{
		languageOptions: {
			globals: { ...globals.browser },
			parserOptions: {
				projectService: { allowDefaultProject: ["manifest.json"] },
				tsconfigRootDir: import.meta.dirname,
				extraFileExtensions: [".json"],
			},
		},
	},
	...obsidianmd.configs.recommended,
	{
		rules: {
			"obsidianmd/ui/sentence-case": [
				"warn",
				{ brands: ["Zotero", "Zotero Integration", "Obsidian", "Scholia"], ignoreRegex: ["^#[0-9a-fA-F]{3,6}$"] },
			],
			// The declarative settings API needs Obsidian 1.13; the plugin supports 1.5.7 and later.
			"obsidianmd/settings-tab/prefer-setting-definitions": "off",
		},
	},
	{
		files: ["harness/**/*.ts", "test/**/*.ts", "browser/**/*.ts"],
		rules: {
			"obsidianmd/no-nodejs-modules": "off",
			"obsidianmd/no-global-this": "off",
			"obsidianmd/no-tfile-tfolder-cast": "off",
			"obsidianmd/prefer-file-manager-trash-file": "off",
			"obsidianmd/ui/sentence-case": "off",
			"obsidianmd/hardcoded-config-path": "off",
			"obsidianmd/prefer-create-el": "off",
		},
	},
	{
		// The harness runs main.js the way Obsidian's plugin loader does: as a function of
		// (require, module, exports) made from its source.
		files: ["harness/page.ts"],
		rules: {
			"obsidianmd/rule-custom-message": "off",
			"@typescript-eslint/no-implied-eval": "off",
			"@typescript-eslint/no-unsafe-call": "off",
		},
	},
);
