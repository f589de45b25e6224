// Conformance of the CommonGrants routes to the protocol's own published definitions: the TypeSpec
// of @common-grants/core (devDependency), compiled here to JSON Schema by the TypeSpec compiler and
// its JSON Schema emitter, and our real answers (list, by id, search, errors) validated against
// the schemas of the protocol's operations. Nothing of the protocol is written by hand: the
// response models are the templates the protocol's operations return (checked below against the
// operations themselves), instantiated at the version we serve.
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { compile, NodeHost, type Model, type Namespace, type Program, type Type } from '@typespec/compiler';
import { getHttpOperation, isMetadata } from '@typespec/http';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { COMMON_GRANTS_VERSION, opportunityUuid } from '../../src/grants/commonGrants.js';
import { REPO_ROOT, startTestApi, type TestApi, type TestResponse } from '../support/api.js';

const CG = '/external/v1/common-grants/opportunities';
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/** The version enum member of the protocol version we serve (CommonGrants.Versions: v0_3 for "0.3.0"). */
const VERSION_MEMBER = `v${COMMON_GRANTS_VERSION.split('.').slice(0, 2).join('_')}`;

/**
 * Our models: each `is` the template instance one of the protocol's opportunity operations
 * returns (200), so that the emitter writes its schema; the Error model of the 404 is emitted by
 * the library itself (CommonGrants.Responses is a @jsonSchema namespace).
 */
const CONFORMANCE_TSP = `
import "@typespec/json-schema";
import "@typespec/versioning";
import "@common-grants/core";

using TypeSpec.JsonSchema;
using CommonGrants;

@jsonSchema
@Versioning.useDependency(CommonGrants.Versions.${VERSION_MEMBER})
namespace Conformance;

model ListResponse is Responses.Paginated<Models.OpportunityBase>;
model ReadResponse is Responses.Ok<Models.OpportunityDetails>;
model SearchResponse is Responses.Filtered<Models.OpportunityBase, Models.OppFilters>;
`;

/** Which operation of CommonGrants.API.Opportunities each of our models is the 200 body of. */
const OPERATION_OF: Record<string, string> = { ListResponse: 'list', ReadResponse: 'read', SearchResponse: 'search' };

interface Compiled {
  program: Program;
  /** The emitted schemas by file name ($id). */
  schemas: Map<string, Record<string, unknown>>;
}

/** Compiles CONFORMANCE_TSP in a temporary directory (its node_modules: ours) to JSON Schema. */
async function compileProtocol(): Promise<Compiled> {
  const dir = mkdtempSync(path.join(tmpdir(), 'common-grants-tsp-'));
  try {
    symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
    writeFileSync(path.join(dir, 'main.tsp'), CONFORMANCE_TSP);
    const out = path.join(dir, 'out');
    const program = await compile(NodeHost, path.join(dir, 'main.tsp'), {
      emit: ['@typespec/json-schema'],
      options: { '@typespec/json-schema': { 'file-type': 'json', 'emitter-output-dir': out } },
    });
    const errors = program.diagnostics.filter((d) => d.severity === 'error');
    if (errors.length > 0)
      throw new Error(`tsp compile: ${errors.map((d) => `${String(d.code)} ${d.message}`).join('; ')}`);
    const schemas = new Map<string, Record<string, unknown>>();
    for (const file of readdirSync(out))
      schemas.set(file, JSON.parse(readFileSync(path.join(out, file), 'utf8')) as Record<string, unknown>);
    return { program, schemas };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const resolved = (program: Program, reference: string): Type => {
  const [type] = program.resolveTypeReference(reference);
  if (type === undefined) throw new Error(`${reference} is not in the compiled program`);
  return type;
};

/**
 * The body type of an operation's response with this status (the protocol's own operation, as @typespec/http reads it).
 */
function bodyOf(program: Program, operation: string, status: number): Type | undefined {
  const opportunities = resolved(program, 'CommonGrants.API.Opportunities') as Namespace;
  const [http] = getHttpOperation(program, opportunities.operations.get(operation)!);
  const response = http.responses.find((r) => r.statusCodes === status);
  return response?.responses[0]?.body?.type;
}

/** The properties of a model that are HTTP metadata (the status code), which travel outside the body. */
const metadataOf = (program: Program, model: Model): string[] =>
  [...model.properties.values()].filter((p) => isMetadata(program, p)).map((p) => p.name);

describe("CommonGrants conformance: our answers against the protocol's own JSON Schemas", function () {
  this.timeout(120_000);
  let compiled: Compiled;
  let api: TestApi;
  const validators = new Map<string, ValidateFunction>();

  before(async function () {
    compiled = await compileProtocol();
    const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
    for (const [name, schema] of compiled.schemas) {
      const model = name.replace(/\.json$/, '');
      if (OPERATION_OF[model] !== undefined) {
        // The JSON Schema emitter knows no HTTP: it writes the response's status code
        // (@statusCode, from Http.OkResponse) as a body property; @typespec/http says it is
        // metadata, sent as the status line. It is taken out of the body's schema, as the
        // protocol's OpenAPI emitter does.
        const metadata = metadataOf(compiled.program, resolved(compiled.program, `Conformance.${model}`) as Model);
        const properties = schema.properties as Record<string, unknown>;
        for (const name of metadata) delete properties[name];
        schema.required = (schema.required as string[]).filter((r) => !metadata.includes(r));
      }
      ajv.addSchema(schema);
    }
    for (const name of ['ListResponse', 'ReadResponse', 'SearchResponse', 'Error'])
      validators.set(name, ajv.getSchema(`${name}.json`)!);
    api = await startTestApi({}, { clock: () => new Date('2026-11-23T09:00:00.000Z') });
  });
  after(async function () {
    await api?.stop();
  });

  function expectConforms(schema: string, res: TestResponse): void {
    const validate = validators.get(schema)!;
    const ok = validate(res.body);
    expect(ok, `${schema}: ${JSON.stringify(validate.errors?.slice(0, 5))}`).to.equal(true);
  }

  it('serves the newest version the installed @common-grants/core defines', function () {
    const core = JSON.parse(
      readFileSync(path.join(REPO_ROOT, 'node_modules/@common-grants/core/package.json'), 'utf8'),
    ) as { version: string };
    expect(core.version).to.equal('0.3.0-alpha.1');
    const versions = resolved(compiled.program, 'CommonGrants.Versions') as unknown as {
      members: Map<string, { value?: string }>;
    };
    const values = [...versions.members.values()].map((m) => m.value);
    expect(values.at(-1)).to.equal(COMMON_GRANTS_VERSION);
  });

  it("our models are the bodies the protocol's operations return, and its 404 is its Error", function () {
    const program = compiled.program;
    for (const [model, operation] of Object.entries(OPERATION_OF)) {
      const ours = resolved(program, `Conformance.${model}`) as Model;
      expect(ours.sourceModel, model).to.equal(bodyOf(program, operation, 200));
    }
    const notFound = bodyOf(program, 'read', 404) as Model;
    const error = resolved(program, 'CommonGrants.Responses.Error') as Model;
    const bodyFields = [...notFound.properties.values()].filter((p) => !isMetadata(program, p)).map((p) => p.name);
    expect(bodyFields).to.have.members([...error.properties.keys()]);
    expect(compiled.schemas.has('Error.json')).to.equal(true);
  });

  it('GET /common-grants/opportunities: every page of the bundled catalog conforms', async function () {
    let page = 1;
    let pages: number;
    do {
      const res = await api.request(`${CG}?page=${page}&pageSize=100`);
      expect(res.status, res.text).to.equal(200);
      expectConforms('ListResponse', res);
      pages = res.body.paginationInfo.totalPages;
      page += 1;
    } while (page <= pages);
    expect(pages).to.be.greaterThan(1);
  });

  it('GET /common-grants/opportunities/{id}: by UUID and by our id, open and closed, with and without amounts', async function () {
    const list = await api.request(`${CG}?pageSize=100`);
    const items = list.body.items as {
      id: string;
      status: { value: string };
      funding?: unknown;
      keyDates?: unknown;
      customFields: { grantsApiId: { value: string } };
    }[];
    const picks = [
      items.find((o) => o.status.value === 'closed'),
      items.find((o) => o.status.value === 'open' && o.keyDates !== undefined),
      items.find((o) => o.keyDates === undefined),
      items.find((o) => o.funding === undefined),
    ].filter((o) => o !== undefined);
    expect(picks.length).to.be.at.least(3);
    for (const pick of picks) {
      expect(pick.id).to.equal(opportunityUuid(pick.customFields.grantsApiId.value));
      expectConforms('ReadResponse', await api.request(`${CG}/${pick.id}`));
      expectConforms(
        'ReadResponse',
        await api.request(`${CG}/${encodeURIComponent(pick.customFields.grantsApiId.value)}`),
      );
    }
  });

  it('POST /common-grants/opportunities/search: answers with filters, sorting and paging conform', async function () {
    const bodies = [
      {},
      { search: 'energy', filters: { status: { operator: 'in', value: ['open'] } }, pagination: { pageSize: 5 } },
      {
        filters: {
          closeDateRange: { operator: 'between', value: { min: '2026-01-01', max: '2027-12-31T23:59:59-05:00' } },
          minAwardAmountRange: {
            operator: 'between',
            value: { min: { amount: '0', currency: 'CAD' }, max: { amount: '1000000', currency: 'CAD' } },
          },
          customFilters: { eligibleProvinces: { operator: 'in', value: ['ONTARIO', 'QUEBEC'] } },
        },
        sorting: { sortBy: 'funding.maxAwardAmount', sortOrder: 'desc' },
        pagination: { page: 2, pageSize: 3 },
      },
      { filters: { status: { operator: 'in', value: ['forecasted'] } } },
    ];
    for (const body of bodies) {
      const res = await api.request(`${CG}/search`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status, res.text).to.equal(200);
      expectConforms('SearchResponse', res);
    }
  });

  it("errors conform to the protocol's Error: 404, 400, 405, 401", async function () {
    expectConforms('Error', await api.request(`${CG}/${opportunityUuid('no such grant')}`));
    expectConforms('Error', await api.request(`${CG}?pageSize=0`, { invalidRequest: true }));
    expectConforms(
      'Error',
      await api.request(`${CG}/search`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{"sorting":{"sortBy":"status.value"}}',
        invalidRequest: true,
      }),
    );
    expectConforms('Error', await api.request(CG, { method: 'PUT', invalidRequest: true }));
    expectConforms('Error', await api.request(CG, { key: null, invalidRequest: true }));
  });

  it('the schemas refuse an answer off the protocol (the check can fail)', async function () {
    const res = await api.request(`${CG}?pageSize=1`);
    const validate = validators.get('ListResponse')!;
    const offProtocol = structuredClone(res.body) as { items: { status: { value: string }; funding?: unknown }[] };
    offProtocol.items[0].status.value = 'accepting';
    expect(validate(offProtocol)).to.equal(false);
    const noPaging = { ...res.body, paginationInfo: undefined };
    expect(validate(JSON.parse(JSON.stringify(noPaging)))).to.equal(false);
    const badMoney = structuredClone(res.body) as { items: { funding?: { minAwardAmount?: { amount: unknown } } }[] };
    badMoney.items[0].funding = { minAwardAmount: { amount: 1000 } };
    expect(validate(badMoney)).to.equal(false);
  });
});
