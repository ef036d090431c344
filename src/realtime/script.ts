// The script-tag form of lmtab's Realtime client (built to `/lmtab-realtime.js`):
//   <script type="module" src="/lmtab-realtime.js"></script>
// makes `new WebSocket('/v1/realtime?model=NAME')` on this origin (OpenAI's Realtime API, as its
// SDK's `OpenAIRealtimeWebSocket` opens it) a session with the lmtab engine of this origin, through
// the app's service worker; every other WebSocket is the browser's own. It also puts the socket
// class on `window.LmtabRealtimeSocket`.
import { installRealtimeWebSocket, LmtabRealtimeSocket } from './realtime-socket.js';

installRealtimeWebSocket();
(globalThis as { LmtabRealtimeSocket?: typeof LmtabRealtimeSocket }).LmtabRealtimeSocket =
  LmtabRealtimeSocket;
document.documentElement.dataset.lmtabRealtime = 'installed';
