#!/usr/bin/env node
// Renders sample Zotero annotations through Zotero Integration templates with the real Nunjucks engine.
//
// Usage: node render.mjs CASES_DIR OUT_DIR
//
// Every folder under CASES_DIR holding a `roundtrip.json` is a case: a small Obsidian vault with
// `.obsidian/plugins/obsidian-zotero-desktop-connector/data.json` and the template it names. For each case
// this writes OUT_DIR/<case>/ as a vault: note.md (the rendered note), note.json (what the parser should
// read from it, in the format of scripts/score-annotations.sh), the case's .obsidian/ folder, the template
// file(s) it used, and a placeholder PNG for each image annotation (where the plugin would copy it).
//
// roundtrip.json (every key optional):
//   {
//     "format":   "Import",              the exportFormats entry (by name) of data.json; default: the first
//     "template": "Templates/zotero.md", vault-relative template; default: that entry's templatePath
//     "fields":   ["text", "comment", "color", "page", "image", "type", "zotero_link"],
//                 what the template prints for each annotation (default: all seven); a field it does not
//                 print is null in note.json, except the fallbacks of the labelling rules:
//                 type unprinted -> image / note / highlight; page unprinted -> the printed link's page=,
//                 else the page in a printed image name
//     "fields_by_type": {"image": ["comment", "image"]},  a different field list for one annotation type
//     "fields_by_color": {"#e56eee": ["text", "color"]},  a different field list for one colour (the
//                 sample's hex), for templates that lay out each colour differently; fields_by_type wins
//     "color_from": "hex" | "category" | null,  how the colour is printed (annotation.color or
//                 annotation.colorCategory; both score as the Zotero hex); null = not printed. Default "hex".
//     "metadata": ["citekey", "title", "authors", "year"],  which of these the note shows (default none)
//     "annotations": {"ANNYEL01": {"annotationComment": "kt"}},  per-annotation changes to sample.json
//                 (Zotero field names; null removes a field), e.g. for a template that only prints
//                 annotations whose comment starts with a code
//     "comment_code_length": 2,  the template prints each comment minus its first N characters (a code
//                 the user types in Zotero), trimmed; the expected comment is that rest (null if empty)
//     "zotero_link_format": "zotero://open-pdf/library/items/{attachment}?page={page}",  the link the
//                 template prints instead of the annotation's own (placeholders {attachment}, {page},
//                 {pageLabel}, {id}); default the annotation's desktopURI
//   }
// Annotations are looked up in the rendered note (by id, opening words, image name): expected records follow
// the note's order, and an annotation the template does not print at all is left out (with a warning).
//
// The sample item, attachment and annotations are sample.json beside this file (Zotero's own field names);
// they become template data as Zotero Integration builds it: id, type, color, colorCategory, annotatedText,
// comment, page (pageIndex + 1), pageLabel, desktopURI, imageBaseName, imageRelativePath, imageExtension,
// date (moment), tags, allTags, hashTags, attachment; top level citekey, title, creators, authors, date
// (moment), importDate, lastImportDate, annotations, desktopURI, pdfLink, formattedAnnotations, ... The
// environment is theirs too: autoescape off, JS methods callable on values, filters filterby, format and
// setAttribute, the {% persist %} tag, {% include "[[Note]]" %} resolved in the vault.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import moment from 'moment';
import nunjucks from 'nunjucks';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const PLUGIN_DATA = '.obsidian/plugins/obsidian-zotero-desktop-connector/data.json';
const ALL_FIELDS = ['text', 'comment', 'color', 'page', 'image', 'type', 'zotero_link'];
const CATEGORY_HEX = {
  Yellow: '#ffd400', Red: '#ff6666', Green: '#5fb236', Blue: '#2ea8e5', Purple: '#a28ae5',
  Magenta: '#e56eee', Orange: '#f19837', Gray: '#aaaaaa',
};
// 1x1 transparent PNG, standing in for the annotation image the plugin copies into the vault.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');

// ---------------------------------------------------------------- the template environment

// Values' own JS methods are callable from templates (`x.replace("a", "b")`), bound to the value;
// `__proto__` and `constructor` give a harmless function instead.
nunjucks.runtime.memberLookup = (obj, key) => {
  if (obj === undefined || obj === null) return undefined;
  if (key === '__proto__' || key === 'constructor') return () => () => {};
  const v = obj[key];
  return typeof v === 'function' ? (...args) => v.apply(obj, args) : v;
};

function lookupPath(value, dotted) {
  if (!dotted) return undefined;
  let cur = value;
  for (const part of dotted.split('.')) {
    if (cur === null || cur === undefined || !Object.prototype.hasOwnProperty.call(cur, part)) return undefined;
    cur = cur[part];
  }
  return cur;
}

// `arr | filterby("prop.path", cmd, ...values)`: keeps the items whose prop matches any value.
function filterby(arr, prop, cmd, ...values) {
  if (values.length === 0) return arr;
  const textual = ['startswith', 'endswith', 'contains'];
  const dated = ['dateafter', 'dateonorafter', 'datebefore', 'dateonorbefore'];
  return arr.filter((item) => {
    const subject = typeof item === 'string' ? item : lookupPath(item, prop);
    if (!subject) return false;
    if (typeof values[0] === 'string' && textual.includes(cmd)) {
      const s = subject.toString().toLocaleLowerCase();
      return values.some((v) => {
        const want = v.toLocaleLowerCase();
        if (cmd === 'startswith') return s.startsWith(want);
        if (cmd === 'endswith') return s.endsWith(want);
        return s.includes(want);
      });
    }
    if (dated.includes(cmd)) {
      return values.some((v) => {
        if (!moment.isMoment(subject) || !moment.isMoment(v)) return false;
        if (cmd === 'dateafter') return subject.isAfter(v);
        if (cmd === 'dateonorafter') return subject.isSameOrAfter(v);
        if (cmd === 'datebefore') return subject.isBefore(v);
        return subject.isSameOrBefore(v);
      });
    }
    return false;
  });
}

function format(date, fmt) {
  if (moment.isMoment(date)) return date.format(fmt);
  return 'Error: `format` can only be applied to dates. Tried for format ' + typeof date;
}

// {% persist "id" %}body{% endpersist %} -> %% begin id %%body%% end id %%
class Persist {
  constructor() {
    this.tags = ['persist'];
  }

  parse(parser, nodes) {
    const tag = parser.nextToken();
    const args = parser.parseSignature(null, true);
    parser.advanceAfterBlockEnd(tag.value);
    const body = parser.parseUntilBlocks('endpersist');
    parser.advanceAfterBlockEnd();
    return new nodes.CallExtension(this, 'run', args, [body]);
  }

  run(context, id, body) {
    const kept = context?.ctx?._retained?.[id] || '';
    let text = body();
    if (kept) text = text.trimStart();
    return new nunjucks.runtime.SafeString(`%% begin ${id} %%${kept}${text}%% end ${id} %%`);
  }
}

// Resolves `{% include "[[Other note]]" %}` / `"[label](path)"` against the vault, as the plugin does.
class VaultLoader extends nunjucks.Loader {
  constructor(vault) {
    super();
    this.vault = vault;
    this.loaded = new Set();
  }

  getSource(name) {
    const s = String(name).trim();
    const m = s.match(/^\[\[([^\]]+)\]\]$/) || s.match(/^\[[^\]]*\]\(([^)]+)\)$/);
    if (!m) throw new Error('Cannot find file. Invalid markdown link: ' + name);
    const link = m[1].split('|')[0].split('#')[0].trim();
    const rel = findInVault(this.vault, link);
    if (!rel) throw new Error('Cannot find file. File not found: ' + name);
    this.loaded.add(rel);
    return { src: fs.readFileSync(path.join(this.vault, rel), 'utf8'), path: rel, noCache: true };
  }
}

function findInVault(vault, link) {
  for (const c of [link, link + '.md']) {
    if (fs.existsSync(path.join(vault, c)) && fs.statSync(path.join(vault, c)).isFile()) return c;
  }
  const want = path.basename(link).toLowerCase();
  for (const rel of walk(vault)) {
    const base = path.basename(rel).toLowerCase();
    if (base === want || base === want + '.md') return rel;
  }
  return null;
}

function* walk(dir, rel = '') {
  for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (e.name.startsWith('.') || e.name === 'node_modules') continue;
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) yield* walk(dir, r);
    else yield r;
  }
}

function environment(vault) {
  const loader = new VaultLoader(vault);
  const env = new nunjucks.Environment(loader, { autoescape: false });
  env.addFilter('setAttribute', (obj, key, value) => {
    obj[key] = value;
    return obj;
  });
  env.addFilter('filterby', filterby);
  env.addFilter('format', format);
  env.addExtension('PersistExtension', new Persist());
  return { env, loader };
}

// ---------------------------------------------------------------- the data, as Zotero Integration builds it

function colorCategory(hex) {
  const h6 = /^#[0-9a-f]{3}$/i.test(hex) ? '#' + [...hex.slice(1)].map((c) => c + c).join('') : hex;
  if (!/^#[0-9a-f]{6}$/i.test(h6 || '')) return 'Black';
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(h6.slice(i, i + 2), 16) / 255);
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  const d = max - min;
  let hue = 0;
  if (d !== 0) {
    if (max === r) hue = ((g - b) / d) % 6;
    else if (max === g) hue = (b - r) / d + 2;
    else hue = (r - g) / d + 4;
  }
  hue = Math.round(hue * 60);
  if (hue < 0) hue += 360;
  const light = +(((max + min) / 2) * 100).toFixed(1);
  const sat = d === 0 ? 0 : +((d / (1 - Math.abs(max + min - 1))) * 100).toFixed(1);
  if (light < 12) return 'Black';
  if (light > 98) return 'White';
  if (sat < 2) return 'Gray';
  const bands = [[15, 'Red'], [45, 'Orange'], [65, 'Yellow'], [170, 'Green'], [190, 'Cyan'], [255, 'Blue'], [280, 'Purple'], [335, 'Magenta']];
  for (const [limit, name] of bands) if (hue < limit) return name;
  return 'Red';
}

function zoteroURI(kind, uri, params) {
  const key = uri.split('/').pop();
  let url = /group/.test(uri) ? uri.replace('http://zotero.org', `zotero://${kind}`) : `zotero://${kind}/library/items/${key}`;
  if (params) url += '?' + new URLSearchParams(params).toString();
  return url;
}

// Obsidian's normalizePath, and the plugin's file-name clean-up.
function normalizePath(p) {
  let s = p.replace(/[\\/]+/g, '/').replace(/\u00A0|\u202F/g, ' ');
  s = s.replace(/^\/+|\/+$/g, '');
  return (s === '' ? '/' : s).normalize('NFC');
}

function cleanName(s) {
  return s.replace(/\s*[*?]+\s*/g, ' ').trim().replace(/\s*[:"<>|]+\s*/g, ' - ').trim();
}

function sanitizeFilePath(p) {
  const parsed = path.parse(p);
  return path.join(cleanName(parsed.dir), cleanName(parsed.name) + parsed.ext);
}

const noLeadingSlash = (s) => s.replace(/^\/+/, '');

function issued(dateString) {
  const m = String(dateString || '').match(/(\d{4})(?:-(\d{1,2}))?(?:-(\d{1,2}))?/);
  if (!m) return undefined;
  const pad = (x) => (x ? x.padStart(2, '0') : '01');
  return moment(`${m[1]}-${pad(m[2])}-${pad(m[3])}`, 'YYYY-MM-DD');
}

function tagStrings(target, tags) {
  if (!tags?.length) return;
  target.allTags = tags.map((t) => t.tag).join(', ');
  target.hashTags = tags.map((t) => '#' + t.tag.replace(/\s+/g, '-')).join(', ');
}

function creatorsOfType(creators) {
  const byType = {};
  for (const c of creators || []) (byType[c.creatorType] ||= []).push(c);
  const out = {};
  for (const [type, list] of Object.entries(byType)) {
    out[type + 's'] = list.map((c) => c.name || `${c.firstName} ${c.lastName}`).join(', ');
  }
  return out;
}

// The plugin's {{formattedAnnotations}}: its fixed annotation list, for templates that print it whole.
function formattedAnnotations(annots, importDate) {
  if (!annots.length) return '';
  const cap = (s) => (s ? s.charAt(0).toUpperCase() + s.slice(1).toLowerCase() : '');
  let out = `\n**Imported: ${importDate.format('YYYY-MM-DD')}**\n\n`;
  for (const a of annots) {
    if (a.annotatedText) {
      const kind = a.color ? ` ${a.colorCategory} ${cap(a.type)} ` : ` ${cap(a.type)} `;
      const link = `${a.attachment.desktopURI.replace('select', 'open-pdf')}?page=${a.pageLabel}&annotation=${a.id}`;
      out += `> “${a.annotatedText}”${kind}[Page ${a.page}](${link})`;
    }
    if (a.imageRelativePath) out += `> ![[${a.imageRelativePath}]]`;
    out += '\n';
    if (a.comment) out += `\n${a.comment}\n`;
    out += '\n';
  }
  return out.trim();
}

function fileLink(attachments, pdfOnly, zotero) {
  const list = attachments || [];
  const file = pdfOnly ? list.find((a) => typeof a.path === 'string' && a.path.toLowerCase().endsWith('.pdf')) : list[0];
  if (!file?.path || (pdfOnly && !file.path.endsWith('.pdf'))) return undefined;
  return zotero ? `[${file.title}](${file.desktopURI})` : `[${file.title}](file://${file.path.replaceAll(' ', '%20')})`;
}

// Adds what the plugin derives for every template (authors, links, tag strings, formattedAnnotations).
function withBasics(data, importDate) {
  Object.assign(data, creatorsOfType(data.creators));
  const links = {
    pdfLink: fileLink(data.attachments, true, false),
    pdfZoteroLink: fileLink(data.attachments, true, true),
    firstAttachmentLink: fileLink(data.attachments, false, false),
    firstAttachmentZoteroLink: fileLink(data.attachments, false, true),
  };
  for (const [k, v] of Object.entries(links)) if (v) data[k] = v;
  tagStrings(data, data.tags);
  if (data.annotations?.length) {
    data.formattedAnnotations = formattedAnnotations(data.annotations, importDate);
    data.formattedAnnotationsNew = formattedAnnotations(
      data.annotations.filter((a) => moment.isMoment(a.date) && a.date.isAfter(data.lastExportDate)), importDate);
  }
  return data;
}

function templateData(sample, exportFormat, env) {
  const importDate = moment.parseZone(sample.importDate);
  const item = structuredClone(sample.item);
  const attachment = structuredClone(sample.attachment);

  item.citekey ||= item.citationKey;
  item.citationKey ||= item.citekey;
  item.importDate = importDate;
  item.exportDate = importDate;
  item.desktopURI = item.select || zoteroURI('select', item.uri);
  for (const k of ['accessDate', 'dateAdded', 'dateModified']) if (item[k]) item[k] = moment(item[k]);
  item.date = issued(item.date);
  for (const k of ['dateAdded', 'dateModified']) if (attachment[k]) attachment[k] = moment(attachment[k]);
  attachment.itemKey = attachment.uri.split('/').pop();
  attachment.desktopURI = attachment.select || zoteroURI('select', attachment.uri);
  if (attachment.path?.endsWith('.pdf')) attachment.pdfURI = zoteroURI('open-pdf', attachment.uri);
  item.attachments = [attachment];
  item.relations = [];

  const pathData = withBasics({ annotations: [], ...attachment, ...item }, importDate);
  pathData.importDate = importDate;
  const renderPath = (tpl) => normalizePath(sanitizeFilePath(noLeadingSlash(env.renderString(tpl, pathData))));
  const imageDir = exportFormat.imageOutputPathTemplate ? renderPath(exportFormat.imageOutputPathTemplate) : '';
  const imageBase = exportFormat.imageBaseNameTemplate
    ? sanitizeFilePath(noLeadingSlash(env.renderString(exportFormat.imageBaseNameTemplate, pathData)))
    : 'image';

  attachment.annotations = sample.annotations.map((z) => {
    const a = {
      date: moment(z.dateModified),
      attachment,
      id: z.key,
      type: z.annotationType,
      color: z.annotationColor,
      colorCategory: colorCategory(z.annotationColor),
      source: 'zotero',
    };
    if (attachment.path?.endsWith('.pdf')) {
      a.pageLabel = z.annotationPageLabel;
      a.desktopURI = zoteroURI('open-pdf', attachment.uri, { page: z.annotationPageLabel, annotation: z.key });
    }
    const pos = z.annotationPosition;
    if (pos?.pageIndex) a.page = pos.pageIndex + 1;
    if (pos?.rects) [a.x, a.y] = pos.rects[0];
    if (z.annotationText) a.annotatedText = z.annotationText;
    if (z.annotationComment) a.comment = z.annotationComment;
    if (z.annotationImagePath) {
      const ext = path.extname(z.annotationImagePath);
      a.imageBaseName = `${imageBase}-${a.page}-x${Math.round(a.x)}-y${Math.round(a.y)}${ext}`;
      a.imageRelativePath = normalizePath(path.join(imageDir, a.imageBaseName));
      a.imageExtension = ext.slice(1);
      a.imagePath = path.join('/vault', imageDir, a.imageBaseName);
    }
    if (z.tags?.length) {
      a.tags = z.tags;
      tagStrings(a, z.tags);
    }
    return a;
  });

  item.annotations = attachment.annotations;
  item.lastImportDate = moment(0);
  item.lastExportDate = item.lastImportDate;
  item.isFirstImport = true;
  return withBasics(item, importDate);
}

// ---------------------------------------------------------------- expectations

function printedLink(a, cfg) {
  if (!cfg.zotero_link_format || !a.desktopURI) return a.desktopURI ?? null;
  const values = { attachment: a.attachment.itemKey, page: a.page ?? '', pageLabel: a.pageLabel ?? '', id: a.id };
  return cfg.zotero_link_format.replace(/\{(attachment|page|pageLabel|id)\}/g, (_, k) => String(values[k]));
}

function printedComment(a, cfg) {
  if (!a.comment) return null;
  if (!cfg.comment_code_length) return a.comment;
  return a.comment.substring(cfg.comment_code_length).trim() || null;
}

function expectedRecord(a, cfg) {
  const byColor = cfg.fields_by_color && a.color ? cfg.fields_by_color[a.color.toLowerCase()] : undefined;
  const shown = new Set((cfg.fields_by_type && cfg.fields_by_type[a.type]) || byColor || cfg.fields || ALL_FIELDS);
  const colorFrom = 'color_from' in cfg ? cfg.color_from : 'hex';
  const text = shown.has('text') ? a.annotatedText ?? null : null;
  const comment = shown.has('comment') ? printedComment(a, cfg) : null;
  const image = shown.has('image') ? a.imageBaseName ?? null : null;
  let type = a.type;
  if (!shown.has('type')) type = image ? 'image' : !text && comment ? 'note' : 'highlight';
  let color = null;
  if (shown.has('color') && colorFrom && a.color) {
    color = colorFrom === 'category' ? CATEGORY_HEX[a.colorCategory] ?? null : a.color.toLowerCase();
  }
  const link = shown.has('zotero_link') ? printedLink(a, cfg) : null;
  const linkPage = link ? new URL(link).searchParams.get('page') || null : null;
  let page = null;
  if (shown.has('page') && a.page !== undefined) page = String(a.page);
  else if (linkPage) page = linkPage;
  else if (image && a.page !== undefined) page = String(a.page);
  const pageLabel = linkPage && page !== null && linkPage !== page ? linkPage : null;
  return { type, text, comment, color, page, page_label: pageLabel, image, zotero_link: link };
}

// Where the note shows an annotation first: its id, the opening of its text or comment, its image name.
function placeInNote(note, a, cfg) {
  const opening = (s) => (s ? s.split('\n')[0].trim().slice(0, 24) : null);
  const keys = [a.id, opening(a.annotatedText), opening(printedComment(a, cfg)), a.imageBaseName].filter(Boolean);
  const found = keys.map((k) => note.indexOf(k)).filter((i) => i >= 0);
  return found.length ? Math.min(...found) : -1;
}

function expectedJSON(data, note, cfg, caseName) {
  const meta = new Set(cfg.metadata || []);
  const placed = [];
  for (const a of data.annotations) {
    const at = placeInNote(note, a, cfg);
    if (at < 0) console.warn(`${caseName}: annotation ${a.id} (${a.type}) is not in the note; left out of note.json`);
    else placed.push([at, a]);
  }
  placed.sort((x, y) => x[0] - y[0]);
  return {
    citekey: meta.has('citekey') ? data.citekey : null,
    title: meta.has('title') ? data.title : null,
    authors: meta.has('authors') ? data.authors ?? null : null,
    year: meta.has('year') && data.date ? data.date.format('YYYY') : null,
    annotations: placed.map(([, a]) => expectedRecord(a, cfg)),
  };
}

// ---------------------------------------------------------------- cases

function findCases(root, rel = '') {
  const dir = path.join(root, rel);
  if (fs.existsSync(path.join(dir, 'roundtrip.json'))) return [rel];
  const out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (!e.isDirectory() || e.name.startsWith('.') || e.name === 'node_modules') continue;
    out.push(...findCases(root, rel ? `${rel}/${e.name}` : e.name));
  }
  return out.sort();
}

function copyInto(src, dst) {
  fs.mkdirSync(path.dirname(dst), { recursive: true });
  fs.cpSync(src, dst, { recursive: true });
}

// sample.json with roundtrip.json's per-annotation changes (by key; a null value removes the field).
function withChanges(sample, changes) {
  if (!changes) return sample;
  const keys = new Set(sample.annotations.map((z) => z.key));
  for (const k of Object.keys(changes)) if (!keys.has(k)) throw new Error(`"annotations": no sample annotation ${k}`);
  const out = structuredClone(sample);
  for (const z of out.annotations) {
    for (const [field, value] of Object.entries(changes[z.key] || {})) {
      if (value === null) delete z[field];
      else z[field] = value;
    }
  }
  return out;
}

function renderCase(casesDir, name, outDir, sample) {
  const vault = path.join(casesDir, name);
  const cfg = JSON.parse(fs.readFileSync(path.join(vault, 'roundtrip.json'), 'utf8'));
  const settingsFile = path.join(vault, PLUGIN_DATA);
  const settings = fs.existsSync(settingsFile) ? JSON.parse(fs.readFileSync(settingsFile, 'utf8')) : {};
  const formats = settings.exportFormats || [];
  const exportFormat = (cfg.format ? formats.find((f) => f.name === cfg.format) : formats[0]) || {};
  if (cfg.format && !formats.some((f) => f.name === cfg.format)) throw new Error(`no export format named ${cfg.format} in ${PLUGIN_DATA}`);
  let templatePath = cfg.template || exportFormat.templatePath;
  if (!templatePath) throw new Error(`no template: set "template" in roundtrip.json or templatePath in ${PLUGIN_DATA}`);
  templatePath = noLeadingSlash(templatePath.endsWith('.md') ? templatePath : templatePath + '.md');
  const template = fs.readFileSync(path.join(vault, templatePath), 'utf8');

  const { env, loader } = environment(vault);
  const data = templateData(withChanges(sample, cfg.annotations), exportFormat, env);
  let note;
  try {
    note = env.renderString(template, data);
  } catch (e) {
    throw new Error(`rendering ${templatePath}: ${e.message}`);
  }
  if (/%% begin (.+?) %%[\w\W]*?%% end \1 %%/i.test(note)) {
    note += `\n\n%% Import Date: ${data.importDate.toISOString(true)} %%\n`;
  }

  const out = path.join(outDir, name);
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  if (fs.existsSync(path.join(vault, '.obsidian'))) copyInto(path.join(vault, '.obsidian'), path.join(out, '.obsidian'));
  for (const rel of [templatePath, ...loader.loaded]) copyInto(path.join(vault, rel), path.join(out, rel));
  for (const a of data.annotations) {
    if (a.imageRelativePath) {
      fs.mkdirSync(path.join(out, path.dirname(a.imageRelativePath)), { recursive: true });
      fs.writeFileSync(path.join(out, a.imageRelativePath), PNG);
    }
  }
  fs.writeFileSync(path.join(out, 'note.md'), note);
  const expected = expectedJSON(data, note, cfg, name);
  fs.writeFileSync(path.join(out, 'note.json'), JSON.stringify(expected, null, 2) + '\n');
  return expected.annotations.length;
}

function main() {
  const [casesDir, outDir] = process.argv.slice(2);
  if (!casesDir || !outDir) {
    console.error('usage: node render.mjs CASES_DIR OUT_DIR');
    process.exit(2);
  }
  const sample = JSON.parse(fs.readFileSync(path.join(HERE, 'sample.json'), 'utf8'));
  const cases = findCases(casesDir);
  if (!cases.length) {
    console.error(`render.mjs: no case (a folder with roundtrip.json) under ${casesDir}`);
    process.exit(1);
  }
  let failed = 0;
  for (const name of cases) {
    try {
      const n = renderCase(casesDir, name, outDir, sample);
      console.log(`rendered ${name}: ${n} annotations -> ${path.join(outDir, name, 'note.md')}`);
    } catch (e) {
      failed++;
      console.error(`render.mjs: ${name}: ${e.message}`);
    }
  }
  process.exit(failed ? 1 : 0);
}

main();
