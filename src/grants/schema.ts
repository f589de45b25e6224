// The Grant's JSON Schema and the validation of a source record against it; the Grant itself (its
// enumerations, its type, its field order) is grant.ts's, re-exported here, written once. The
// API's validation, the indexer's validation and the engines all import from here.
import { Ajv, type ErrorObject, type JSONSchemaType, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import {
  BENEFICIARIES,
  COMPLEXITIES,
  CURRENCIES,
  FUNDER_TYPES,
  FUNDING_TYPES,
  GRANT_FIELDS,
  GRANT_STATUSES,
  PROVINCES,
  SDGS,
  type Grant,
} from './grant.js';

export * from './grant.js';

const GRANT_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$';
const MAX_AMOUNT = 1e13;

const nullableEnum = <T extends readonly string[]>(values: T) => ({
  type: 'string',
  enum: [...values, null],
  nullable: true,
  default: null,
});
const enumArray = <T extends readonly string[]>(values: T) => ({
  type: 'array',
  items: { type: 'string', enum: [...values] },
  uniqueItems: true,
  maxItems: values.length,
  default: [],
});

/**
 * JSON Schema of a source record. Required: the identity, the classification and the
 * timestamps; every other field may be null or absent (absent scalars become null,
 * absent lists become []).
 */
export const grantSchema = {
  $id: 'grant',
  type: 'object',
  additionalProperties: false,
  required: ['id', 'title', 'funder', 'funderType', 'fundingType', 'currency', 'createdAt', 'updatedAt'],
  properties: {
    // "filters", "changes" and "export" would be shadowed by the literal paths /grants/filters, /grants/changes and
    // /grants/export.
    id: {
      type: 'string',
      pattern: GRANT_ID_PATTERN,
      not: { enum: ['filters', 'changes', 'export'] },
      description: "The grant's identifier, stable across updates.",
    },
    title: { type: 'string', minLength: 1, maxLength: 500, description: 'The name of the program or grant.' },
    description: {
      type: 'string',
      maxLength: 20000,
      nullable: true,
      default: null,
      description: 'What the grant funds and for whom, as the funder describes it; null when unknown.',
    },
    funder: { type: 'string', minLength: 1, maxLength: 300, description: 'The organisation that gives the funding.' },
    funderType: {
      type: 'string',
      enum: [...FUNDER_TYPES],
      description: 'The kind of organisation that gives the funding.',
    },
    fundingType: {
      type: 'string',
      enum: [...FUNDING_TYPES],
      description: 'The kind of funding: a grant, a loan, a tax credit, a wage subsidy, a rebate or equity.',
    },
    amountMin: {
      type: 'number',
      minimum: 0,
      maximum: MAX_AMOUNT,
      nullable: true,
      default: null,
      description: 'The smallest amount awarded, in `currency`; null when unknown.',
    },
    amountMax: {
      type: 'number',
      minimum: 0,
      maximum: MAX_AMOUNT,
      nullable: true,
      default: null,
      description: 'The largest amount awarded, in `currency`; null when unknown.',
    },
    currency: { type: 'string', enum: [...CURRENCIES], description: 'The currency of amountMin and amountMax.' },
    opensAt: {
      type: 'string',
      format: 'date-time',
      nullable: true,
      default: null,
      description:
        'When applications open (UTC), at or before `deadline`; null when the grant is open from its publication ' +
        '(or the date is unknown).',
    },
    deadline: {
      type: 'string',
      format: 'date-time',
      nullable: true,
      default: null,
      description: 'When applications close (UTC); null for a rolling grant with no deadline.',
    },
    applicationUrl: {
      type: 'string',
      format: 'uri',
      maxLength: 2000,
      nullable: true,
      default: null,
      description: 'Where to apply; null when unknown.',
    },
    eligibleProvinces: {
      ...enumArray(PROVINCES),
      description: 'The provinces and territories whose applicants may apply (empty when none is listed).',
    },
    targetBeneficiaries: { ...enumArray(BENEFICIARIES), description: 'The kinds of applicant the grant is meant for.' },
    sdgAlignment: {
      ...enumArray(SDGS),
      description: 'The UN Sustainable Development Goals the grant serves, by number.',
    },
    applicationComplexity: {
      ...nullableEnum(COMPLEXITIES),
      description: 'How much effort the application takes; null when unknown.',
    },
    isRecurring: {
      type: 'boolean',
      nullable: true,
      default: null,
      description: 'Whether the grant comes back every cycle; null when unknown.',
    },
    createdAt: { type: 'string', format: 'date-time', description: 'When the grant entered the catalog (UTC).' },
    updatedAt: { type: 'string', format: 'date-time', description: 'When the grant last changed at its source (UTC).' },
    titleFr: {
      type: 'string',
      minLength: 1,
      maxLength: 500,
      nullable: true,
      default: null,
      description:
        'The name of the program in French, as the funder publishes it; null when the funder publishes none.',
    },
    descriptionFr: {
      type: 'string',
      maxLength: 20000,
      nullable: true,
      default: null,
      description: 'The description in French, as the funder publishes it; null when the funder publishes none.',
    },
    source: {
      type: 'object',
      nullable: true,
      default: null,
      additionalProperties: false,
      required: ['name', 'id', 'url'],
      description: 'Where the grant was imported from, to trace it to its origin; null when unknown.',
      properties: {
        name: {
          type: 'string',
          minLength: 1,
          maxLength: 200,
          description: 'The source\'s name (such as "Grants.gov").',
        },
        id: {
          type: 'string',
          minLength: 1,
          maxLength: 200,
          description: "The grant's identifier at the source (such as a Grants.gov OpportunityID).",
        },
        url: {
          type: 'string',
          format: 'uri',
          maxLength: 2000,
          nullable: true,
          description: "The grant's page at the source; null when unknown.",
        },
      },
    },
    // Derived when the grant is served (grants/lifecycle.ts); a record may carry it (an NDJSON export loads back) and
    // it is not kept.
    status: {
      type: 'string',
      enum: [...GRANT_STATUSES],
      description:
        'Where the grant stands at the time of the request, derived from `opensAt` and `deadline`: FORECASTED ' +
        '(applications open later: `opensAt` is in the future), OPEN (accepting applications: opened, and the ' +
        'deadline is in the future or there is none), CLOSED (the deadline has passed). Not stored: a record ' +
        'sent to the indexer may carry it, and it is ignored.',
    },
  },
} as unknown as JSONSchemaType<Grant>;

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
let compiled: ValidateFunction<Grant> | null = null;
/**
 * The schema's validator, compiled on the first record validated: a module that imports only the
 * enumerations (a search thread) never compiles it.
 */
const validator = (): ValidateFunction<Grant> =>
  (compiled ??= addFormats(new Ajv({ allErrors: true, useDefaults: true, strict: true })).compile<Grant>(grantSchema));

interface GrantProblem {
  field: string;
  reason: string;
}

type GrantValidation = { ok: true; grant: Grant } | { ok: false; problems: GrantProblem[] };

function problemOf(error: ErrorObject): GrantProblem {
  const path = error.instancePath.replace(/^\//, '').replace(/\//g, '.');
  if (error.keyword === 'required') return { field: String(error.params.missingProperty), reason: 'is required' };
  if (error.keyword === 'additionalProperties') {
    return { field: String(error.params.additionalProperty), reason: 'is not a field of a grant' };
  }
  if (error.keyword === 'not' && path === 'id')
    return {
      field: 'id',
      reason:
        'must not be "filters", "changes" or "export", which name the paths /grants/filters, /grants/changes and ' +
        '/grants/export',
    };
  if (error.keyword === 'enum') {
    return {
      field: path,
      reason: `must be one of ${(error.params.allowedValues as unknown[]).filter((v) => v !== null).join(', ')}`,
    };
  }
  return { field: path || '(record)', reason: error.message ?? 'is invalid' };
}

const isoMillis = (value: string): string => new Date(value).toISOString();

/**
 * Validates one source record and returns the grant in canonical form: every field present
 * in wire order, absent values null or [], dates as ISO 8601 UTC with milliseconds.
 */
export function validateGrant(record: unknown): GrantValidation {
  if (record === null || typeof record !== 'object' || Array.isArray(record)) {
    return { ok: false, problems: [{ field: '(record)', reason: 'must be a JSON object' }] };
  }
  const copy = structuredClone(record) as Record<string, unknown>;
  const validate = validator();
  const valid = validate(copy);
  const problems = valid ? [] : (validate.errors ?? []).map(problemOf);
  // The checks the schema cannot express run whatever else is wrong, on the fields the schema
  // let through, so a record's report lists every problem at once.
  const flagged = new Set(problems.map((p) => p.field));
  for (const field of ['opensAt', 'deadline', 'createdAt', 'updatedAt'] as const) {
    const value = copy[field];
    if (!flagged.has(field) && typeof value === 'string' && Number.isNaN(Date.parse(value))) {
      problems.push({ field, reason: 'must be a date-time that exists (no leap second)' });
    }
  }
  const { amountMin, amountMax } = copy;
  if (
    !flagged.has('amountMin') &&
    !flagged.has('amountMax') &&
    typeof amountMin === 'number' &&
    typeof amountMax === 'number' &&
    amountMin > amountMax
  ) {
    problems.push({ field: 'amountMin', reason: 'must not exceed amountMax' });
  }
  const { opensAt, deadline } = copy;
  if (
    typeof opensAt === 'string' &&
    typeof deadline === 'string' &&
    !problems.some((p) => p.field === 'opensAt' || p.field === 'deadline') &&
    Date.parse(opensAt) > Date.parse(deadline)
  ) {
    problems.push({ field: 'opensAt', reason: 'must not be after deadline' });
  }
  if (!valid || problems.length > 0) return { ok: false, problems };
  const raw = copy as unknown as Grant;
  const grant = {} as Record<keyof Grant, unknown>;
  for (const field of GRANT_FIELDS) grant[field] = raw[field];
  grant.opensAt = raw.opensAt === null ? null : isoMillis(raw.opensAt);
  grant.deadline = raw.deadline === null ? null : isoMillis(raw.deadline);
  grant.createdAt = isoMillis(raw.createdAt);
  grant.updatedAt = isoMillis(raw.updatedAt);
  grant.sdgAlignment = [...raw.sdgAlignment].sort((a, b) => Number(a.slice(4)) - Number(b.slice(4)));
  grant.source = raw.source === null ? null : { name: raw.source.name, id: raw.source.id, url: raw.source.url };
  return { ok: true, grant: grant as unknown as Grant };
}
