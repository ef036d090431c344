import { describe, expect, it } from 'vitest';
import { describeAdapter, isNvidiaAdapter } from './gpu-adapter.js';

describe('describeAdapter', () => {
  it('reports vendor, architecture, features, key limits and the power preference', () => {
    const report = describeAdapter({
      info: {
        vendor: 'nvidia',
        architecture: 'ada-lovelace',
        device: '',
        description: 'NVIDIA L4',
        isFallbackAdapter: false,
      },
      features: new Set(['timestamp-query', 'shader-f16', 'subgroups']),
      limits: {
        maxBufferSize: 4294967296,
        maxStorageBufferBindingSize: 2147483644,
        maxComputeWorkgroupStorageSize: 32768,
        maxTextureDimension2D: 16384,
      },
    });
    expect(report).toEqual({
      adapter: 'nvidia ada-lovelace NVIDIA L4',
      features: ['shader-f16', 'subgroups', 'timestamp-query'],
      vendor: 'nvidia',
      architecture: 'ada-lovelace',
      description: 'NVIDIA L4',
      isFallbackAdapter: false,
      limits: {
        maxBufferSize: 4294967296,
        maxStorageBufferBindingSize: 2147483644,
        maxComputeWorkgroupStorageSize: 32768,
      },
      powerPreference: 'high-performance',
    });
    expect(isNvidiaAdapter(report)).toBe(true);
  });

  it('names an adapter that tells nothing about itself', () => {
    expect(describeAdapter({})).toEqual({
      adapter: 'WebGPU adapter',
      features: [],
      powerPreference: 'high-performance',
    });
  });
});
