import type { LmtabError } from '../../errors/index.js';
import { anthropicErrorResponse, anthropicStreamError } from '../anthropic/anthropic-error.js';
import { formatNdjsonLine } from '../encoders/ndjson-encoder.js';
import { ollamaErrorResponse, ollamaStreamError } from '../ollama/ollama-error.js';
import { openAiErrorBody, openAiErrorResponse } from '../openai/openai-error.js';
import { formatSseEvent } from '../encoders/sse-encoder.js';

/** How one protocol answers errors, for the paths it owns. */
export interface ProtocolErrors {
  /** Whether a path is answered in this protocol's shapes. */
  owns(pathname: string): boolean;
  /** The JSON error answer, with the error's status. */
  response(error: LmtabError): Response;
  /** The last text of this protocol's stream when it fails after its head was sent. */
  streamTail(error: LmtabError): string;
}

const under = (prefix: string) => (pathname: string) =>
  pathname === prefix || pathname.startsWith(`${prefix}/`);

/**
 * Each protocol's error shapes, beside the route table (kept apart from it so that the transports,
 * which import this, do not pull in every handler). The first protocol that owns a path answers;
 * OpenAI's shapes answer everything else under `/v1` and unknown paths.
 */
export const protocolErrors: readonly ProtocolErrors[] = [
  {
    owns: under('/api'),
    response: ollamaErrorResponse,
    streamTail: (error) => formatNdjsonLine(ollamaStreamError(error)),
  },
  {
    owns: under('/v1/messages'),
    response: anthropicErrorResponse,
    streamTail: anthropicStreamError,
  },
  {
    owns: () => true,
    response: openAiErrorResponse,
    streamTail: (error) => formatSseEvent(openAiErrorBody(error)),
  },
];

/** The error shapes of the protocol that owns a path. */
export function errorsForPath(pathname: string): ProtocolErrors {
  // The last entry owns every path, so this always finds one.
  return protocolErrors.find((protocol) => protocol.owns(pathname)) ?? protocolErrors.at(-1)!;
}
