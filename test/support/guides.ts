// The guides (README.md and docs/*.md) as data for the tests that keep them true: their fenced
// code blocks, the markers written before a block (`<!-- name: text -->`), which block shows the
// output of which command, and the comparison of a shown output with what really came back.
//
// Markers (an HTML comment on the lines just above a block's opening fence):
// - `<!-- not-run: why -->` on a shell block: the guide-commands test does not run it (why is required).
// - `<!-- statuses: 401, 404 (why) -->` on a shell block: answers with these statuses (or `any`)
//   are expected; otherwise every request the block makes must be answered below 400.
// - `<!-- run-until: FILE (why) -->` on a shell block: the block runs until FILE exists in its
//   folder (a loop meant to run forever), then it is stopped.
// - `<!-- output: shape (why) -->` on an output block: keys and types are compared, not values.
// - `<!-- output: first start -->` on an output block: what the server printed on its first start.
// - `<!-- all-grants: why -->` on a block listing grants without open=true, on purpose.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './api.js';

export interface Block {
  /** The guide, relative to the repository (README.md, docs/partners.md…). */
  file: string;
  /** The line of the opening fence, from 1. */
  line: number;
  /** The fence's info string (`sh`, `json`, `text`…), '' when none. */
  lang: string;
  text: string;
  /** The markers written just above the block, by name. */
  markers: Record<string, string>;
  /** The block that shows this command's output: the next block, with only blank lines or markers between. */
  output?: Block;
}

export const SHELL_LANGS = new Set(['sh', 'bash', 'shell', 'console']);

/** README.md then docs/*.md, as paths relative to the repository. */
export function guideFiles(root = REPO_ROOT): string[] {
  const docs = readdirSync(path.join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs];
}

const MARKER = /^<!--\s*([a-z][a-z-]*):\s*([\s\S]*?)\s*-->$/;

/** The fenced blocks of a markdown text, each with its markers and its output block. */
export function parseBlocks(markdown: string, file: string): Block[] {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  /** Lines after the last block's closing fence that were blank or markers only. */
  let betweenOnlyBlank = false;
  let pending: Record<string, string> = {};
  for (let i = 0; i < lines.length; i += 1) {
    const fence = /^(```+|~~~+)\s*([^\s`]*)/.exec(lines[i]);
    if (fence === null) {
      const trimmed = lines[i].trim();
      const marker = MARKER.exec(trimmed);
      if (marker !== null) pending[marker[1]] = marker[2];
      else if (trimmed !== '') {
        pending = {};
        betweenOnlyBlank = false;
      }
      continue;
    }
    const close = fence[1];
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !lines[j].startsWith(close)) body.push(lines[j++]);
    const block: Block = { file, line: i + 1, lang: fence[2], text: body.join('\n'), markers: pending };
    const previous = blocks.at(-1);
    if (previous !== undefined && betweenOnlyBlank) previous.output = block;
    blocks.push(block);
    pending = {};
    betweenOnlyBlank = true;
    i = j;
  }
  return blocks;
}

/** Every block of every guide. */
export function guideBlocks(root = REPO_ROOT): Block[] {
  return guideFiles(root).flatMap((file) => parseBlocks(readFileSync(path.join(root, file), 'utf8'), file));
}

export const isShell = (block: Block): boolean => SHELL_LANGS.has(block.lang);

// --- Shown outputs ----------------------------------------------------------------------------

/** Stands for `…` written where a JSON value or an array element would be. */
const ANY = '\u0000…';

/**
 * Parses a JSON output as a guide shows it: `…` in place of a value is any value, `…` as an
 * array element stands for more elements there, a key `"…"` for more keys, and `…` inside a
 * string for any text.
 */
export function parseShownJson(text: string): unknown {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (inString) {
      out += c;
      if (c === '\\') out += text[++i] ?? '';
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
      out += c;
    } else if (c === '…') {
      out += JSON.stringify(ANY);
    } else out += c;
  }
  return JSON.parse(out);
}

export type Compare = 'values' | 'shape';

/** Fields that change with every request: compared by type only. */
const EVER_CHANGING = new Set(['meta.timestamp', 'meta.requestId']);

const globRegExp = (shown: string, any = '[\\s\\S]*'): RegExp =>
  new RegExp(
    `^${shown
      .split('…')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join(any)}$`,
  );

const kind = (value: unknown): string => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);

/** The differences between a shown JSON output (parseShownJson) and the real one; [] when it matches. */
export function compareShown(shown: unknown, real: unknown, mode: Compare, at = ''): string[] {
  const where = at === '' ? '(top)' : at;
  if (shown === ANY) return [];
  if (typeof shown === 'string' && shown.includes('…')) {
    if (typeof real !== 'string') return [`${where}: shown a string, got ${kind(real)} ${JSON.stringify(real)}`];
    return mode === 'shape' || globRegExp(shown).test(real)
      ? []
      : [`${where}: shown ${JSON.stringify(shown)}, got ${JSON.stringify(real)}`];
  }
  if (kind(shown) !== kind(real))
    return [
      `${where}: shown ${kind(shown)} ${JSON.stringify(shown)}, got ${kind(real)} ` +
        `${JSON.stringify(real)?.slice(0, 200)}`,
    ];
  if (Array.isArray(shown)) {
    const list = real as unknown[];
    const cut = shown.indexOf(ANY);
    const head = cut === -1 ? shown : shown.slice(0, cut);
    const tail = cut === -1 ? [] : shown.slice(cut + 1).filter((item) => item !== ANY);
    const problems: string[] = [];
    if (cut === -1 && mode === 'values' && list.length !== shown.length)
      problems.push(`${where}: shown ${shown.length} elements, got ${list.length}`);
    if (cut !== -1 && list.length < head.length + tail.length)
      problems.push(`${where}: shown at least ${head.length + tail.length} elements, got ${list.length}`);
    if (shown.length > 0 && list.length === 0) return [`${where}: shown elements, got an empty list`];
    head.forEach((item, i) => {
      if (i < list.length) problems.push(...compareShown(item, list[i], mode, `${at}[${i}]`));
    });
    tail.forEach((item, i) => {
      const index = list.length - tail.length + i;
      if (index >= 0) problems.push(...compareShown(item, list[index], mode, `${at}[${index}]`));
    });
    return problems;
  }
  if (kind(shown) === 'object') {
    const shownObject = shown as Record<string, unknown>;
    const realObject = real as Record<string, unknown>;
    const open = '…' in shownObject;
    const keys = Object.keys(shownObject).filter((key) => key !== '…');
    const problems: string[] = [];
    const missing = keys.filter((key) => !(key in realObject));
    const extra = Object.keys(realObject).filter((key) => !(key in shownObject));
    if (missing.length > 0) problems.push(`${where}: shown keys missing from the answer: ${missing.join(', ')}`);
    if (!open && extra.length > 0)
      problems.push(`${where}: keys of the answer the guide does not show: ${extra.join(', ')}`);
    for (const key of keys) {
      if (key in realObject)
        problems.push(
          ...compareShown(
            shownObject[key],
            realObject[key],
            EVER_CHANGING.has(`${at}.${key}`.replace(/^\./, '')) ? 'shape' : mode,
            at === '' ? key : `${at}.${key}`,
          ),
        );
    }
    return problems;
  }
  if (mode === 'values' && shown !== real)
    return [`${where}: shown ${JSON.stringify(shown)}, got ${JSON.stringify(real)}`];
  return [];
}

/**
 * Whether a text output matches the one shown: line by line, `…` in a line is any text, and a line
 * that is only `…` stands for any number of lines. Leading and trailing blank lines and trailing
 * spaces are ignored.
 */
export function textMatches(shown: string, real: string): boolean {
  const lines = (text: string) =>
    text
      .replace(/\r/g, '')
      .split('\n')
      .map((line) => line.trimEnd());
  const trimBlank = (list: string[]) => {
    let start = 0;
    let end = list.length;
    while (start < end && list[start] === '') start += 1;
    while (end > start && list[end - 1] === '') end -= 1;
    return list.slice(start, end);
  };
  const pattern = trimBlank(lines(shown))
    .map((line) => (line.trim() === '…' ? '(?:[^\\n]*\\n)*?' : `${globRegExp(line, '[^\\n]*').source.slice(1, -1)}\\n`))
    .join('');
  return new RegExp(`^${pattern}$`).test(`${trimBlank(lines(real)).join('\n')}\n`);
}
