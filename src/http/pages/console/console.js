// The partner console: reads GET /subscription/usage and GET /subscription/limits of this origin's
// API with the key the partner pasted (and, on demand, the alerts and the keys), and draws them (plain DOM and SVG, no
// library). The key is kept in this tab's sessionStorage and sent only to this origin's API.
'use strict';
(function () {
  const API = '/external/v1';
  const KEY_STORE = 'grants-console-key';
  const SVG = 'http://www.w3.org/2000/svg';
  const $ = (id) => document.getElementById(id);
  const number = (n) => Number(n).toLocaleString('en-US');
  const longDate = (iso) =>
    new Date(iso).toLocaleDateString('en-GB', { timeZone: 'UTC', day: 'numeric', month: 'long', year: 'numeric' });
  const FEATURE_NAMES = {
    'grants.search': 'Search grants and follow changes (/grants, /grants/filters, /grants/changes)',
    'grants.read': 'Read a grant (/grants/:id)',
    'grants.export': 'Export the catalog (/grants/export)',
    'alerts.manage': 'Alerts: webhooks on new, changed and removed grants (/alerts)',
    'subscription.read': 'Usage and limits (/subscription/*)',
  };

  /** An error in plain words, from the API's answer (status, error code, message, Retry-After). */
  function plainError(status, code, retryAfter, message) {
    if (status === 401 && /expired/.test(message || ''))
      return 'This key has expired. Use another key of the subscription, or ask for a new one.';
    if (status === 401)
      return (
        'This key is not valid: it may be mistyped, incomplete or revoked. Check that you pasted the whole ' +
        'key, or ask us for a new one.'
      );
    if (status === 403 && code === 'SCOPE_NOT_ALLOWED')
      return 'This key is restricted: ' + (message || 'it lacks the scope this needs.');
    if (status === 403 && code === 'ORIGIN_NOT_ALLOWED')
      return 'This key may only be used from the web pages it lists, not from this console.';
    if (status === 403 && code === 'IP_NOT_ALLOWED')
      return 'This key may only be used from its own IP ranges, not from this network.';
    if (status === 403 && code === 'SUBSCRIPTION_INACTIVE')
      return 'This subscription is cancelled, so the key can no longer be used. Contact us to reactivate it.';
    if (status === 403)
      return 'This subscription does not include usage reports (the subscription.read feature). Contact us to add it.';
    if (status === 429 && code === 'QUOTA_EXCEEDED')
      return 'The monthly allowance is used up; it resets at the start of next month (UTC).';
    if (status === 429)
      return 'Too many requests in the last second. Wait ' + (retryAfter || '1') + ' second(s) and try again.';
    if (status === 503) return 'The service is temporarily unavailable. Try again in a moment.';
    return (
      'The API answered with an unexpected error (HTTP ' + status + (code ? ', ' + code : '') + '). Try again later.'
    );
  }

  class ApiFailure extends Error {}

  async function get(path, key) {
    let response;
    try {
      response = await fetch(API + path, { headers: { Authorization: 'Bearer ' + key }, cache: 'no-store' });
    } catch {
      throw new ApiFailure('The API could not be reached. Check your connection and try again.');
    }
    let body;
    try {
      body = await response.json();
    } catch {
      body = null;
    }
    if (!response.ok || body === null || body.success !== true) {
      const code = body && body.error ? body.error.code : undefined;
      const message = body && body.error ? body.error.message : undefined;
      if (response.status === 401) sessionStorage.removeItem(KEY_STORE); // a key that will never work
      throw new ApiFailure(plainError(response.status, code, response.headers.get('Retry-After'), message));
    }
    return body.data;
  }

  function showError(message) {
    $('error').textContent = message;
    $('error').hidden = false;
    $('report').hidden = true;
  }

  function renderSubscription(limits) {
    $('tier').textContent = limits.subscription.tier;
    $('status').textContent = limits.subscription.status;
    $('rate').textContent = number(limits.limits.rateLimit.requestsPerSecond) + ' requests per second';
    const note = $('status-note');
    note.hidden = limits.subscription.status === 'ACTIVE';
    note.textContent =
      limits.subscription.status === 'SUSPENDED'
        ? 'This subscription is suspended: grant searches and reads are refused until it is reactivated. Contact us.'
        : '';
    const list = $('features');
    list.replaceChildren();
    const flags = {
      'grants.search': limits.features.grants.search,
      'grants.read': limits.features.grants.read,
      'grants.export': limits.features.grants.export,
      'alerts.manage': limits.features.alerts ? limits.features.alerts.manage : false,
      'subscription.read': limits.features.subscription.read,
    };
    const alerts = limits.limits.alerts;
    $('alerts-card').hidden = !flags['alerts.manage'];
    if (alerts) $('alerts-count').textContent = number(alerts.current) + ' of ' + number(alerts.max) + ' alerts';
    for (const [name, on] of Object.entries(flags)) {
      const item = document.createElement('li');
      item.className = on ? 'on' : 'off';
      item.dataset.feature = name;
      item.dataset.enabled = String(on);
      item.textContent = FEATURE_NAMES[name] + (on ? '' : ': not included');
      list.append(item);
    }
  }

  function renderGauge(month) {
    const used = Math.min(month.calls, month.limit);
    const share = month.limit > 0 ? used / month.limit : 1;
    const fill = $('gauge-fill');
    fill.setAttribute('width', String(Math.round(share * 400 * 100) / 100));
    fill.classList.toggle('high', share >= 0.8 && share < 1);
    fill.classList.toggle('full', share >= 1);
    $('gauge').setAttribute(
      'aria-label',
      'monthly allowance: ' + number(month.calls) + ' of ' + number(month.limit) + ' calls used',
    );
    const set = (id, value, text) => {
      $(id).dataset.value = String(value);
      $(id).textContent = text;
    };
    set('gauge-used', month.calls, number(month.calls));
    set('gauge-limit', month.limit, number(month.limit));
    set('gauge-remaining', month.remaining, number(month.remaining));
    set('gauge-reset', month.resetDate, longDate(month.resetDate));
  }

  /** The days last drawn, to draw them again at a new width. */
  let drawnDaily = null;

  /**
   * One bar per day, its height proportional to the day's calls (the busiest day fills the plot),
   * drawn at the chart's own size in CSS pixels so that the labels keep their size on a phone; as
   * many date labels as fit, the last day's always.
   */
  function renderChart(daily) {
    drawnDaily = daily;
    const chart = $('chart');
    const box = chart.getBoundingClientRect();
    const width = Math.round(box.width) || 900;
    const height = Math.round(box.height) || 240;
    const left = 44;
    const bottom = 22;
    const top = 8;
    const plot = height - bottom - top;
    chart.setAttribute('viewBox', '0 0 ' + width + ' ' + height);
    chart.replaceChildren();
    const max = Math.max(1, ...daily.map((d) => d.calls));
    const slot = (width - left) / daily.length;
    const element = (name, attributes, text) => {
      const node = document.createElementNS(SVG, name);
      for (const [k, v] of Object.entries(attributes)) node.setAttribute(k, String(v));
      if (text !== undefined) node.textContent = text;
      chart.append(node);
      return node;
    };
    element('line', { class: 'axis', x1: left, y1: top + plot, x2: width, y2: top + plot });
    element('text', { x: left - 6, y: top + 10, 'text-anchor': 'end' }, number(max));
    element('text', { x: left - 6, y: top + plot, 'text-anchor': 'end' }, '0');
    const labelWidth = 44;
    const labelEvery = Math.max(1, Math.ceil((daily.length * labelWidth) / (width - left)));
    daily.forEach((day, i) => {
      const barHeight = (day.calls / max) * plot;
      const bar = element('rect', {
        class: 'bar',
        x: left + i * slot + slot * 0.15,
        y: top + plot - barHeight,
        width: slot * 0.7,
        height: barHeight,
        'data-date': day.date,
        'data-calls': day.calls,
      });
      const parts = Object.entries(day.byEndpoint).map(([endpoint, calls]) => endpoint + ': ' + number(calls));
      const title = document.createElementNS(SVG, 'title');
      title.textContent =
        day.date + ': ' + number(day.calls) + ' calls' + (parts.length ? '\n' + parts.join('\n') : '');
      bar.append(title);
      // The last day's label ends at the right edge; the others keep clear of it.
      const center = left + i * slot + slot / 2;
      if (i === daily.length - 1) {
        element('text', { x: width, y: height - 6, 'text-anchor': 'end' }, day.date.slice(5));
      } else if (i % labelEvery === 0 && width - center >= labelWidth * 1.5) {
        element('text', { x: center, y: height - 6, 'text-anchor': 'middle' }, day.date.slice(5));
      }
    });
  }

  function renderTop(topEndpoints) {
    const list = $('top-endpoints');
    list.replaceChildren();
    if (topEndpoints.length === 0) {
      const item = document.createElement('li');
      item.textContent = 'No calls in this period.';
      list.append(item);
    }
    for (const { endpoint, calls } of topEndpoints.slice(0, 5)) {
      const item = document.createElement('li');
      const code = document.createElement('code');
      code.textContent = endpoint;
      item.append(code, ' · ' + number(calls) + ' calls');
      item.dataset.endpoint = endpoint;
      item.dataset.calls = String(calls);
      list.append(item);
    }
  }

  /** A key's restrictions in words (null fields: not restricted that way). */
  function restrictionWords(restrictions, expiresAt) {
    const parts = [];
    if (restrictions.scopes) parts.push('scopes: ' + restrictions.scopes.join(', '));
    if (restrictions.origins) parts.push('web pages: ' + restrictions.origins.join(', '));
    if (restrictions.ips) parts.push('IP ranges: ' + restrictions.ips.join(', '));
    if (restrictions.rateLimit) parts.push(number(restrictions.rateLimit) + ' requests per second of its own');
    if (expiresAt) parts.push('expires ' + longDate(expiresAt));
    return parts.length === 0
      ? "Unrestricted: every scope, from anywhere, up to the subscription's rate, never expires."
      : parts.join(' · ');
  }

  /** The key in use, from /subscription/limits (no extra call). */
  function renderKey(key) {
    $('key-prefix').textContent = key.prefix + '…';
    $('key-restrictions').textContent = restrictionWords(key.restrictions, key.expiresAt);
    $('key-card').dataset.restricted = String(
      restrictionWords(key.restrictions, key.expiresAt).indexOf('Unrestricted') !== 0,
    );
  }

  /** The subscription's keys (GET /keys, a billable call, so on demand only; needs keys:manage). */
  async function showKeys(key) {
    const list = $('keys');
    list.replaceChildren();
    $('keys-error').hidden = true;
    try {
      const keys = await get('/keys', key);
      for (const k of keys) {
        const item = document.createElement('li');
        item.dataset.key = k.id;
        const name = document.createElement('strong');
        name.textContent = (k.name || 'unnamed key') + ' ';
        const prefix = document.createElement('code');
        prefix.textContent = k.prefix + '…';
        const detail = document.createElement('span');
        detail.className = 'detail';
        detail.textContent =
          restrictionWords(k.restrictions, k.expiresAt) +
          ' · created ' +
          longDate(k.createdAt) +
          ' · ' +
          (k.lastUsedAt ? 'last used ' + longDate(k.lastUsedAt) : 'never used');
        item.append(name, prefix, detail);
        list.append(item);
      }
    } catch (error) {
      $('keys-error').textContent =
        error instanceof ApiFailure ? error.message : 'Something went wrong while reading the keys.';
      $('keys-error').hidden = false;
    }
  }

  /**
   * The partner's alerts (at most 10) with their latest delivery and the failures among the last 10: billable calls, so
   * on demand only.
   */
  async function showAlerts(key) {
    const list = $('alerts');
    list.replaceChildren();
    $('alerts-error').hidden = true;
    try {
      const alerts = await get('/alerts?limit=10', key);
      if (alerts.length === 0) {
        const item = document.createElement('li');
        item.textContent = 'No alert yet: create one with POST /external/v1/alerts.';
        list.append(item);
      }
      for (const alert of alerts) {
        const deliveries = await get('/alerts/' + encodeURIComponent(alert.id) + '/deliveries?limit=10', key);
        const failed = deliveries.filter((d) => d.status === 'FAILED').length;
        const last = deliveries[0];
        const item = document.createElement('li');
        item.dataset.alert = alert.id;
        item.dataset.status = alert.status;
        item.dataset.failed = String(failed);
        const name = document.createElement('strong');
        name.textContent = alert.name;
        const badge = document.createElement('span');
        badge.className = 'badge ' + alert.status.toLowerCase();
        badge.textContent = alert.status;
        const detail = document.createElement('span');
        detail.className = 'detail';
        detail.textContent = last
          ? 'last delivery ' +
            last.status.toLowerCase() +
            ' (' +
            last.type +
            ', ' +
            longDate(last.createdAt) +
            ')' +
            (failed > 0 ? ' · ' + failed + ' failed of the last ' + deliveries.length : '')
          : 'no delivery yet';
        item.append(name, ' ', badge, detail);
        if (alert.disabledReason) {
          const why = document.createElement('span');
          why.className = 'detail';
          why.textContent = alert.disabledReason;
          item.append(why);
        }
        list.append(item);
      }
    } catch (error) {
      $('alerts-error').textContent =
        error instanceof ApiFailure ? error.message : 'Something went wrong while reading the alerts.';
      $('alerts-error').hidden = false;
    }
  }

  async function show(key, days) {
    $('error').hidden = true;
    $('loading').hidden = false;
    try {
      // The usage report first: it then counts every earlier call, and the limits call after it.
      const usage = await get('/subscription/usage?days=' + days, key);
      const limits = await get('/subscription/limits', key);
      renderSubscription(limits);
      renderKey(limits.key);
      renderGauge(usage.currentMonth);
      $('period').textContent = 'last ' + usage.statistics.period;
      $('total').textContent = number(usage.statistics.totalCalls);
      renderTop(usage.statistics.topEndpoints);
      $('report').hidden = false;
      renderChart(usage.statistics.daily); // once shown: it is drawn at its size on the page
    } catch (error) {
      showError(error instanceof ApiFailure ? error.message : 'Something went wrong while drawing the report.');
    } finally {
      $('loading').hidden = true;
      document.body.dataset.state = $('error').hidden ? 'ready' : 'error';
    }
  }

  $('key-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const key = $('key').value.trim();
    if (key === '') return;
    sessionStorage.setItem(KEY_STORE, key);
    show(key, $('days').value);
  });
  $('days').addEventListener('change', () => {
    const key = sessionStorage.getItem(KEY_STORE);
    if (key) show(key, $('days').value);
  });
  $('load-alerts').addEventListener('click', () => {
    const key = sessionStorage.getItem(KEY_STORE);
    if (key) showAlerts(key);
  });
  $('load-keys').addEventListener('click', () => {
    const key = sessionStorage.getItem(KEY_STORE);
    if (key) showKeys(key);
  });
  $('forget').addEventListener('click', () => {
    sessionStorage.removeItem(KEY_STORE);
    $('key').value = '';
    $('report').hidden = true;
    $('error').hidden = true;
  });
  // A phone turned, a window resized: the chart is drawn again at its new width.
  window.addEventListener('resize', () => {
    if (drawnDaily !== null && !$('report').hidden) renderChart(drawnDaily);
  });
  const kept = sessionStorage.getItem(KEY_STORE);
  if (kept) {
    $('key').value = kept;
    show(kept, $('days').value);
  }
})();
