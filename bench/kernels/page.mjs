// Serves a kernel bench's files on a loopback port and opens them in Chromium (the V8 that runs
// lmtab's engine), for bench/kernels/run*.mjs.
import { createServer } from 'node:http';
import { chromium } from 'playwright-core';

/**
 * Serves `files` (path -> [content type, body]), opens `/` in a headless Chromium, runs `use` with
 * the page, and closes both.
 */
export async function withKernelPage(files, use) {
  const server = createServer((request, response) => {
    const [type, body] = files[request.url] ?? ['text/plain', 'not found'];
    response.writeHead(files[request.url] ? 200 : 404, { 'Content-Type': type }).end(body);
  }).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const browser = await chromium.launch({
    executablePath: process.env.LMTAB_BROWSER ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update'],
  });
  try {
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${server.address().port}/`);
    return await use(page);
  } finally {
    await browser.close();
    server.close();
  }
}
