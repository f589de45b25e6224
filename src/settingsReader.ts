// The environment read through the settings table (src/settings.ts): each variable's text taken as
// its kind reads it, then validated with ajv against the JSON Schema the table describes; every
// problem is one plain sentence naming the variable.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { repoPath } from './repoRoot.js';
import { SETTINGS, type Setting, type SettingName, type SettingValues, type TextFormat } from './settings.js';

export type Env = Record<string, string | undefined>;

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** "5s,5m,2h" → milliseconds; null when any part is not a number followed by ms, s, m or h. */
export function parseDurations(text: string): number[] | null {
  const parts = text.split(',').map((p) => p.trim());
  if (parts.length > 20) return null;
  const values: number[] = [];
  for (const part of parts) {
    const m = /^(\d{1,9})(ms|s|m|h)$/.exec(part);
    if (m === null) return null;
    values.push(Number(m[1]) * DURATION_UNITS[m[2]]);
  }
  return values;
}

const TEXT_FORMATS: Record<TextFormat, (text: string) => boolean> = {
  durations: (text) => parseDurations(text) !== null,
  'aes-256-key': (text) => Buffer.from(text, 'base64').length === 32,
};

function isUrlOf(protocols: readonly string[]): (text: string) => boolean {
  return (text) => {
    try {
      return protocols.includes(new URL(text).protocol);
    } catch {
      return false;
    }
  };
}

/** The ajv format a URL setting is checked with: its protocols. */
const urlFormat = (protocols: readonly string[]): string => `url(${protocols.join(',')})`;

const TRUE_WORDS = ['1', 'true', 'yes', 'on'];
const FALSE_WORDS = ['0', 'false', 'no', 'off'];

/**
 * A variable's text as its kind reads it (trimmed; words in lower case); undefined when unset or
 * blank, so the default applies. Text that is not of the kind stays text, for the schema to refuse.
 */
function valueOfText(setting: Setting, text: string): unknown {
  switch (setting.kind) {
    case 'integer':
      return /^\d+$/.test(text) ? Number(text) : text;
    case 'boolean': {
      if (TRUE_WORDS.includes(text)) return true;
      return FALSE_WORDS.includes(text) ? false : text;
    }
    case 'list':
      return text
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== '');
    default:
      return text;
  }
}

/** The text a problem repeats: what was set, trimmed, words in lower case. */
function textOf(setting: Setting, raw: string | undefined): string | undefined {
  const text = raw?.trim();
  if (text === undefined || text === '') return undefined;
  return setting.kind === 'boolean' || setting.kind === 'oneOf' ? text.toLowerCase() : text;
}

/** The JSON Schema of one setting's value. */
function jsonSchemaOf(setting: Setting): Record<string, unknown> {
  const described = { description: setting.description };
  switch (setting.kind) {
    case 'integer':
      return { ...described, type: 'integer', minimum: setting.min, maximum: setting.max, default: setting.default };
    case 'boolean':
      return { ...described, type: 'boolean', default: setting.default };
    case 'oneOf':
      return { ...described, type: 'string', enum: [...setting.values], default: setting.default };
    case 'path':
      return {
        ...described,
        type: 'string',
        default: setting.from === 'repository' ? repoPath(setting.default) : setting.default,
      };
    case 'text':
      return {
        ...described,
        type: 'string',
        ...(setting.pattern === undefined ? {} : { pattern: setting.pattern }),
        ...(setting.format === undefined ? {} : { format: setting.format }),
        ...(setting.default === null ? {} : { default: setting.default }),
      };
    case 'url':
      return {
        ...described,
        type: 'string',
        format: urlFormat(setting.protocols),
        ...(setting.default === null ? {} : { default: setting.default }),
      };
    case 'list':
      return {
        ...described,
        type: 'array',
        items: { type: 'string', ...(setting.format === undefined ? {} : { format: setting.format }) },
        default: [],
      };
  }
}

const ENTRIES = Object.entries(SETTINGS) as [SettingName, Setting][];

/** The JSON Schema of the environment the settings describe (the object of their values). */
export const SETTINGS_SCHEMA = {
  type: 'object',
  properties: Object.fromEntries(ENTRIES.map(([name, setting]) => [name, jsonSchemaOf(setting)])),
  additionalProperties: false,
};

/**
 * The validator, compiled at the first read (a command that reads no settings, such as --help,
 * compiles nothing). Without the meta-schema and ajv's messages (the problems are worded here) it
 * compiles in about half the time; strict mode still refuses an unknown keyword.
 */
let validator: ValidateFunction | undefined;
function validatorOfSettings(): ValidateFunction {
  if (validator === undefined) {
    const ajv = new Ajv({
      allErrors: true,
      useDefaults: true,
      strict: true,
      meta: false,
      validateSchema: false,
      messages: false,
    });
    for (const [name, check] of Object.entries(TEXT_FORMATS)) ajv.addFormat(name, check);
    for (const [, setting] of ENTRIES)
      if (setting.kind === 'url') ajv.addFormat(urlFormat(setting.protocols), isUrlOf(setting.protocols));
    validator = ajv.compile(SETTINGS_SCHEMA);
  }
  return validator;
}

/** What is wrong with a setting's value, after its name. */
function problemOf(setting: Setting): string {
  switch (setting.kind) {
    case 'integer':
      return `must be an integer from ${setting.min} to ${setting.max}`;
    case 'boolean':
      return 'must be true or false';
    case 'oneOf':
      return `must be one of ${setting.values.join(', ')}`;
    case 'url':
      return setting.problem ?? `must be a ${setting.protocols.join(' or ')} URL`;
    case 'path':
      return 'must be a path';
    default:
      return setting.problem ?? 'must be text';
  }
}

/** Whether a problem repeats the value: yes unless the setting says no (a secret, a password in a URL). */
function echoes(setting: Setting): boolean {
  return setting.kind === 'list' ? false : !('echo' in setting) || setting.echo !== false;
}

/** The setting each ajv error is about: the first segment of its instance path. */
const settingOf = (error: ErrorObject): string => error.instancePath.split('/')[1] ?? '';

/**
 * Every setting's value from the environment, defaults filled, and one problem per setting whose
 * value does not fit (in the table's order). A number, boolean or word that does not fit is replaced by
 * its default, so the checks that compare settings compare values of their kind.
 */
export function readSettings(env: Env): { values: SettingValues; problems: string[] } {
  const values: Record<string, unknown> = {};
  const texts: Record<string, string | undefined> = {};
  for (const [name, setting] of ENTRIES) {
    const text = textOf(setting, env[name]);
    texts[name] = text;
    if (text !== undefined) values[name] = valueOfText(setting, text);
  }
  const validate = validatorOfSettings();
  const wrong = new Set(validate(values) ? [] : (validate.errors ?? []).map(settingOf));
  const problems: string[] = [];
  for (const [name, setting] of ENTRIES) {
    if (!wrong.has(name)) continue;
    if (setting.kind === 'integer' && setting.onlyWith !== undefined && values[setting.onlyWith] === false) continue;
    problems.push(`${name} ${problemOf(setting)}${echoes(setting) ? ` (got "${texts[name]}")` : ''}`);
    if (setting.kind === 'integer' || setting.kind === 'boolean' || setting.kind === 'oneOf')
      values[name] = setting.default;
  }
  for (const [name, setting] of ENTRIES)
    if (values[name] === undefined && 'default' in setting && setting.default === null) values[name] = null;
  return { values: values as SettingValues, problems };
}
