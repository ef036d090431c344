import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { performancePage, replaceDocSection } from './report.js';

describe('replaceDocSection', () => {
  it('replaces what is between the markers and keeps the rest', () => {
    const page = '# x\n<!-- bench:begin -->\nold\n<!-- bench:end -->\nafter\n';
    expect(replaceDocSection(page, 'new table')).toBe(
      '# x\n<!-- bench:begin -->\n\nnew table\n\n<!-- bench:end -->\nafter\n',
    );
  });

  it('refuses a page without the markers', () => {
    expect(() => replaceDocSection('# x\n', 'table')).toThrow('bench:begin');
  });

  it('finds the CPU and GPU sections in the performance page', () => {
    const page = readFileSync(new URL(`../${performancePage}`, import.meta.url), 'utf8');
    expect(replaceDocSection(page, 'cpu')).toContain('\n\ncpu\n\n<!-- bench:end -->');
    expect(replaceDocSection(page, 'gpu', 'bench-gpu')).toContain(
      '\n\ngpu\n\n<!-- bench-gpu:end -->',
    );
  });
});
