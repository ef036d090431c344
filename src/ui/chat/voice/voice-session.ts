import {
  decodePcm16Base64,
  encodeBase64,
  encodePcm16,
  realtimeRate,
  wavFile,
} from '../../../api/wire.js';
import { LmtabRealtimeSocket } from '../../../realtime/index.js';
import { createStreamPlayer } from './play-audio.js';
import { streamMicrophone, type MicrophoneStream } from './record-audio.js';

/** What a voice conversation tells the Chat tab as it goes. */
export interface VoiceSessionEvents {
  /** The session is open and the microphone is live. */
  onListening(): void;
  /** A spoken turn was detected and committed: its audio as a WAV `data:` URI. */
  onTurn(itemId: string, wav: string): void;
  /** The model's transcript of a turn. */
  onTranscript(itemId: string, text: string): void;
  /** An answer began. */
  onAnswerStart(responseId: string): void;
  /** A piece of an answer's text (for a model that speaks, the transcript of its speech). */
  onAnswerText(responseId: string, delta: string): void;
  /** A spoken answer's whole audio, as a WAV `data:` URI (it has played as it came). */
  onAnswerAudio(responseId: string, wav: string): void;
  /** An answer ended (`completed`, `incomplete`, `cancelled` or `failed`). */
  onAnswerDone(responseId: string, status: string): void;
  /** A failure, in words; the session may go on. */
  onError(message: string): void;
  /** The session ended (closed here, or by the engine). */
  onClosed(): void;
}

/** Options of {@link startVoiceSession}. */
export interface VoiceSessionOptions {
  model: string;
  /** The system prompt. */
  instructions: string;
  /** Earlier text turns, given to the session as its conversation. */
  history: { role: 'user' | 'assistant'; text: string }[];
  /** Most tokens per answer; the model's limit when absent. */
  maxTokens?: number;
}

/** A voice conversation in progress. */
export interface VoiceSession {
  stop(): void;
}

/** Server events the session reads, loosely typed as they arrive. */
type ServerEvent = { type: string } & Record<string, unknown>;

/**
 * A spoken conversation with a model that hears, held over lmtab's Realtime session in the page
 * (no network): the microphone streams to `input_audio_buffer.append`, the engine detects turns by
 * loudness (server VAD), writes each turn down and answers it; the Chat tab shows each turn (its
 * audio and transcript) and each answer as it streams. A model that speaks answers aloud: its
 * audio plays as it comes (a new turn cuts it off) and is kept with the answer.
 */
export function startVoiceSession(
  options: VoiceSessionOptions,
  events: VoiceSessionEvents,
): VoiceSession {
  const socket = new LmtabRealtimeSocket(
    `/v1/realtime?model=${encodeURIComponent(options.model)}`,
    'realtime',
  );
  let microphone: MicrophoneStream | undefined;
  let stopped = false;
  /** The samples sent since the session began, to cut each turn's clip from. */
  const heard: Int16Array[] = [];
  let heardSamples = 0;
  let turnStartMs = 0;
  let turnEndMs = 0;
  const player = createStreamPlayer(realtimeRate);
  /** Each spoken answer's samples so far, by response. */
  const spoken = new Map<string, Int16Array[]>();
  const send = (event: Record<string, unknown>) => {
    if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(event));
  };
  const clip = (fromMs: number, toMs: number): string => {
    const from = Math.max(0, Math.round((fromMs * realtimeRate) / 1000));
    const to = Math.min(heardSamples, Math.round((toMs * realtimeRate) / 1000));
    const samples = new Int16Array(Math.max(0, to - from));
    let at = 0;
    for (const block of heard) {
      const start = Math.max(from - at, 0);
      const end = Math.min(to - at, block.length);
      if (end > start) samples.set(block.subarray(start, end), at + start - from);
      at += block.length;
    }
    return wavDataUri(samples);
  };
  const stop = () => {
    if (stopped) return;
    stopped = true;
    microphone?.stop();
    player.close();
    socket.close();
  };

  socket.addEventListener('message', (message) => {
    const event = JSON.parse((message as MessageEvent<string>).data) as ServerEvent;
    switch (event.type) {
      case 'session.created':
        send({
          type: 'session.update',
          session: {
            type: 'realtime',
            instructions: options.instructions,
            ...(options.maxTokens === undefined ? {} : { max_output_tokens: options.maxTokens }),
            audio: {
              input: {
                transcription: { model: options.model },
                turn_detection: { type: 'server_vad' },
              },
            },
          },
        });
        for (const turn of options.history) {
          send({
            type: 'conversation.item.create',
            item: {
              type: 'message',
              role: turn.role,
              content: [
                { type: turn.role === 'user' ? 'input_text' : 'output_text', text: turn.text },
              ],
            },
          });
        }
        void streamMicrophone((samples) => {
          if (stopped) return;
          heard.push(samples);
          heardSamples += samples.length;
          send({ type: 'input_audio_buffer.append', audio: encodePcm16(samples) });
        }, realtimeRate).then(
          (stream) => {
            microphone = stream;
            if (stopped) stream.stop();
            else events.onListening();
          },
          (error: unknown) => {
            events.onError(
              `The microphone could not be opened: ${error instanceof Error ? error.message : String(error)}.`,
            );
            stop();
          },
        );
        break;
      case 'input_audio_buffer.speech_started':
        turnStartMs = Number(event.audio_start_ms);
        player.stop();
        break;
      case 'input_audio_buffer.speech_stopped':
        turnEndMs = Number(event.audio_end_ms);
        break;
      case 'input_audio_buffer.committed':
        events.onTurn(String(event.item_id), clip(turnStartMs, turnEndMs));
        break;
      case 'conversation.item.input_audio_transcription.completed':
        events.onTranscript(String(event.item_id), String(event.transcript));
        break;
      case 'response.created':
        events.onAnswerStart(String((event.response as { id: string }).id));
        break;
      case 'response.output_text.delta':
      case 'response.output_audio_transcript.delta':
        events.onAnswerText(String(event.response_id), String(event.delta));
        break;
      case 'response.output_audio.delta': {
        const samples = decodePcm16Base64(String(event.delta));
        const id = String(event.response_id);
        const blocks = spoken.get(id) ?? [];
        blocks.push(samples);
        spoken.set(id, blocks);
        player.play(samples);
        break;
      }
      case 'response.output_audio.done': {
        const id = String(event.response_id);
        const blocks = spoken.get(id) ?? [];
        spoken.delete(id);
        const samples = new Int16Array(blocks.reduce((n, b) => n + b.length, 0));
        let at = 0;
        for (const block of blocks) {
          samples.set(block, at);
          at += block.length;
        }
        events.onAnswerAudio(id, wavDataUri(samples));
        break;
      }
      case 'response.done': {
        const response = event.response as { id: string; status: string };
        events.onAnswerDone(response.id, response.status);
        break;
      }
      case 'error':
        events.onError(String((event.error as { message: string }).message));
        break;
    }
  });
  socket.addEventListener('close', () => {
    stop();
    events.onClosed();
  });
  return { stop };
}

/** 16-bit samples at the Realtime rate as a WAV `data:` URI. */
function wavDataUri(samples: Int16Array): string {
  return `data:audio/wav;base64,${encodeBase64(wavFile(new Uint8Array(samples.buffer), realtimeRate))}`;
}
