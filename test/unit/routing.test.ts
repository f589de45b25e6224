// The route table served through @koa/router (src/http/middleware/routing.ts): which route and
// path parameters the classification puts on ctx.state for a path as a client sends it, on a real
// HTTP server (raw paths, not normalised by a client), checked on exact outputs.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import Koa from 'koa';
import { classifyRoute, dispatch } from '../../src/http/middleware/routing.js';
import { API_PREFIX as P, ROUTES } from '../../src/http/routeTable.js';
import type { AppState } from '../../src/http/state.js';

describe('unit: the routing of the route table', function () {
  let server: http.Server;
  let port: number;

  before(async function () {
    const app = new Koa<AppState>();
    app.silent = true;
    app.use((ctx, next) => {
      ctx.state.params = {};
      return next();
    });
    app.use(classifyRoute());
    app.use((ctx) => {
      ctx.body = { route: ctx.state.route?.name ?? null, params: ctx.state.params };
    });
    server = http.createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  after(async function () {
    await new Promise((resolve) => server.close(resolve));
  });

  /** The route and parameters the classification finds for `path`, sent as is; undefined when it finds none. */
  function classify(
    path: string,
    method = 'GET',
  ): Promise<{ name: string; params: Record<string, string> } | undefined> {
    return new Promise((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, path, method }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          if (res.statusCode !== 200) return reject(new Error(`${path}: ${res.statusCode} ${text}`));
          const body = JSON.parse(text) as { route: string | null; params: Record<string, string> };
          resolve(body.route === null ? undefined : { name: body.route, params: body.params });
        });
      });
      req.on('error', reject);
      req.end();
    });
  }

  it('matches each template, the literals /grants/filters, /grants/changes and /grants/export before /grants/:id', async function () {
    expect(await classify(`${P}/grants`)).to.deep.equal({ name: 'grants', params: {} });
    expect(await classify(`${P}/grants/filters`)).to.deep.equal({ name: 'grantFilters', params: {} });
    expect(await classify(`${P}/grants/changes`)).to.deep.equal({ name: 'grantChanges', params: {} });
    expect(await classify(`${P}/grants/export`)).to.deep.equal({ name: 'grantExport', params: {} });
    expect(await classify(`${P}/grants/abc-1`)).to.deep.equal({ name: 'grant', params: { id: 'abc-1' } });
    expect(await classify(`${P}/subscription/usage`)).to.deep.equal({ name: 'usage', params: {} });
    expect(await classify(`${P}/subscription/limits`)).to.deep.equal({ name: 'limits', params: {} });
    expect(await classify(`${P}/alerts/a1/deliveries/d2/retry`)).to.deep.equal({
      name: 'alertDeliveryRetry',
      params: { id: 'a1', deliveryId: 'd2' },
    });
  });

  it('finds every route of the table at its own template, whatever the method (the route guard judges the method)', async function () {
    for (const route of ROUTES) {
      const path = P + route.template.replace(/:([A-Za-z]+)/g, 'x-$1');
      const params = Object.fromEntries(
        [...route.template.matchAll(/:([A-Za-z]+)/g)].map(([, name]) => [name, `x-${name}`]),
      );
      for (const method of ['GET', 'POST', 'PUT', 'DELETE'])
        expect(await classify(path, method), `${method} ${path}`).to.deep.equal({ name: route.name, params });
    }
  });

  it('is case-sensitive and compares the path as sent (an encoded literal is another path)', async function () {
    expect(await classify(`${P}/Grants`)).to.equal(undefined);
    expect(await classify(`${P}/grants/Filters`)).to.deep.equal({ name: 'grant', params: { id: 'Filters' } });
    expect(await classify(`${P}/gr%61nts`)).to.equal(undefined);
    expect(await classify(`${P}/grants/%66ilters`)).to.deep.equal({ name: 'grant', params: { id: 'filters' } });
  });

  it('tolerates one trailing slash, not two, nor an empty segment', async function () {
    expect(await classify(`${P}/grants/`)).to.deep.equal({ name: 'grants', params: {} });
    expect(await classify(`${P}/grants/x/`)).to.deep.equal({ name: 'grant', params: { id: 'x' } });
    expect(await classify(`${P}/grants//`)).to.equal(undefined);
    expect(await classify(`${P}//grants`)).to.equal(undefined);
    expect(await classify(`${P}/grants/x/y`)).to.equal(undefined);
    expect(await classify(`${P}/alerts//secret`)).to.equal(undefined);
    expect(await classify(P)).to.equal(undefined);
    expect(await classify(`${P}/`)).to.equal(undefined);
  });

  it('percent-decodes path parameters; a malformed escape is kept as sent, never thrown', async function () {
    expect(await classify(`${P}/grants/a%2Fb`)).to.deep.equal({ name: 'grant', params: { id: 'a/b' } });
    expect(await classify(`${P}/grants/%C3%A9t%C3%A9`)).to.deep.equal({ name: 'grant', params: { id: 'été' } });
    expect(await classify(`${P}/grants/%E0%A4%A`)).to.deep.equal({ name: 'grant', params: { id: '%E0%A4%A' } });
    expect(await classify(`${P}/grants/%`)).to.deep.equal({ name: 'grant', params: { id: '%' } });
    expect(await classify(`${P}/grants/__proto__`)).to.deep.equal({ name: 'grant', params: { id: '__proto__' } });
    expect(await classify(`${P}/grants/a.b;c,d~e`)).to.deep.equal({ name: 'grant', params: { id: 'a.b;c,d~e' } });
  });

  it('refuses a handler table that leaves a route without its handler', function () {
    expect(() => dispatch({})).to.throw(/route "grants" \(\/grants\) has no handler/);
  });
});
