// Runs the OpenAI Agents SDK from its own pinned install (AGENTS_SDK_DIR) against lmtab: each
// model class (Responses, Chat Completions), streamed and not, with one tool the agent must call
// first. Prints one JSON line per run: the tool's calls, the requests' item types, the final output.
// Usage: AGENTS_SDK_DIR=... LMTAB_BASE_URL=http://127.0.0.1:PORT/v1 LMTAB_MODEL=NAME node agents-sdk-run.mjs
import { createRequire } from 'node:module';
import { join } from 'node:path';

// The SDK's own install, not lmtab's: its openai and zod are the pinned ones.
const fromSdk = createRequire(join(process.env.AGENTS_SDK_DIR, 'package.json'));
const agents = fromSdk('@openai/agents');
const { default: OpenAI } = fromSdk('openai');
const { z } = fromSdk('zod');

async function main() {
  // Offline: no traces are exported to OpenAI.
  agents.setTracingDisabled(true);
  const client = new OpenAI({
    baseURL: process.env.LMTAB_BASE_URL,
    apiKey: 'lmtab',
    maxRetries: 0,
  });
  const model = process.env.LMTAB_MODEL;
  const classes = {
    responses: agents.OpenAIResponsesModel,
    chat: agents.OpenAIChatCompletionsModel,
  };
  for (const [name, ModelClass] of Object.entries(classes)) {
    for (const stream of [false, true]) {
      const calls = [];
      const weather = agents.tool({
        name: 'get_weather',
        description: 'The weather in a city',
        parameters: z.object({ city: z.enum(['Paris', 'Oslo', 'Lima']) }),
        execute: async ({ city }) => {
          calls.push(city);
          return `Sunny in ${city}`;
        },
      });
      const agent = new agents.Agent({
        name: 'Forecaster',
        instructions: 'Answer with the weather tool.',
        tools: [weather],
        model: new ModelClass(client, model),
        // The first turn must call the tool; the SDK resets the choice to auto afterwards.
        modelSettings: { toolChoice: 'get_weather', maxTokens: 200, temperature: 0 },
      });
      const input = 'What is the weather in Paris?';
      const events = [];
      let result;
      if (stream) {
        result = await agents.run(agent, input, { stream: true, maxTurns: 4 });
        for await (const event of result) events.push(event.type);
        await result.completed;
      } else {
        result = await agents.run(agent, input, { maxTurns: 4 });
      }
      const items = result.newItems.map((item) => item.type);
      process.stdout.write(
        JSON.stringify({
          model: name,
          stream,
          calls,
          items,
          events: [...new Set(events)],
          finalOutput: result.finalOutput ?? null,
        }) + '\n',
      );
    }
  }
}

main().catch((error) => {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exit(1);
});
