// The links and npm scripts the guides name, checked: the helpers of test/unit/doc-links.test.ts and
// test/unit/guides-are-maps.test.ts (a test file imported by another registers its suites there too).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** The guides of a repository: README.md and every docs/*.md. */
export function guides(root: string): string[] {
  const docs = path.join(root, 'docs');
  const inDocs = existsSync(docs)
    ? readdirSync(docs)
        .filter((f) => f.endsWith('.md'))
        .map((f) => path.join('docs', f))
    : [];
  return ['README.md', ...inDocs.sort()];
}

/** The text of a markdown file outside fenced code blocks and inline code spans. */
function prose(markdown: string): string[] {
  const lines: string[] = [];
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      lines.push('');
      continue;
    }
    lines.push(fenced ? '' : line.replace(/`[^`]*`/g, (code) => (code.includes('](') ? '``' : code)));
  }
  return lines;
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, each space a hyphen. */
export function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a markdown file's headings, duplicates numbered as GitHub numbers them. */
export function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const line of prose(markdown)) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (m === null) continue;
    const base = slug(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    result.add(n === 0 ? base : `${base}-${n}`);
  }
  return result;
}

/** Every link of the guides that does not resolve, as "file: target (why)". */
export function brokenLinks(root: string, files: readonly string[]): string[] {
  const broken: string[] = [];
  for (const file of files) {
    const text = readFileSync(path.join(root, file), 'utf8');
    for (const line of prose(text)) {
      for (const m of [
        ...line.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g),
        ...line.matchAll(/<img\s[^>]*\bsrc="([^"]+)"/g),
      ]) {
        const target = m[1].replace(/^<|>$/g, '');
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
        const [pathPart, fragment] = target.split('#', 2) as [string, string | undefined];
        const resolved =
          pathPart === ''
            ? path.join(root, file)
            : path.resolve(path.dirname(path.join(root, file)), decodeURIComponent(pathPart));
        if (path.relative(root, resolved).startsWith('..')) {
          broken.push(`${file}: ${target} (outside the repository)`);
          continue;
        }
        if (!existsSync(resolved)) {
          broken.push(`${file}: ${target} (no such file)`);
          continue;
        }
        if (fragment === undefined) continue;
        if (statSync(resolved).isDirectory() || !resolved.endsWith('.md')) {
          broken.push(`${file}: ${target} (an anchor into a file that is not markdown)`);
        } else if (!anchors(readFileSync(resolved, 'utf8')).has(fragment)) {
          broken.push(`${file}: ${target} (no heading #${fragment} in ${path.relative(root, resolved)})`);
        }
      }
    }
  }
  return broken;
}

/** Every `npm run <script>` of the guides whose script package.json does not have. */
export function unknownScripts(root: string, files: readonly string[]): string[] {
  const scripts = (
    JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
  ).scripts;
  const unknown: string[] = [];
  for (const file of files) {
    for (const m of readFileSync(path.join(root, file), 'utf8').matchAll(/npm run ([a-z][\w:.-]*)/g)) {
      if (!(m[1] in scripts)) unknown.push(`${file}: npm run ${m[1]}`);
    }
  }
  return unknown;
}
