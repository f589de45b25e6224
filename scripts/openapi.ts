// npm run openapi: writes the generated OpenAPI document to openapi.json at the repository root
// (committed, so a pull request shows every contract change; a test fails when it is stale).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { openapiJson } from '../src/http/openapi/document.js';

const target = path.resolve(new URL('../..', import.meta.url).pathname, 'openapi.json');
writeFileSync(target, openapiJson());
process.stdout.write(`wrote ${target}\n`);
