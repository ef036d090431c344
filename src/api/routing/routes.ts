import { handleCountTokens } from '../anthropic/handle-count-tokens.js';
import { handleMessages } from '../anthropic/handle-messages.js';
import { handleBlobExists } from '../ollama/blobs/handle-blob-exists.js';
import { handleBlobUpload } from '../ollama/blobs/handle-blob-upload.js';
import { handleChat } from '../ollama/generate/handle-chat.js';
import { handleCopy } from '../ollama/models/handle-copy.js';
import { handleCreate } from '../ollama/models/handle-create.js';
import { handleDelete } from '../ollama/models/handle-delete.js';
import { handleEmbed } from '../ollama/embed/handle-embed.js';
import { handleEmbeddings as handleOllamaEmbeddings } from '../ollama/embed/handle-embeddings.js';
import { handleEngineInfo } from '../ollama/handle-engine-info.js';
import { handleGenerate } from '../ollama/generate/handle-generate.js';
import { handlePs } from '../ollama/models/handle-ps.js';
import { handlePull } from '../ollama/models/handle-pull.js';
import { handleShow } from '../ollama/models/handle-show.js';
import { handleTags } from '../ollama/models/handle-tags.js';
import { handleVersion } from '../ollama/handle-version.js';
import { handleChatCompletions } from '../openai/chat/handle-chat-completions.js';
import { handleCompletions } from '../openai/chat/handle-completions.js';
import { handleEmbeddings } from '../openai/embed/handle-embeddings.js';
import { handleRerank } from '../openai/embed/handle-rerank.js';
import { handleSpeech } from '../openai/handle-speech.js';
import { handleRealtime } from '../realtime/handle-realtime.js';
import { handleTranscriptions } from '../openai/handle-transcriptions.js';
import { handleApplyTemplate, handleDetokenize, handleTokenize } from '../openai/handle-tokens.js';
import { handleProps } from '../openai/handle-props.js';
import { handleGetModel, handleListModels } from '../openai/handle-models.js';
import {
  handleDeleteResponse,
  handleGetResponse,
  handleResponses,
} from '../responses/handle-responses.js';
import type { RouteHandler } from '../pipeline/route-context.js';
import type { RouteRow } from './route-table.js';
import { routeTable, type RouteKey } from './route-table.js';

/** Each route's handler, by `METHOD /path`: a row of the route table without one does not compile. */
const handlers: Readonly<Record<RouteKey, RouteHandler>> = {
  'POST /v1/chat/completions': handleChatCompletions,
  'POST /v1/completions': handleCompletions,
  'GET /v1/models': handleListModels,
  'GET /v1/models/{id}': handleGetModel,
  'POST /v1/responses': handleResponses,
  'GET /v1/responses/{id}': handleGetResponse,
  'DELETE /v1/responses/{id}': handleDeleteResponse,
  'POST /v1/messages': handleMessages,
  'POST /v1/messages/count_tokens': handleCountTokens,
  'POST /api/generate': handleGenerate,
  'POST /api/chat': handleChat,
  'GET /api/tags': handleTags,
  'POST /api/show': handleShow,
  'DELETE /api/delete': handleDelete,
  'POST /api/pull': handlePull,
  'POST /api/create': handleCreate,
  'POST /api/copy': handleCopy,
  'HEAD /api/blobs/{id}': handleBlobExists,
  'POST /api/blobs/{id}': handleBlobUpload,
  'GET /api/ps': handlePs,
  'GET /api/version': handleVersion,
  'GET /api/lmtab/engine': handleEngineInfo,
  'POST /v1/embeddings': handleEmbeddings,
  'POST /v1/audio/transcriptions': handleTranscriptions,
  'POST /v1/audio/speech': handleSpeech,
  'POST /v1/realtime': handleRealtime,
  'POST /api/embed': handleEmbed,
  'POST /api/embeddings': handleOllamaEmbeddings,
  'POST /v1/rerank': handleRerank,
  'POST /v1/reranking': handleRerank,
  'POST /rerank': handleRerank,
  'POST /reranking': handleRerank,
  'POST /tokenize': handleTokenize,
  'POST /detokenize': handleDetokenize,
  'POST /apply-template': handleApplyTemplate,
  'GET /props': handleProps,
};

/**
 * Every route of the API with its handler: the rows of route-table.ts (one folder per protocol);
 * each protocol's error shapes are in protocol-errors.ts (paths it does not claim answer in
 * OpenAI's shapes).
 */
export const routes: readonly Route[] = routeTable.map((row) => ({
  ...row,
  // Each row's own method and path: a key of the handler table.
  handler: handlers[`${row.method} ${row.path}` as RouteKey],
}));

/** One entry of the route table, with its handler. */
export interface Route extends RouteRow {
  handler: RouteHandler;
}
