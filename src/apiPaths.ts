// The API's versioned prefix, and the paths under it that the core names in what it sends out
// (the links of webhook payloads). The route table (http/routeTable.ts) serves them.

export const API_PREFIX = '/external/v1';

/** The path of GET /grants/{id}/similar for one grant: what a `grant.matched` payload links to. */
export const similarGrantsPath = (id: string): string => `${API_PREFIX}/grants/${encodeURIComponent(id)}/similar`;
