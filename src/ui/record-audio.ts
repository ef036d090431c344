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
