// What the OpenAPI document says, beyond being valid: a meaning and an example for every
// parameter, a meaning for every field, a real example answer for every operation (the answer a
// server over the fixture catalog gives, checked against the schema), the canonical list
// encoding, every error code of the error table, and shapes that client generators take as they
// are (no "null" model, no reserved word as an operation id, a tombstone that keeps its id).
import { expect } from 'chai';
import { ERROR_STATUS } from '../../src/http/errors.js';
import { GRANT_EXPORT_PARAMS, GRANT_SEARCH_PARAMS } from '../../src/http/parameters/grantSearchParams.js';
import { CHANGES_PARAMS } from '../../src/http/handlers/changes.js';
import { openapiDocument } from '../../src/http/openapi/document.js';
import { grantStatus } from '../../src/grants/lifecycle.js';
import { COMMON_GRANTS_OPERATIONS } from '../../src/http/openapi/commonGrantsDocument.js';
import {
  ANSWER_EXAMPLES,
  EXAMPLE_GRANT,
  EXAMPLE_META,
  EXPORT_EXAMPLES,
  VALIDATION_ERROR_EXAMPLE,
} from '../../src/http/openapi/examples.js';
import type { ParamSpecs } from '../../src/http/parameters/queryParams.js';
import { API_PREFIX } from '../../src/http/routeTable.js';
import { USAGE_PARAMS } from '../../src/http/handlers/subscription.js';
import { fixtureGrants, startTestApi, type TestApi } from '../support/api.js';
import { schemaProblems } from '../support/openapiDocument.js';

type Schema = Record<string, any>;
const doc = openapiDocument() as Schema;
const operations = (): [string, Schema][] =>
  Object.entries(doc.paths as Schema).flatMap(([path, item]) =>
    Object.values(item as Schema).map((op) => [path, op as Schema] as [string, Schema]),
  );

/** Every schema object in a part of the document, with where it is. */
function* schemasIn(node: unknown, at: string): Generator<[string, Schema]> {
  if (Array.isArray(node)) {
    for (const [i, item] of node.entries()) yield* schemasIn(item, `${at}/${i}`);
  } else if (node !== null && typeof node === 'object') {
    yield [at, node as Schema];
    for (const [key, value] of Object.entries(node)) yield* schemasIn(value, `${at}/${key}`);
  }
}

// Reserved words of the languages generators write most (JavaScript/TypeScript, Java, Python, Go, C#, Swift).
const RESERVED = new Set(
  (
    'abstract and as assert async await boolean break byte case catch char class const continue debugger def ' +
    'default del delete do double elif else enum except export extends false final finally float for from ' +
    'func function global go goto if implements import in instanceof int interface is lambda let long native ' +
    'new nil none nonlocal not null object or package pass private protected public raise return short static ' +
    'string super switch synchronized this throw throws transient true try typeof var void volatile while ' +
    'with yield'
  ).split(' '),
);

describe('OpenAPI document: content', function () {
  it('each parameter definition has a meaning and an example, and the document reads them from there', function () {
    const sets: [string, ParamSpecs][] = [
      ['/grants', GRANT_SEARCH_PARAMS],
      ['/grants/export', GRANT_EXPORT_PARAMS],
      ['/grants/changes', CHANGES_PARAMS],
      ['/subscription/usage', USAGE_PARAMS],
    ];
    for (const [path, specs] of sets) {
      const params = doc.paths[path].get.parameters as Schema[];
      for (const [name, spec] of Object.entries(specs)) {
        expect(spec.description, `${path} ${name}`).to.match(/^\S.{15,}[.)]$/);
        const param = params.find((p) => p.name === name)!;
        expect(
          param.description.startsWith(spec.description),
          `${path} ${name} reads its meaning from the definition`,
        ).to.equal(true);
        if (spec.fillIn === false) {
          // Not filled in by /docs (it would go with every other example): given in the description.
          expect(param, `${path} ${name}`).not.to.have.property('example');
          expect(param.description, `${path} ${name}`).to.include(`For example \`${String(spec.example)}\``);
        } else expect(param.example, `${path} ${name}`).to.deep.equal(spec.example);
        expect(
          schemaProblems(param.schema, spec.example),
          `${path} ${name}: the example fits the schema`,
        ).to.deep.equal([]);
      }
    }
  });

  it('every parameter of every operation has a description and an example that fits its schema (in the description for the cursors and Idempotency-Key)', function () {
    // What /docs must not fill in: a cursor excludes `page`, an alert list's cursor leads past the
    // first page, and one Idempotency-Key sent with two different requests is a 409.
    const inDescription = new Set(['cursor', 'Idempotency-Key']);
    for (const [path, op] of operations()) {
      for (const item of op.parameters ?? []) {
        const param = item.$ref ? doc.components.parameters[item.$ref.split('/').pop()] : item;
        expect(param.description, `${path} ${param.name}`).to.be.a('string').with.length.above(20);
        if (inDescription.has(param.name)) {
          expect(param, `${path} ${param.name}`).not.to.have.property('example');
          const example = /for example `([^`]+)`/i.exec(param.description)?.[1];
          expect(example, `${path} ${param.name}: an example in the description`).to.be.a('string');
          expect(schemaProblems(param.schema, example), `${path} ${param.name}`).to.deep.equal([]);
          continue;
        }
        expect(param, `${path} ${param.name}`).to.have.property('example');
        expect(schemaProblems(param.schema, param.example), `${path} ${param.name}`).to.deep.equal([]);
      }
    }
  });

  it('every JSON request body has an example that fits its schema (what /docs fills in)', function () {
    for (const [path, op] of operations()) {
      const media = op.requestBody?.content?.['application/json'];
      if (media === undefined) continue;
      const examples =
        media.example !== undefined
          ? [media.example]
          : Object.values(media.examples ?? {}).map((e) => (e as Schema).value);
      expect(examples, `${path} ${op.operationId}`).to.have.length.of.at.least(1);
      for (const example of examples)
        expect(schemaProblems(media.schema, example), `${path} ${op.operationId}`).to.deep.equal([]);
    }
  });

  it('list parameters are comma-separated (form, explode false), the other accepted encodings in the description', function () {
    const lists = (doc.paths['/grants'].get.parameters as Schema[]).filter((p) => p.schema?.type === 'array');
    expect(lists.map((p) => p.name)).to.include.members(['eligibleProvinces', 'facets', 'fields', 'funderType']);
    for (const param of lists) {
      expect(param, param.name).to.include({ style: 'form', explode: false });
      expect(param.description, param.name)
        .to.include(`\`${param.name}=`)
        .and.include('repeated')
        .and.include(`${param.name}[]=`);
    }
  });

  it('every field of every schema has a meaning', function () {
    const missing: string[] = [];
    for (const [at, schema] of schemasIn(doc.components.schemas, '#/components/schemas')) {
      if (at.endsWith('/properties') || at.includes('/example')) continue;
      for (const [name, property] of Object.entries((schema.properties ?? {}) as Schema)) {
        if (typeof property.description !== 'string' || property.description.length < 8)
          missing.push(`${at}/properties/${name}`);
      }
    }
    expect(missing).to.deep.equal([]);
  });

  it('has tags with descriptions, a license and a contact, and every response header by reference', function () {
    expect(doc.tags.map((t: Schema) => t.name)).to.have.members([
      'grants',
      'subscription',
      'alerts',
      'keys',
      'common-grants',
      'mcp',
      'webhooks',
      'openapi',
    ]);
    for (const tag of doc.tags) expect(tag.description, tag.name).to.be.a('string').with.length.above(10);
    expect(doc.info.license.name).to.be.a('string');
    expect(doc.info.contact.email).to.match(/@/);
    for (const [path, op] of operations()) {
      for (const [status, response] of Object.entries(op.responses as Schema)) {
        for (const [name, header] of Object.entries((response.headers ?? {}) as Schema)) {
          expect(header, `${path} ${status} ${name}`).to.deep.equal({ $ref: `#/components/headers/${name}` });
        }
      }
    }
  });

  it('shapes a client generator takes: no "null" schema as a model, operation ids not reserved words, success typed boolean', function () {
    for (const [at, schema] of schemasIn(doc, '#')) {
      expect(schema.type, at).not.to.equal('null');
      for (const branch of [...(schema.oneOf ?? []), ...(schema.anyOf ?? [])])
        expect(branch.type, at).not.to.equal('null');
    }
    const ids = operations().map(([, op]) => op.operationId as string);
    expect(new Set(ids).size).to.equal(ids.length);
    for (const id of ids) expect(RESERVED.has(id.toLowerCase()), id).to.equal(false);
    for (const [name, schema] of Object.entries(doc.components.schemas as Schema)) {
      if (schema.properties?.success) expect(schema.properties.success.type, name).to.equal('boolean');
    }
  });

  it('a change entry is a whole live entry or a whole tombstone, each with its own deleted constant', function () {
    const { GrantChange, GrantTombstone, ChangeEntry } = doc.components.schemas;
    expect(ChangeEntry.oneOf).to.deep.equal([
      { $ref: '#/components/schemas/GrantChange' },
      { $ref: '#/components/schemas/GrantTombstone' },
    ]);
    expect(ChangeEntry).not.to.have.property('properties');
    for (const [schema, deleted] of [
      [GrantChange, false],
      [GrantTombstone, true],
    ] as const) {
      expect(schema.required).to.have.members(['id', 'deleted', 'changedAt', 'changes', 'grant']);
      expect(schema.properties.deleted).to.include({ type: 'boolean', const: deleted });
    }
    const tombstone = { id: 'grt_1', deleted: true, changedAt: '2026-11-23T10:00:00.000Z', changes: null, grant: null };
    expect(schemaProblems(ChangeEntry, tombstone)).to.deep.equal([]);
    expect(
      schemaProblems(ChangeEntry, { ...tombstone, changes: [{ field: 'deadline', from: null, to: null }] }),
    ).not.to.deep.equal([]);
    const update = {
      id: 'grt_1',
      deleted: false,
      changedAt: '2026-11-23T10:00:00.000Z',
      changes: [{ field: 'deadline', from: '2026-12-31T23:59:59.000Z', to: '2027-01-31T23:59:59.000Z' }],
      grant: EXAMPLE_GRANT,
    };
    expect(schemaProblems(ChangeEntry, update)).to.deep.equal([]);
    expect(
      schemaProblems(ChangeEntry, { ...update, changes: [{ field: 'colour', from: 1, to: 2 }] }),
    ).not.to.deep.equal([]);
    expect(schemaProblems(ChangeEntry, { ...tombstone, deleted: false })).not.to.deep.equal([]);
    expect(schemaProblems(ChangeEntry, { ...tombstone, grant: EXAMPLE_GRANT })).not.to.deep.equal([]);
  });

  it('export bodies are text, the NDJSON line schema linked', function () {
    const content = doc.paths['/grants/export'].get.responses[200].content;
    for (const media of Object.values(content) as Schema[]) expect(media.schema.type).to.equal('string');
    expect(content['application/x-ndjson']['x-item-schema']).to.deep.equal({
      $ref: '#/components/schemas/GrantFields',
    });
    expect(content['application/x-ndjson'].schema.description).to.include('#/components/schemas/GrantFields');
  });

  it('lists every error code of the error table, each with its status', function () {
    expect(doc.components.schemas.ErrorBody.properties.code.enum).to.have.members(Object.keys(ERROR_STATUS));
    expect(ERROR_STATUS).to.include({ REQUEST_TIMEOUT: 408, REQUEST_TOO_LARGE: 431, BAD_REQUEST: 400 });
    const given = new Set<string>();
    for (const [, op] of operations()) {
      for (const [status, response] of Object.entries(op.responses as Schema)) {
        for (const code of response['x-error-codes'] ?? []) {
          expect(ERROR_STATUS[code as keyof typeof ERROR_STATUS], code).to.equal(Number(status));
          given.add(code);
        }
      }
    }
    // 405 answers a method the document has no operation for; every other code is on some operation.
    expect([...given, 'METHOD_NOT_ALLOWED']).to.have.members(Object.keys(ERROR_STATUS));
  });

  it('every example answer fits its schema, and each operation has one', function () {
    for (const [path, op] of operations()) {
      if (op.operationId === 'getOpenapiDocument') continue;
      const success = Object.keys(op.responses as Schema).find((status) => status.startsWith('2'))!;
      const content = op.responses[success].content as Schema;
      for (const [type, media] of Object.entries(content)) {
        const examples = Object.values(media.examples ?? {}) as Schema[];
        expect(examples, `${path} ${type}`).to.have.length.of.at.least(1);
        for (const { value } of examples) {
          if (media['x-item-schema']) {
            for (const line of (value as string).split('\n').filter((l) => l !== ''))
              expect(schemaProblems(media['x-item-schema'], JSON.parse(line)), path).to.deep.equal([]);
          } else expect(schemaProblems(media.schema, value), `${path} ${type}`).to.deep.equal([]);
        }
      }
      for (const [status, response] of Object.entries(op.responses as Schema)) {
        const example = response.content?.['application/json']?.example;
        if (example !== undefined)
          expect(
            schemaProblems(response.content['application/json'].schema, example),
            `${path} ${status}`,
          ).to.deep.equal([]);
      }
    }
  });

  it('a broken example is caught by the same check (the check can fail)', function () {
    const schema = doc.components.schemas.GrantSearchAnswer;
    const broken = structuredClone(ANSWER_EXAMPLES.grants.value) as Schema;
    broken.data[0].currency = 'EUR';
    expect(schemaProblems(schema, broken)).not.to.deep.equal([]);
  });

  it('every example that lists grants asks for open grants (open=true), and GET /grants says how to see them first', function () {
    const listing = [ANSWER_EXAMPLES.grants.request, EXPORT_EXAMPLES.ndjson.request, EXPORT_EXAMPLES.csv.request];
    expect(
      listing.filter((request) => !new URLSearchParams(request.split('?')[1]).getAll('open').includes('true')),
    ).to.deep.equal([]);
    const search = doc.paths['/grants'].get;
    expect(search.description).to.contain('`open=true&sort=deadline`');
    expect(doc.info.description).to.contain('## Open grants first').and.to.contain('open=true&sort=deadline');
    expect(doc.paths['/grants/export'].get.description).to.contain('`open=true`');
    // Every summary of an example request of a grant list, wherever it is in the document.
    const summaries = [...schemasIn(doc.paths, '')].flatMap(([, node]) =>
      typeof node.summary === 'string' && /^GET \S*\/grants(\/export)?\?/.test(node.summary)
        ? [node.summary as string]
        : [],
    );
    expect(summaries.length).to.be.at.least(3);
    expect(summaries.filter((summary) => !summary.includes('open=true'))).to.deep.equal([]);
  });

  describe('the example answers are what the API answers over the fixture catalog', function () {
    let api: TestApi;
    before(async function () {
      // The grant lists ask for open grants, which depend on the time: the server's clock is the examples' time.
      api = await startTestApi({}, { clock: () => new Date(EXAMPLE_META.timestamp) });
    });
    after(async function () {
      await api?.stop();
    });

    it('the example grant is a fixture grant, as served', function () {
      const { status, ...stored } = EXAMPLE_GRANT;
      expect(fixtureGrants().find((g) => g.id === EXAMPLE_GRANT.id)).to.deep.equal(stored);
      expect(status).to.equal(grantStatus(stored, Date.parse(EXAMPLE_META.timestamp)));
    });

    for (const [name, example] of Object.entries(ANSWER_EXAMPLES)) {
      it(`${name}: GET ${example.request} ${example.exact ? 'answers the example (meta aside)' : 'answers with the shape of the example'}`, async function () {
        const res = await api.request(API_PREFIX + example.request);
        expect(res.status, res.text).to.equal(200);
        const { meta: _meta, ...answer } = res.body;
        const { meta: _exampleMeta, ...expected } = example.value as Schema;
        if (example.exact) expect(answer).to.deep.equal(expected);
        else expect(Object.keys(answer)).to.deep.equal(Object.keys(expected));
      });
    }

    for (const [name, doc] of Object.entries(COMMON_GRANTS_OPERATIONS)) {
      it(`${name}: ${doc.exampleBody === undefined ? 'GET' : 'POST'} ${doc.request} answers the example (meta aside)`, async function () {
        const res =
          doc.exampleBody === undefined
            ? await api.request(API_PREFIX + doc.request)
            : await api.request(API_PREFIX + doc.request, {
                method: 'POST',
                headers: { 'Content-Type': 'application/json' },
                body: JSON.stringify(doc.exampleBody),
              });
        expect(res.status, res.text).to.equal(200);
        expect({ ...res.body, meta: undefined }).to.deep.equal({ ...(doc.example as Schema), meta: undefined });
      });
    }

    it('the export examples are the NDJSON and CSV the API streams', async function () {
      for (const { request, text } of Object.values(EXPORT_EXAMPLES)) {
        const res = await api.request(API_PREFIX + request);
        expect(res.status).to.equal(200);
        expect(res.text, request).to.equal(text);
      }
    });

    it('the 400 example is the error the API answers', async function () {
      const res = await api.request(API_PREFIX + VALIDATION_ERROR_EXAMPLE.request, { invalidRequest: true });
      expect(res.status).to.equal(400);
      expect({ ...res.body, meta: undefined }).to.deep.equal({ ...VALIDATION_ERROR_EXAMPLE.value, meta: undefined });
    });
  });
});
