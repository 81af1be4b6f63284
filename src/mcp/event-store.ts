/**
 * A bounded in-memory event store for one streamable-HTTP session (the SDK's `EventStore`):
 * what makes SSE streams resumable (SEP-1699). Every message sent on a session's SSE streams
 * is kept under an event id; a client that lost its stream (or that the server let go, see
 * `pollAfterMs` in `server.ts`) reconnects with `Last-Event-ID` and receives what it missed on
 * that stream. At most {@link MAX_SESSION_EVENTS} events are kept per session (the oldest go
 * first), so an abandoned session holds bounded memory until it expires.
 *
 * @module
 */
import type { EventStore, JSONRPCMessage } from '@modelcontextprotocol/server';

/** Events kept per session at most. */
const MAX_SESSION_EVENTS = 1000;

/** Events of one session, in the order they were sent. */
export class BoundedEventStore implements EventStore {
  private next = 0;
  /** Event id to stream and message; a Map keeps insertion order, so the first key is the oldest. */
  private readonly events = new Map<string, { stream: string; message: JSONRPCMessage }>();

  constructor(private readonly limit = MAX_SESSION_EVENTS) {}

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const id = `${streamId}_${++this.next}`;
    this.events.set(id, { stream: streamId, message });
    while (this.events.size > this.limit) this.events.delete(this.events.keys().next().value!);
    return id;
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return this.events.get(eventId)?.stream;
  }

  async replayEventsAfter(lastEventId: string, { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> }): Promise<string> {
    const last = this.events.get(lastEventId);
    if (last === undefined) return '';
    let after = false;
    for (const [id, event] of [...this.events]) {
      if (id === lastEventId) {
        after = true;
        continue;
      }
      // Priming events hold no message (an empty object): nothing to send again.
      if (after && event.stream === last.stream && Object.keys(event.message).length > 0) await send(id, event.message);
    }
    return last.stream;
  }
}
