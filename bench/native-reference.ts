import { spawn } from 'node:child_process';
import { nativeResultMarker, type NativeJob, type NativeResult } from './native-job.js';

/** Runs the native reference job in a child process (`childScript`, built next to the runner). */
export function runNative(childScript: string, job: NativeJob): Promise<NativeResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [childScript, JSON.stringify(job)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let errors = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    // llama.cpp logs every tensor to stderr: keep only the tail, for failures.
    child.stderr.on('data', (chunk: Buffer) => (errors = (errors + chunk.toString()).slice(-4000)));
    child.on('error', reject);
    child.on('close', (code) => {
      const line = out.split('\n').find((l) => l.startsWith(nativeResultMarker));
      if (code === 0 && line)
        resolve(JSON.parse(line.slice(nativeResultMarker.length)) as NativeResult);
      else reject(new Error(`native reference exited with ${code}: ${errors.slice(-1000)}`));
    });
  });
}
