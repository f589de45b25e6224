// Assertions on the API's answers shared by the HTTP suites.
import { expect } from 'chai';
import type { TestResponse } from './api.js';

/** A request id as the API generates it (meta.requestId, X-Request-Id). */
export const REQUEST_ID = /^req_[A-Za-z0-9_-]{20,}$/;
/** The content type of every JSON answer. */
export const JSON_TYPE = 'application/json; charset=utf-8';

/** What expectError checks beyond the core (status, success false, code, message, meta.version). */
export interface ErrorChecks {
  /** The Content-Type is JSON_TYPE. */
  contentType?: boolean;
  /** The body holds exactly success, error and meta. */
  exactKeys?: boolean;
  /** meta.requestId matches REQUEST_ID and equals the X-Request-Id header. */
  requestId?: boolean;
}

/**
 * An error answer: the status; an object body with success false, error.code `code`, a non-empty
 * error.message and meta.version v1; plus whatever `checks` asks for.
 */
export function expectError(res: TestResponse, status: number, code: string, checks: ErrorChecks = {}): void {
  expect(res.status, res.text).to.equal(status);
  if (checks.contentType) expect(res.headers.get('content-type')).to.equal(JSON_TYPE);
  expect(res.body, res.text).to.be.an('object');
  if (checks.exactKeys) expect(Object.keys(res.body)).to.have.members(['success', 'error', 'meta']);
  expect(res.body.success).to.equal(false);
  expect(res.body.error.code).to.equal(code);
  expect(res.body.error.message).to.be.a('string').and.not.equal('');
  expect(res.body.meta.version).to.equal('v1');
  if (checks.requestId) {
    expect(res.body.meta.requestId).to.match(REQUEST_ID);
    expect(res.headers.get('x-request-id')).to.equal(res.body.meta.requestId);
  }
}

/** One detail of a VALIDATION_ERROR: the parameter it names and why it is wrong. */
export interface ValidationDetail {
  parameter: string;
  message: string;
}

/**
 * A 400 VALIDATION_ERROR (the expectError core) whose details name exactly `parameters`, each
 * once, in any order; returns the details.
 */
export function expectValidation(res: TestResponse, parameters: string[]): ValidationDetail[] {
  expectError(res, 400, 'VALIDATION_ERROR');
  const details = res.body.error.details as ValidationDetail[];
  expect(details, res.text).to.be.an('array');
  expect(
    details.map((d) => d.parameter),
    res.text,
  ).to.have.members(parameters);
  expect(details).to.have.length(parameters.length);
  return details;
}
