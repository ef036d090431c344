import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { renderDockerfile, renderDockerignore } from './dockerfile.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

describe('renderDockerfile', () => {
  it("is the repository's own Dockerfile for plain local serving", async () => {
    await expect(renderDockerfile({ from: 'source' })).toMatchFileSnapshot(`${root}Dockerfile`);
    await expect(renderDockerignore({ from: 'source' })).toMatchFileSnapshot(
      `${root}.dockerignore`,
    );
  });

  it.each(['source', 'prebuilt'] as const)(
    '%s: Node 20, Chromium, /data volume, serve by default',
    (from) => {
      const text = renderDockerfile({ from });
      expect(text).toMatch(/^FROM node:20-bookworm-slim$/m);
      expect(text).toMatch(/apt-get install .*\bchromium\b.*\blibvulkan1\b/);
      expect(text).toContain('LMTAB_HOME=/data');
      expect(text).toMatch(/^VOLUME \["\/data"\]$/m);
      expect(text).toMatch(/^USER node$/m);
      expect(text).toMatch(/^EXPOSE 1234 11434 8080$/m);
      expect(text.trimEnd().split('\n').at(-1)).toBe(
        'CMD ["serve", "--host", "0.0.0.0", "--port", "1234", "--headless", "--profile-dir", "/data/browser"]',
      );
    },
  );
});
