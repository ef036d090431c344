import { z } from 'zod';
import { LmtabError } from '../../../errors/index.js';
import { GoTemplate, normalizeParameters } from '../../../modelfile/index.js';
import type { ModelCustomization } from '../../../modelfile/index.js';
import type { ModelParts, ModelRecord } from '../../../store/index.js';
import { findModel } from '../../pipeline/find-model.js';
import { jsonResponse } from '../../encoders/json-response.js';
import { parseWire } from '../../body/parse-wire.js';
import { readJsonBody } from '../../body/read-json-body.js';
import type { RouteContext } from '../../pipeline/route-context.js';
import { blobRecordId, parseBlobDigest } from '../../pipeline/blob-digest.js';
import { findBlob } from '../blobs/find-blob.js';
import { findProjector } from '../blobs/find-projector.js';
import { ndjsonResponse } from '../generate/ndjson-response.js';
import { newModelName } from './new-model-name.js';
import { pruneUploads } from '../blobs/prune-uploads.js';

/** `POST /api/create` body, Ollama's current shape (the old `modelfile` text is not read). */
const createRequestSchema = z.object({
  model: z.string().nullish(),
  /** Older clients send the name here. */
  name: z.string().nullish(),
  from: z.string().nullish(),
  files: z.record(z.string(), z.string()).nullish(),
  adapters: z.record(z.string(), z.string()).nullish(),
  template: z.string().nullish(),
  system: z.string().nullish(),
  license: z.union([z.string(), z.array(z.string())], { error: 'a string or strings' }).nullish(),
  parameters: z.record(z.string(), z.unknown()).nullish(),
  messages: z
    .array(z.object({ role: z.enum(['system', 'user', 'assistant']), content: z.string() }))
    .nullish(),
  quantize: z.string().nullish(),
  stream: z.boolean().nullish(),
});

type CreateWireRequest = z.output<typeof createRequestSchema>;

/** Where the new model's weights come from. */
type Base =
  | { kind: 'model'; record: ModelRecord }
  | {
      kind: 'file';
      /** A stored record holding the file (the upload, or any model with that digest). */
      record: ModelRecord;
      hex: string;
      /** The name `files` gives the file. */
      fileName: string;
      projector?: NamedProjector;
    };

/** A vision projector named in `files`, to attach to the new model. */
interface NamedProjector {
  hex: string;
  /** The model's projector as `ModelStore.compose` takes it: a file to store, or a model's to share. */
  part: NonNullable<ModelParts['projector']>;
}

/**
 * `POST /api/create`: a custom model from a stored one (`from`) or an uploaded file (`files`, or
 * `from: "sha256:HEX"`), with a TEMPLATE, SYSTEM, PARAMETERs, MESSAGE history and LICENSE. Settings
 * not given are inherited from a custom base model, as in Ollama. A model made from a file is
 * that file, the projector `files` names (or none) and the request's settings, whatever else
 * shares the file. Answers NDJSON status lines ending with `{"status":"success"}` (one JSON object
 * when `stream` is false).
 */
export async function handleCreate(context: RouteContext): Promise<Response> {
  const body = await readJsonBody(context.request, { maxBytes: context.maxBodyBytes });
  const wire = parseWire(createRequestSchema, body);
  try {
    return await createModel(context, wire);
  } catch (error) {
    // A failed create keeps none of the files uploaded for it: they never become models.
    await dropStagedUploads(context, wire);
    throw error;
  }
}

/** Deletes the uploaded files (`sha256-...` records, held projectors) that a failed create named. */
async function dropStagedUploads(context: RouteContext, wire: CreateWireRequest): Promise<void> {
  const digests = [...Object.values(wire.files ?? {}), wire.from ?? ''];
  for (const digest of digests) {
    if (!/^sha256[:-][0-9a-fA-F]{64}$/.test(digest.trim())) continue;
    const hex = parseBlobDigest(digest);
    context.projectorUploads.delete(hex);
    const staged = blobRecordId(hex);
    if ((await context.store.get(staged)) !== undefined) {
      await context.store.delete(staged).catch(() => undefined);
    }
  }
}

async function createModel(context: RouteContext, wire: CreateWireRequest): Promise<Response> {
  const rawName = wire.model ?? wire.name;
  if (rawName === undefined || rawName === null) {
    throw invalid(
      'Missing required field `model`: expected the name of the model to create.',
      'model',
    );
  }
  const name = newModelName(rawName, 'model');
  refuseUnsupported(wire);
  const { store } = context;
  await pruneUploads(store, { clock: context.clock, projectors: context.projectorUploads });
  const base = await findBase(context, wire);
  const customization = customize(wire, base);

  const statuses = [
    base.kind === 'file'
      ? `using model file sha256:${base.hex}`
      : `using base model ${base.record.id}`,
  ];
  if (base.kind === 'file') {
    const staged = blobRecordId(base.hex);
    const { projector } = base;
    // Only the file's weights come from the record holding them: its projector, settings and
    // source are that model's own.
    await store.compose(name, {
      weightsOf: base.record.id,
      fileName: base.fileName,
      ...(projector === undefined ? {} : { projector: projector.part }),
      ...(customization === undefined ? {} : { customization }),
      signal: context.signal,
    });
    if (projector !== undefined) {
      context.projectorUploads.delete(projector.hex);
      statuses.push(`using vision projector sha256:${projector.hex}`);
    }
    if ((await store.get(staged)) !== undefined) await store.delete(staged);
  } else {
    await store.createCustom(name, customization ?? emptyCustomization(base.record.id));
  }
  // A model resident under this name, or loading now, would otherwise keep answering with its old
  // files; the engine runs loads and unloads in arrival order, so this one follows such a load.
  await context.engine.unload(name);
  statuses.push(`writing model ${name}`, 'success');

  if (wire.stream === false) return jsonResponse({ status: 'success' });
  return ndjsonResponse(
    (async function* () {
      for (const status of statuses) {
        await Promise.resolve();
        yield { status };
      }
    })(),
    { onCancel: () => undefined },
  );
}

function refuseUnsupported(wire: CreateWireRequest): void {
  if (Object.keys(wire.adapters ?? {}).length > 0) {
    throw invalid(
      "Invalid `adapters`: lmtab cannot apply LoRA adapters; merge the adapter into the model first (llama.cpp's llama-export-lora) and create from the merged GGUF.",
      'adapters',
    );
  }
  if ((wire.quantize ?? '') !== '') {
    throw invalid(
      `Invalid \`quantize\`: lmtab cannot quantize models, received "${wire.quantize}"; pull the quantization you want instead (hf.co/ORG/REPO:Q4_K_M).`,
      'quantize',
    );
  }
}

async function findBase(context: RouteContext, wire: CreateWireRequest): Promise<Base> {
  const files = Object.entries(wire.files ?? {});
  const from = wire.from ?? '';
  if (from !== '' && files.length > 0) {
    throw invalid(
      'Expected either `from` (a model to build on) or `files` (an uploaded model file), received both.',
      'files',
    );
  }
  if (files.length > 0) return filesBase(context, files);
  if (from === '') {
    throw invalid(
      'Missing required field `from`: expected a model to build on (e.g. "hf.co/ORG/REPO:Q4_K_M"), or `files` naming an uploaded GGUF ({"model.gguf": "sha256:..."}).',
      'from',
    );
  }
  if (/^sha256[:-]/i.test(from)) return fileBase(context, parseBlobDigest(from, 'from'));
  return { kind: 'model', record: await findModel(context.store, from) };
}

/** One model file and at most one vision projector, each uploaded (or already stored). */
async function filesBase(context: RouteContext, files: [string, string][]): Promise<Base> {
  const tooMany = () =>
    invalid(
      `Invalid \`files\`: expected one GGUF model file and at most one vision projector, received ${files.length}: ${files.map(([f]) => f).join(', ')}.`,
      'files',
    );
  if (files.length > 2) throw tooMany();
  let model: { name: string; hex: string } | undefined;
  let projector: NamedProjector | undefined;
  for (const [name, digest] of files) {
    const hex = parseBlobDigest(digest, `files.${name}`);
    const found = (await findBlob(context.store, hex))
      ? undefined
      : await findProjector(context.store, context.projectorUploads, hex);
    if (found === undefined) {
      if (model !== undefined) throw tooMany();
      model = { name, hex };
    } else {
      if (projector !== undefined) throw tooMany();
      const part =
        found.kind === 'upload' ? { file: new File([found.blob], name) } : { of: found.holder };
      projector = { hex, part };
    }
  }
  if (model === undefined) {
    throw invalid(
      `Invalid \`files\`: ${files.map(([f]) => f).join(', ')} holds a vision projector but no model; expected the model's GGUF file too.`,
      'files',
    );
  }
  const base = await fileBase(context, model.hex, model.name);
  return base.kind === 'file' && projector !== undefined ? { ...base, projector } : base;
}

async function fileBase(
  context: RouteContext,
  hex: string,
  fileName = `${blobRecordId(hex)}.gguf`,
): Promise<Base> {
  const record = await findBlob(context.store, hex);
  if (record === undefined) {
    throw new LmtabError(
      'invalid_request',
      `No model file with digest sha256:${hex} is stored: upload it first with POST /api/blobs/sha256:${hex}.`,
      { param: 'files' },
    );
  }
  return { kind: 'file', record, hex, fileName };
}

/**
 * The new model's settings: the request's, over those of a custom base model (parameters merged
 * by name, the rest replaced when given). Undefined when the result customizes nothing.
 */
function customize(wire: CreateWireRequest, base: Base): ModelCustomization | undefined {
  if ((wire.template ?? '') !== '') {
    GoTemplate.parse(wire.template ?? '', { name: '`template`' });
  }
  const inherited = base.kind === 'model' ? base.record.customization : undefined;
  const messages = wire.messages ?? [];
  const license = Array.isArray(wire.license) ? wire.license.join('\n') : wire.license;
  // An empty template means none (the model's own chat template); an empty system is kept: it
  // clears the system prompt.
  const template = wire.template === '' ? undefined : (wire.template ?? inherited?.template);
  const system = wire.system ?? inherited?.system;
  const result: ModelCustomization = {
    // A file's model names the file, not whichever stored record happened to hold it.
    from: base.kind === 'file' ? blobRecordId(base.hex) : base.record.id,
    ...(template === undefined ? {} : { template }),
    ...(system === undefined ? {} : { system }),
    parameters: { ...inherited?.parameters, ...normalizeParameters(wire.parameters ?? {}) },
    messages: messages.length > 0 ? messages : (inherited?.messages ?? []),
    ...((license ?? inherited?.license) === undefined
      ? {}
      : { license: license ?? inherited?.license }),
  };
  const customizes =
    result.template !== undefined ||
    result.system !== undefined ||
    result.license !== undefined ||
    result.messages.length > 0 ||
    Object.keys(result.parameters).length > 0;
  return customizes || inherited !== undefined ? result : undefined;
}

function emptyCustomization(from: string): ModelCustomization {
  return { from, parameters: {}, messages: [] };
}

function invalid(message: string, param: string): LmtabError {
  return new LmtabError('invalid_request', message, { param });
}
