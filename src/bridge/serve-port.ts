import type { ClientFrame, RequestFrame } from './frames.js';
import { serveFrame, type FrameHandler } from './serve-frames.js';

/**
 * Answers request frames arriving on `port` (from the service worker or a tab) with `handler`.
 * Each request carries its own reply port, which also delivers the client's `abort`.
 */
export function servePort(port: MessagePort, handler: FrameHandler, origin: string): void {
  port.onmessage = (event: MessageEvent<RequestFrame>) => {
    const frame = event.data;
    const reply = event.ports[0];
    if (frame?.type !== 'request' || !reply) return;
    const controller = new AbortController();
    reply.onmessage = (message: MessageEvent<ClientFrame>) => {
      if (message.data?.type === 'abort') controller.abort();
    };
    void serveFrame(frame, handler, (response) => reply.postMessage(response), {
      origin,
      signal: controller.signal,
    });
  };
}
