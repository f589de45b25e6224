// npm run openapi: writes the generated OpenAPI document to openapi.json at the repository root
// (committed, so a pull request shows every contract change; a test fails when it is stale).
import { writeFileSync } from 'node:fs';
import { openapiJson } from '../src/http/openapi/document.js';
import { repoPath } from '../src/repoRoot.js';

const target = repoPath('openapi.json');
writeFileSync(target, openapiJson());
process.stdout.write(`wrote ${target}\n`);
