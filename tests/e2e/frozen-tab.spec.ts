import { expect, test, type Browser } from '@playwright/test';
import { readdirSync, readFileSync } from 'node:fs';
import type { Relay } from '../../src/relay/index.js';
import { testPorts } from '../support/test-ports.js';
import { openTab } from './support/app.js';
import { openEngineTab, startRelay, type EngineTab } from './support/relay.js';
import { openAiClient } from './support/relay-clients.js';

// An engine tab whose page is frozen, as the relay sees one: its renderer stopped with SIGSTOP (its
// sockets stay open, and the browser's network process still answers the WebSocket's own pings,
// but the page and its engine run nothing). The relay's heartbeat to the page sets it aside within
// seconds, the other tab serves every request meanwhile, and SIGCONT brings it back.
test.describe.configure({ mode: 'serial' });

const model = 'tiny-lfm2';
/** A switch Chromium ignores, so that this browser's processes can be told from the others. */
const marker = '--lmtab-test-frozen-tab';
let relay: Relay;
let frozenBrowser: Browser;
const tabs: EngineTab[] = [];

test.beforeAll(async ({ playwright, launchOptions }) => {
  relay = await startRelay(testPorts.relayFrozen);
  frozenBrowser = await playwright.chromium.launch({
    ...launchOptions,
    args: [...(launchOptions.args ?? []), marker],
  });
});

test.afterAll(async () => {
  signalRenderers('SIGCONT');
  for (const tab of tabs.splice(0)) await tab.context.close().catch(() => undefined);
  await frozenBrowser?.close();
  await relay?.close();
});

/** The renderer processes of the browser launched with {@link marker} (its pages and workers). */
function renderersOfFrozenBrowser(): number[] {
  const parents = new Map<number, number>();
  const commands = new Map<number, string>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
      commands.set(Number(entry), readFileSync(`/proc/${entry}/cmdline`, 'utf8'));
    } catch {
      // A process that ended meanwhile.
    }
  }
  const root = [...commands].find(([, command]) => command.includes(marker))?.[0];
  if (root === undefined) throw new Error(`no process was launched with ${marker}`);
  const descends = (pid: number): boolean => {
    for (let at = parents.get(pid); at !== undefined && at > 1; at = parents.get(at)) {
      if (at === root) return true;
    }
    return false;
  };
  return [...commands]
    .filter(([pid, command]) => command.includes('--type=renderer') && descends(pid))
    .map(([pid]) => pid);
}

function signalRenderers(signal: 'SIGSTOP' | 'SIGCONT'): number {
  if (frozenBrowser === undefined) return 0;
  const pids = renderersOfFrozenBrowser();
  for (const pid of pids) process.kill(pid, signal);
  return pids.length;
}

test('an engine tab whose renderer is stopped is set aside within seconds, the other tab serves, and it rejoins when it runs again', async ({
  browser,
}) => {
  test.setTimeout(180_000);
  const frozen = await openEngineTab(frozenBrowser, relay, [{ file: `${model}.gguf` }]);
  tabs.push(frozen);
  tabs.push(await openEngineTab(browser, relay, [{ file: `${model}.gguf` }]));
  expect(relay.stats().engines).toHaveLength(2);
  const openai = openAiClient(relay);
  const ask = () =>
    openai.chat.completions.create({
      model,
      messages: [{ role: 'user', content: 'Hi' }],
      max_tokens: 4,
    });
  // Both tabs hold the model before one stops.
  await Promise.all([ask(), ask(), ask(), ask()]);

  expect(signalRenderers('SIGSTOP')).toBeGreaterThan(0);
  const stoppedAt = Date.now();
  await expect.poll(() => relay.stats().engines.length, { timeout: 20_000 }).toBe(1);
  const asideAfter = Date.now() - stoppedAt;
  // The relay's bound is 5 s without an answer, checked each second.
  expect(asideAfter).toBeLessThan(12_000);
  // Every request now goes to the tab that runs: none waits for the stopped one.
  const answers = await Promise.all([ask(), ask(), ask(), ask(), ask(), ask()]);
  for (const answer of answers) expect(answer.choices[0].finish_reason).toBe('length');

  signalRenderers('SIGCONT');
  await expect.poll(() => relay.stats().engines.length, { timeout: 20_000 }).toBe(2);
  // The tab that was stopped says so, and serves again.
  await openTab(frozen.page, 'Developer');
  await expect(frozen.page.getByTestId('server-detail')).toContainText(
    "the relay set this tab's engine aside",
  );
  await Promise.all([ask(), ask(), ask(), ask()]);
  expect(relay.stats().engines.every((engine) => engine.served > 0)).toBe(true);
});
