import { pcm16, wavFile } from '../api/wire.js';

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

/** A recording in progress: `stop()` ends it and gives the clip as a mono 16-bit WAV. */
export interface Recording {
  stop(): Promise<Uint8Array>;
  /** Ends it and drops what was recorded. */
  cancel(): void;
}

/** Starts recording from the microphone (the browser asks the person first). */
export async function recordAudio(): Promise<Recording> {
  if (navigator.mediaDevices === undefined) {
    throw new Error(
      'this page is not a secure context (https, or localhost), where browsers offer the microphone',
    );
  }
  const stream = await navigator.mediaDevices.getUserMedia({ audio: true });
  const context = new AudioContext();
  const blocks: Float32Array[] = [];
  let node: AudioWorkletNode;
  try {
    const url = URL.createObjectURL(new Blob([collectorSource], { type: 'text/javascript' }));
    try {
      await context.audioWorklet.addModule(url);
    } finally {
      URL.revokeObjectURL(url);
    }
    node = new AudioWorkletNode(context, 'lmtab-collector');
    node.port.onmessage = (event: MessageEvent<Float32Array>) => void blocks.push(event.data);
    context.createMediaStreamSource(stream).connect(node);
  } catch (error) {
    stream.getTracks().forEach((track) => track.stop());
    void context.close();
    throw error;
  }
  const end = () => {
    stream.getTracks().forEach((track) => track.stop());
    node.port.onmessage = null;
    return context.close();
  };
  return {
    async stop() {
      const rate = context.sampleRate;
      await end();
      const samples = new Float32Array(blocks.reduce((sum, block) => sum + block.length, 0));
      let at = 0;
      for (const block of blocks) {
        samples.set(block, at);
        at += block.length;
      }
      return wavFile(pcm16(samples), rate);
    },
    cancel() {
      void end();
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
  if (navigator.mediaDevices === undefined) {
    throw new Error(
      'this page is not a secure context (https, or localhost), where browsers offer the microphone',
    );
  }
  const stream = await navigator.mediaDevices.getUserMedia({ audio: true });
  const context = new AudioContext({ sampleRate: rate });
  let node: AudioWorkletNode;
  try {
    const url = URL.createObjectURL(new Blob([collectorSource], { type: 'text/javascript' }));
    try {
      await context.audioWorklet.addModule(url);
    } finally {
      URL.revokeObjectURL(url);
    }
    node = new AudioWorkletNode(context, 'lmtab-collector');
    node.port.onmessage = (event: MessageEvent<Float32Array>) => {
      const block = event.data;
      const samples = new Int16Array(block.length);
      for (let i = 0; i < block.length; i++) {
        samples[i] = Math.round(Math.max(-1, Math.min(1, block[i]!)) * 32767);
      }
      onSamples(samples);
    };
    context.createMediaStreamSource(stream).connect(node);
  } catch (error) {
    stream.getTracks().forEach((track) => track.stop());
    void context.close();
    throw error;
  }
  return {
    stop() {
      stream.getTracks().forEach((track) => track.stop());
      node.port.onmessage = null;
      void context.close();
    },
  };
}
