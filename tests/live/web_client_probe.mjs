// The web app's live client library (socket.io-client, as frontend/src/app/live/LiveProvider.tsx
// sets it up: websocket only, reconnection with backoff) connected to a server: prints each event
// on a line of its own, for tests/live/test_example_client.py. Arguments: the frontend folder
// (where socket.io-client is installed), the server's address, a session token.
import { createRequire } from 'node:module';
import path from 'node:path';

const [frontend, url, token] = process.argv.slice(2);
const { io } = createRequire(path.join(frontend, 'package.json'))('socket.io-client');
const socket = io(url, {
  path: '/socket.io',
  transports: ['websocket'],
  auth: { token },
  reconnection: true,
  reconnectionDelay: 500,
  reconnectionDelayMax: 10000,
});
socket.on('connect', () => console.log('connect'));
socket.on('disconnect', (reason) => console.log(`disconnect ${reason}`));
socket.on('live:reconnect', () => console.log('live:reconnect'));
process.stdin.on('end', () => process.exit(0)); // the test ends: so does this
process.stdin.resume();
