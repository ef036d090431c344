import { pcm16, wavFile } from '../../../api/wire.js';

/**
 * The microphone's samples, collected by an AudioWorklet (its module from a `blob:` URL, which the
 * app's CSP allows) and handed to the page in blocks.
 */
const collectorSource = `
registerProcessor('lmtab-collector', class extends AudioWorkletProcessor {
  process(inputs) {
    const channel = inputs[0] && inputs[0][0];
    if (channel) this.port.postMessage(channel.slice());
    return true;
  }
});`;

/** The microphone open and feeding blocks of samples; `close()` releases it. */
interface OpenMicrophone {
  /** The samples' rate (the device's, or the one asked for: the browser resamples). */
  rate: number;
  close(): Promise<void>;
}

/**
 * Opens the microphone (the browser asks the person first) and hands its samples to `onBlock` as
 * the AudioWorklet collects them, at `rate` when one is given.
 */
async function openMicrophone(
  onBlock: (block: Float32Array) => void,
  rate?: number,
): Promise<OpenMicrophone> {
  if (navigator.mediaDevices === undefined) {
    throw new Error(
      'this page is not a secure context (https, or localhost), where browsers offer the microphone',
    );
  }
  const stream = await navigator.mediaDevices.getUserMedia({ audio: true });
  const context = new AudioContext(rate === undefined ? {} : { sampleRate: rate });
  let node: AudioWorkletNode;
  try {
    const url = URL.createObjectURL(new Blob([collectorSource], { type: 'text/javascript' }));
    try {
      await context.audioWorklet.addModule(url);
    } finally {
      URL.revokeObjectURL(url);
    }
    node = new AudioWorkletNode(context, 'lmtab-collector');
    node.port.onmessage = (event: MessageEvent<Float32Array>) => onBlock(event.data);
    context.createMediaStreamSource(stream).connect(node);
  } catch (error) {
    stream.getTracks().forEach((track) => track.stop());
    void context.close();
    throw error;
  }
  return {
    rate: context.sampleRate,
    close() {
      stream.getTracks().forEach((track) => track.stop());
      node.port.onmessage = null;
      return context.close();
    },
  };
}

/** A recording in progress: `stop()` ends it and gives the clip as a mono 16-bit WAV. */
export interface Recording {
  stop(): Promise<Uint8Array>;
  /** Ends it and drops what was recorded. */
  cancel(): void;
}

/** Starts recording from the microphone (the browser asks the person first). */
export async function recordAudio(): Promise<Recording> {
  const blocks: Float32Array[] = [];
  const microphone = await openMicrophone((block) => void blocks.push(block));
  return {
    async stop() {
      await microphone.close();
      const samples = new Float32Array(blocks.reduce((sum, block) => sum + block.length, 0));
      let at = 0;
      for (const block of blocks) {
        samples.set(block, at);
        at += block.length;
      }
      return wavFile(pcm16(samples), microphone.rate);
    },
    cancel() {
      void microphone.close();
    },
  };
}

/** A microphone stream in progress: `stop()` ends it. */
export interface MicrophoneStream {
  stop(): void;
}

/**
 * Streams the microphone as 16-bit samples at `rate` (the browser resamples), in blocks as the
 * AudioWorklet hands them over: a live voice conversation's input.
 */
export async function streamMicrophone(
  onSamples: (samples: Int16Array) => void,
  rate: number,
): Promise<MicrophoneStream> {
  const microphone = await openMicrophone(
    (block) => onSamples(new Int16Array(pcm16(block).buffer)),
    rate,
  );
  return { stop: () => void microphone.close() };
}
