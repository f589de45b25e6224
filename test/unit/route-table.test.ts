// The public route table (src/http/routeTable.ts): what the classification, the dispatch, the
// usage log and the billing rules read, checked on exact outputs.
import { expect } from 'chai';
import { scopeFor } from '../../src/http/middleware/keyScopeChecks.js';
import { ROUTES, type RouteSpec } from '../../src/http/routeTable.js';

describe('unit: the route table', () => {
  it('lists every endpoint once, with its template, methods, feature, billing and key scopes (read, write)', () => {
    const scopes = (r: RouteSpec) => [scopeFor(r, 'GET'), scopeFor(r, 'POST')];
    expect(ROUTES.map((r) => [r.name, r.template, [...r.methods], r.feature, r.billable, ...scopes(r)])).to.deep.equal([
      ['grants', '/grants', ['GET', 'HEAD'], 'grants.search', true, 'grants:search', 'grants:search'],
      ['grantFilters', '/grants/filters', ['GET', 'HEAD'], 'grants.search', true, 'grants:search', 'grants:search'],
      ['grantSuggest', '/grants/suggest', ['GET', 'HEAD'], 'grants.search', true, 'grants:search', 'grants:search'],
      ['grantChanges', '/grants/changes', ['GET', 'HEAD'], 'grants.search', true, 'grants:changes', 'grants:changes'],
      ['grantExport', '/grants/export', ['GET', 'HEAD'], 'grants.export', true, 'grants:export', 'grants:export'],
      ['grant', '/grants/:id', ['GET', 'HEAD'], 'grants.read', true, 'grants:read', 'grants:read'],
      ['grantHistory', '/grants/:id/history', ['GET', 'HEAD'], 'grants.read', true, 'grants:read', 'grants:read'],
      ['grantSimilar', '/grants/:id/similar', ['GET', 'HEAD'], 'grants.search', true, 'grants:search', 'grants:search'],
      [
        'usage',
        '/subscription/usage',
        ['GET', 'HEAD'],
        'subscription.read',
        false,
        'subscription:read',
        'subscription:read',
      ],
      [
        'limits',
        '/subscription/limits',
        ['GET', 'HEAD'],
        'subscription.read',
        false,
        'subscription:read',
        'subscription:read',
      ],
      ['alerts', '/alerts', ['GET', 'HEAD', 'POST'], 'alerts.manage', true, 'alerts:read', 'alerts:write'],
      [
        'alert',
        '/alerts/:id',
        ['GET', 'HEAD', 'PATCH', 'DELETE'],
        'alerts.manage',
        true,
        'alerts:read',
        'alerts:write',
      ],
      ['alertSecret', '/alerts/:id/secret', ['POST'], 'alerts.manage', true, 'alerts:write', 'alerts:write'],
      ['alertTest', '/alerts/:id/test', ['POST'], 'alerts.manage', true, 'alerts:write', 'alerts:write'],
      [
        'alertDeliveries',
        '/alerts/:id/deliveries',
        ['GET', 'HEAD'],
        'alerts.manage',
        true,
        'alerts:read',
        'alerts:read',
      ],
      [
        'alertDeliveryRetry',
        '/alerts/:id/deliveries/:deliveryId/retry',
        ['POST'],
        'alerts.manage',
        true,
        'alerts:write',
        'alerts:write',
      ],
      ['keys', '/keys', ['GET', 'HEAD', 'POST'], 'subscription.read', true, 'keys:manage', 'keys:manage'],
      ['key', '/keys/:id', ['DELETE'], 'subscription.read', true, 'keys:manage', 'keys:manage'],
      [
        'commonGrantsOpportunities',
        '/common-grants/opportunities',
        ['GET', 'HEAD'],
        'grants.search',
        true,
        'grants:search',
        'grants:search',
      ],
      [
        'commonGrantsSearch',
        '/common-grants/opportunities/search',
        ['POST'],
        'grants.search',
        true,
        'grants:search',
        'grants:search',
      ],
      [
        'commonGrantsOpportunity',
        '/common-grants/opportunities/:id',
        ['GET', 'HEAD'],
        'grants.read',
        true,
        'grants:read',
        'grants:read',
      ],
      ['mcp', '/mcp', ['POST'], 'grants.search', true, null, null],
    ]);
    // The CommonGrants routes answer errors in the protocol's shape too.
    expect(ROUTES.filter((r) => 'protocol' in r && r.protocol === 'commonGrants').map((r) => r.name)).to.deep.equal([
      'commonGrantsOpportunities',
      'commonGrantsSearch',
      'commonGrantsOpportunity',
    ]);
    // Only the MCP endpoint counts its calls itself (each tool call), not at admission.
    expect(ROUTES.filter((r) => 'billedByHandler' in r && r.billedByHandler).map((r) => r.name)).to.deep.equal(['mcp']);
  });
});
