// Bench step 3: every distinct request of the mix sent once to a server, before anything is
// measured: each must succeed (deep pages past the end are dropped), and its body's size (for the
// ceiling) and digest (to compare two builds' answers) are kept.
import { createHash } from 'node:crypto';
import { CLASS_NAMES, type ClassName, type Mix } from './mix.js';

/** An answer's JSON less its closing `meta` object (its timestamp and request id change with every answer). */
const withoutMeta = (json: string): string => json.replace(/,"meta":\{[^{}]*\}\}$/, '}');

export interface Preflight {
  /** Per class: the paths kept (2xx, and for deep pages a non-empty page). */
  kept: Mix;
  dropped: Record<string, { path: string; why: string }[]>;
  bodyBytes: Record<string, number>;
  pathBytes: Map<string, number>;
  /** Per path kept, a digest (SHA-1) of its answer's body less its meta: two builds' answers compared. */
  pathDigests: Map<string, string>;
}

/**
 * Sends every distinct request once (of `classes` only, when given: the search mix needs its four
 * classes): checks it succeeds, measures its body for the ceiling.
 */
export async function preflight(
  origin: string,
  key: string,
  mix: Mix,
  classes: readonly ClassName[] = CLASS_NAMES,
): Promise<Preflight> {
  const kept = {} as Mix;
  const dropped: Preflight['dropped'] = {};
  const bodyBytes: Record<string, number> = {};
  const pathBytes = new Map<string, number>();
  const pathDigests = new Map<string, string>();
  for (const name of CLASS_NAMES) {
    if (name === 'searchMix') continue;
    kept[name] = [];
    dropped[name] = [];
    if (!classes.includes(name)) continue;
    const distinct = [...new Set(mix[name])];
    // Ids: 300 of them suffice to check the class and measure its bodies.
    const checked = name === 'byId' ? distinct.slice(0, 300) : distinct;
    let bytes = 0;
    for (const p of checked) {
      const response = await fetch(origin + p, { headers: { Authorization: `Bearer ${key}` } });
      const body = Buffer.from(await response.arrayBuffer());
      if (!response.ok) {
        dropped[name].push({ path: p, why: `${response.status} ${body.toString('utf8').slice(0, 200)}` });
        continue;
      }
      if (name === 'deep' && (JSON.parse(body.toString('utf8')) as { data: unknown[] }).data.length === 0) {
        dropped[name].push({ path: p, why: 'page past the end' });
        continue;
      }
      kept[name].push(p);
      pathBytes.set(p, body.length);
      pathDigests.set(
        p,
        createHash('sha1')
          .update(withoutMeta(body.toString('utf8')))
          .digest('hex'),
      );
      bytes += body.length;
    }
    if (name === 'byId') kept.byId = distinct.filter((p) => !dropped.byId.some((d) => d.path === p));
    bodyBytes[name] =
      kept[name].length > 0 ? Math.round(bytes / Math.max(1, checked.length - dropped[name].length)) : 0;
  }
  const ok = new Set(Object.values(kept).flat());
  kept.searchMix = mix.searchMix.filter((p) => ok.has(p));
  const sizes = kept.searchMix.map((p) => pathBytes.get(p) ?? 0);
  bodyBytes.searchMix = Math.round(sizes.reduce((a, b) => a + b, 0) / Math.max(1, sizes.length));
  return { kept, dropped, bodyBytes, pathBytes, pathDigests };
}
