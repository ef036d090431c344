import { describe, expect, it } from 'vitest';
import { cleanModelCard } from './clean-model-card.js';

describe('cleanModelCard', () => {
  it('drops front matter, comments and tags, keeping the text', () => {
    const card = [
      '---',
      'license: other',
      'tags:',
      '  - liquid',
      '---',
      '<!-- banner -->',
      '<div align="center"><img src="logo.png" alt="Liquid AI" width="200"/></div>',
      '',
      '# LFM2-350M',
      '',
      'A <b>small</b> model.<br>Second line.',
      '<script>alert(1)</script>',
    ].join('\n');
    expect(cleanModelCard(card)).toBe('Liquid AI\n\n# LFM2-350M\n\nA small model.\nSecond line.');
  });

  it('leaves a plain card alone', () => {
    expect(cleanModelCard('# Title\n\nText with `<code>`.')).toBe('# Title\n\nText with `<code>`.');
  });
});
