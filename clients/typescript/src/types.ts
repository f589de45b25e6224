// Names for the generated OpenAPI types (src/schema.ts) that partners use most.
import type { components, operations } from './schema.js';

type Schemas = components['schemas'];
type QueryOf<Op extends keyof operations> = NonNullable<operations[Op]['parameters']['query']>;

/** A grant as GET /grants/{id} and the changes feed serve it. */
export type Grant = Schemas['Grant'];
/** A grant in a search page (every field, or those asked with `fields`). */
export type GrantFields = Schemas['GrantFields'];
/**
 * The highlights of a grant in a search page (with `highlight` or `crop`): each field asked, HTML-escaped with the
 * matched words tagged, or null.
 */
export type Highlights = Schemas['Highlights'];
/** The text fields `highlight` and `crop` name. */
export type HighlightField = keyof Highlights;
export type GrantSearchAnswer = Schemas['GrantSearchAnswer'];
export type GrantAnswer = Schemas['GrantAnswer'];
export type GrantSimilarAnswer = Schemas['GrantSimilarAnswer'];
export type GrantFiltersAnswer = Schemas['GrantFiltersAnswer'];
export type GrantSuggestAnswer = Schemas['GrantSuggestAnswer'];
/**
 * One completion of GET /grants/suggest: its text, its kind (word, title, funder) and how many grants it would find.
 */
export type GrantCompletion = GrantSuggestAnswer['data'][number];
export type GrantChange = Schemas['GrantChange'];
/**
 * A grant removed from the catalog (the document says `grant` is the constant null, which the generator types as
 * unknown).
 */
export type GrantTombstone = Omit<Schemas['GrantTombstone'], 'grant' | 'changes'> & { grant: null; changes: null };
/** One entry of the changes feed: a grant at its latest change, or a tombstone (`deleted: true`, `grant: null`). */
export type ChangeEntry = GrantChange | GrantTombstone;
export type GrantChangesAnswer = Omit<Schemas['GrantChangesAnswer'], 'data'> & { data: ChangeEntry[] };
/** One field an update changed, with its value before and after ("deadline moved from … to …"). */
export type FieldChange = Schemas['FieldChange'];
/** One version of a grant: created, updated (with the fields it changed) or deleted. */
export type GrantVersion = Schemas['GrantVersion'];
export type GrantHistoryAnswer = Schemas['GrantHistoryAnswer'];
export type GrantHistoryQuery = QueryOf<'getGrantHistory'>;
export type UsageAnswer = Schemas['UsageAnswer'];
export type LimitsAnswer = Schemas['LimitsAnswer'];
/** An alert's query: the filters of GET /grants, with the same names, values and validation (lists as arrays). */
export type AlertQuery = Schemas['AlertQuery'];
export type Alert = Schemas['Alert'];
export type AlertCreated = Schemas['AlertCreated'];
export type AlertInput = Schemas['AlertInput'];
export type AlertPatch = Schemas['AlertPatch'];
export type AlertAnswer = Omit<Schemas['AlertAnswer'], 'data'> & { data: Alert };
export type AlertCreatedAnswer = Omit<Schemas['AlertCreatedAnswer'], 'data'> & { data: AlertCreated };
export type AlertDeletedAnswer = Schemas['AlertDeletedAnswer'];
export type AlertListAnswer = Omit<Schemas['AlertListAnswer'], 'data'> & { data: Alert[] };
export type SecretRotationAnswer = Schemas['SecretRotationAnswer'];
export type Delivery = Schemas['Delivery'];
export type DeliveryAnswer = Schemas['DeliveryAnswer'];
export type DeliveryListAnswer = Schemas['DeliveryListAnswer'];
export type Scope = Schemas['Scope'];
export type KeyRestrictions = Schemas['KeyRestrictions'];
export type Key = Schemas['Key'];
export type KeyInput = Schemas['KeyInput'];
export type KeyListAnswer = Schemas['KeyListAnswer'];
export type KeyCreatedAnswer = Schemas['KeyCreatedAnswer'];
export type KeyRevokedAnswer = Schemas['KeyRevokedAnswer'];
export type Meta = Schemas['Meta'];
/** A "did you mean" of GET /grants: a respelled search and how many grants it finds. */
export type Suggestion = NonNullable<Schemas['GrantSearchAnswer']['suggestion']>;
export type ErrorEnvelope = Schemas['ErrorEnvelope'];
export type ErrorDetail = Schemas['ErrorDetail'];
/** The error codes the API documents. */
export type ErrorCode = Schemas['ErrorBody']['code'];

/** A grant as a CommonGrants opportunity (its `id` a UUID; the grant's id in `customFields.grantsApiId.value`). */
export type CommonGrantsOpportunity = Schemas['CommonGrantsOpportunity'];
export type CommonGrantsListAnswer = Schemas['CommonGrantsListAnswer'];
export type CommonGrantsSearchAnswer = Schemas['CommonGrantsSearchAnswer'];
export type CommonGrantsOpportunityAnswer = Schemas['CommonGrantsOpportunityAnswer'];
/** The body of POST /common-grants/opportunities/search. */
export type CommonGrantsSearchBody = Schemas['CommonGrantsSearchBody'];
export type CommonGrantsListQuery = QueryOf<'listCommonGrantsOpportunities'>;

/** The query of GET /grants (search, filters, sort, fields, facets, page or cursor). */
export type GrantSearchQuery = QueryOf<'searchGrants'>;
/** The query of an iteration: GET /grants's without `page` and `cursor`, which the iterator drives. */
export type GrantIterateQuery = Omit<GrantSearchQuery, 'page' | 'cursor'>;
/** The query of GET /grants/{id}/similar (the filters, fields and limit of a search). */
export type GrantSimilarQuery = QueryOf<'getSimilarGrants'>;
/** The query of GET /grants/suggest (q, limit, type and the filters of GET /grants). */
export type GrantSuggestQuery = QueryOf<'suggestGrants'>;
export type ChangesQuery = QueryOf<'getGrantChanges'>;
export type UsageQuery = QueryOf<'getUsage'>;
export type AlertListQuery = QueryOf<'listAlerts'>;
export type DeliveryListQuery = QueryOf<'listAlertDeliveries'>;

/** The events an alert's webhook carries. */
export type WebhookEventType = Schemas['Delivery']['type'];

/** A webhook delivery's body (Standard Webhooks' shape: type, timestamp, data). */
export interface WebhookEvent {
  type: WebhookEventType;
  /** When the event was made (ISO 8601). */
  timestamp: string;
  data: {
    alert: { id: string; name: string };
    /**
     * The grant as GET /grants/{id} serves it (only `{ id }` for grant.unmatched of a deleted grant); absent for
     * alert.test.
     */
    grant?: Grant | { id: string };
    /** For grant.unmatched: why; null for the other grant events. */
    reason?: 'deleted' | 'no_longer_matches' | null;
    /**
     * The catalog change behind the event (`position` is a `since` token of the changes feed); null for grant.closing.
     */
    change?: { changedAt: string; position: string } | null;
    /**
     * The fields that change updated, each with its value before and after; null when it added or removed the grant,
     * and for grant.closing and grant.opened.
     */
    changes?: FieldChange[] | null;
  };
}
