/**
 * The message of a failed API response: OpenAI's `{error: {message}}`, Ollama's `{error: "..."}`,
 * or the status when the body says nothing.
 */
export async function readApiError(response: Response): Promise<string> {
  const body = (await response.json().catch(() => undefined)) as
    { error?: string | { message?: string } } | undefined;
  const error = body?.error;
  const message = typeof error === 'string' ? error : error?.message;
  return message ?? `The API answered ${response.status} ${response.statusText}`.trim() + '.';
}
