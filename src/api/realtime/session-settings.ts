/**
 * A Realtime session's settings: their defaults, `session.update` checked and applied, the session
 * as its events describe it, and the check of tools and a tool choice (a session's or one
 * response's).
 */
import { LmtabError } from '../../errors/index.js';
import { assertToolSchemas } from '../tools/assert-tool-schemas.js';
import { realtimeRate } from './realtime-audio.js';
import type {
  RealtimeFunctionTool,
  RealtimeToolChoice,
  ServerVad,
  SessionUpdate,
  TranscriptionConfig,
} from './realtime-events.js';

/** The session's settings, as `session.created` and `session.updated` show them. */
export interface SessionState {
  instructions: string;
  outputModalities: ['text'] | ['audio'];
  maxOutputTokens: number | 'inf';
  tools: RealtimeFunctionTool[];
  toolChoice: RealtimeToolChoice;
  turnDetection: (Required<Omit<ServerVad, 'idle_timeout_ms'>> & { idle_timeout_ms: null }) | null;
  transcription: TranscriptionConfig;
  voice: string | { id: string } | undefined;
}

/** OpenAI's default server VAD. */
const defaultVad = {
  type: 'server_vad' as const,
  threshold: 0.5,
  prefix_padding_ms: 300,
  silence_duration_ms: 500,
  create_response: true,
  interrupt_response: true,
  idle_timeout_ms: null,
};

/** A new session's settings: OpenAI's defaults, and audio out for a model that speaks. */
export function initialSessionState(speaks: boolean): SessionState {
  return {
    instructions: '',
    outputModalities: speaks ? ['audio'] : ['text'],
    maxOutputTokens: 'inf',
    tools: [],
    toolChoice: 'auto',
    turnDetection: { ...defaultVad },
    transcription: null,
    voice: undefined,
  };
}

/**
 * Applies a `session.update` to `state`, after checking it against the session (its model, and
 * whether that model speaks); a refused update changes nothing.
 */
export function applySessionUpdate(
  state: SessionState,
  update: SessionUpdate,
  session: { model: string; speaks: boolean },
): void {
  if (update.model !== undefined && update.model !== session.model) {
    throw new LmtabError(
      'invalid_request',
      `session.model: a session keeps the model it was opened with ("${session.model}"), received "${update.model}"; open another session for another model.`,
      { param: 'session.model' },
    );
  }
  if (update.output_modalities?.[0] === 'audio' && !session.speaks) {
    throw new LmtabError(
      'invalid_request',
      `session.output_modalities: "${session.model}" cannot speak (its projector has no audio generator); expected ["text"], received ["audio"].`,
      { param: 'session.output_modalities' },
    );
  }
  if (update.tools !== undefined || update.tool_choice !== undefined) {
    checkTools(update.tools ?? state.tools, update.tool_choice ?? state.toolChoice, 'session');
  }
  if (update.instructions !== undefined) state.instructions = update.instructions;
  if (update.output_modalities !== undefined) {
    state.outputModalities = update.output_modalities as SessionState['outputModalities'];
  }
  if (update.max_output_tokens !== undefined) state.maxOutputTokens = update.max_output_tokens;
  if (update.tools !== undefined) state.tools = update.tools;
  if (update.tool_choice !== undefined) state.toolChoice = update.tool_choice;
  const input = update.audio?.input;
  if (input?.turn_detection !== undefined) {
    state.turnDetection =
      input.turn_detection === null
        ? null
        : { ...defaultVad, ...input.turn_detection, idle_timeout_ms: null };
  }
  if (input?.transcription !== undefined) state.transcription = input.transcription;
  const voice = update.audio?.output?.voice;
  if (voice !== undefined) state.voice = voice;
}

/** The session as `session.created` and `session.updated` show it. */
export function describeSession(
  id: string,
  model: string,
  state: SessionState,
): Record<string, unknown> {
  const format = { type: 'audio/pcm', rate: realtimeRate };
  return {
    type: 'realtime',
    object: 'realtime.session',
    id,
    model,
    output_modalities: state.outputModalities,
    instructions: state.instructions,
    tools: state.tools,
    tool_choice: state.toolChoice,
    max_output_tokens: state.maxOutputTokens,
    tracing: null,
    truncation: 'auto',
    prompt: null,
    expires_at: 0,
    audio: {
      input: {
        format,
        transcription: state.transcription,
        noise_reduction: null,
        turn_detection: state.turnDetection,
      },
      output: { format, voice: state.voice ?? null, speed: 1 },
    },
    include: null,
  };
}

/** Refuses tools whose schemas the engine cannot enforce when forced, and choices of no tool. */
export function checkTools(
  tools: readonly RealtimeFunctionTool[],
  choice: RealtimeToolChoice,
  where: string,
): void {
  const names = tools.map((tool) => tool.name);
  if (choice === 'required' && names.length === 0) {
    throw new LmtabError(
      'invalid_request',
      `${where}.tool_choice: "required" needs at least one tool in tools, received none.`,
      {
        param: `${where}.tool_choice`,
      },
    );
  }
  if (typeof choice === 'object' && !names.includes(choice.name)) {
    throw new LmtabError(
      'invalid_request',
      `${where}.tool_choice.name: expected one of the tools (${names.map((n) => JSON.stringify(n)).join(', ') || 'none given'}), received ${JSON.stringify(choice.name)}.`,
      { param: `${where}.tool_choice.name` },
    );
  }
  assertToolSchemas(
    tools.map((tool, i) => ({
      name: tool.name,
      schema: tool.parameters,
      param: `${where}.tools[${i}].parameters`,
    })),
    typeof choice === 'object' ? { name: choice.name } : choice,
  );
}
