import { describe, expect, it } from 'vitest';
import { formatDuration, formatProgressBar } from './format-progress-bar.js';
import { formatRelativeTime } from './format-relative-time.js';
import { formatSize } from './format-size.js';
import { formatTable } from './format-table.js';
import { createProgressDisplay } from './progress-display.js';

const now = Date.UTC(2026, 10, 21, 12);
const second = 1000;
const minute = 60 * second;
const hour = 60 * minute;
const day = 24 * hour;

describe('formatSize', () => {
  it.each([
    [0, '0 B'],
    [512, '512 B'],
    [1_500, '1.5 KB'],
    [229_000_000, '229 MB'],
    [2_000_000_000, '2 GB'],
    [4_661_224_676, '4.7 GB'],
    [35_000_000_000, '35 GB'],
  ])('%d bytes -> %s', (bytes, text) => expect(formatSize(bytes)).toBe(text));
});

describe('formatRelativeTime', () => {
  it.each([
    [now, 'Less than a second ago'],
    [now - 1 * second, '1 second ago'],
    [now - 45 * second, '45 seconds ago'],
    [now - 90 * second, 'About a minute ago'],
    [now - 2 * minute, '2 minutes ago'],
    [now - 59 * minute, '59 minutes ago'],
    [now - 70 * minute, 'About an hour ago'],
    [now - 5 * hour, '5 hours ago'],
    [now - 3 * day, '3 days ago'],
    [now - 15 * day, '2 weeks ago'],
    [now - 90 * day, '3 months ago'],
    [now - 800 * day, '2 years ago'],
    [now + 4 * minute + 30 * second, '4 minutes from now'],
    [now + 30 * 365 * day, 'Forever'],
  ])('%d -> %s', (at, text) => expect(formatRelativeTime(at, now)).toBe(text));
});

describe('formatTable', () => {
  it('pads columns by the widest cell plus four spaces, without trailing blanks', () => {
    expect(
      formatTable([
        ['NAME', 'ID', 'SIZE', 'MODIFIED'],
        ['tiny-chat', '4f1b6c3d9a2e', '1.1 MB', '2 minutes ago'],
        ['hf.co/LiquidAI/LFM2-350M-GGUF:Q4_K_M', 'a80c4f17acd5', '229 MB', '3 days ago'],
      ]),
    ).toMatchInlineSnapshot(`
      "NAME                                    ID              SIZE      MODIFIED
      tiny-chat                               4f1b6c3d9a2e    1.1 MB    2 minutes ago
      hf.co/LiquidAI/LFM2-350M-GGUF:Q4_K_M    a80c4f17acd5    229 MB    3 days ago
      "
    `);
  });

  it('indents rows and leaves a short last cell unpadded', () => {
    expect(
      formatTable(
        [
          ['architecture', 'lfm2'],
          ['quantization', ''],
        ],
        { indent: '    ' },
      ),
    ).toBe('    architecture    lfm2\n    quantization\n');
  });
});

describe('formatProgressBar', () => {
  it('draws a partial transfer with rate and time left', () => {
    expect(
      formatProgressBar({
        label: 'pulling 4f1b6c3d9a2e',
        completed: 104_000_000,
        total: 229_000_000,
        rate: 12_500_000,
        columns: 100,
      }),
    ).toBe(
      'pulling 4f1b6c3d9a2e:  45% ▕█████████████████                     ▏ 104 MB/229 MB  12 MB/s  10s',
    );
  });

  it('draws a finished one with the total only, and keeps a bar in narrow terminals', () => {
    expect(formatProgressBar({ label: 'copying file', completed: 5, total: 5, columns: 20 })).toBe(
      'copying file: 100% ▕██████████▏ 5 B',
    );
  });

  it('writes durations as Go does', () => {
    expect([formatDuration(9.6), formatDuration(112), formatDuration(7380)]).toEqual([
      '10s',
      '1m52s',
      '2h3m0s',
    ]);
  });
});

describe('createProgressDisplay', () => {
  it('redraws a bar in a terminal and ends its line before the next status', () => {
    let out = '';
    const display = createProgressDisplay({
      write: (t) => (out += t),
      isTTY: true,
      columns: 60,
      clock: () => 0,
    });
    display.update({ status: 'pulling manifest' });
    // How the model fits (handle-pull's lines): plain lines, each once.
    display.update({ status: "CPU: fits, needs about 0.4 GB of the engine's 4 GiB" });
    display.update({ status: 'GPU: needs about 0.2 GB of GPU memory' });
    display.update({ status: 'pulling abc', digest: 'sha256:abc', total: 10, completed: 5 });
    display.update({ status: 'pulling abc', digest: 'sha256:abc', total: 10, completed: 10 });
    display.update({ status: 'success' });
    display.finish();
    expect(out.split(/\r|\n/).filter((l) => l !== '')).toEqual([
      'pulling manifest',
      "CPU: fits, needs about 0.4 GB of the engine's 4 GiB",
      'GPU: needs about 0.2 GB of GPU memory',
      `pulling abc:  50% ▕${'█'.repeat(5)}${' '.repeat(5)}▏ 5 B/10 B\u001b[K`,
      `pulling abc: 100% ▕${'█'.repeat(10)}▏ 10 B\u001b[K`,
      'success',
    ]);
  });

  it('prints only the start and end of a transfer without a terminal', () => {
    let out = '';
    const display = createProgressDisplay({ write: (t) => (out += t), isTTY: false, columns: 40 });
    for (const completed of [0, 3, 6, 10]) {
      display.update({ status: 'copying file', total: 10, completed });
    }
    display.finish();
    expect(out.trimEnd().split('\n')).toHaveLength(2);
    expect(out).toContain('copying file: 100%');
  });
});
