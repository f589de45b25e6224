// The public route table and its matcher (src/http/routeTable.ts): what the classification, the
// dispatch, the usage log and the billing rules read, checked on exact outputs.
import { expect } from 'chai';
import { scopeFor } from '../../src/http/middleware/keyRestrictionChecks.js';
import { API_PREFIX as P, matchRoute, ROUTES, type RouteSpec } from '../../src/http/routeTable.js';

const match = (path: string) => {
  const found = matchRoute(path);
  return found === undefined ? undefined : { name: found.route.name, params: found.params };
};

describe('unit: the route table', () => {
  it('lists every endpoint once, with its template, methods, feature, billing and key scopes (read, write)', () => {
    const scopes = (r: RouteSpec) => [scopeFor(r, 'GET'), scopeFor(r, 'POST')];
    expect(ROUTES.map((r) => [r.name, r.template, [...r.methods], r.feature, r.billable, ...scopes(r)])).to.deep.equal([
      ['grants', '/grants', ['GET', 'HEAD'], 'grants.search', true, 'grants:search', 'grants:search'],
      ['grantFilters', '/grants/filters', ['GET', 'HEAD'], 'grants.search', true, 'grants:search', 'grants:search'],
      ['grantChanges', '/grants/changes', ['GET', 'HEAD'], 'grants.search', true, 'grants:changes', 'grants:changes'],
      ['grantExport', '/grants/export', ['GET', 'HEAD'], 'grants.export', true, 'grants:export', 'grants:export'],
      ['grant', '/grants/:id', ['GET', 'HEAD'], 'grants.read', true, 'grants:read', 'grants:read'],
      ['usage', '/subscription/usage', ['GET', 'HEAD'], 'subscription.read', false, 'subscription:read', 'subscription:read'],
      ['limits', '/subscription/limits', ['GET', 'HEAD'], 'subscription.read', false, 'subscription:read', 'subscription:read'],
      ['alerts', '/alerts', ['GET', 'HEAD', 'POST'], 'alerts.manage', true, 'alerts:read', 'alerts:write'],
      ['alert', '/alerts/:id', ['GET', 'HEAD', 'PATCH', 'DELETE'], 'alerts.manage', true, 'alerts:read', 'alerts:write'],
      ['alertSecret', '/alerts/:id/secret', ['POST'], 'alerts.manage', true, 'alerts:write', 'alerts:write'],
      ['alertTest', '/alerts/:id/test', ['POST'], 'alerts.manage', true, 'alerts:write', 'alerts:write'],
      ['alertDeliveries', '/alerts/:id/deliveries', ['GET', 'HEAD'], 'alerts.manage', true, 'alerts:read', 'alerts:read'],
      ['alertDeliveryRetry', '/alerts/:id/deliveries/:deliveryId/retry', ['POST'], 'alerts.manage', true, 'alerts:write', 'alerts:write'],
      ['keys', '/keys', ['GET', 'HEAD', 'POST'], 'subscription.read', true, 'keys:manage', 'keys:manage'],
      ['key', '/keys/:id', ['DELETE'], 'subscription.read', true, 'keys:manage', 'keys:manage'],
      ['mcp', '/mcp', ['POST'], 'grants.search', true, null, null],
    ]);
    // Only the MCP endpoint counts its calls itself (each tool call), not at admission.
    expect(ROUTES.filter((r) => 'billedByHandler' in r && r.billedByHandler).map((r) => r.name)).to.deep.equal(['mcp']);
  });

  it('matches each template, the literals /grants/filters and /grants/changes before /grants/:id', () => {
    expect(match(`${P}/grants`)).to.deep.equal({ name: 'grants', params: {} });
    expect(match(`${P}/grants/filters`)).to.deep.equal({ name: 'grantFilters', params: {} });
    expect(match(`${P}/grants/changes`)).to.deep.equal({ name: 'grantChanges', params: {} });
    expect(match(`${P}/grants/export`)).to.deep.equal({ name: 'grantExport', params: {} });
    expect(match(`${P}/grants/abc-1`)).to.deep.equal({ name: 'grant', params: { id: 'abc-1' } });
    expect(match(`${P}/subscription/usage`)).to.deep.equal({ name: 'usage', params: {} });
    expect(match(`${P}/subscription/limits`)).to.deep.equal({ name: 'limits', params: {} });
  });

  it('is case-sensitive and compares the path as sent (an encoded literal is another path)', () => {
    expect(match(`${P}/Grants`)).to.equal(undefined);
    expect(match(`${P}/grants/Filters`)).to.deep.equal({ name: 'grant', params: { id: 'Filters' } });
    expect(match(`/External/v1/grants`)).to.equal(undefined);
    expect(match(`${P}/gr%61nts`)).to.equal(undefined);
    expect(match(`${P}/grants/%66ilters`)).to.deep.equal({ name: 'grant', params: { id: 'filters' } });
  });

  it('tolerates one trailing slash, not two, nor an empty segment', () => {
    expect(match(`${P}/grants/`)).to.deep.equal({ name: 'grants', params: {} });
    expect(match(`${P}/grants/x/`)).to.deep.equal({ name: 'grant', params: { id: 'x' } });
    expect(match(`${P}/grants//`)).to.equal(undefined);
    expect(match(`${P}//grants`)).to.equal(undefined);
    expect(match(`${P}/grants/x/y`)).to.equal(undefined);
    expect(match(P)).to.equal(undefined);
    expect(match(`${P}/`)).to.equal(undefined);
  });

  it('percent-decodes path parameters; a malformed escape is kept as sent, never thrown', () => {
    expect(match(`${P}/grants/a%2Fb`)).to.deep.equal({ name: 'grant', params: { id: 'a/b' } });
    expect(match(`${P}/grants/%C3%A9t%C3%A9`)).to.deep.equal({ name: 'grant', params: { id: 'été' } });
    expect(match(`${P}/grants/%E0%A4%A`)).to.deep.equal({ name: 'grant', params: { id: '%E0%A4%A' } });
    expect(match(`${P}/grants/%`)).to.deep.equal({ name: 'grant', params: { id: '%' } });
    expect(match(`${P}/grants/__proto__`)).to.deep.equal({ name: 'grant', params: { id: '__proto__' } });
  });
});
