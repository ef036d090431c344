import { LmtabError } from '../../errors/index.js';
import { quote } from './describe-value.js';
import { readLimited } from './read-json-body.js';

/**
 * Reads a `multipart/form-data` body (OpenAI's audio uploads), refusing it (413) past `maxBytes`
 * as JSON bodies are, and (400) when it is another type or its parts do not parse.
 */
export async function readFormBody(request: Request, maxBytes: number): Promise<FormData> {
  const type = request.headers.get('content-type') ?? '';
  if (!/^multipart\/form-data\s*;/i.test(type)) {
    throw new LmtabError(
      'invalid_request',
      `Expected a multipart/form-data body (a \`file\` part and text fields, as OpenAI's SDKs send), received ${type === '' ? 'no Content-Type' : `Content-Type ${quote(type)}`}.`,
    );
  }
  const bytes = await readLimited(request, maxBytes);
  try {
    return await new Response(bytes as BodyInit, { headers: { 'Content-Type': type } }).formData();
  } catch (error) {
    throw new LmtabError(
      'invalid_request',
      `Malformed multipart/form-data body: expected parts separated by the boundary its Content-Type names, received ${bytes.length} bytes that do not parse as such.`,
      { cause: error },
    );
  }
}

/** A text field of a form: absent, or its one value (a file, or a repeated field, is a 400). */
export function formText(form: FormData, name: string): string | undefined {
  const values = form.getAll(name);
  if (values.length === 0) return undefined;
  const [value] = values;
  if (values.length > 1 || typeof value !== 'string') {
    throw new LmtabError(
      'invalid_request',
      `Invalid \`${name}\`: expected one text field, received ${values.length > 1 ? `${values.length} of them` : 'a file'}.`,
      { param: name },
    );
  }
  return value;
}
