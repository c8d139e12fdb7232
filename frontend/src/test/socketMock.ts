/**
 * A stand-in for socket.io-client in component tests (set up for every test in setup.ts): io()
 * records each socket it makes, and a test plays the server through the server* methods.
 */
import { vi } from 'vitest';

type Listener = (...args: unknown[]) => void;

export class FakeSocket {
  readonly url: string;
  readonly options: Record<string, unknown>;
  connected = false;
  /** As in socket.io-client: false once the client disconnected or the server refused. */
  active = true;
  private listeners = new Map<string, Set<Listener>>();

  constructor(url: string, options: Record<string, unknown>) {
    this.url = url;
    this.options = options;
  }

  on(event: string, listener: Listener): this {
    const set = this.listeners.get(event) ?? new Set<Listener>();
    set.add(listener);
    this.listeners.set(event, set);
    return this;
  }

  off(event: string, listener: Listener): this {
    this.listeners.get(event)?.delete(listener);
    return this;
  }

  removeAllListeners(): this {
    this.listeners.clear();
    return this;
  }

  connect = vi.fn((): this => {
    this.active = true;
    return this;
  });

  disconnect = vi.fn((): this => {
    const was = this.connected;
    this.connected = false;
    this.active = false;
    if (was) this.fire('disconnect', 'io client disconnect');
    return this;
  });

  /** How many listeners an event has (0 after the socket was cleaned up). */
  listenerCount(event: string): number {
    return this.listeners.get(event)?.size ?? 0;
  }

  private fire(event: string, ...args: unknown[]): void {
    for (const listener of [...(this.listeners.get(event) ?? [])]) listener(...args);
  }

  serverConnect(): void {
    this.connected = true;
    this.active = true;
    this.fire('connect');
  }

  serverEmit(event: string, payload: unknown): void {
    this.fire(event, payload);
  }

  /** The connection dropped (network): the manager would reconnect by itself. */
  serverDrop(reason = 'transport close'): void {
    this.connected = false;
    this.fire('disconnect', reason);
  }

  /** The server refused the connection (no valid session): no automatic reconnection. */
  serverRefuse(message = 'Session expired'): void {
    this.connected = false;
    this.active = false;
    this.fire('connect_error', new Error(message));
  }
}

/** Every socket io() made, oldest first; emptied after each test. */
export const sockets: FakeSocket[] = [];

export const io = vi.fn((url: string, options: Record<string, unknown> = {}) => {
  const socket = new FakeSocket(url, options);
  sockets.push(socket);
  return socket;
});

/** The newest socket, or a failure when none was made. */
export function lastSocket(): FakeSocket {
  const socket = sockets[sockets.length - 1];
  if (!socket) throw new Error('no socket was created');
  return socket;
}
