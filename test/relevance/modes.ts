// The matching modes the relevance bench and its floor test measure: each is a name and the extra
// GET /grants parameters that select it. A new search parameter gets measured by adding one line
// here (e.g. { name: 'typos=auto&matching=frequency', params: 'typos=auto&matching=frequency' }).

export interface MatchingMode {
  /** The mode's name in the report and in test/relevance/floor.json. */
  name: string;
  /** Extra query-string parameters of GET /grants, URL-encoded ('' for none). */
  params: string;
}

export const DEFAULT_MODE: MatchingMode = { name: 'default', params: '' };

/** Every mode measured by default, the API's default first. */
export const MATCHING_MODES: readonly MatchingMode[] = [
  DEFAULT_MODE,
  { name: 'synonyms=false', params: 'synonyms=false' },
  { name: 'typos=auto', params: 'typos=auto' },
  { name: 'matching=last', params: 'matching=last' },
  { name: 'matching=frequency', params: 'matching=frequency' },
  { name: 'typos=auto&matching=last', params: 'typos=auto&matching=last' },
  { name: 'typos=auto&matching=frequency', params: 'typos=auto&matching=frequency' },
];

/** A mode given on the command line as its parameters (`typos=auto&matching=frequency`): named after them. */
export const modeOf = (params: string): MatchingMode => ({ name: params, params });
