// The public route table and its matcher (src/http/routeTable.ts): what the classification, the
// dispatch, the usage log and the billing rules read, checked on exact outputs.
import { expect } from 'chai';
import { API_PREFIX as P, matchRoute, ROUTES } from '../../src/http/routeTable.js';

const match = (path: string) => {
  const found = matchRoute(path);
  return found === undefined ? undefined : { name: found.route.name, params: found.params };
};

describe('unit: the route table', () => {
  it('lists every endpoint once, with its template, methods, feature and billing', () => {
    expect(ROUTES.map((r) => [r.name, r.template, [...r.methods], r.feature, r.billable])).to.deep.equal([
      ['grants', '/grants', ['GET', 'HEAD'], 'grants.search', true],
      ['grantFilters', '/grants/filters', ['GET', 'HEAD'], 'grants.search', true],
      ['grantChanges', '/grants/changes', ['GET', 'HEAD'], 'grants.search', true],
      ['grantExport', '/grants/export', ['GET', 'HEAD'], 'grants.export', true],
      ['grant', '/grants/:id', ['GET', 'HEAD'], 'grants.read', true],
      ['usage', '/subscription/usage', ['GET', 'HEAD'], 'subscription.read', false],
      ['limits', '/subscription/limits', ['GET', 'HEAD'], 'subscription.read', false],
      ['alerts', '/alerts', ['GET', 'HEAD', 'POST'], 'alerts.manage', true],
      ['alert', '/alerts/:id', ['GET', 'HEAD', 'PATCH', 'DELETE'], 'alerts.manage', true],
      ['alertSecret', '/alerts/:id/secret', ['POST'], 'alerts.manage', true],
      ['alertTest', '/alerts/:id/test', ['POST'], 'alerts.manage', true],
      ['alertDeliveries', '/alerts/:id/deliveries', ['GET', 'HEAD'], 'alerts.manage', true],
      ['alertDeliveryRetry', '/alerts/:id/deliveries/:deliveryId/retry', ['POST'], 'alerts.manage', true],
      ['mcp', '/mcp', ['POST'], 'grants.search', true],
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
