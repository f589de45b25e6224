// The request check of the test client (test/support/openapiRequestCheck.ts) against the
// generated document: what a client generated from the document would send passes; an undeclared
// parameter, a list in an encoding the document does not declare, a bad value, missing
// credentials and a body off its schema are refused, each with a message naming the problem.
import { expect } from 'chai';
import { ALERT_QUERY_PARAMS } from '../../src/http/parameters/grantSearchParams.js';
import { document } from '../support/openapiDocument.js';
import { requestProblems, type CheckedRequest } from '../support/openapiRequestCheck.js';

const KEY = { Authorization: 'Bearer gk_live_0123456789abcdefghijklmnopqrstuv' };
const get = (pathAndQuery: string, headers: Record<string, string> = KEY): CheckedRequest => ({
  method: 'GET',
  pathAndQuery,
  headers: new Headers(headers),
  body: '',
});
const send = (
  method: string,
  pathAndQuery: string,
  body: unknown,
  headers: Record<string, string> = { ...KEY, 'Content-Type': 'application/json' },
): CheckedRequest => ({
  method,
  pathAndQuery,
  headers: new Headers(headers),
  body: typeof body === 'string' ? body : JSON.stringify(body),
});

describe('request check against the OpenAPI document', () => {
  it('accepts requests written as the document declares them', () => {
    for (const target of [
      '/external/v1/grants',
      '/external/v1/grants?search=clean+energy&limit=5&page=2',
      '/external/v1/grants?funderType=FEDERAL_GRANT,FOUNDATION&eligibleProvinces=ONTARIO',
      '/external/v1/grants?funderType=FEDERAL_GRANT%2CFOUNDATION',
      '/external/v1/grants?isRecurring=false&amountMin=1000.5&deadlineFrom=2026-01-01&fields=id,title&' +
        'facets=funderType',
      '/external/v1/grants?fields=',
      '/external/v1/grants/filters',
      '/external/v1/grants/grt_fd5f6d22',
      '/external/v1/subscription/usage?days=7',
    ]) {
      expect(requestProblems(get(target)), target).to.deep.equal([]);
    }
    expect(requestProblems(get('/external/v1/grants/grt_1', { ...KEY, 'If-None-Match': 'W/"abc"' }))).to.deep.equal([]);
    expect(requestProblems(get('/external/v1/openapi.json', {})), 'the document itself needs no key').to.deep.equal([]);
    expect(requestProblems(get('/healthz', {})), 'outside the API prefix: not an operation').to.deep.equal([]);
  });

  it('refuses a query parameter the operation does not declare', () => {
    const problems = requestProblems(get('/external/v1/grants?limit=5&colour=blue'));
    expect(problems).to.have.length(1);
    expect(problems[0]).to.match(/query parameter "colour" is not declared/);
    expect(requestProblems(get('/external/v1/subscription/limits?days=7'))[0]).to.match(/"days" is not declared/);
  });

  it('refuses a list written repeated or bracketed where the document declares one comma-separated value', () => {
    const repeated = requestProblems(get('/external/v1/grants?funderType=FEDERAL_GRANT&funderType=FOUNDATION'));
    expect(repeated).to.have.length(1);
    expect(repeated[0]).to.match(
      /list parameter "funderType" is given 2 times; the document declares style form, explode false/,
    );
    expect(requestProblems(get('/external/v1/grants?funderType[]=FOUNDATION'))[0]).to.match(
      /"funderType\[\]" is not declared/,
    );
    expect(requestProblems(get('/external/v1/grants?eligibleProvinces%5B0%5D=YUKON'))[0]).to.match(
      /"eligibleProvinces\[0\]" is not declared/,
    );
  });

  it('lets a call marked tolerantLists write lists repeated, bracketed or indexed, and checks the rest', () => {
    const tolerant = { tolerantLists: true };
    expect(
      requestProblems(
        get(
          '/external/v1/grants?funderType=FEDERAL_GRANT&funderType[]=FOUNDATION,CORPORATE&' +
            'eligibleProvinces%5B0%5D=YUKON',
        ),
        tolerant,
      ),
    ).to.deep.equal([]);
    expect(
      requestProblems(get('/external/v1/grants?funderType=FEDERAL_GRANT,,%20FOUNDATION,FOUNDATION,'), tolerant),
      'trimmed, empty items and repeats dropped',
    ).to.deep.equal([]);
    expect(
      requestProblems(get('/external/v1/grants?funderType=FEDERAL_GRANT,,%20FOUNDATION,FOUNDATION,')).join(),
      'but not without the mark',
    ).to.match(/funderType\[1\] must be equal to one of the allowed values/);
    expect(
      requestProblems(get('/external/v1/grants?funderType=FEDERAL_GRANT&funderType=NOPE'), tolerant).join(),
    ).to.match(/funderType\[1\] must be equal to one of the allowed values/);
    expect(
      requestProblems(get('/external/v1/grants?limit=1&limit=2'), tolerant).join(),
      'a scalar stays single',
    ).to.match(/"limit" is given 2 times/);
    expect(requestProblems(get('/external/v1/grants?search[]=x'), tolerant).join(), 'brackets only on lists').to.match(
      /"search\[\]" is not declared/,
    );
  });

  it('refuses values off their schema, scalars given twice, and malformed encoding', () => {
    expect(requestProblems(get('/external/v1/grants?limit=ten')).join()).to.match(
      /query parameter limit must be integer/,
    );
    expect(requestProblems(get('/external/v1/grants?page=0')).join()).to.match(/page must be >= 1/);
    expect(requestProblems(get('/external/v1/grants?page=1e3')).join(), 'an integer is written in digits').to.match(
      /page must be integer/,
    );
    expect(requestProblems(get('/external/v1/grants?isRecurring=yes')).join()).to.match(/isRecurring must be boolean/);
    expect(requestProblems(get('/external/v1/grants?funderType=FEDERAL_GRANT,NOPE')).join()).to.match(
      /funderType\[1\] must be equal to one of the allowed values/,
    );
    expect(requestProblems(get('/external/v1/grants?page=1&page=2')).join()).to.match(
      /"page" is given 2 times; it takes one value/,
    );
    expect(requestProblems(get('/external/v1/grants?search=%E0%A4')).join()).to.match(/not valid percent-encoding/);
    expect(
      requestProblems(get(`/external/v1/grants/grt_1`, { ...KEY, 'If-None-Match': 'x'.repeat(5000) })).join(),
    ).to.match(/header If-None-Match must NOT have more than 4096 characters/);
  });

  it('refuses a path or method the document does not have, and a call without the credentials it asks for', () => {
    expect(requestProblems(get('/external/v1/grant'))).to.deep.equal([
      'GET /external/v1/grant: no path of the document matches it',
    ]);
    expect(requestProblems(get('/external/v1/grants/'))[0]).to.match(/no path of the document matches/);
    expect(requestProblems(send('DELETE', '/external/v1/grants', ''))[0]).to.match(/no DELETE operation/);
    expect(requestProblems(get('/external/v1/grants', {}))[0]).to.match(/lacks the credentials .*bearerKey/);
    expect(requestProblems(get('/external/v1/grants', { Authorization: 'Basic abc' }))[0]).to.match(
      /lacks the credentials/,
    );
    expect(
      requestProblems(get('/external/v1/grants', { Authorization: 'bearer abc' })),
      'the scheme word is case-insensitive',
    ).to.deep.equal([]);
  });

  it('checks a JSON body against the operation: its presence, its Content-Type and its schema', () => {
    const alert = {
      name: 'Ontario grants',
      query: { eligibleProvinces: ['ONTARIO'] },
      url: 'https://partner.example/hooks/grants',
    };
    expect(requestProblems(send('POST', '/external/v1/alerts', alert))).to.deep.equal([]);
    expect(requestProblems(send('POST', '/external/v1/alerts', ''))[0]).to.match(/requires a request body/);
    expect(
      requestProblems(send('POST', '/external/v1/alerts', alert, { ...KEY, 'Content-Type': 'text/plain' }))[0],
    ).to.match(/Content-Type is text\/plain/);
    expect(requestProblems(send('POST', '/external/v1/alerts', '{"name":')).join()).to.match(/not JSON/);
    expect(requestProblems(send('POST', '/external/v1/alerts', { ...alert, colour: 'blue' })).join()).to.match(
      /request body/,
    );
    expect(requestProblems(send('POST', '/external/v1/alerts', { ...alert, name: 42 })).join()).to.match(
      /request body \/name must be string/,
    );
    expect(requestProblems(send('DELETE', '/external/v1/alerts/alr_1', '{}'))[0]).to.match(
      /a request body where the document declares none/,
    );
    // An alert's query is the GET /grants filters as JSON (the AlertQuery schema): lists as arrays, no paging.
    expect(
      requestProblems(
        send('POST', '/external/v1/alerts', { ...alert, query: { eligibleProvinces: 'ONTARIO' } }),
      ).join(),
    ).to.match(/request body \/query\/eligibleProvinces must be array/);
    expect(requestProblems(send('POST', '/external/v1/alerts', { ...alert, query: { page: 2 } })).join()).to.match(
      /request body \/query must NOT have additional properties/,
    );
    expect(requestProblems(send('PATCH', '/external/v1/alerts/alt_1', { query: { open: 'yes' } })).join()).to.match(
      /request body \/query\/open must be boolean/,
    );
    expect(Object.keys(document.components.schemas.AlertQuery.properties)).to.deep.equal(
      Object.keys(ALERT_QUERY_PARAMS),
    );
  });
});
