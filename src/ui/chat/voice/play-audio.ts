/**
 * Plays 16-bit mono samples as they arrive, each block queued after the last, on one
 * AudioContext at the samples' rate; `stop()` silences what is queued (a new spoken turn cuts the
 * answer off, as a person would).
 */
export interface StreamPlayer {
  play(samples: Int16Array): void;
  stop(): void;
  close(): void;
}

/** A {@link StreamPlayer} at `rate`; the context starts on first use. */
export function createStreamPlayer(rate: number): StreamPlayer {
  let context: AudioContext | undefined;
  let nextStart = 0;
  const playing = new Set<AudioBufferSourceNode>();
  return {
    play(samples) {
      if (samples.length === 0) return;
      context ??= new AudioContext({ sampleRate: rate });
      const buffer = context.createBuffer(1, samples.length, rate);
      const channel = buffer.getChannelData(0);
      for (let i = 0; i < samples.length; i++) channel[i] = samples[i]! / 32768;
      const source = context.createBufferSource();
      source.buffer = buffer;
      source.connect(context.destination);
      nextStart = Math.max(nextStart, context.currentTime);
      source.start(nextStart);
      nextStart += buffer.duration;
      playing.add(source);
      source.onended = () => playing.delete(source);
    },
    stop() {
      for (const source of playing) source.stop();
      playing.clear();
      nextStart = 0;
    },
    close() {
      this.stop();
      void context?.close();
      context = undefined;
    },
  };
}
