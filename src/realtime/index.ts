export { connectEngine } from './connect-engine.js';
export type { EngineConnection } from './connect-engine.js';
export {
  installRealtimeWebSocket,
  isLocalRealtimeUrl,
  LmtabRealtimeSocket,
  realtimePath,
} from './realtime-socket.js';
