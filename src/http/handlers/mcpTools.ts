// The MCP tools: each one a REST operation for an AI agent, run through the same steps as the
// endpoint it mirrors (its parameter definitions, parser and validation, engine or store call) and
// answering its REST answer without the envelope. Each tool takes the feature and the billing of
// its REST route (routeTable.ts): a tool is refused without the feature, and counts toward the
// monthly allowance exactly when its route does.
import type { ServedGrant } from '../../grants/schema.js';
import type { SearchEngine } from '../../search/engine.js';
import {
  alertStore,
  createAlert,
  deleteAlert,
  listAlerts,
  targetPolicy,
  validateListParams,
  type AlertsApi,
} from './alertActions.js';
import { checkAlertBody } from '../parameters/alertBody.js';
import { ALERT_LIST_PARAMS } from '../parameters/alertListParams.js';
import { CHANGES_PARAMS, changesPage, validateChangesParams } from './changes.js';
import { HISTORY_PARAMS, historyPage } from './history.js';
import type { FieldChange, VersionType } from '../../grants/history.js';
import { grantJsonById, searchPage, similarPage } from './grants.js';
import {
  GRANT_SEARCH_PARAMS,
  SIMILAR_PARAMS,
  parseGrantSearch,
  parseSimilarSearch,
} from '../parameters/grantSearchParams.js';
import { validationError, type ErrorDetail } from '../errors.js';
import { InvalidInputError } from '../../failures.js';
import { GRANT_SUGGEST_PARAMS, parseSuggestQuery } from '../parameters/suggestParams.js';
import { parseJsonParameters } from '../parameters/jsonParams.js';
import { paramValidator, type ParamSpecs } from '../parameters/queryParams.js';
import { ROUTES, type RouteName, type RouteSpec } from '../routeTable.js';
import type { AppState } from '../state.js';
import {
  DEFAULT_STATISTICS_DAYS,
  USAGE_PARAMS,
  usageReport,
  validateUsageParams,
  type SubscriptionRouteDeps,
} from './subscription.js';
import { answerWithoutEnvelope, argumentsSchema, componentSchema, type Schema } from './mcpToolSchemas.js';

/** What a tool runs with: the request's state (caller, billing) and the app's parts. */
export interface ToolContext {
  state: AppState;
  engine: SearchEngine;
  subscriptions: SubscriptionRouteDeps;
  alerts: AlertsApi | undefined;
  clock: () => Date;
}

/** A tool's answer: the structured result (its outputSchema) and a short text rendering of it. */
interface ToolAnswer {
  structured: Record<string, unknown>;
  text: string;
}

export interface ToolSpec {
  name: string;
  title: string;
  description: string;
  /** The REST route it mirrors: its feature and billing. */
  route: RouteSpec;
  inputSchema: Schema;
  outputSchema: Schema;
  annotations: { readOnlyHint: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint: boolean };
  run(args: Record<string, unknown>, context: ToolContext): Promise<ToolAnswer>;
}

const routeNamed = (name: RouteName): RouteSpec => ROUTES.find((route) => route.name === name)!;

const ID_PARAMS = (what: string, example: string): ParamSpecs => ({
  id: {
    kind: 'string',
    maxLength: 200,
    message: `must be the id of ${what}`,
    description: `The id of ${what}.`,
    example,
  },
});
const GRANT_ID_PARAMS = ID_PARAMS('a grant (its `id` field, as search_grants returns it)', 'grt_d4fd65d2');
const ALERT_ID_PARAMS = ID_PARAMS(
  'one of your alerts (as list_alerts or create_alert returns it)',
  'alt_Qm9vU2t5TGluZTQyUnQ',
);

/** A validator of `{ id }` arguments: the id required. */
const idValidator = (specs: ParamSpecs) =>
  paramValidator(specs, (valid) => (valid.id === undefined ? [{ parameter: 'id', message: 'is required' }] : []));
const validateGrantId = idValidator(GRANT_ID_PARAMS);
const validateAlertId = idValidator(ALERT_ID_PARAMS);
const GRANT_HISTORY_PARAMS: ParamSpecs = { ...GRANT_ID_PARAMS, ...HISTORY_PARAMS };
const validateGrantHistory = idValidator(GRANT_HISTORY_PARAMS);

/** A field change as one line: "deadline: 2026-12-31T23:59:59.000Z → 2027-01-31T23:59:59.000Z". */
const changeLine = ({ field, from, to }: FieldChange): string =>
  `${field}: ${JSON.stringify(from)} → ${JSON.stringify(to)}`;
/** similar_grants: the grant's id and the parameters of GET /grants/{id}/similar. */
const SIMILAR_TOOL_PARAMS: ParamSpecs = { ...GRANT_ID_PARAMS, ...SIMILAR_PARAMS };

const money = (amount: number, currency: string | null): string =>
  `${amount.toLocaleString('en-US')}${currency === null ? '' : ` ${currency}`}`;

/** A grant's amount range in words; a bound the funder did not state is left out rather than shown as a placeholder. */
function amountWords(min: number | null, max: number | null, currency: string | null): string {
  if (min === null && max === null) return 'not stated';
  if (min === null) return `up to ${money(max as number, currency)}`;
  if (max === null) return `from ${money(min, currency)}`;
  return min === max ? money(min, currency) : `${money(min, currency)} to ${money(max, currency)}`;
}

/** One grant in a line: what a model needs to pick it out and cite it. */
function grantLine(grant: Partial<ServedGrant> & { id: string }): string {
  const parts = [grant.title === undefined ? grant.id : `${grant.title} (${grant.id})`];
  if (grant.funder !== undefined) parts.push(`funder: ${grant.funder}`);
  if (grant.amountMin !== undefined || grant.amountMax !== undefined)
    parts.push(`amount: ${amountWords(grant.amountMin ?? null, grant.amountMax ?? null, grant.currency ?? null)}`);
  if (grant.status !== undefined) parts.push(`status: ${grant.status}`);
  if (grant.opensAt !== undefined && grant.opensAt !== null) parts.push(`opens: ${grant.opensAt}`);
  if (grant.deadline !== undefined) parts.push(`deadline: ${grant.deadline ?? 'none (rolling)'}`);
  return parts.join('; ');
}

const plural = (n: number, one: string, many = `${one}s`): string =>
  `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

const FILTER_HINT =
  'Use list_filter_values to see which enum values occur in the catalog. Filters combine with AND; the values of ' +
  'one list filter combine with OR.';

export const TOOLS: readonly ToolSpec[] = [
  {
    name: 'search_grants',
    title: 'Search grants',
    description: [
      'Search the catalog of Canadian and North American grants, loans, rebates and tax credits; the same search ' +
        'as GET /grants.',
      'Use it to find funding for an applicant: put the subject in `search` (words, every word must appear) and ' +
        'narrow with filters:',
      'Typo tolerance is on by default here (`typos` "auto", unlike GET /grants): a misspelt word also finds ' +
        'catalog words one typo away',
      '(two from 9 letters); send `typos: "off"` to match words exactly as written. When a search finds fewer ' +
        'than 3 grants,',
      '`suggestion` may offer a respelled search and its total: call again with `search` set to `suggestion.search`.',
      '`eligibleProvinces` (where the applicant is), `targetBeneficiaries` (who the applicant is, e.g. ' +
        'SMALL_BUSINESS, NONPROFIT),',
      '`fundingType` (GRANT, LOAN, REBATE, TAX_CREDIT, …), `funderType`, `amountMin`/`amountMax` (the amount the ' +
        'applicant needs),',
      '`deadlineFrom`/`deadlineTo`, and `open=true` for grants accepting applications now (status OPEN: opened, ' +
        'deadline in the future or none);',
      '`status` (FORECASTED: announced, applications open later at `opensAt`; OPEN; CLOSED: deadline ' +
        "passed, a list) to ask for stages of a grant's lifecycle,",
      'e.g. status=FORECASTED with sort=opensAt for the programs opening soonest.',
      FILTER_HINT,
      'Relaxed matching is on by default here (`matching` "frequency", unlike GET /grants, where every word must ' +
        'appear): grants holding every',
      'word come first, then grants holding fewer, the words found in the most grants given up first, down to ' +
        'one; send `matching: "all"`',
      "to require every word. Synonyms from the operator's list apply (nonprofit finds not-for-profit, " +
        'NSERC finds CRSNG); `synonyms: false` turns them off.',
      'Answers one page: `data` (the grants), `pagination` (total, page, totalPages; nextCursor with cursor ' +
        'paging) and `facets` when asked.',
      'Ask `fields` for fewer fields per grant (id always comes) to keep answers short, `limit=0` with `facets` ' +
        'to count without listing,',
      'and `cursor="*"` then each `pagination.nextCursor` to walk every match. Call get_grant for one grant in full.',
      'To show why a grant matched, ask `highlight` (e.g. ["title"]) and `crop` (e.g. "description:30"): each ' +
        'grant gains `highlights`,',
      'its text HTML-escaped with the matched words between <mark> and </mark>, a cropped field as its best ' +
        'passage with … where cut.',
    ].join(' '),
    route: routeNamed('grants'),
    inputSchema: argumentsSchema(GRANT_SEARCH_PARAMS),
    outputSchema: answerWithoutEnvelope('GrantSearchAnswer'),
    annotations: { readOnlyHint: true, openWorldHint: false },
    async run(args, { engine, clock }) {
      // Typo tolerance and relaxed matching on unless the call says otherwise: a model's user types as people do, in
      // sentences.
      const { query, highlight } = parseJsonParameters(
        { typos: 'auto', matching: 'frequency', ...args },
        GRANT_SEARCH_PARAMS,
        (params) => parseGrantSearch(params, clock().getTime()),
      );
      const page = await searchPage(engine, query, highlight);
      const data = JSON.parse(page.dataJson) as (Partial<ServedGrant> & {
        id: string;
        highlights?: Record<string, string | null>;
      })[];
      const { total, page: number, totalPages } = page.pagination;
      const lines = [`${plural(total, 'grant')} match; page ${number} of ${totalPages}.`];
      data.forEach((grant, i) => {
        lines.push(`${i + 1}. ${grantLine(grant)}`);
        for (const [field, text] of Object.entries(grant.highlights ?? {}))
          if (text !== null) lines.push(`   ${field}: ${text}`);
      });
      if (page.pagination.nextCursor) lines.push(`Next page: cursor "${page.pagination.nextCursor}".`);
      for (const [name, counts] of Object.entries(page.facets ?? {}))
        lines.push(`${name}: ${counts.map((c) => `${c.value} ${c.count}`).join(', ') || 'no value'}`);
      if (page.suggestion)
        lines.push(`Did you mean "${page.suggestion.search}"? (${plural(page.suggestion.total, 'grant')})`);
      return {
        structured: {
          data,
          pagination: page.pagination,
          ...(page.facets === undefined ? {} : { facets: page.facets }),
          ...(page.suggestion === undefined ? {} : { suggestion: page.suggestion }),
        },
        text: lines.join('\n'),
      };
    },
  },
  {
    name: 'suggest_grants',
    title: 'Suggest search words',
    description: [
      'Completions of a partly typed search, as a search box suggests them; the same answer as GET /grants/suggest.',
      "Put the text typed so far in `q`: its last word is completed from the catalog's words, grant titles " +
        'and funder names (`type` keeps to some),',
      'case and accents ignored, a typo tolerated from 5 letters (two from 9); the words before the last one ' +
        'narrow the grants as a search of them would.',
      'Each completion comes with how many grants it would find under the filters of search_grants given here ' +
        '(`count`), the most first.',
      "Use it to find how the catalog words a subject before searching (a word completion's `text` is the " +
        'whole search to send to search_grants).',
      FILTER_HINT,
    ].join(' '),
    route: routeNamed('grantSuggest'),
    inputSchema: argumentsSchema(GRANT_SUGGEST_PARAMS, ['q']),
    outputSchema: answerWithoutEnvelope('GrantSuggestAnswer'),
    annotations: { readOnlyHint: true, openWorldHint: false },
    async run(args, { engine, clock }) {
      const request = parseJsonParameters(args, GRANT_SUGGEST_PARAMS, (params) =>
        parseSuggestQuery(params, clock().getTime()),
      );
      const data = request === null ? [] : await engine.suggest(request);
      const lines =
        data.length === 0
          ? ['No completion.']
          : data.map((item, i) => `${i + 1}. ${item.text} (${item.type}; ${plural(item.count, 'grant')})`);
      return { structured: { data }, text: lines.join('\n') };
    },
  },
  {
    name: 'get_grant',
    title: 'Get one grant',
    description:
      'One grant in full by its id (from search_grants or get_changes): description, amounts, deadline, ' +
      'eligibility, application URL. The same answer as GET /grants/{id}; an unknown id is a NOT_FOUND error.',
    route: routeNamed('grant'),
    inputSchema: argumentsSchema(GRANT_ID_PARAMS, ['id']),
    outputSchema: answerWithoutEnvelope('GrantAnswer'),
    annotations: { readOnlyHint: true, openWorldHint: false },
    async run(args, { engine, clock }) {
      const { id } = parseJsonParameters(args, GRANT_ID_PARAMS, validateGrantId);
      const grant = JSON.parse(await grantJsonById(engine, id as string, clock().getTime())) as ServedGrant;
      const text = [
        grantLine(grant),
        grant.description,
        grant.applicationUrl === null ? '' : `Apply: ${grant.applicationUrl}`,
      ]
        .filter((line) => line !== '')
        .join('\n');
      return { structured: { data: grant }, text };
    },
  },
  {
    name: 'get_grant_history',
    title: "Get a grant's history",
    description:
      "A grant's versions, newest first: when it entered the catalog (created), each update with every " +
      'field it changed and its value before and after ' +
      ('(e.g. deadline moved from one date to another), and its removal (deleted, the last version). Use it ' +
        'to tell what changed in a grant and when. ') +
      ('Page with `limit` and `pagination.nextCursor` (older versions). The same answer as GET ' +
        '/grants/{id}/history; an id neither in the catalog nor in the history kept is a NOT_FOUND error.'),
    route: routeNamed('grantHistory'),
    inputSchema: argumentsSchema(GRANT_HISTORY_PARAMS, ['id']),
    outputSchema: answerWithoutEnvelope('GrantHistoryAnswer'),
    annotations: { readOnlyHint: true, openWorldHint: false },
    async run(args, { engine }) {
      const { id, ...paging } = parseJsonParameters(args, GRANT_HISTORY_PARAMS, validateGrantHistory);
      const page = await historyPage(engine, id as string, paging);
      const data = JSON.parse(page.dataJson) as {
        changedAt: string;
        type: VersionType;
        changes: FieldChange[] | null;
      }[];
      const lines = [
        `${plural(data.length, 'version')} of ${id as string}, newest first` +
          (page.pagination.nextCursor === null ? '' : `; older ones follow (cursor "${page.pagination.nextCursor}")`) +
          '.',
        ...data.flatMap((version) => [
          `${version.changedAt} ${version.type}`,
          ...(version.changes ?? []).map((change) => `  ${changeLine(change)}`),
        ]),
      ];
      return { structured: { data, pagination: page.pagination }, text: lines.join('\n') };
    },
  },
  {
    name: 'similar_grants',
    title: 'Find similar grants',
    description: [
      'The grants most like one grant (its id from search_grants or get_grant), by their text: its most ' +
        'distinctive words (title, funder, description)',
      'are looked for in the other grants, the grants sharing the rarest and most used of them first. The grant ' +
        'itself is never listed.',
      'Use it when an applicant likes a grant and wants more like it. Takes the filters of search_grants (e.g. ' +
        '`open=true`, `eligibleProvinces`),',
      '`fields` and `limit` (1 to 50, default 10). The same answer as GET /grants/{id}/similar; an unknown id is ' +
        'a NOT_FOUND error.',
    ].join(' '),
    route: routeNamed('grantSimilar'),
    inputSchema: argumentsSchema(SIMILAR_TOOL_PARAMS, ['id']),
    outputSchema: answerWithoutEnvelope('GrantSimilarAnswer'),
    annotations: { readOnlyHint: true, openWorldHint: false },
    async run(args, { engine, clock }) {
      const { id, query, highlight } = parseJsonParameters(args, SIMILAR_TOOL_PARAMS, (params) => {
        const [given] = params.get('id') ?? [];
        params.delete('id');
        // Every problem at once: the id's beside the other parameters'.
        const problems: ErrorDetail[] = [];
        try {
          if (given === undefined) problems.push({ parameter: 'id', message: 'is required' });
          else validateGrantId(new Map([['id', [given]]]));
        } catch (error) {
          if (!(error instanceof InvalidInputError)) throw error;
          problems.push(...error.details);
        }
        try {
          const { query, highlight } = parseSimilarSearch(params, clock().getTime());
          if (problems.length === 0) return { id: given as string, query, highlight };
        } catch (error) {
          if (!(error instanceof InvalidInputError)) throw error;
          problems.push(...error.details);
        }
        throw validationError(problems);
      });
      const page = await similarPage(engine, id, query, highlight);
      const data = JSON.parse(page.dataJson) as (Partial<ServedGrant> & { id: string })[];
      const { total } = page.pagination;
      const lines = [
        `${plural(total, 'similar grant')} found${data.length < total ? `; the ${data.length} most similar` : ''}:`,
        ...data.map((grant, i) => `${i + 1}. ${grantLine(grant)}`),
      ];
      return { structured: { data, pagination: page.pagination }, text: lines.join('\n') };
    },
  },
  {
    name: 'list_filter_values',
    title: 'List filter values',
    description:
      'The values each enum filter of search_grants takes that occur in the catalog (funder types, funding ' +
      'types, provinces, beneficiaries, currencies). Call it before searching when unsure how to write a filter ' +
      'value. The same answer as GET /grants/filters. Takes no arguments.',
    route: routeNamed('grantFilters'),
    inputSchema: argumentsSchema({}),
    outputSchema: answerWithoutEnvelope('GrantFiltersAnswer'),
    annotations: { readOnlyHint: true, openWorldHint: false },
    async run(args, { engine }) {
      parseJsonParameters(args, {}, paramValidator({}));
      const data = await engine.filterOptions();
      return {
        structured: { data },
        text: Object.entries(data)
          .map(([name, values]) => `${name}: ${(values as string[]).join(', ')}`)
          .join('\n'),
      };
    },
  },
  {
    name: 'get_changes',
    title: 'Get catalog changes',
    description:
      'What changed in the catalog after a position: each grant added or changed (at its latest version) and a ' +
      'tombstone (deleted: true) for each grant removed, oldest first. Use it to keep a copy in sync or to see ' +
      'what is new: start with since="0", then call again with `pagination.nextSince`; `hasMore` true means call ' +
      'again at once. The same answer as GET /grants/changes; a since too old to be kept is a SYNC_EXPIRED error ' +
      '(start again from "0").',
    route: routeNamed('grantChanges'),
    inputSchema: argumentsSchema(CHANGES_PARAMS),
    outputSchema: answerWithoutEnvelope('GrantChangesAnswer'),
    annotations: { readOnlyHint: true, openWorldHint: false },
    async run(args, { engine, clock }) {
      const page = await changesPage(
        engine,
        parseJsonParameters(args, CHANGES_PARAMS, validateChangesParams),
        clock().getTime(),
      );
      const data = JSON.parse(page.dataJson) as {
        id: string;
        deleted: boolean;
        changedAt: string;
        grant: ServedGrant | null;
      }[];
      const lines = [
        `${plural(data.length, 'change')}; ${page.pagination.hasMore ? 'more follow' : 'no more now'}; next ` +
          `since: "${page.pagination.nextSince}".`,
        ...data.map((entry) => `${entry.changedAt} ${entry.deleted ? `removed ${entry.id}` : grantLine(entry.grant!)}`),
      ];
      return { structured: { data, pagination: page.pagination }, text: lines.join('\n') };
    },
  },
  {
    name: 'get_usage',
    title: 'Get API usage',
    description:
      "This subscription's usage: billable calls this month against the monthly allowance, and over the " +
      'last `days` UTC days the calls, the most called endpoints ' +
      ('(tool calls appear as /mcp) and a daily series. Use it before a long series of searches to check ' +
        'what remains. Not billed. The same answer as GET /subscription/usage.'),
    route: routeNamed('usage'),
    inputSchema: argumentsSchema(USAGE_PARAMS),
    outputSchema: answerWithoutEnvelope('UsageAnswer'),
    annotations: { readOnlyHint: true, openWorldHint: false },
    async run(args, { state, subscriptions }) {
      const { days } = parseJsonParameters(args, USAGE_PARAMS, validateUsageParams);
      const data = await usageReport(subscriptions, state, (days as number | undefined) ?? DEFAULT_STATISTICS_DAYS);
      const { currentMonth, statistics } = data;
      const text = [
        `This month: ${currentMonth.calls} of ${currentMonth.limit} calls used, ${currentMonth.remaining} ` +
          `remaining until ${currentMonth.resetDate}.`,
        `Last ${statistics.period}: ${statistics.totalCalls} calls; top endpoints: ` +
          `${statistics.topEndpoints.map((e) => `${e.endpoint} ${e.calls}`).join(', ') || 'none'}.`,
      ].join('\n');
      return { structured: { data }, text };
    },
  },
  {
    name: 'create_alert',
    title: 'Create an alert',
    description:
      'Save a search as an alert: the API then POSTs a signed webhook to `url` when a grant enters its results ' +
      '(grant.matched), changes within them (grant.updated), leaves them (grant.unmatched) or, with ' +
      'closingReminderDays, nears its deadline (grant.closing). `query` takes the filters of search_grants with ' +
      'the same names (no paging, sort, facets, fields or cursor), lists as JSON arrays. `url` must be a public ' +
      'https URL the user controls. The answer holds the signing secret, shown this once: give it to the user to ' +
      'verify the webhooks. Only when the user asks for notifications. The same as POST /alerts.',
    route: routeNamed('alerts'),
    inputSchema: componentSchema('AlertInput'),
    outputSchema: answerWithoutEnvelope('AlertCreatedAnswer'),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    async run(args, { state, alerts, clock }) {
      const fields = checkAlertBody(args, 'create', targetPolicy(alerts));
      const data = await createAlert(alertStore(alerts), state.caller!.subscription, fields, clock());
      const { id, name, url } = data as unknown as { id: string; name: string; url: string };
      return {
        structured: { data },
        text: `Created alert ${id} "${name}", posting to ${url}. Signing secret (shown this once): ${data.secret}`,
      };
    },
  },
  {
    name: 'list_alerts',
    title: 'List alerts',
    description:
      "This subscription's alerts (saved searches with a webhook), newest first, a page at a time: pass " +
      '`pagination.nextCursor` as `cursor` for the next page. The same answer as GET /alerts.',
    route: routeNamed('alerts'),
    inputSchema: argumentsSchema(ALERT_LIST_PARAMS),
    outputSchema: answerWithoutEnvelope('AlertListAnswer'),
    annotations: { readOnlyHint: true, openWorldHint: false },
    async run(args, { state, alerts }) {
      const page = await listAlerts(
        alertStore(alerts),
        state.caller!.subscription.id,
        parseJsonParameters(args, ALERT_LIST_PARAMS, validateListParams),
      );
      const lines = [
        `${plural(page.data.length, 'alert')} on this page.`,
        ...page.data.map((a) => `${a.id} "${a.name}" ${a.status} → ${a.url}`),
      ];
      if (page.pagination.nextCursor !== null) lines.push(`Next page: cursor "${page.pagination.nextCursor}".`);
      return { structured: page, text: lines.join('\n') };
    },
  },
  {
    name: 'delete_alert',
    title: 'Delete an alert',
    description:
      'Delete one of your alerts by id: no more webhooks are sent for it. Cannot be undone. The same as DELETE ' +
      '/alerts/{id}.',
    route: routeNamed('alert'),
    inputSchema: argumentsSchema(ALERT_ID_PARAMS, ['id']),
    outputSchema: answerWithoutEnvelope('AlertDeletedAnswer'),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    async run(args, { state, alerts }) {
      const { id } = parseJsonParameters(args, ALERT_ID_PARAMS, validateAlertId);
      const data = await deleteAlert(alertStore(alerts), state.caller!.subscription.id, id as string);
      return { structured: { data }, text: `Deleted alert ${data.id}.` };
    },
  },
];
