// docs/architecture.md lists the request pipeline by the names of the layers that apiLayers()
// returns (src/app.ts), in order: this test reads that list and compares it with the code's, so
// the guide cannot drift from the middleware the app runs.
import { expect } from 'chai';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { apiLayers } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createDeps } from '../../src/deps.js';
import { createLogger } from '../../src/log.js';
import { REPO_ROOT, tempDir } from '../support/api.js';

const GUIDE = path.join(REPO_ROOT, 'docs/architecture.md');
const SECTION = '## The request pipeline';

/** The names of the numbered list in the guide's pipeline section (`1. \`name\` — …`), in order. */
export function pipelineNames(markdown: string): string[] {
  const start = markdown.indexOf(`\n${SECTION}\n`);
  if (start < 0) throw new Error(`no "${SECTION}" section`);
  const end = markdown.indexOf('\n## ', start + 1);
  const section = markdown.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/^\d+\. `([A-Za-z]+)`/gm)].map((m) => m[1]);
}

describe('unit: docs/architecture.md lists the request pipeline as apiLayers() names it', () => {
  it('reads the numbered list of its pipeline section, and tells a different order apart', () => {
    const doc =
      `# A\n\n${SECTION}\n\nIntro \`x\`.\n\n1. \`requestId\` — one.\n2. \`auth\` — two.\n   more text\n\n## ` +
      `Next\n\n3. \`later\` — not in the section.\n`;
    expect(pipelineNames(doc)).to.deep.equal(['requestId', 'auth']);
    expect(pipelineNames(doc)).to.not.deep.equal(['auth', 'requestId']);
    expect(() => pipelineNames('# no pipeline here\n')).to.throw(/no "## The request pipeline" section/);
  });

  it('names every layer of apiLayers(deps), in order, with the deps the API runs with', async () => {
    const dataDir = tempDir('grants-arch-doc-');
    const config = loadConfig({
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      SEARCH_WORKERS: '0',
      ALERTS_WORKER: 'false',
      SEED_CATALOG: 'false',
    });
    const deps = await createDeps(config, createLogger(config.logLevel));
    try {
      const names = apiLayers(deps).map((layer) => layer.name);
      expect(names).to.include.members(['metrics', 'compression', 'overload']); // every optional layer is present
      expect(pipelineNames(readFileSync(GUIDE, 'utf8'))).to.deep.equal(names);
    } finally {
      await deps.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
