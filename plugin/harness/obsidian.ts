// A small in-memory stand-in for the `obsidian` module: enough of the API for the plugin to run in
// Vitest (Node) and in a browser page (the harness), against a vault held in memory. Not Obsidian:
// where it simplifies (frontmatter, link resolution), it says so.

type Listener = (...args: never[]) => unknown;

export interface EventRef {
	name: string;
	fn: Listener;
	/** Where it was registered, so `registerEvent` can remove it on unload. */
	source: Events;
}

export class Events {
	private listeners = new Map<string, Listener[]>();
	on(name: string, fn: Listener): EventRef {
		this.listeners.set(name, [...(this.listeners.get(name) ?? []), fn]);
		return { name, fn, source: this };
	}
	offref(ref: EventRef): void {
		this.listeners.set(
			ref.name,
			(this.listeners.get(ref.name) ?? []).filter((f) => f !== ref.fn),
		);
	}
	trigger(name: string, ...args: unknown[]): void {
		for (const fn of this.listeners.get(name) ?? []) (fn as (...a: unknown[]) => unknown)(...args);
	}
}

export function normalizePath(path: string): string {
	return path
		.replace(/[\\/]+/gu, "/")
		.replace(/^\/|\/$/gu, "")
		.normalize("NFC");
}

export abstract class TAbstractFile {
	parent: TFolder | null = null;
	constructor(
		public path: string,
		public vault: Vault,
	) {}
	get name(): string {
		return this.path.slice(this.path.lastIndexOf("/") + 1);
	}
}

export class TFile extends TAbstractFile {
	stat = { ctime: Date.now(), mtime: Date.now(), size: 0 };
	get extension(): string {
		const dot = this.name.lastIndexOf(".");
		return dot < 0 ? "" : this.name.slice(dot + 1);
	}
	get basename(): string {
		const dot = this.name.lastIndexOf(".");
		return dot < 0 ? this.name : this.name.slice(0, dot);
	}
}

export class TFolder extends TAbstractFile {
	children: TAbstractFile[] = [];
	isRoot(): boolean {
		return this.path === "";
	}
}

export class Vault extends Events {
	private readonly files = new Map<string, TAbstractFile>();
	private readonly texts = new Map<string, string>();
	readonly root: TFolder;
	configDir = ".obsidian";
	/** Every write, in order: what the tests check. */
	readonly writes: { path: string; text: string }[] = [];
	/** Files outside Obsidian's index (the settings folder), reached only through the adapter. */
	readonly hidden = new Map<string, string>();
	readonly adapter = {
		exists: async (path: string): Promise<boolean> => this.hidden.has(normalizePath(path)) || this.files.has(normalizePath(path)),
		read: async (path: string): Promise<string> => {
			const clean = normalizePath(path);
			const text = this.hidden.get(clean) ?? this.texts.get(clean);
			if (text === undefined) throw new Error(`ENOENT: ${clean}`);
			return text;
		},
	};

	constructor() {
		super();
		this.root = new TFolder("", this);
		this.files.set("", this.root);
	}

	getRoot(): TFolder {
		return this.root;
	}
	getAbstractFileByPath(path: string): TAbstractFile | null {
		return this.files.get(normalizePath(path)) ?? null;
	}
	getFileByPath(path: string): TFile | null {
		const f = this.getAbstractFileByPath(path);
		return f instanceof TFile ? f : null;
	}
	getFiles(): TFile[] {
		return [...this.files.values()].filter((f): f is TFile => f instanceof TFile);
	}
	getMarkdownFiles(): TFile[] {
		return this.getFiles().filter((f) => f.extension === "md");
	}
	async cachedRead(file: TFile): Promise<string> {
		return this.read(file);
	}
	async read(file: TFile): Promise<string> {
		const text = this.texts.get(file.path);
		if (text === undefined) throw new Error(`${file.path} does not exist`);
		return text;
	}
	async createFolder(path: string): Promise<TFolder> {
		return this.folder(normalizePath(path));
	}
	async create(path: string, text: string): Promise<TFile> {
		const clean = normalizePath(path);
		if (this.files.has(clean)) throw new Error("File already exists.");
		const file = this.put(clean, text);
		this.writes.push({ path: clean, text });
		this.trigger("create", file);
		return file;
	}
	async modify(file: TFile, text: string): Promise<void> {
		this.texts.set(file.path, text);
		this.writes.push({ path: file.path, text });
	}

	/** Adds a file without recording a write (the vault as the user left it); one under the
	 * settings folder is kept out of the index, as Obsidian keeps it. */
	put(path: string, text: string): TFile {
		if (normalizePath(path).startsWith(`${this.configDir}/`)) {
			this.hidden.set(normalizePath(path), text);
			return new TFile(normalizePath(path), this);
		}
		const clean = normalizePath(path);
		const slash = clean.lastIndexOf("/");
		const parent = this.folder(slash < 0 ? "" : clean.slice(0, slash));
		const existing = this.files.get(clean);
		const file = existing instanceof TFile ? existing : new TFile(clean, this);
		file.parent = parent;
		file.stat = { ctime: file.stat.ctime, mtime: Date.now(), size: text.length };
		if (!existing) parent.children.push(file);
		this.files.set(clean, file);
		this.texts.set(clean, text);
		return file;
	}

	private folder(path: string): TFolder {
		const found = this.files.get(path);
		if (found instanceof TFolder) return found;
		if (found) throw new Error(`${path} is a file`);
		const slash = path.lastIndexOf("/");
		const parent = this.folder(slash < 0 ? "" : path.slice(0, slash));
		const folder = new TFolder(path, this);
		folder.parent = parent;
		parent.children.push(folder);
		this.files.set(path, folder);
		return folder;
	}
}

/** `key: value` frontmatter, lists as `[a, b]` or `- a` lines: enough for the stand-in's cache. */
function frontmatterOf(text: string): Record<string, unknown> | undefined {
	const match = /^---\r?\n([\s\S]*?)\r?\n---/u.exec(text);
	if (!match?.[1]) return undefined;
	const out: Record<string, unknown> = {};
	let listKey: string | null = null;
	for (const line of match[1].split(/\r?\n/u)) {
		const item = /^\s*-\s+(.*)$/u.exec(line);
		if (item && listKey) {
			(out[listKey] as unknown[]).push(item[1]?.trim());
			continue;
		}
		const kv = /^([\w-]+):\s*(.*)$/u.exec(line);
		if (!kv?.[1]) continue;
		const value = (kv[2] ?? "").trim();
		if (value === "") {
			listKey = kv[1];
			out[kv[1]] = [];
		} else if (value.startsWith("[") && value.endsWith("]")) {
			listKey = null;
			out[kv[1]] = value
				.slice(1, -1)
				.split(",")
				.map((s) => s.trim())
				.filter((s) => s !== "");
		} else {
			listKey = null;
			out[kv[1]] = value.replace(/^["']|["']$/gu, "");
		}
	}
	return out;
}

export class MetadataCache extends Events {
	constructor(private readonly vault: Vault) {
		super();
	}
	getFileCache(file: TFile): { frontmatter?: Record<string, unknown> } | null {
		const text = (this.vault as unknown as { texts: Map<string, string> }).texts.get(file.path);
		return text === undefined ? null : { frontmatter: frontmatterOf(text) };
	}
	/** Path first (with or without `.md`), then the name anywhere, same folder first. Case-insensitive. */
	getFirstLinkpathDest(linkpath: string, sourcePath: string): TFile | null {
		const target = linkpath.split("#")[0]?.trim() ?? "";
		if (target === "") return null;
		const files = this.vault.getFiles();
		const lower = target.toLowerCase();
		const byPath = files.find((f) => f.path.toLowerCase() === lower || f.path.toLowerCase() === `${lower}.md`);
		if (byPath) return byPath;
		const folder = sourcePath.includes("/") ? sourcePath.slice(0, sourcePath.lastIndexOf("/")) : "";
		const byName = files
			.filter((f) => f.basename.toLowerCase() === lower || f.name.toLowerCase() === lower)
			.sort((a, b) => Number(a.parent?.path !== folder) - Number(b.parent?.path !== folder) || a.path.length - b.path.length);
		return byName[0] ?? null;
	}
	fileToLinktext(file: TFile, _sourcePath: string, omitMdExtension = true): string {
		const unique = this.vault.getFiles().filter((f) => f.basename.toLowerCase() === file.basename.toLowerCase()).length === 1;
		const name = file.extension === "md" && omitMdExtension ? file.basename : file.name;
		if (unique) return name;
		return file.extension === "md" && omitMdExtension ? file.path.replace(/\.md$/u, "") : file.path;
	}
}

export class WorkspaceLeaf {
	view: unknown = {};
	file: TFile | null = null;
	constructor(private readonly workspace: Workspace) {}
	async openFile(file: TFile): Promise<void> {
		this.file = file;
		this.workspace.activeFile = file;
		this.workspace.opened.push(file.path);
		this.workspace.trigger("file-open", file);
	}
}

export class Workspace extends Events {
	activeFile: TFile | null = null;
	activeEditor: { file: TFile | null; editor?: { getSelection(): string } } | null = null;
	readonly opened: string[] = [];
	readonly explorer: WorkspaceLeaf;
	private readonly main: WorkspaceLeaf;
	private layoutReady: (() => void)[] = [];
	private ready = false;

	constructor() {
		super();
		this.main = new WorkspaceLeaf(this);
		this.explorer = new WorkspaceLeaf(this);
		this.explorer.view = { tree: { selectedDoms: new Set<{ file: TAbstractFile }>() } };
	}
	getActiveFile(): TFile | null {
		return this.activeFile;
	}
	getLeaf(): WorkspaceLeaf {
		return this.main;
	}
	getLeavesOfType(type: string): WorkspaceLeaf[] {
		return type === "file-explorer" ? [this.explorer] : [];
	}
	onLayoutReady(fn: () => void): void {
		if (this.ready) fn();
		else this.layoutReady.push(fn);
	}
	/** The harness says the layout is ready. */
	layoutIsReady(): void {
		this.ready = true;
		for (const fn of this.layoutReady.splice(0)) fn();
	}
	/** Selects files in the explorer, as a ctrl-click multi-selection does. */
	select(files: TFile[]): void {
		const view = this.explorer.view as { tree: { selectedDoms: Set<{ file: TAbstractFile }> } };
		view.tree.selectedDoms = new Set(files.map((file) => ({ file })));
	}
}

export class App {
	vault = new Vault();
	metadataCache = new MetadataCache(this.vault);
	workspace = new Workspace();
}

export interface Command {
	id: string;
	name: string;
	callback?: () => unknown;
	checkCallback?: (checking: boolean) => boolean | undefined;
}

export class Component {
	private readonly cleanups: (() => void)[] = [];
	registerEvent(ref: EventRef): void {
		this.cleanups.push(() => ref.source.offref(ref));
	}
	register(fn: () => void): void {
		this.cleanups.push(fn);
	}
	unload(): void {
		for (const fn of this.cleanups.splice(0)) fn();
	}
}

export class Plugin extends Component {
	readonly commands: Command[] = [];
	readonly ribbon: { icon: string; title: string; callback: (evt: MouseEvent) => unknown }[] = [];
	settingTabs: PluginSettingTab[] = [];
	data: unknown = null;
	constructor(
		public app: App,
		public manifest: { id: string; name: string; version: string },
	) {
		super();
	}
	async loadData(): Promise<unknown> {
		return this.data === null ? null : structuredClone(this.data);
	}
	async saveData(data: unknown): Promise<void> {
		this.data = structuredClone(data);
	}
	addCommand(command: Command): Command {
		this.commands.push(command);
		return command;
	}
	addRibbonIcon(icon: string, title: string, callback: (evt: MouseEvent) => unknown): HTMLElement {
		this.ribbon.push({ icon, title, callback });
		return (typeof document === "undefined" ? {} : document.createElement("div")) as HTMLElement;
	}
	addSettingTab(tab: PluginSettingTab): void {
		this.settingTabs.push(tab);
	}
	/** Runs a command as the palette does. */
	runCommand(id: string): boolean {
		const command = this.commands.find((c) => c.id === id || c.id === `${this.manifest.id}:${id}`);
		if (!command) return false;
		if (command.checkCallback) return command.checkCallback(false) !== false;
		command.callback?.();
		return true;
	}
}

export class MenuItem {
	title = "";
	icon = "";
	private click: (() => unknown) | null = null;
	setTitle(title: string): this {
		this.title = title;
		return this;
	}
	setIcon(icon: string): this {
		this.icon = icon;
		return this;
	}
	onClick(fn: () => unknown): this {
		this.click = fn;
		return this;
	}
	activate(): void {
		this.click?.();
	}
}

export class Menu {
	readonly items: MenuItem[] = [];
	addItem(build: (item: MenuItem) => unknown): this {
		const item = new MenuItem();
		build(item);
		this.items.push(item);
		return this;
	}
}

export class Notice {
	/** Every notice shown, newest last. */
	static readonly shown: string[] = [];
	static onShow: ((notice: Notice) => void) | null = null;
	message: string;
	hidden = false;
	constructor(message: string, _timeout?: number) {
		this.message = message;
		Notice.shown.push(message);
		Notice.onShow?.(this);
	}
	setMessage(message: string): this {
		this.message = message;
		Notice.shown.push(message);
		return this;
	}
	hide(): void {
		this.hidden = true;
	}
}

/** moment() for the formats the plugin uses: YYYY, MM, DD, HH, mm, ss (and literal text). */
export function moment(date: Date = new Date()): { format(fmt?: string): string } {
	const pad = (n: number) => String(n).padStart(2, "0");
	const parts: Record<string, string> = {
		YYYY: String(date.getFullYear()),
		MM: pad(date.getMonth() + 1),
		DD: pad(date.getDate()),
		HH: pad(date.getHours()),
		mm: pad(date.getMinutes()),
		ss: pad(date.getSeconds()),
	};
	return {
		format: (fmt = "YYYY-MM-DDTHH:mm:ss") => fmt.replace(/YYYY|MM|DD|HH|mm|ss/gu, (token) => parts[token] ?? token),
	};
}

// ---- DOM: Obsidian's element helpers, the settings components and modals (browser only). ----

interface ElOptions {
	cls?: string | string[];
	text?: string;
	type?: string;
	attr?: Record<string, string>;
}

function make<K extends keyof HTMLElementTagNameMap>(parent: HTMLElement | null, tag: K, o?: ElOptions | string) {
	const el = document.createElement(tag);
	const options: ElOptions = typeof o === "string" ? { cls: o } : (o ?? {});
	if (options.cls) el.className = Array.isArray(options.cls) ? options.cls.join(" ") : options.cls;
	if (options.text !== undefined) el.textContent = options.text;
	if (options.type !== undefined) el.setAttribute("type", options.type);
	for (const [k, v] of Object.entries(options.attr ?? {})) el.setAttribute(k, v);
	parent?.appendChild(el);
	return el;
}

/** Installs createEl, createDiv, createSpan, empty, setText, addClass… on HTMLElement. */
export function installDomHelpers(): void {
	if (typeof HTMLElement === "undefined") return;
	const proto = HTMLElement.prototype as unknown as Record<string, unknown>;
	proto.createEl = function (this: HTMLElement, tag: keyof HTMLElementTagNameMap, o?: ElOptions) {
		return make(this, tag, o);
	};
	proto.createDiv = function (this: HTMLElement, o?: ElOptions) {
		return make(this, "div", o);
	};
	proto.createSpan = function (this: HTMLElement, o?: ElOptions) {
		return make(this, "span", o);
	};
	proto.empty = function (this: HTMLElement) {
		this.replaceChildren();
	};
	proto.setText = function (this: HTMLElement, text: string) {
		this.textContent = text;
	};
	proto.addClass = function (this: HTMLElement, ...cls: string[]) {
		this.classList.add(...cls);
	};
	proto.removeClass = function (this: HTMLElement, ...cls: string[]) {
		this.classList.remove(...cls);
	};
}
installDomHelpers();

class ValueComponent<T extends HTMLInputElement | HTMLTextAreaElement> {
	constructor(public inputEl: T) {}
	setValue(value: string): this {
		this.inputEl.value = value;
		return this;
	}
	getValue(): string {
		return this.inputEl.value;
	}
	setPlaceholder(text: string): this {
		this.inputEl.placeholder = text;
		return this;
	}
	onChange(fn: (value: string) => unknown): this {
		this.inputEl.addEventListener("input", () => void fn(this.inputEl.value));
		return this;
	}
}

export class TextComponent extends ValueComponent<HTMLInputElement> {}
export class TextAreaComponent extends ValueComponent<HTMLTextAreaElement> {}

export class ToggleComponent {
	constructor(public toggleEl: HTMLInputElement) {}
	setValue(on: boolean): this {
		this.toggleEl.checked = on;
		return this;
	}
	onChange(fn: (on: boolean) => unknown): this {
		this.toggleEl.addEventListener("change", () => void fn(this.toggleEl.checked));
		return this;
	}
}

export class ButtonComponent {
	constructor(public buttonEl: HTMLButtonElement) {}
	setButtonText(text: string): this {
		this.buttonEl.textContent = text;
		return this;
	}
	setIcon(icon: string): this {
		this.buttonEl.dataset.icon = icon;
		if (!this.buttonEl.textContent) this.buttonEl.textContent = icon;
		return this;
	}
	setTooltip(text: string): this {
		this.buttonEl.title = text;
		this.buttonEl.setAttribute("aria-label", text);
		return this;
	}
	setCta(): this {
		this.buttonEl.classList.add("mod-cta");
		return this;
	}
	onClick(fn: () => unknown): this {
		this.buttonEl.addEventListener("click", () => void fn());
		return this;
	}
}
export { ButtonComponent as ExtraButtonComponent };

export class Setting {
	settingEl: HTMLElement;
	private readonly infoEl: HTMLElement;
	private readonly nameEl: HTMLElement;
	private readonly descEl: HTMLElement;
	controlEl: HTMLElement;
	constructor(containerEl: HTMLElement) {
		this.settingEl = make(containerEl, "div", "setting-item");
		this.infoEl = make(this.settingEl, "div", "setting-item-info");
		this.nameEl = make(this.infoEl, "div", "setting-item-name");
		this.descEl = make(this.infoEl, "div", "setting-item-description");
		this.controlEl = make(this.settingEl, "div", "setting-item-control");
	}
	setName(name: string): this {
		this.nameEl.textContent = name;
		return this;
	}
	setDesc(desc: string): this {
		this.descEl.textContent = desc;
		return this;
	}
	setHeading(): this {
		this.settingEl.classList.add("setting-item-heading");
		return this;
	}
	addText(build: (c: TextComponent) => unknown): this {
		build(new TextComponent(make(this.controlEl, "input", { type: "text" })));
		return this;
	}
	addTextArea(build: (c: TextAreaComponent) => unknown): this {
		build(new TextAreaComponent(make(this.controlEl, "textarea")));
		return this;
	}
	addToggle(build: (c: ToggleComponent) => unknown): this {
		build(new ToggleComponent(make(this.controlEl, "input", { type: "checkbox" })));
		return this;
	}
	addButton(build: (c: ButtonComponent) => unknown): this {
		build(new ButtonComponent(make(this.controlEl, "button")));
		return this;
	}
	addExtraButton(build: (c: ButtonComponent) => unknown): this {
		build(new ButtonComponent(make(this.controlEl, "button", "clickable-icon")));
		return this;
	}
}

export abstract class PluginSettingTab {
	containerEl: HTMLElement;
	constructor(
		public app: App,
		public plugin: Plugin,
	) {
		this.containerEl = typeof document === "undefined" ? ({} as HTMLElement) : make(null, "div", "vertical-tab-content");
	}
	abstract display(): void;
	hide(): void {}
}

export class Modal {
	/** The open modals, for the harness. */
	static readonly open: Modal[] = [];
	containerEl: HTMLElement;
	modalEl: HTMLElement;
	titleEl: HTMLElement;
	contentEl: HTMLElement;
	constructor(public app: App) {
		this.containerEl = make(null, "div", "modal-container");
		this.modalEl = make(this.containerEl, "div", "modal");
		this.titleEl = make(this.modalEl, "div", "modal-title");
		this.contentEl = make(this.modalEl, "div", "modal-content");
	}
	setTitle(title: string): this {
		this.titleEl.textContent = title;
		return this;
	}
	open(): void {
		document.body.appendChild(this.containerEl);
		Modal.open.push(this);
		this.onOpen();
	}
	close(): void {
		this.onClose();
		this.containerEl.remove();
		Modal.open.splice(Modal.open.indexOf(this), 1);
	}
	onOpen(): void {}
	onClose(): void {}
}
