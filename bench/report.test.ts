import { describe, expect, it } from 'vitest';
import { replaceReadmeSection } from './report.js';

describe('replaceReadmeSection', () => {
  it('replaces what is between the markers and keeps the rest', () => {
    const readme = '# x\n<!-- bench:begin -->\nold\n<!-- bench:end -->\nafter\n';
    expect(replaceReadmeSection(readme, 'new table')).toBe(
      '# x\n<!-- bench:begin -->\n\nnew table\n\n<!-- bench:end -->\nafter\n',
    );
  });

  it('refuses a README without the markers', () => {
    expect(() => replaceReadmeSection('# x\n', 'table')).toThrow('bench:begin');
  });
});
