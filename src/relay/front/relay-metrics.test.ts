import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterEach, describe, expect, it } from 'vitest';
import { testPorts } from '../../../tests/support/test-ports.js';
import { createRelay, type Relay, type RelayOptions } from '../create-relay.js';
import { connectRouterEngine, type RouterEngine } from '../testing/router-engine.js';

// `GET /metrics` of a real relay with the real router behind the real bridge, read back with a
// Prometheus text-format parser from the npm registry.
const secret = 'b'.repeat(64);
let relay: Relay | undefined;
let engine: RouterEngine | undefined;

afterEach(async () => {
  engine?.close();
  await relay?.close();
  relay = engine = undefined;
});

async function start(options: Partial<RelayOptions> = {}) {
  relay = await createRelay({
    appDir: '/nonexistent',
    port: testPorts.relayMetrics,
    version: 'test',
    engineSecret: secret,
    ...options,
  });
  return relay;
}

async function scrape(relay: Relay, headers: Record<string, string> = {}) {
  const response = await fetch(`${relay.url}/metrics`, { headers });
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    text: await response.text(),
  };
}

/** The families by name, each sample's value by its labels (`engine=0`, `status=200`, ...). */
function families(text: string) {
  const byName = new Map(parsePrometheusTextFormat(text).map((family) => [family.name, family]));
  const value = (name: string, labels: Record<string, string> = {}) => {
    const family = byName.get(name);
    const sample = family?.metrics.find((m) =>
      Object.entries(labels).every(([key, wanted]) => m.labels?.[key] === wanted),
    );
    return sample?.value === undefined ? undefined : Number(sample.value);
  };
  return { byName, value };
}

describe('GET /metrics', () => {
  it('counts engine tabs, their slots, the queue and every answered request, in Prometheus text', async () => {
    const relay = await start();
    engine = await connectRouterEngine(relay, secret);
    expect((await fetch(`${relay.url}/v1/models`)).status).toBe(200);
    const refused = await fetch(`${relay.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"model":',
    });
    expect(refused.status).toBe(400);

    const scraped = await scrape(relay);
    expect(scraped.status).toBe(200);
    expect(scraped.type).toBe('text/plain; version=0.0.4; charset=utf-8');
    const { byName, value } = families(scraped.text);
    expect(value('lmtab_engines')).toBe(1);
    expect(value('lmtab_engine_slots', { engine: '0' })).toBe(relay.stats().engines[0]!.capacity);
    expect(value('lmtab_engine_slots_in_use', { engine: '0' })).toBe(0);
    expect(value('lmtab_engine_requests_total', { engine: '0' })).toBe(2);
    expect(value('lmtab_requests_waiting')).toBe(0);
    expect(value('lmtab_requests_running')).toBe(0);
    expect(value('lmtab_requests_total', { status: '200' })).toBe(1);
    expect(value('lmtab_requests_total', { status: '400' })).toBe(1);
    const durations = byName.get('lmtab_request_duration_seconds');
    expect(durations?.type).toBe('HISTOGRAM');
    expect(durations?.metrics[0]?.count).toBe('2');
    expect(durations?.metrics[0]?.buckets?.['300']).toBe('2');
    for (const family of byName.values()) expect(family.help.length).toBeGreaterThan(10);
    // Both answers had a body: each has a first byte, and neither generated a token.
    expect(byName.get('lmtab_time_to_first_byte_seconds')?.metrics[0]?.count).toBe('2');
    expect(value('lmtab_generated_tokens_total')).toBe(0);

    // The tab goes away and comes back (a reload): counted both ways.
    engine.close();
    await expect.poll(() => relay.stats().engines.length).toBe(0);
    engine = await connectRouterEngine(relay, secret);
    const after = families((await scrape(relay)).text);
    expect(after.value('lmtab_engine_events_total', { event: 'connected' })).toBe(2);
    expect(after.value('lmtab_engine_events_total', { event: 'disconnected' })).toBe(1);
    expect(after.value('lmtab_engines')).toBe(1);
  });

  it('counts the tokens answers generated, streamed or whole, as their usage says', async () => {
    const relay = await start();
    engine = await connectRouterEngine(relay, secret);
    const ask = (stream: boolean) =>
      fetch(`${relay.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          model: 'lfm2-350m',
          messages: [{ role: 'user', content: 'Hi' }],
          stream,
          ...(stream ? { stream_options: { include_usage: true } } : {}),
        }),
      });
    const whole = await ask(false);
    expect(whole.status).toBe(200);
    const wholeTokens = ((await whole.json()) as { usage: { completion_tokens: number } }).usage
      .completion_tokens;
    const streamed = await ask(true);
    expect(streamed.headers.get('content-type')).toContain('text/event-stream');
    const events = (await streamed.text())
      .split('\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => JSON.parse(line.slice(6)) as { usage?: { completion_tokens: number } });
    const streamedTokens = events.find((event) => event.usage)?.usage?.completion_tokens;
    expect(wholeTokens).toBeGreaterThan(0);
    expect(streamedTokens).toBeGreaterThan(0);

    // The relay logs a request once its answer has ended; the scrape may come a moment before.
    await expect
      .poll(async () => families((await scrape(relay)).text).value('lmtab_generated_tokens_total'))
      .toBe(wholeTokens + streamedTokens!);
    const { byName } = families((await scrape(relay)).text);
    const firstBytes = byName.get('lmtab_time_to_first_byte_seconds');
    expect(firstBytes?.type).toBe('HISTOGRAM');
    expect(firstBytes?.metrics[0]?.count).toBe('2');
  });

  it('is under the API key rules, and answers only GET', async () => {
    const relay = await start({ clientKeys: { keys: ['k'.repeat(32)], required: 'everyone' } });
    const refused = await scrape(relay);
    expect(refused.status).toBe(401);
    expect(refused.text).toContain('This relay needs an API key');
    const allowed = await scrape(relay, { Authorization: `Bearer ${'k'.repeat(32)}` });
    expect(allowed.status).toBe(200);
    expect(families(allowed.text).value('lmtab_engines')).toBe(0);
    const posted = await fetch(`${relay.url}/metrics`, { method: 'POST' });
    expect(posted.status).toBe(405);
  });
});
