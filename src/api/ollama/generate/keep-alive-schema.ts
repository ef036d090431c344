import { z } from 'zod';

/** `keep_alive`: a duration string (`"5m"`, `"0"`) or a number of seconds. */
export const keepAliveSchema = z
  .union([z.string(), z.number()], { error: 'a duration such as "5m", or a number of seconds' })
  .nullish();

/** Whether a `keep_alive` asks to unload the model now (`0`, `"0"`, `"0s"`, ...). */
export function isUnloadNow(keepAlive: string | number | null | undefined): boolean {
  if (typeof keepAlive === 'number') return keepAlive === 0;
  return typeof keepAlive === 'string' && /^0+(\.0*)?(ns|us|µs|ms|s|m|h)?$/.test(keepAlive.trim());
}
