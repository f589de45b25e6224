// The search page: searches the grants API with the key the visitor pasted (kept in this tab's
// sessionStorage), with suggestions as one types (an ARIA combobox), highlighted snippets, "did you
// mean", facets with counts, open grants first, a grant with its similar grants, and paging. Plain
// DOM, no library. What is searched lives in the page's address (?q=…&page=2, ?grant=…), so the
// browser's Back button and a copied link work. A feature the API does not offer (suggestions,
// highlights, similar grants) is left out of the page, not shown as an error.
'use strict';
(function () {
  const API = (document.querySelector('meta[name="grants-api"]') || {}).content || '/external/v1';
  const KEY_STORE = 'grants-search-key';
  const PAGE_SIZE = 10;
  const LAST_PAGE = 10000 / PAGE_SIZE; // paging by number reaches the first 10,000 matches
  const SUGGESTIONS = 6;
  const FACETS = [
    ['eligibleProvinces', 'Province or territory'],
    ['fundingType', 'Funding type'],
    ['targetBeneficiaries', 'Who can apply'],
    ['funderType', 'Funder'],
  ];
  const LIST_FIELDS = [
    'id',
    'title',
    'funder',
    'deadline',
    'opensAt',
    'status',
    'fundingType',
    'amountMin',
    'amountMax',
    'currency',
  ];
  const $ = (id) => document.getElementById(id);
  /** What this API offers; each turns false the first time the API says it does not. */
  const offers = { highlights: true, suggestions: true, similar: true };

  // ---- words shown for the API's values

  const WORDS = {
    FEDERAL_GRANT: 'Federal government',
    PROVINCIAL_TERRITORIAL_GRANT: 'Provincial or territorial government',
    MUNICIPAL_GRANT: 'Municipal government',
    NON_PROFIT_ORGANIZATION: 'Non-profit organization',
    NON_PROFIT: 'Non-profits',
    TAX_CREDIT: 'Tax credit',
    WAGE_SUBSIDY: 'Wage subsidy',
  };
  const PROVINCES = new Set([
    'ALBERTA',
    'BRITISH_COLUMBIA',
    'MANITOBA',
    'NEW_BRUNSWICK',
    'NEWFOUNDLAND_AND_LABRADOR',
    'NORTHWEST_TERRITORIES',
    'NOVA_SCOTIA',
    'NUNAVUT',
    'ONTARIO',
    'PRINCE_EDWARD_ISLAND',
    'QUEBEC',
    'SASKATCHEWAN',
    'YUKON',
  ]);
  function label(value) {
    if (value == null || value === '') return '';
    if (WORDS[value]) return WORDS[value];
    const words = String(value).toLowerCase().split('_');
    if (PROVINCES.has(value)) return words.map((w) => (w === 'and' ? w : w[0].toUpperCase() + w.slice(1))).join(' ');
    const text = words.join(' ');
    return text[0].toUpperCase() + text.slice(1);
  }
  const longDate = (iso) =>
    new Date(iso).toLocaleDateString('en-CA', { timeZone: 'UTC', day: 'numeric', month: 'long', year: 'numeric' });
  function amount(grant) {
    const money = (n) =>
      Number(n).toLocaleString('en-CA', {
        style: 'currency',
        currency: grant.currency || 'CAD',
        maximumFractionDigits: 0,
      });
    if (grant.amountMin != null && grant.amountMax != null)
      return grant.amountMin === grant.amountMax
        ? money(grant.amountMax)
        : money(grant.amountMin) + ' to ' + money(grant.amountMax);
    if (grant.amountMax != null) return 'up to ' + money(grant.amountMax);
    if (grant.amountMin != null) return 'from ' + money(grant.amountMin);
    return null;
  }
  function when(grant) {
    if (grant.status === 'FORECASTED') return grant.opensAt ? 'Opens ' + longDate(grant.opensAt) : 'Not open yet';
    if (grant.status === 'CLOSED') return 'Closed';
    return grant.deadline ? 'Closes ' + longDate(grant.deadline) : 'No deadline';
  }

  /**
   * Puts the API's highlighted text into an element. The API escapes the text and adds only the
   * <mark> tags, so it goes in as HTML; anything else than <mark> and </mark> would mean the
   * answer is not what this page asked for, and the plain text is shown instead.
   */
  function setMarked(element, html, text) {
    if (typeof html === 'string' && !html.replace(/<\/?mark>/g, '').includes('<')) element.innerHTML = html;
    else element.textContent = text == null ? '' : text;
  }
  /** The first `words` words of a text, with … when cut (the API's crop does better where it is offered). */
  function firstWords(text, words) {
    const all = String(text || '')
      .split(/\s+/)
      .filter(Boolean);
    return all.length <= words ? all.join(' ') : all.slice(0, words).join(' ') + ' …';
  }

  // ---- the API

  class ApiFailure extends Error {
    constructor(message, status, body) {
      super(message);
      this.status = status;
      this.body = body;
    }
  }
  function plainError(status, code, retryAfter, message) {
    if (status === 401 && /expired/.test(message || '')) return 'This key has expired. Ask the site for a new one.';
    if (status === 401)
      return 'This key is not valid: it may be mistyped, incomplete or revoked. Check that you pasted the whole key.';
    if (status === 403 && code === 'SCOPE_NOT_ALLOWED')
      return 'This key is restricted: ' + (message || 'it lacks the scope this needs.');
    if (status === 403 && code === 'ORIGIN_NOT_ALLOWED')
      return 'This key may only be used from the web pages it lists, not from this one.';
    if (status === 403 && code === 'IP_NOT_ALLOWED')
      return 'This key may only be used from its own IP ranges, not from this network.';
    if (status === 403) return 'This key cannot search grants: ' + (message || 'its subscription does not include it.');
    if (status === 400) return 'The API could not take this search: ' + (message || 'a parameter is not valid.');
    if (status === 429 && code === 'QUOTA_EXCEEDED')
      return 'The monthly allowance is used up; it resets at the start of next month (UTC).';
    if (status === 429)
      return 'Too many requests in the last second. Wait ' + (retryAfter || '1') + ' second(s) and try again.';
    if (status === 503) return 'The service is temporarily unavailable. Try again in a moment.';
    return (
      'The API answered with an unexpected error (HTTP ' + status + (code ? ', ' + code : '') + '). Try again later.'
    );
  }

  /** GET on the API with the key: the whole answer (data, pagination, facets, suggestion). */
  async function get(path, params) {
    const key = sessionStorage.getItem(KEY_STORE);
    const query = params.toString();
    let response;
    try {
      response = await fetch(API + path + (query ? '?' + query : ''), { headers: { Authorization: 'Bearer ' + key } });
    } catch {
      throw new ApiFailure('The API could not be reached. Check your connection and try again.', 0, null);
    }
    let body;
    try {
      body = await response.json();
    } catch {
      body = null;
    }
    if (!response.ok || body === null || body.success !== true) {
      const error = body && body.error ? body.error : {};
      if (response.status === 401) sessionStorage.removeItem(KEY_STORE); // a key that will never work
      throw new ApiFailure(
        plainError(response.status, error.code, response.headers.get('Retry-After'), error.message),
        response.status,
        body,
      );
    }
    return body;
  }
  /** True when the API refused a parameter it does not know (a feature it does not offer). */
  function unknownParameter(failure, names) {
    const details = failure.body && failure.body.error && failure.body.error.details;
    return (
      failure.status === 400 &&
      Array.isArray(details) &&
      details.some((d) => names.includes(d.parameter) && /not a parameter/.test(d.message || ''))
    );
  }

  // ---- what is searched: the page's address

  function readState() {
    const url = new URLSearchParams(location.search);
    const filters = {};
    for (const [name] of FACETS) {
      const values = (url.get(name) || '').split(',').filter(Boolean);
      if (values.length > 0) filters[name] = values;
    }
    const page = Number(url.get('page'));
    return {
      q: url.get('q') || '',
      open: url.get('open') !== 'false',
      sort: url.get('sort') || '',
      page: Number.isInteger(page) && page > 1 ? page : 1,
      filters,
      grant: url.get('grant') || null,
    };
  }
  function addressOf(state) {
    const url = new URLSearchParams();
    if (state.q) url.set('q', state.q);
    if (!state.open) url.set('open', 'false');
    if (state.sort) url.set('sort', state.sort);
    for (const [name] of FACETS) if (state.filters[name]) url.set(name, state.filters[name].join(','));
    if (state.page > 1) url.set('page', String(state.page));
    if (state.grant) url.set('grant', state.grant);
    const query = url.toString();
    return location.pathname + (query ? '?' + query : '');
  }
  let state = readState();
  /** Shows another state and records it in the browser's history. */
  function go(next, focus) {
    state = next;
    history.pushState(null, '', addressOf(state));
    show(focus);
  }
  /** The API's filters of a state (for the search, the suggestions and the similar grants). */
  function filterParams(s) {
    const params = new URLSearchParams();
    if (s.open) params.set('open', 'true');
    for (const [name] of FACETS) if (s.filters[name]) params.set(name, s.filters[name].join(','));
    return params;
  }

  // ---- showing

  function showError(message) {
    $('error').textContent = message;
    $('error').hidden = false;
    if (!sessionStorage.getItem(KEY_STORE)) $('layout').hidden = true;
  }
  let shown = 0; // the latest show(); an older answer arriving late is dropped
  let foldKey = true; // fold the key's panel at the next answer (the first, or after a key is pasted)
  async function show(focus) {
    const turn = ++shown;
    $('q').value = state.q;
    $('open').checked = state.open;
    $('sort').value = state.sort;
    $('error').hidden = true;
    const key = sessionStorage.getItem(KEY_STORE);
    $('key-state').textContent = key ? '(in use: ' + key.slice(0, 12) + '…)' : '(none yet)';
    if (!key) {
      $('layout').hidden = true;
      $('key-panel').open = true;
      document.body.dataset.state = 'no-key';
      return;
    }
    document.body.dataset.state = 'loading';
    try {
      if (state.grant) await showGrant(state.grant, turn);
      else await showResults(turn);
      if (turn !== shown) return;
      $('layout').hidden = false;
      if (foldKey) $('key-panel').open = false; // out of the way once the key works
      foldKey = false;
      document.body.dataset.state = 'ready';
      if (focus) $(focus).focus();
    } catch (error) {
      if (turn !== shown) return;
      document.body.dataset.state = 'error';
      $('key-panel').open = true;
      showError(error instanceof ApiFailure ? error.message : 'Something went wrong in this page: ' + error);
    }
  }

  async function search(s) {
    const params = filterParams(s);
    if (s.q.trim()) params.set('search', s.q);
    // Open grants first: only open ones by default; without words, those closing soonest first.
    const sort = s.sort || (s.q.trim() ? '' : 'deadline');
    if (sort) params.set('sort', sort);
    params.set('page', String(s.page));
    params.set('limit', String(PAGE_SIZE));
    params.set('facets', FACETS.map(([name]) => name).join(','));
    if (offers.highlights) {
      params.set('fields', LIST_FIELDS.join(','));
      params.set('highlight', 'title,description,funder');
      params.set('crop', 'description:40');
    } else {
      params.set('fields', LIST_FIELDS.concat('description').join(','));
    }
    try {
      return await get('/grants', params);
    } catch (error) {
      if (!(error instanceof ApiFailure) || !offers.highlights || !unknownParameter(error, ['highlight', 'crop']))
        throw error;
      offers.highlights = false;
      return search(s);
    }
  }

  async function showResults(turn) {
    const answer = await search(state);
    if (turn !== shown) return;
    $('grant').hidden = true;
    $('results').hidden = false;
    $('filters').hidden = false;
    const { total, totalPages } = answer.pagination;
    // Without words to match, "best match" is the order of the deadlines: say so.
    const words = state.q.trim() ? ' for “' + state.q.trim() + '”' : state.sort ? '' : ', closing soonest first';
    $('status').textContent =
      total === 0
        ? 'No grants found' + words + '.'
        : total.toLocaleString('en-CA') +
          (total === 1 ? ' grant' : ' grants') +
          words +
          (totalPages > 1 ? ', page ' + state.page + ' of ' + totalPages : '') +
          '.';
    renderDidYouMean(answer.suggestion);
    renderGrants(answer.data);
    renderFacets(answer.facets || {});
    renderPages(state.page, totalPages);
  }

  function renderDidYouMean(suggestion) {
    const box = $('did-you-mean');
    box.hidden = !suggestion;
    if (!suggestion) return;
    const next = { ...state, q: suggestion.search, page: 1, grant: null };
    const link = $('did-you-mean-link');
    link.textContent = suggestion.search;
    link.href = addressOf(next);
    link.onclick = (event) => {
      event.preventDefault();
      go(next, 'results-heading');
    };
    $('did-you-mean-count').textContent =
      '(' + suggestion.total.toLocaleString('en-CA') + (suggestion.total === 1 ? ' grant)' : ' grants)');
  }

  /** A link that opens a grant in this page. */
  function grantLink(grant, withMarks) {
    const link = document.createElement('a');
    const next = { ...state, grant: grant.id };
    link.href = addressOf(next);
    link.dataset.grant = grant.id;
    if (withMarks) setMarked(link, grant.highlights && grant.highlights.title, grant.title);
    else link.textContent = grant.title;
    link.addEventListener('click', (event) => {
      if (event.ctrlKey || event.metaKey || event.shiftKey) return;
      event.preventDefault();
      go(next, 'grant-title');
    });
    return link;
  }

  function renderGrants(grants) {
    const list = $('grants');
    list.replaceChildren();
    for (const grant of grants) {
      const item = document.createElement('li');
      item.className = 'grant';
      item.dataset.id = grant.id;
      const heading = document.createElement('h3');
      heading.append(grantLink(grant, true));
      const funder = document.createElement('p');
      funder.className = 'funder';
      setMarked(funder, grant.highlights && grant.highlights.funder, grant.funder);
      const facts = document.createElement('p');
      facts.className = 'facts';
      const badge = document.createElement('span');
      badge.className = 'badge ' + String(grant.status).toLowerCase();
      badge.textContent = label(grant.status);
      facts.append(badge, ' ' + [when(grant), label(grant.fundingType), amount(grant)].filter(Boolean).join(' · '));
      item.append(heading, funder, facts);
      if (grant.description != null || (grant.highlights && grant.highlights.description != null)) {
        const snippet = document.createElement('p');
        snippet.className = 'snippet';
        setMarked(snippet, grant.highlights && grant.highlights.description, firstWords(grant.description, 40));
        item.append(snippet);
      }
      list.append(item);
    }
  }

  function renderFacets(facets) {
    const focused = document.activeElement && document.activeElement.id;
    const box = $('facets');
    box.replaceChildren();
    let chosen = 0;
    for (const [name, title] of FACETS) {
      const counts = facets[name] || [];
      const selected = state.filters[name] || [];
      chosen += selected.length;
      // A chosen value stays listed (and can be unticked) even when it counts nothing now.
      const values = counts.concat(
        selected.filter((v) => !counts.some((c) => c.value === v)).map((value) => ({ value, count: 0 })),
      );
      if (values.length === 0) continue;
      const set = document.createElement('fieldset');
      set.dataset.facet = name;
      const legend = document.createElement('legend');
      legend.textContent = title;
      set.append(legend);
      for (const { value, count } of values) {
        const id = 'facet-' + name + '-' + value;
        const row = document.createElement('div');
        row.className = 'facet-value';
        const input = document.createElement('input');
        input.type = 'checkbox';
        input.id = id;
        input.value = value;
        input.checked = selected.includes(value);
        input.addEventListener('change', () => {
          const values = new Set(state.filters[name] || []);
          if (input.checked) values.add(value);
          else values.delete(value);
          const filters = { ...state.filters, [name]: [...values] };
          if (values.size === 0) delete filters[name];
          go({ ...state, filters, page: 1, grant: null }, id);
        });
        const text = document.createElement('label');
        text.htmlFor = id;
        text.append(label(value) + ' ');
        const number = document.createElement('span');
        number.className = 'count';
        number.textContent = '(' + count.toLocaleString('en-CA') + ')';
        text.append(number);
        row.append(input, text);
        set.append(row);
      }
      box.append(set);
    }
    $('filter-count').textContent = chosen > 0 ? '(' + chosen + ' chosen)' : '';
    $('clear-filters').hidden = chosen === 0;
    if (focused && $(focused) && box.contains($(focused))) $(focused).focus();
  }

  function renderPages(page, totalPages) {
    $('pages').hidden = totalPages <= 1;
    $('page-of').textContent = 'Page ' + page + ' of ' + totalPages;
    $('previous').disabled = page <= 1;
    $('next').disabled = page >= Math.min(totalPages, LAST_PAGE);
  }

  async function showGrant(id, turn) {
    const answer = await get('/grants/' + encodeURIComponent(id), new URLSearchParams());
    if (turn !== shown) return;
    const grant = answer.data;
    $('results').hidden = true;
    $('filters').hidden = true;
    $('grant').hidden = false;
    $('grant-title').textContent = grant.title;
    $('grant-funder').textContent = grant.funder;
    const facts = $('grant-facts');
    facts.replaceChildren();
    const rows = [
      ['Status', label(grant.status)],
      ['Dates', when(grant)],
      ['Funding', [label(grant.fundingType), amount(grant)].filter(Boolean).join(', ')],
      ['Where', (grant.eligibleProvinces || []).map(label).join(', ') || 'Anywhere'],
      ['Who can apply', (grant.targetBeneficiaries || []).map(label).join(', ') || 'Anyone'],
    ];
    for (const [term, value] of rows) {
      const dt = document.createElement('dt');
      dt.textContent = term;
      const dd = document.createElement('dd');
      dd.textContent = value;
      facts.append(dt, dd);
    }
    $('grant-description').textContent = grant.description || 'No description.';
    const apply = $('grant-apply');
    apply.hidden = !/^https?:\/\//.test(grant.applicationUrl || '');
    if (!apply.hidden) apply.href = grant.applicationUrl;
    await showSimilar(grant.id, turn);
  }

  async function showSimilar(id, turn) {
    $('similar').hidden = true;
    if (!offers.similar) return;
    const params = filterParams(state);
    params.set('limit', '5');
    params.set('fields', LIST_FIELDS.join(','));
    let answer;
    try {
      answer = await get('/grants/' + encodeURIComponent(id) + '/similar', params);
    } catch (error) {
      // This grant was just read: a 404 means the API has no similar grants to offer.
      if (error instanceof ApiFailure && error.status === 404) {
        offers.similar = false;
        return;
      }
      throw error;
    }
    if (turn !== shown) return;
    const list = $('similar-grants');
    list.replaceChildren();
    for (const grant of answer.data) {
      const item = document.createElement('li');
      item.dataset.id = grant.id;
      const detail = document.createElement('span');
      detail.className = 'detail';
      detail.textContent = [grant.funder, when(grant)].filter(Boolean).join(' · ');
      item.append(grantLink(grant, false), detail);
      list.append(item);
    }
    $('similar').hidden = answer.data.length === 0;
  }

  // ---- suggestions as one types: an ARIA combobox (the input) and its listbox

  const input = $('q');
  const listbox = $('suggestions');
  let active = -1;
  let typed = 0; // the latest keystroke's number; the answers to older ones are dropped
  let timer = null;

  function closeSuggestions() {
    listbox.hidden = true;
    listbox.replaceChildren();
    input.setAttribute('aria-expanded', 'false');
    input.removeAttribute('aria-activedescendant');
    active = -1;
  }
  /**
   * The search box's text with a suggestion taken: a word completes the last word typed; a title or funder replaces it
   * all.
   */
  function completed(suggestion) {
    if (suggestion.type !== 'word') return suggestion.text;
    const words = input.value.replace(/\s+$/, '').split(/(\s+)/);
    words[words.length - 1] = suggestion.text;
    return words.join('');
  }
  function setActive(index) {
    const options = listbox.querySelectorAll('[role=option]');
    active = options.length === 0 ? -1 : (index + options.length) % options.length;
    options.forEach((option, i) => option.setAttribute('aria-selected', String(i === active)));
    if (active < 0) input.removeAttribute('aria-activedescendant');
    else {
      input.setAttribute('aria-activedescendant', options[active].id);
      options[active].scrollIntoView({ block: 'nearest' });
    }
  }
  function take(option) {
    closeSuggestions();
    go({ ...state, q: option.dataset.value, page: 1, grant: null }, 'results-heading');
  }
  function renderSuggestions(suggestions) {
    listbox.replaceChildren();
    suggestions.forEach((suggestion, i) => {
      const option = document.createElement('li');
      option.id = 'suggestion-' + i;
      option.setAttribute('role', 'option');
      option.setAttribute('aria-selected', 'false');
      option.dataset.value = completed(suggestion);
      option.dataset.type = suggestion.type;
      const text = document.createElement('span');
      text.className = 'text';
      text.textContent = option.dataset.value;
      const detail = document.createElement('span');
      detail.className = 'detail';
      detail.textContent =
        (suggestion.type === 'word' ? '' : suggestion.type + ', ') +
        suggestion.count.toLocaleString('en-CA') +
        (suggestion.count === 1 ? ' grant' : ' grants');
      option.append(text, ' ', detail);
      option.addEventListener('mousedown', (event) => event.preventDefault()); // keep the focus in the box
      option.addEventListener('click', () => take(option));
      listbox.append(option);
    });
    active = -1;
    input.removeAttribute('aria-activedescendant');
    listbox.hidden = suggestions.length === 0;
    input.setAttribute('aria-expanded', String(suggestions.length > 0));
    $('suggestions-status').textContent =
      suggestions.length === 0 ? '' : suggestions.length + (suggestions.length === 1 ? ' suggestion' : ' suggestions');
  }
  async function suggest(text, turn) {
    const params = filterParams(state);
    params.set('q', text);
    params.set('limit', String(SUGGESTIONS));
    let answer;
    try {
      answer = await get('/grants/suggest', params);
    } catch (error) {
      // An API without suggestions (404, or /grants/suggest read as a grant's id): no list, ever.
      if (error instanceof ApiFailure && (error.status === 404 || unknownParameter(error, ['q'])))
        offers.suggestions = false;
      return;
    }
    if (turn !== typed || document.activeElement !== input) return;
    renderSuggestions(answer.data);
  }
  input.addEventListener('input', () => {
    const turn = ++typed;
    clearTimeout(timer);
    const text = input.value.trim();
    if (!offers.suggestions || !sessionStorage.getItem(KEY_STORE) || text.length < 2) {
      closeSuggestions();
      return;
    }
    timer = setTimeout(() => suggest(input.value.slice(0, 100), turn), 120);
  });
  input.addEventListener('keydown', (event) => {
    const open = !listbox.hidden;
    if (event.key === 'ArrowDown' && open) {
      event.preventDefault();
      setActive(active + 1);
    } else if (event.key === 'ArrowUp' && open) {
      event.preventDefault();
      setActive(active < 0 ? -1 : active - 1);
    } else if (event.key === 'Enter' && open && active >= 0) {
      event.preventDefault();
      take(listbox.querySelectorAll('[role=option]')[active]);
    } else if (event.key === 'Escape' && open) {
      event.preventDefault();
      typed += 1;
      closeSuggestions();
    }
  });
  input.addEventListener('blur', () => {
    typed += 1;
    closeSuggestions();
  });

  // ---- the forms and buttons

  $('search-form').addEventListener('submit', (event) => {
    event.preventDefault();
    typed += 1;
    closeSuggestions();
    go({ ...state, q: input.value.trim(), page: 1, grant: null }, 'results-heading');
  });
  $('open').addEventListener('change', () => go({ ...state, open: $('open').checked, page: 1, grant: null }));
  $('sort').addEventListener('change', () => go({ ...state, sort: $('sort').value, page: 1, grant: null }));
  $('previous').addEventListener('click', () => go({ ...state, page: state.page - 1 }, 'results-heading'));
  $('next').addEventListener('click', () => go({ ...state, page: state.page + 1 }, 'results-heading'));
  $('clear-filters').addEventListener('click', () =>
    go({ ...state, filters: {}, page: 1, grant: null }, 'results-heading'),
  );
  $('back').addEventListener('click', () => go({ ...state, grant: null }, 'results-heading'));
  $('key-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const key = $('key').value.trim();
    if (!key) return;
    sessionStorage.setItem(KEY_STORE, key);
    foldKey = true;
    show();
  });
  $('forget').addEventListener('click', () => {
    sessionStorage.removeItem(KEY_STORE);
    $('key').value = '';
    show();
  });
  window.addEventListener('popstate', () => {
    state = readState();
    show();
  });

  // The filters start open where there is room beside the results.
  $('filters').open = window.matchMedia('(min-width: 800px)').matches;
  const kept = sessionStorage.getItem(KEY_STORE);
  if (kept) $('key').value = kept;
  show();
})();
