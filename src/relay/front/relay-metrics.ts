import type { EnginePoolStats } from '../exchange/engine-pool.js';
import type { RelayLogEntry } from '../exchange/forward-request.js';

/** Upper bounds (seconds) of the request-duration histogram's buckets. */
const durationBuckets = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
/** Upper bounds (seconds) of the first-byte histogram's buckets. */
const firstByteBuckets = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** One metric family in Prometheus' text format: its help, type and samples. */
interface Family {
  name: string;
  help: string;
  type: 'gauge' | 'counter' | 'histogram';
  samples: { suffix?: string; labels?: Record<string, string>; value: number }[];
}

const escapeLabel = (value: string) =>
  value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');

function formatFamily({ name, help, type, samples }: Family): string {
  const lines = [`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`];
  for (const { suffix = '', labels, value } of samples) {
    const pairs = Object.entries(labels ?? {}).map(([k, v]) => `${k}="${escapeLabel(v)}"`);
    lines.push(`${name}${suffix}${pairs.length > 0 ? `{${pairs.join(',')}}` : ''} ${value}`);
  }
  return lines.join('\n');
}

/** A Prometheus histogram of seconds: counts per bucket, their sum and count. */
class Histogram {
  private readonly counts: number[];
  private count = 0;
  private sum = 0;

  constructor(private readonly bounds: readonly number[]) {
    this.counts = bounds.map(() => 0);
  }

  observe(seconds: number): void {
    this.bounds.forEach((bound, index) => {
      if (seconds <= bound) this.counts[index]! += 1;
    });
    this.count += 1;
    this.sum += seconds;
  }

  samples(): Family['samples'] {
    return [
      ...this.bounds.map((bound, index) => ({
        suffix: '_bucket',
        labels: { le: String(bound) },
        value: this.counts[index]!,
      })),
      { suffix: '_bucket', labels: { le: '+Inf' }, value: this.count },
      { suffix: '_sum', value: this.sum },
      { suffix: '_count', value: this.count },
    ];
  }
}

/**
 * The relay's metrics for `GET /metrics`, in Prometheus' text format (0.0.4): its engine tabs and
 * their slots, the queue, and every API request it answered (by status, how long it took and how
 * long its first byte took, and the tokens the answers generated).
 * `lmtab_requests_waiting` and `lmtab_requests_running` are the Gateway API Inference Extension's
 * TotalQueuedRequests and TotalRunningRequests (gauges of the same meaning: an endpoint picker is
 * told their names). Counted since the relay started.
 */
export class RelayMetrics {
  private readonly requests = new Map<string, number>();
  private readonly durations = new Histogram(durationBuckets);
  private readonly firstBytes = new Histogram(firstByteBuckets);
  private generated = 0;
  private readonly engineEvents = { connected: 0, disconnected: 0, 'set-aside': 0, rejoined: 0 };

  /** Counts one answered API request (the request log's entry). */
  record(entry: RelayLogEntry): void {
    const status = entry.status === undefined ? 'none' : String(entry.status);
    this.requests.set(status, (this.requests.get(status) ?? 0) + 1);
    this.durations.observe(entry.durationMs / 1000);
    if (entry.firstByteMs !== undefined) this.firstBytes.observe(entry.firstByteMs / 1000);
    this.generated += entry.tokens ?? 0;
  }

  /**
   * Counts an engine tab that joined or left (a tab that reloads or crashes does both), or was set
   * aside while its page answered nothing and rejoined.
   */
  engineEvent(type: keyof RelayMetrics['engineEvents']): void {
    this.engineEvents[type] += 1;
  }

  /** The text of `GET /metrics` for the pool as it is now. */
  format(stats: EnginePoolStats): string {
    const engine = (index: number) => ({ engine: String(index) });
    const running = stats.engines.reduce((sum, e) => sum + e.active, 0);
    const families: Family[] = [
      {
        name: 'lmtab_engines',
        help: 'Engine tabs connected to the relay that take requests.',
        type: 'gauge',
        samples: [{ value: stats.engines.length }],
      },
      {
        name: 'lmtab_engines_aside',
        help: 'Engine tabs connected but set aside: their page answers nothing (frozen, suspended).',
        type: 'gauge',
        samples: [{ value: stats.aside }],
      },
      {
        name: 'lmtab_requests_waiting',
        help: 'Requests waiting for a free slot of an engine tab (TotalQueuedRequests).',
        type: 'gauge',
        samples: [{ value: stats.waiting }],
      },
      {
        name: 'lmtab_requests_running',
        help: 'Requests an engine tab is answering now (TotalRunningRequests).',
        type: 'gauge',
        samples: [{ value: running }],
      },
      {
        name: 'lmtab_queue_limit',
        help: 'Requests the queue holds at most before it answers 503.',
        type: 'gauge',
        samples: [{ value: stats.queueLimit }],
      },
      {
        name: 'lmtab_engine_slots',
        help: 'Parallel slots of each engine tab (its requests at once).',
        type: 'gauge',
        samples: stats.engines.map((e, i) => ({ labels: engine(i), value: e.capacity })),
      },
      {
        name: 'lmtab_engine_slots_in_use',
        help: 'Slots of each engine tab that are answering a request.',
        type: 'gauge',
        samples: stats.engines.map((e, i) => ({ labels: engine(i), value: e.active })),
      },
      {
        name: 'lmtab_engine_requests_total',
        help: 'Requests each connected engine tab has been given.',
        type: 'counter',
        samples: stats.engines.map((e, i) => ({ labels: engine(i), value: e.served })),
      },
      {
        name: 'lmtab_engine_events_total',
        help: 'Engine tabs that joined the relay and that left it (a reload or a crash does both), set aside while their page answered nothing (frozen), and rejoined.',
        type: 'counter',
        samples: Object.entries(this.engineEvents).map(([event, value]) => ({
          labels: { event },
          value,
        })),
      },
      {
        name: 'lmtab_requests_total',
        help: 'API requests the relay answered, by status ("none": the client went away first).',
        type: 'counter',
        samples: [...this.requests].map(([status, value]) => ({ labels: { status }, value })),
      },
      {
        name: 'lmtab_request_duration_seconds',
        help: 'Time from an API request to the end of its answer.',
        type: 'histogram',
        samples: this.durations.samples(),
      },
      {
        name: 'lmtab_time_to_first_byte_seconds',
        help: "Time from an API request to the first byte of its answer's body (a stream's first event).",
        type: 'histogram',
        samples: this.firstBytes.samples(),
      },
      {
        name: 'lmtab_generated_tokens_total',
        help: 'Tokens the answers generated, as their usage reported (else their text events).',
        type: 'counter',
        samples: [{ value: this.generated }],
      },
    ];
    return `${families.map(formatFamily).join('\n')}\n`;
  }
}
