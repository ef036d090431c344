import { handleCountTokens } from './anthropic/handle-count-tokens.js';
import { handleMessages } from './anthropic/handle-messages.js';
import { handleBlobExists } from './ollama/handle-blob-exists.js';
import { handleBlobUpload } from './ollama/handle-blob-upload.js';
import { handleChat } from './ollama/handle-chat.js';
import { handleCopy } from './ollama/handle-copy.js';
import { handleCreate } from './ollama/handle-create.js';
import { handleDelete } from './ollama/handle-delete.js';
import { handleEmbed } from './ollama/handle-embed.js';
import { handleEmbeddings as handleOllamaEmbeddings } from './ollama/handle-embeddings.js';
import { handleEngineInfo } from './ollama/handle-engine-info.js';
import { handleGenerate } from './ollama/handle-generate.js';
import { handlePs } from './ollama/handle-ps.js';
import { handlePull } from './ollama/handle-pull.js';
import { handleShow } from './ollama/handle-show.js';
import { handleTags } from './ollama/handle-tags.js';
import { handleVersion } from './ollama/handle-version.js';
import { handleChatCompletions } from './openai/handle-chat-completions.js';
import { handleCompletions } from './openai/handle-completions.js';
import { handleEmbeddings } from './openai/handle-embeddings.js';
import { handleGetModel, handleListModels } from './openai/handle-models.js';
import {
  handleDeleteResponse,
  handleGetResponse,
  handleResponses,
} from './responses/handle-responses.js';
import type { Route } from './route-context.js';

/**
 * Every route of the API, one folder per protocol; each protocol's error shapes are in
 * protocol-errors.ts (paths it does not claim answer in OpenAI's shapes).
 */
export const routes: readonly Route[] = [
  { method: 'POST', path: '/v1/chat/completions', handler: handleChatCompletions },
  { method: 'POST', path: '/v1/completions', handler: handleCompletions },
  { method: 'GET', path: '/v1/models', handler: handleListModels },
  { method: 'GET', path: '/v1/models/{id}', handler: handleGetModel },
  { method: 'POST', path: '/v1/responses', handler: handleResponses },
  { method: 'GET', path: '/v1/responses/{id}', handler: handleGetResponse },
  { method: 'DELETE', path: '/v1/responses/{id}', handler: handleDeleteResponse },
  { method: 'POST', path: '/v1/messages', handler: handleMessages },
  { method: 'POST', path: '/v1/messages/count_tokens', handler: handleCountTokens },
  { method: 'POST', path: '/api/generate', handler: handleGenerate },
  { method: 'POST', path: '/api/chat', handler: handleChat },
  { method: 'GET', path: '/api/tags', handler: handleTags },
  { method: 'POST', path: '/api/show', handler: handleShow },
  { method: 'DELETE', path: '/api/delete', handler: handleDelete },
  { method: 'POST', path: '/api/pull', handler: handlePull },
  { method: 'POST', path: '/api/create', handler: handleCreate },
  { method: 'POST', path: '/api/copy', handler: handleCopy },
  { method: 'HEAD', path: '/api/blobs/{id}', handler: handleBlobExists },
  { method: 'POST', path: '/api/blobs/{id}', handler: handleBlobUpload },
  { method: 'GET', path: '/api/ps', handler: handlePs },
  { method: 'GET', path: '/api/version', handler: handleVersion },
  { method: 'GET', path: '/api/lmtab/engine', handler: handleEngineInfo },
  { method: 'POST', path: '/v1/embeddings', handler: handleEmbeddings },
  { method: 'POST', path: '/api/embed', handler: handleEmbed },
  { method: 'POST', path: '/api/embeddings', handler: handleOllamaEmbeddings },
];
