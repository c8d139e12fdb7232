// Socket.IO clients for bench/live_bench.py, in their own `node` process: the web app's client
// library (socket.io-client from frontend/node_modules) with the web app's options
// (frontend/src/app/live/LiveProvider.tsx: websocket transport, `auth: {token}`), one Manager
// per connection as one per browser tab.
//
// Commands arrive on stdin and answers leave on stdout, one JSON object a line:
//   {"cmd": "connect", "url": URL, "tokens": [...], "limit": seconds, "batch": n, "retry": bool}
//     -> {"type": "connected", "ok": n, "failed": n, "firstMs": t, "lastMs": t, "errors": {...},
//         "retried": n}
//     (retry: a connection that fails is tried again as the web app's are, reconnection with
//     its delays and jitter, within the limit; retried: the clients that needed it)
//   {"cmd": "report"}  -> {"type": "report", "arrivals": {name: [t, ...]}, "events": n, "open": n}
//     (arrivals: of `file:uploaded`; events: every event received, file:indexed too, since
//     the last report)
//   {"cmd": "close"}   -> {"type": "closed"}, then the process exits
// Times are wall-clock milliseconds (performance.timeOrigin + performance.now()).
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { io } = createRequire(path.join(repo, 'frontend', 'package.json'))('socket.io-client');

const now = () => performance.timeOrigin + performance.now();
const say = (message) => process.stdout.write(JSON.stringify(message) + '\n');
const sockets = [];
let arrivals = {};
let events = 0;

// frontend/src/app/live/LiveProvider.tsx's RECONNECT_DELAY_MS, RECONNECT_DELAY_MAX_MS, jitter.
const RETRY = { reconnection: true, reconnectionDelay: 500, reconnectionDelayMax: 10_000, randomizationFactor: 0.5 };

function connectOne(url, token, limitMs, retry) {
  return new Promise((resolve) => {
    const socket = io(url, {
      path: '/socket.io',
      transports: ['websocket'],
      auth: { token },
      reconnection: false,
      ...(retry ? RETRY : {}),
      forceNew: true,
      timeout: limitMs,
    });
    let failures = 0;
    sockets.push(socket);
    socket.onAny(() => {
      events += 1;
    });
    socket.on('file:uploaded', (data) => {
      const at = now();
      const name = data && typeof data.name === 'string' ? data.name : '';
      (arrivals[name] ??= []).push(at);
    });
    const timer = setTimeout(() => {
      socket.io.reconnection(false);
      resolve({ error: 'time limit', failures });
    }, limitMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      resolve({ at: now(), failures });
    });
    socket.on('connect_error', (error) => {
      failures += 1;
      if (retry && socket.active) return; // the manager tries again after its delay
      clearTimeout(timer);
      resolve({ error: String(error && error.message ? error.message : error), failures });
    });
  });
}

// A browser tab sends its websocket's upgrade request as soon as its TCP connection is made.
// This process holds thousands of tabs: creating them all in one go (about 0.35 ms each here)
// would hold every upgrade request back until the last is created, and then send them all at
// once (1,700 connections the server had accepted became readable together, 2.5 s into a
// 5,000 storm). So it lets its event loop run after each `batch` created (0: all in one go).
async function connectAll({ url, tokens, limit, batch, retry }) {
  const pending = [];
  for (const [n, token] of tokens.entries()) {
    pending.push(connectOne(url, token, limit * 1000, Boolean(retry)));
    if (batch > 0 && n % batch === batch - 1) await new Promise((next) => setImmediate(next));
  }
  const results = await Promise.all(pending);
  const times = results.filter((r) => r.at !== undefined).map((r) => r.at);
  const errors = {};
  for (const r of results) if (r.error !== undefined) errors[r.error] = (errors[r.error] ?? 0) + 1;
  say({
    type: 'connected',
    ok: times.length,
    failed: results.length - times.length,
    firstMs: times.length ? Math.min(...times) : 0,
    lastMs: times.length ? Math.max(...times) : 0,
    errors,
    retried: results.filter((r) => r.failures > 0).length,
  });
}

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const command = JSON.parse(line);
  if (command.cmd === 'connect') {
    void connectAll(command);
  } else if (command.cmd === 'report') {
    say({ type: 'report', arrivals, events, open: sockets.filter((s) => s.connected).length });
    arrivals = {};
    events = 0;
  } else if (command.cmd === 'close') {
    for (const socket of sockets) socket.disconnect();
    say({ type: 'closed' });
    setTimeout(() => process.exit(0), 200);
  }
});
lines.on('close', () => process.exit(0));
