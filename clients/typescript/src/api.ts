// The typed openapi-fetch client for the paths of openapi.json, as the SDK's wrappers use it.
import type { Client } from 'openapi-fetch';
import type { paths } from './schema.js';

export type ApiClient = Client<paths>;
