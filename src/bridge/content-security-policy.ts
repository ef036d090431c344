/**
 * The app's Content-Security-Policy, sent with everything the relay and the service worker serve.
 * Scripts come only from the app's own files and the blob URLs its own code makes (wllama starts
 * its worker from one, and emscripten's threads `importScripts` it): no inline script, no eval,
 * while WebAssembly may compile. Nothing may frame the app, embed plugins or rebase its URLs. Fetches, images and sockets stay open to any http(s)
 * origin: the hub endpoint, image URLs and MLC model hosts are the user's to choose.
 */
export const contentSecurityPolicy = [
  "default-src 'self'",
  "script-src 'self' blob: 'wasm-unsafe-eval'",
  "worker-src 'self' blob:",
  // Lit's styles and the page's own <style>: style injection cannot run code.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob: http: https:",
  "font-src 'self' data:",
  // The Chat tab plays attached audio clips back (data: URIs).
  "media-src 'self' data: blob:",
  "connect-src 'self' http: https: ws: wss: data: blob:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');
