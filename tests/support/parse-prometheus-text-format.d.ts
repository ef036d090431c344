// Types of the npm package `parse-prometheus-text-format` (it ships none): the families of a
// Prometheus text exposition, as it parses them.
declare module 'parse-prometheus-text-format' {
  interface Sample {
    labels?: Record<string, string>;
    value?: string;
    /** Histograms: cumulative counts by upper bound (`le`), the sum and the count. */
    buckets?: Record<string, string>;
    sum?: string;
    count?: string;
  }
  interface Family {
    name: string;
    help: string;
    type: 'GAUGE' | 'COUNTER' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
    metrics: Sample[];
  }
  export default function parsePrometheusTextFormat(text: string): Family[];
}
