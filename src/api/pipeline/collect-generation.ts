import type { GenerateEvent, SampledLogprob, ToolCall } from '../../engine/index.js';
import { missingDone } from './start-generation.js';

/** The whole output of a generation, for answers that are not streamed. */
export interface CollectedGeneration {
  text: string;
  /** Thinking text, kept apart from `text`; empty when the model did not think. */
  reasoning: string;
  /** Calls the model made, arguments joined; empty when it made none. */
  toolCalls: ToolCall[];
  /** Per-token log probabilities, when they were asked for. */
  logprobs?: SampledLogprob[];
  done: Extract<GenerateEvent, { type: 'done' }>;
}

/** Reads a generation to its end, joining the token texts, reasoning and tool-call pieces. */
export async function collectGeneration(
  events: AsyncIterable<GenerateEvent>,
): Promise<CollectedGeneration> {
  let text = '';
  let reasoning = '';
  const calls: ToolCall[] = [];
  let logprobs: SampledLogprob[] | undefined;
  for await (const event of events) {
    switch (event.type) {
      case 'token':
        text += event.text;
        if (event.logprobs !== undefined) (logprobs ??= []).push(...event.logprobs);
        break;
      case 'reasoning':
        reasoning += event.text;
        break;
      case 'tool_call': {
        const call = (calls[event.index] ??= { id: '', name: '', arguments: '' });
        if (event.id !== undefined) call.id = event.id;
        if (event.name !== undefined) call.name = event.name;
        call.arguments += event.argumentsDelta;
        break;
      }
      case 'done':
        return {
          text,
          reasoning,
          toolCalls: calls.filter((call) => call !== undefined),
          ...(logprobs === undefined ? {} : { logprobs }),
          done: event,
        };
    }
  }
  throw missingDone();
}
