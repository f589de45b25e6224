// Domain failures: what the core (grants, subscriptions, search, ratelimit) throws when it cannot
// do what was asked. They know no HTTP; the edge decides how each one answers (src/http/errors.ts).

/** One problem with one input, named as the caller gave it. */
export interface ErrorDetail {
  parameter: string;
  message: string;
}

/** Thrown by an engine or store when the backing service cannot answer; a retry may succeed. */
export class ServiceUnavailableError extends Error {
  constructor(
    message: string,
    readonly retryAfterSeconds = 5,
  ) {
    super(message);
    this.name = 'ServiceUnavailableError';
  }
}

/** What was asked for does not exist. The message is fit to show to whoever asked. */
export class NotFoundError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotFoundError';
  }
}

/** The input is invalid: every problem found, one detail each. */
export class InvalidInputError extends Error {
  constructor(readonly details: readonly ErrorDetail[]) {
    super(`invalid input: ${details.map((d) => `${d.parameter} ${d.message}`).join('; ')}`);
    this.name = 'InvalidInputError';
  }
}

/** The input of a JSON body is invalid: every problem found, one detail each (parameter: the field's path). */
export class InvalidBodyError extends InvalidInputError {
  constructor(details: readonly ErrorDetail[]) {
    super(details);
    this.name = 'InvalidBodyError';
  }
}

/** A changes-feed position older than the changes still kept: the caller must start again from the beginning. */
export class SyncExpiredError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SyncExpiredError';
  }
}
