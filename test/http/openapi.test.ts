// The OpenAPI document: generated from the code's tables, committed as openapi.json (and kept in
// step), valid OpenAPI 3.1 for a maintained validator, served to anyone with an ETag, never
// counted; and the response check of the test client (every HTTP suite) really fails on a mismatch.
import { Validator } from '@seriousme/openapi-schema-validator';
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { apiLayers } from '../../src/app.js';
import { openapiDocument, openapiJson } from '../../src/http/openapi/document.js';
import { API_PREFIX, ROUTES } from '../../src/http/routeTable.js';
import { REPO_ROOT, startTestApi, type TestApi } from '../support/api.js';
import { checkResponse } from '../support/openapiCheck.js';

const DOC = `${API_PREFIX}/openapi.json`;

describe('OpenAPI document', function () {
  let api: TestApi;
  before(async function () {
    api = await startTestApi();
  });
  after(async function () {
    await api?.stop();
  });

  it('the committed openapi.json is the generated one (run `npm run openapi` after changing a table)', function () {
    const committed = readFileSync(path.join(REPO_ROOT, 'openapi.json'), 'utf8');
    expect(committed === openapiJson(), 'openapi.json is stale: run `npm run openapi` and commit it').to.equal(true);
  });

  it('the served document validates as OpenAPI 3.1 with zero errors', async function () {
    const res = await api.request(DOC, { key: null });
    expect(res.status).to.equal(200);
    const result = await new Validator().validate(res.body);
    expect(result.errors ?? [], JSON.stringify(result.errors)).to.deep.equal([]);
    expect(result.valid).to.equal(true);
    expect(res.body.openapi).to.equal('3.1.0');
  });

  it('a broken document is refused by the same validator (the check can fail)', async function () {
    const broken = openapiDocument() as any;
    broken.paths['/grants'].get.responses = 'none';
    const result = await new Validator().validate(broken);
    expect(result.valid).to.equal(false);
  });

  it('has every route of the route table with each of its methods but HEAD, with each query parameter; HEAD is documented in prose', function () {
    const doc = openapiDocument() as any;
    for (const route of ROUTES) {
      const item = doc.paths[route.template.replace(/:([A-Za-z]+)/g, '{$1}')];
      expect(Object.keys(item ?? {}), route.template).to.deep.equal(
        (route.methods as readonly string[]).filter((m) => m !== 'HEAD').map((m) => m.toLowerCase()),
      );
      if ((route.methods as readonly string[]).includes('GET'))
        expect(item.get.description, route.template).to.include('`HEAD` on the same path');
    }
    expect(doc.info.description).to.match(/## HEAD\nEvery GET operation below also answers `HEAD`/);
    const params = doc.paths['/grants'].get.parameters.map((p: any) => p.name);
    expect(params).to.include.members([
      'search',
      'funderType',
      'sort',
      'facets',
      'fields',
      'page',
      'limit',
      'deadlineFrom',
    ]);
    const limit = doc.paths['/grants'].get.parameters.find((p: any) => p.name === 'limit');
    expect(limit.schema).to.deep.equal({ type: 'integer', minimum: 0, default: 20 });
    expect(limit.description).to.contain('Above 100 it is served as 100');
    // Every paged endpoint clamps its limit the same way: no maximum that refuses.
    const changesLimit = doc.paths['/grants/changes'].get.parameters.find((p: any) => p.name === 'limit');
    expect(changesLimit.schema).to.deep.equal({ type: 'integer', minimum: 1, default: 100 });
    expect(changesLimit.description).to.contain('Above 1000 it is served as 1000');
    const days = doc.paths['/subscription/usage'].get.parameters.find((p: any) => p.name === 'days');
    expect(days.schema).to.deep.equal({ type: 'integer', minimum: 1, maximum: 365, default: 30 });
    expect(doc.components.securitySchemes.bearerKey).to.include({ type: 'http', scheme: 'bearer' });
  });

  it('is served without a key, with an ETag; If-None-Match answers 304 with no body', async function () {
    const res = await api.request(DOC, { key: null });
    expect(res.status).to.equal(200);
    expect(res.text).to.equal(openapiJson());
    const etag = res.headers.get('etag');
    expect(etag).to.match(/^"[A-Za-z0-9_-]+"$/);
    const again = await api.request(DOC, { key: null, headers: { 'If-None-Match': etag! } });
    expect(again.status).to.equal(304);
    expect(again.text).to.equal('');
    const other = await api.request(DOC, { key: null, headers: { 'If-None-Match': '"other"' } });
    expect(other.status).to.equal(200);
    const head = await api.request(DOC, { key: null, method: 'HEAD' });
    expect(head.status).to.equal(200);
    expect(head.headers.get('etag')).to.equal(etag);
    expect(head.text).to.equal('');
  });

  it('is neither billed nor counted in usage, even with a key', async function () {
    for (let i = 0; i < 3; i++) expect((await api.request(DOC)).status).to.equal(200);
    const usage = await api.request('/external/v1/subscription/usage');
    expect(usage.body.data.currentMonth.calls).to.equal(0);
    expect(usage.body.data.statistics.totalCalls).to.equal(0);
    const { limit } = usage.body.data.currentMonth;
    expect(usage.headers.get('ratelimit')).to.include(`"month";r=${limit};`);
  });

  describe('the request check of the test client', function () {
    const used = async () =>
      (await api.request('/external/v1/subscription/usage')).body.data.currentMonth.calls as number;

    it('refuses, before sending it, a parameter the document does not declare and a list written repeated', async function () {
      const before = await used();
      await expectRejection(
        api.request('/external/v1/grants?limit=1&colour=blue'),
        /query parameter "colour" is not declared by the operation/,
      );
      await expectRejection(
        api.request('/external/v1/grants?funderType=FOUNDATION&funderType=CORPORATE'),
        /list parameter "funderType" is given 2 times; the document declares style form, explode false/,
      );
      await expectRejection(
        api.request('/external/v1/grants?funderType[]=FOUNDATION'),
        /"funderType\[\]" is not declared/,
      );
      await expectRejection(api.request('/external/v1/grants', { key: null }), /lacks the credentials/);
      expect(await used(), 'nothing was sent').to.equal(before);
      expect(
        (await api.request('/external/v1/grants?funderType=FOUNDATION,CORPORATE&limit=1')).status,
        'the declared form passes',
      ).to.equal(200);
      expect(
        (
          await api.request('/external/v1/grants?funderType=FOUNDATION&funderType=CORPORATE&limit=1', {
            tolerantLists: true,
          })
        ).status,
        'a tolerated form, marked',
      ).to.equal(200);
    });

    it('sends a call marked invalidRequest, and then requires a 4xx the document lists', async function () {
      const refused = await api.request('/external/v1/grants?colour=blue', { invalidRequest: true });
      expect(refused.status).to.equal(400);
      await expectRejection(
        api.request('/external/v1/grants?limit=1', { invalidRequest: true }),
        /marked invalidRequest, but answered 200/,
      );
    });
  });

  describe('the response check of the test client', function () {
    it('passes a real response and fails one whose body the document does not allow', async function () {
      const res = await api.request('/external/v1/grants?limit=1');
      expect(res.status).to.equal(200);
      expect(() => checkResponse('GET', '/external/v1/grants?limit=1', res)).not.to.throw();
      const wrong = structuredClone(res.body);
      wrong.data[0].funderType = 'PIRATE';
      expect(() => checkResponse('GET', '/external/v1/grants?limit=1', { ...res, body: wrong })).to.throw(
        /funderType|enum/,
      );
      const extra = { ...structuredClone(res.body), surprise: 1 };
      expect(() => checkResponse('GET', '/external/v1/grants?limit=1', { ...res, body: extra })).to.throw(
        /does not match/,
      );
    });

    it('fails a status the operation does not list, and a required header that is missing', async function () {
      const res = await api.request('/external/v1/subscription/limits');
      expect(() => checkResponse('GET', '/external/v1/subscription/limits', { ...res, status: 418 })).to.throw(
        /status 418/,
      );
      const headers = new Headers(res.headers);
      headers.delete('x-request-id');
      expect(() => checkResponse('GET', '/external/v1/subscription/limits', { ...res, headers })).to.throw(
        /X-Request-Id is missing/,
      );
      const wrongReport = structuredClone(res.body);
      delete wrongReport.data.limits.monthly.remaining;
      expect(() => checkResponse('GET', '/external/v1/subscription/limits', { ...res, body: wrongReport })).to.throw(
        /remaining/,
      );
    });

    it('runs in the test client: a server answering against the document makes request() fail', async function () {
      // The real app, but /grants answers a grant without its required fields.
      const wrong = await startTestApi(
        {},
        {
          layers: (deps) =>
            apiLayers(deps).map((layer) =>
              layer.name !== 'dispatch'
                ? layer
                : {
                    name: 'dispatch',
                    middleware: async (ctx) => {
                      ctx.body = {
                        success: true,
                        data: [{ title: 'no id' }],
                        pagination: { page: 1, limit: 1, total: 1, totalPages: 1 },
                        meta: { timestamp: new Date().toISOString(), requestId: ctx.state.requestId, version: 'v1' },
                      };
                    },
                  },
            ),
        },
      );
      try {
        let failure: unknown;
        await wrong.request('/external/v1/grants?limit=1').catch((error: unknown) => (failure = error));
        expect(String(failure)).to.match(/does not conform to openapi.json[\s\S]*id/);
      } finally {
        await wrong.stop();
      }
    });

    it('fails an error code the document does not give that status', async function () {
      // An error envelope with an error code the document does not give this status is refused.
      const res = await api.request('/external/v1/grants/no-such-grant');
      expect(res.status).to.equal(404);
      const body = structuredClone(res.body);
      body.error.code = 'RATE_LIMITED';
      expect(() => checkResponse('GET', '/external/v1/grants/no-such-grant', { ...res, body })).to.throw(/code/);
    });
  });
});

/** Asserts that a promise rejects with a message matching the pattern. */
async function expectRejection(promise: Promise<unknown>, pattern: RegExp): Promise<void> {
  const outcome = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(outcome, 'the call was expected to fail').to.be.instanceOf(Error);
  expect((outcome as Error).message).to.match(pattern);
}
