// The small query clauses the translator, the status clauses and keyset paging write alike. Pure.

/** The grants that hold a value of `field`. */
export const exists = (field: string) => ({ exists: { field } });

/** The grants that match at least one of `clauses`. */
export const either = (...clauses: unknown[]) => ({ bool: { should: clauses, minimum_should_match: 1 } });

/** The grants that hold no value of `field`. */
export const missing = (field: string) => ({ bool: { must_not: [exists(field)] } });
