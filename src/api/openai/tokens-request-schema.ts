import { z } from 'zod';
import { unknownFieldsError } from '../body/unknown-fields-error.js';
import { chatCompletionRequestSchema } from './chat/chat-completion-request-schema.js';

const tokenId = z.int({ error: 'a token id (an integer from 0)' }).min(0);

/**
 * `POST /tokenize`: llama-server's shape. `content` is a text, or llama-server's mixed form
 * (texts and token ids in order). `model` is lmtab's addition (llama-server has one model); without
 * it the loaded chat model answers. Strict: a field lmtab does not know is refused, not dropped.
 */
export const tokenizeRequestSchema = z.strictObject(
  {
    model: z.string().nullish(),
    content: z.union([z.string(), z.array(z.union([z.string(), tokenId]))], {
      error: 'a string, or an array of strings and token ids',
    }),
    add_special: z.boolean().nullish(),
    parse_special: z.boolean().nullish(),
    with_pieces: z.boolean().nullish(),
  },
  {
    error: unknownFieldsError(['model', 'content', 'add_special', 'parse_special', 'with_pieces']),
  },
);

/** `POST /detokenize`: llama-server's shape, with lmtab's optional `model`. */
export const detokenizeRequestSchema = z.strictObject(
  {
    model: z.string().nullish(),
    tokens: z.array(tokenId, { error: 'an array of token ids' }),
  },
  { error: unknownFieldsError(['model', 'tokens']) },
);

/**
 * `POST /apply-template`: a chat completion request (llama-server takes the same body), whose
 * `model` may be left out; its fields are read as `/v1/chat/completions` reads them.
 */
export const applyTemplateRequestSchema = chatCompletionRequestSchema.extend({
  model: z.string().nullish(),
});

export type TokenizeWireRequest = z.output<typeof tokenizeRequestSchema>;
export type DetokenizeWireRequest = z.output<typeof detokenizeRequestSchema>;
