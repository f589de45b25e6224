// The layering check (npm test runs it before mocha; `npm run check:layers` alone, over src/ and
// indexer/): every import points from the edge to the core, never back, and no import cycle exists
// (type-only imports included); the indexer (indexer/) builds on the core in src/, and src/ does not
// import it (but for the API process's entry, which runs its start-up seeding); inside the HTTP
// layer the roles import one way, and inside the subscriptions store no adapter reaches another or
// the port side. docs/architecture.md, "Layers", draws the layers.

/** The core: the domain and its engines and stores, and the neutral modules they may use. */
const CORE = [
  '^src/(grants|subscriptions|search|ratelimit)/',
  '^src/(failures|sqliteFailures|config|settings|settingsReader|log|terminalText|repoRoot)[.]ts$',
];
/** The edge: the HTTP API, the CLIs, the indexer, and the process wiring that starts them. */
const EDGE = ['^src/(http|cli|deps)/', '^src/(app|main|deps|server|stores)[.]ts$', '^indexer/'];
/** The embedded search engine's folders (src/search/sqlite/ARCHITECTURE.md draws them). */
const ENGINE = '^src/search/sqlite/';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import cycle: modules that cannot be understood, tested or loaded one without the other.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'core-not-to-edge',
      severity: 'error',
      comment:
        'The core knows no HTTP, CLI or wiring: throw a domain failure (src/failures.ts), take what you need as a parameter.',
      from: { path: CORE },
      to: { path: EDGE },
    },
    {
      name: 'api-not-to-cli',
      severity: 'error',
      comment: 'The API does not import the CLIs (src/cli/); what both need belongs in the core.',
      from: { path: '^src/', pathNot: '^src/cli/' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'src-not-to-indexer',
      severity: 'error',
      comment:
        "The API and the core do not import the indexer (indexer/); what both need (the Grant schema, the engines' CatalogWriter) belongs in the core in src/. Only the API process's entry (src/main.ts) runs the indexer's start-up seeding (indexer/seed.ts).",
      from: { path: '^src/', pathNot: '^src/main[.]ts$' },
      to: { path: '^indexer/' },
    },
    {
      name: 'main-only-seeds',
      severity: 'error',
      comment: "The API process's entry imports from indexer/ its start-up seeding (indexer/seed.ts) and nothing else.",
      from: { path: '^src/main[.]ts$' },
      to: { path: '^indexer/', pathNot: '^indexer/seed[.]ts$' },
    },
    {
      name: 'indexer-not-to-api',
      severity: 'error',
      comment:
        'The indexer builds on the core and the CLI runner (src/cli/runner.ts, fileProblems.ts), never on the HTTP API, its wiring or grants-admin.',
      from: { path: '^indexer/' },
      to: {
        path: ['^src/http/', '^src/deps/', '^src/(app|main|deps|server|stores)[.]ts$', '^src/cli/admin([.]ts$|/)'],
      },
    },
    {
      name: 'http-and-cli-apart',
      severity: 'error',
      comment: 'The HTTP layer and the CLIs are siblings at the edge: what both need belongs in the core.',
      from: { path: '^src/http/' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'cli-and-http-apart',
      severity: 'error',
      comment: 'The HTTP layer and the CLIs are siblings at the edge: what both need belongs in the core.',
      from: { path: '^src/cli/' },
      to: { path: '^src/http/' },
    },
    {
      name: 'http-not-to-adapters',
      severity: 'error',
      comment:
        'The HTTP layer talks to ports (subscriptions/port.ts, search/engine.ts, alerts/store.ts), never to an adapter behind one: the wiring (src/deps.ts) picks the adapter.',
      from: { path: '^src/http/' },
      to: { path: '^src/(subscriptions|search|alerts)/(sqlite|postgres|redis|elasticsearch)/' },
    },
    {
      name: 'http-top-to-no-role',
      severity: 'error',
      comment:
        'What every role of the HTTP layer shares (the route table, the envelope, the error table, the request state and outcome) sits at the top of src/http/ and imports no role folder.',
      from: { path: '^src/http/[^/]+$' },
      to: { path: '^src/http/[^/]+/' },
    },
    {
      name: 'middleware-not-to-answers',
      severity: 'error',
      comment:
        'A layer of the pipeline (src/http/middleware/) knows no handler, page, OpenAPI part or metric: dispatch gets the handlers as a parameter (src/app.ts).',
      from: { path: '^src/http/middleware/' },
      to: { path: '^src/http/(handlers|pages|openapi|metrics)/' },
    },
    {
      name: 'parameters-stand-alone',
      severity: 'error',
      comment:
        'The parameters (src/http/parameters/) are definitions and parsers that handlers, MCP tools and the OpenAPI document read: they import none of those.',
      from: { path: '^src/http/parameters/' },
      to: { path: '^src/http/(middleware|handlers|pages|openapi|metrics)/' },
    },
    {
      name: 'handlers-not-to-pages',
      severity: 'error',
      comment:
        'A handler answers an API route; the pages and the metrics endpoint are outside the API and are not called by it.',
      from: { path: '^src/http/handlers/' },
      to: { path: '^src/http/(pages|metrics)/' },
    },
    {
      name: 'store-adapters-apart',
      severity: 'error',
      comment:
        'The subscriptions store adapters (sqlite/, postgres/, redis/) do not import each other: what two of them share sits beside the port, at the top of src/subscriptions/.',
      from: { path: '^src/subscriptions/(sqlite|postgres|redis)/' },
      to: { path: '^src/subscriptions/(sqlite|postgres|redis)/', pathNot: '^src/subscriptions/$1/' },
    },
    {
      name: 'store-port-side-not-to-adapters',
      severity: 'error',
      comment:
        'The port (src/subscriptions/port.ts) and what the adapters share import no adapter; only openStore.ts (which store a process opens) and sqliteToPostgres.ts (a copy between two of them) do.',
      from: { path: '^src/subscriptions/[^/]+$', pathNot: '^src/subscriptions/(openStore|sqliteToPostgres)[.]ts$' },
      to: { path: '^src/subscriptions/(sqlite|postgres|redis)/' },
    },
    {
      name: 'engine-index-below-query',
      severity: 'error',
      comment:
        "The embedded engine's index/ is what a query reads: it imports nothing from query/, collect/ or runtime/ (src/search/sqlite/ARCHITECTURE.md).",
      from: { path: `${ENGINE}index/` },
      to: { path: `${ENGINE}(query|collect|runtime)/` },
    },
    {
      name: 'engine-query-below-collect',
      severity: 'error',
      comment:
        "The embedded engine's query/ (filters, text hits, bm25, the plan) imports nothing from collect/ or runtime/.",
      from: { path: `${ENGINE}query/` },
      to: { path: `${ENGINE}(collect|runtime)/` },
    },
    {
      name: 'engine-collect-pure',
      severity: 'error',
      comment:
        "The embedded engine's collect/ (facets, top-k, pages) is pure: it imports nothing from storage/ or runtime/; the engine reads for it.",
      from: { path: `${ENGINE}collect/` },
      to: { path: `${ENGINE}(storage|runtime)/` },
    },
    {
      name: 'engine-storage-below-runtime',
      severity: 'error',
      comment:
        "The embedded engine's storage/ (the catalog file, writer, change log, export) imports nothing from runtime/.",
      from: { path: `${ENGINE}storage/` },
      to: { path: `${ENGINE}runtime/` },
    },
    {
      name: 'engine-threads-in-runtime',
      severity: 'error',
      comment: "Only the embedded engine's runtime/ knows threads (the worker pool, workers, the index loader).",
      from: { path: ENGINE, pathNot: `${ENGINE}runtime/` },
      to: { dependencyTypes: ['core'], path: '^(node:)?worker_threads$' },
    },
    {
      name: 'resolvable',
      severity: 'error',
      comment: 'An import the check cannot resolve is one it cannot judge.',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
