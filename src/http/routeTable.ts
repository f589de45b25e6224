// The API's route table, public and plain: each endpoint's name, template, methods, the feature
// that guards it and whether it is billable. The router that classifies a request
// (middleware/routing.ts), the 405 check, the dispatch to its handler, the usage log (the
// template), the billing and feature checks read it, and so can a document generator (OpenAPI):
// nothing here needs a running app.
import type { Scope } from '../subscriptions/keyRestrictions.js';
import type { Feature } from '../subscriptions/tiers.js';
import { API_PREFIX } from '../apiPaths.js';

export { API_PREFIX };

/** Whether a path lies under the versioned prefix (the prefix itself included). */
export const isApiPath = (path: string): boolean => path === API_PREFIX || path.startsWith(`${API_PREFIX}/`);

/** Methods of the read-only endpoints; any method a route does not list is a 405 there. */
export const READ_METHODS = ['GET', 'HEAD'] as const;

export interface RouteSpec {
  name: string;
  /** Route template relative to API_PREFIX, as reported in usage statistics; `:name` is a path parameter. */
  template: string;
  methods: readonly string[];
  feature: Feature;
  /** Counts toward the monthly allowance. */
  billable: boolean;
  /**
   * The key scope a GET or HEAD needs (and any method, without writeScope); null: none at the route (the MCP tools
   * check theirs).
   */
  scope: Scope | null;
  /** The key scope a POST, PATCH or DELETE needs, when it differs. */
  writeScope?: Scope;
  /**
   * A billable route whose handler counts the calls (ctx.state.bill) instead of the admission:
   * the MCP endpoint counts each tool call (tools/call), not the handshake and listing around it.
   */
  billedByHandler?: boolean;
  /**
   * A route of another protocol, which fixes its answers' shape: 'commonGrants' (the CommonGrants
   * routes, src/http/handlers/commonGrants.ts), whose errors carry the protocol's `status`,
   * `message` and `errors` beside the envelope's fields.
   */
  protocol?: 'commonGrants';
}

/**
 * Every endpoint, in the order of the guides; a request takes the most specific route its path fits (/grants/filters
 * before /grants/:id).
 */
export const ROUTES = [
  {
    name: 'grants',
    template: '/grants',
    methods: READ_METHODS,
    feature: 'grants.search',
    billable: true,
    scope: 'grants:search',
  },
  {
    name: 'grantFilters',
    template: '/grants/filters',
    methods: READ_METHODS,
    feature: 'grants.search',
    billable: true,
    scope: 'grants:search',
  },
  {
    name: 'grantSuggest',
    template: '/grants/suggest',
    methods: READ_METHODS,
    feature: 'grants.search',
    billable: true,
    scope: 'grants:search',
  },
  {
    name: 'grantChanges',
    template: '/grants/changes',
    methods: READ_METHODS,
    feature: 'grants.search',
    billable: true,
    scope: 'grants:changes',
  },
  {
    name: 'grantExport',
    template: '/grants/export',
    methods: READ_METHODS,
    feature: 'grants.export',
    billable: true,
    scope: 'grants:export',
  },
  {
    name: 'grant',
    template: '/grants/:id',
    methods: READ_METHODS,
    feature: 'grants.read',
    billable: true,
    scope: 'grants:read',
  },
  {
    name: 'grantHistory',
    template: '/grants/:id/history',
    methods: READ_METHODS,
    feature: 'grants.read',
    billable: true,
    scope: 'grants:read',
  },
  // A search from a grant's own words (src/search/similarSearch.ts): billed, guarded and scoped as a search.
  {
    name: 'grantSimilar',
    template: '/grants/:id/similar',
    methods: READ_METHODS,
    feature: 'grants.search',
    billable: true,
    scope: 'grants:search',
  },
  {
    name: 'usage',
    template: '/subscription/usage',
    methods: READ_METHODS,
    feature: 'subscription.read',
    billable: false,
    scope: 'subscription:read',
  },
  {
    name: 'limits',
    template: '/subscription/limits',
    methods: READ_METHODS,
    feature: 'subscription.read',
    billable: false,
    scope: 'subscription:read',
  },
  // The partner's own configuration: alerts (src/http/handlers/alerts.ts).
  {
    name: 'alerts',
    template: '/alerts',
    methods: ['GET', 'HEAD', 'POST'],
    feature: 'alerts.manage',
    billable: true,
    scope: 'alerts:read',
    writeScope: 'alerts:write',
  },
  {
    name: 'alert',
    template: '/alerts/:id',
    methods: ['GET', 'HEAD', 'PATCH', 'DELETE'],
    feature: 'alerts.manage',
    billable: true,
    scope: 'alerts:read',
    writeScope: 'alerts:write',
  },
  {
    name: 'alertSecret',
    template: '/alerts/:id/secret',
    methods: ['POST'],
    feature: 'alerts.manage',
    billable: true,
    scope: 'alerts:write',
  },
  {
    name: 'alertTest',
    template: '/alerts/:id/test',
    methods: ['POST'],
    feature: 'alerts.manage',
    billable: true,
    scope: 'alerts:write',
  },
  {
    name: 'alertDeliveries',
    template: '/alerts/:id/deliveries',
    methods: READ_METHODS,
    feature: 'alerts.manage',
    billable: true,
    scope: 'alerts:read',
  },
  {
    name: 'alertDeliveryRetry',
    template: '/alerts/:id/deliveries/:deliveryId/retry',
    methods: ['POST'],
    feature: 'alerts.manage',
    billable: true,
    scope: 'alerts:write',
  },
  // The partner's own keys (src/http/handlers/keys.ts): billed like the alert calls; the subscription.read feature and
  // the keys:manage scope.
  {
    name: 'keys',
    template: '/keys',
    methods: ['GET', 'HEAD', 'POST'],
    feature: 'subscription.read',
    billable: true,
    scope: 'keys:manage',
  },
  {
    name: 'key',
    template: '/keys/:id',
    methods: ['DELETE'],
    feature: 'subscription.read',
    billable: true,
    scope: 'keys:manage',
  },
  // The CommonGrants protocol (src/http/handlers/commonGrants.ts): the catalog as the protocol's opportunities.
  {
    name: 'commonGrantsOpportunities',
    template: '/common-grants/opportunities',
    methods: READ_METHODS,
    feature: 'grants.search',
    billable: true,
    scope: 'grants:search',
    protocol: 'commonGrants',
  },
  {
    name: 'commonGrantsSearch',
    template: '/common-grants/opportunities/search',
    methods: ['POST'],
    feature: 'grants.search',
    billable: true,
    scope: 'grants:search',
    protocol: 'commonGrants',
  },
  {
    name: 'commonGrantsOpportunity',
    template: '/common-grants/opportunities/:id',
    methods: READ_METHODS,
    feature: 'grants.read',
    billable: true,
    scope: 'grants:read',
    protocol: 'commonGrants',
  },
  // The MCP server for AI agents (src/http/handlers/mcp.ts): JSON-RPC over POST (Streamable HTTP, stateless).
  // Each tool carries its REST route's feature, scope and billing; the endpoint itself needs grants.search.
  {
    name: 'mcp',
    template: '/mcp',
    methods: ['POST'],
    feature: 'grants.search',
    billable: true,
    billedByHandler: true,
    scope: null,
  },
] as const satisfies readonly RouteSpec[];

export type RouteName = (typeof ROUTES)[number]['name'];

/**
 * The CommonGrants routes' paths as patterns of a request path (a `:name` one segment, one trailing slash tolerated).
 */
const COMMON_GRANTS_PATHS = (ROUTES as readonly RouteSpec[])
  .filter((route) => route.protocol === 'commonGrants')
  .map((route) => new RegExp(`^${API_PREFIX}${route.template.replace(/:[A-Za-z]+/g, '[^/]+')}/?$`));

/**
 * Whether a path is one of the CommonGrants routes', for the errors answered before the request
 * is classified to its route (a URL too long): they take the protocol's shape there too.
 */
export const isCommonGrantsPath = (path: string): boolean => COMMON_GRANTS_PATHS.some((pattern) => pattern.test(path));
