import { memory64Supported, memoryNeed, modelFit } from '../../../engine/index.js';
import { LmtabError } from '../../../errors/index.js';
import { resolveHubModel } from '../../../store/index.js';
import type { ResolvedHubModel } from '../../../store/index.js';
import { jsonResponse } from '../../encoders/json-response.js';
import { readJsonBody } from '../../body/read-json-body.js';
import type { HubAccess, RouteContext } from '../../pipeline/route-context.js';
import { ndjsonResponse } from '../generate/ndjson-response.js';
import { pullFitStatus } from './pull-fit-status.js';
import { parsePullRequest } from './pull-request-schema.js';

/** One line of Ollama's pull progress. */
export interface PullProgress {
  status: string;
  digest?: string;
  total?: number;
  completed?: number;
}

/**
 * `POST /api/pull`: downloads `hf.co/ORG/REPO:QUANT` (or `ORG/REPO`, Q4_K_M or the nearest level)
 * from the hub into the store, with its vision projector, streaming Ollama's progress lines:
 * `pulling manifest`, how the model fits this device (a `CPU: ...` and a `GPU: ...` line, told
 * but never refused: a person may pull for another device), `pulling <digest>` with `total` and
 * `completed` per file, `verifying sha256 digest`, `writing manifest`, `success`. An unfinished
 * download resumes.
 */
export async function handlePull(context: RouteContext): Promise<Response> {
  const body = await readJsonBody(context.request, { maxBytes: context.maxBodyBytes });
  const request = parsePullRequest(body);
  const hub = context.hub;
  if (hub === undefined) {
    throw new LmtabError(
      'not_implemented',
      'Pulling models is not available on this host: expected an engine tab with hub access, got a router without one.',
    );
  }
  // Resolved before answering, so an unknown repository or level is a 404, not a stream line.
  const resolved = await resolveHubModel(hub.client(), request.model, { signal: context.signal });
  const lines = pullProgress(hub, resolved, context.signal);
  if (request.stream) return ndjsonResponse(lines, { onCancel: (reason) => context.abort(reason) });
  for await (const line of lines) {
    if (line.status === 'success') return jsonResponse(line);
  }
  throw new LmtabError('download_failed', `The pull of ${request.model} ended without success.`);
}

async function* pullProgress(
  hub: HubAccess,
  resolved: ResolvedHubModel,
  signal: AbortSignal,
): AsyncGenerator<PullProgress> {
  const { request } = resolved;
  const files = [...request.files, ...(request.projector ? [request.projector] : [])];
  const digestOf = (name: string): string => {
    const sha256 = files.find((file) => file.name === name)?.sha256;
    return sha256 === undefined ? name : `sha256:${sha256}`;
  };
  const line = (name: string, total: number, completed: number): PullProgress => {
    const digest = digestOf(name);
    const short = digest.startsWith('sha256:') ? digest.slice(7, 19) : name;
    return { status: `pulling ${short}`, digest, total, completed };
  };
  yield { status: 'pulling manifest' };
  const fit = modelFit(memoryNeed({ fileBytes: files.map((file) => file.size) }), {
    memory64: memory64Supported(),
  });
  for (const status of pullFitStatus(fit)) yield { status };
  for await (const event of hub.download(request, { signal })) {
    if (event.type === 'progress') {
      yield line(event.file, event.fileSize, event.fileBytes);
    } else if (event.type === 'verified') {
      const size = files.find((file) => file.name === event.file)?.size ?? 0;
      yield line(event.file, size, size);
    } else if (event.type === 'done') {
      yield { status: 'verifying sha256 digest' };
      yield { status: 'writing manifest' };
      yield { status: 'success' };
    }
  }
}
