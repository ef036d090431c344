import { describe, expect, it } from 'vitest';
import { buffersFromLog } from './engine-buffers.js';

describe('buffersFromLog', () => {
  it('sums llama.cpp’s buffer lines by kind, over backends', () => {
    const log = [
      'load_tensors:   CPU_Mapped model buffer size =  1200.50 MiB',
      'load_tensors:          CPU model buffer size =   290.73 MiB',
      'llama_context:        CPU  output buffer size =     0.25 MiB',
      'llama_kv_cache:        CPU KV buffer size =    34.00 MiB',
      'llama_memory_recurrent:        CPU RS buffer size =     0.62 MiB',
      'sched_reserve:        CPU compute buffer size =   136.01 MiB',
      'something else entirely',
    ];
    expect(buffersFromLog(log)).toEqual({ modelMiB: 1491.23, cacheMiB: 34.62, computeMiB: 136.26 });
  });

  it('says nothing when the log names no model buffer', () => {
    expect(buffersFromLog(['llama_kv_cache:        CPU KV buffer size =    34.00 MiB'])).toBe(
      undefined,
    );
  });
});
