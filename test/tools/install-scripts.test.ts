import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { REPO_ROOT } from '../../src/repoRoot.js';

const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
  allowScripts?: Record<string, boolean>;
  scarfSettings?: { enabled?: boolean; skipTraversal?: boolean };
};

describe('install scripts: @scarf/scarf (pulled in by swagger-ui-dist) never runs or reports', () => {
  it('package.json denies its install script (allowScripts) and opts out of its analytics (scarfSettings)', () => {
    expect(pkg.allowScripts?.['@scarf/scarf']).to.equal(false);
    expect(pkg.scarfSettings).to.deep.equal({ enabled: false, skipTraversal: true });
  });

  it('its report script, run as npm runs it for this project, stops at the opt-out before any request', function () {
    const require = createRequire(path.join(REPO_ROOT, 'package.json'));
    let report: string;
    try {
      report = path.join(path.dirname(require.resolve('@scarf/scarf/package.json')), 'report.js');
    } catch {
      this.skip(); // swagger-ui-dist no longer pulls it in
    }
    const run = spawnSync(process.execPath, [report], {
      cwd: path.dirname(report),
      // No opt-out in the environment: the project's package.json alone must say it.
      env: { PATH: process.env.PATH, INIT_CWD: REPO_ROOT, SCARF_VERBOSE: 'true' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(run.status).to.equal(0);
    expect(run.stderr + run.stdout).to.contain('User has opted out');
  });

  it('npm lists no install script left to review, so `npm install` prints no warning about one', function () {
    if (!existsSync(path.join(REPO_ROOT, 'node_modules'))) this.skip();
    const run = spawnSync('npm', ['install-scripts', 'ls', '--json'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    });
    // npm before 11.16 has no install-scripts command (and no warning to silence).
    if (run.status !== 0 && /Unknown command/i.test(run.stderr + run.stdout)) this.skip();
    expect(run.status, run.stderr).to.equal(0);
    expect(JSON.parse(run.stdout).allowScripts).to.deep.equal([]);
  });
});
