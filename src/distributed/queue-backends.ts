/**
 * The queue backends (`queue-backend.ts`), and opening the one a `--queue` URL names. A new
 * kind of server is one file set and one entry of {@link QUEUE_BACKENDS}.
 *
 * @module
 */
import { ToolgateOptionError } from '../errors/errors.js';
import { redactUrl } from '../ledger/postgres/database.js';
import { postgresQueue } from './postgres-queue.js';
import type { QueueBackend, QueueBackendKind } from './queue-backend.js';
import { redisQueue } from './redis-queue.js';

/** Every kind of queue server, by the URL protocols it serves. */
const QUEUE_BACKENDS: readonly QueueBackendKind[] = [redisQueue, postgresQueue];

/** The URL forms `--queue` takes, for messages (`redis://HOST:PORT or postgres://...`). */
const QUEUE_URL_FORMS = QUEUE_BACKENDS.map((kind) => kind.example).join(' or ');

/**
 * Open the queue backend `url` names.
 * @param option - the option named in errors. Default `queue`.
 * @throws ToolgateOptionError when the URL is not one of a known kind; what the backend's `open` throws.
 */
export async function openQueueBackend(url: string, option = 'queue'): Promise<QueueBackend> {
  let protocol: string;
  try {
    protocol = new URL(url).protocol;
  } catch {
    throw ToolgateOptionError.fromBadOption(option, `must be a URL (${QUEUE_URL_FORMS}); got ${JSON.stringify(redactUrl(url).slice(0, 80))}`);
  }
  const kind = QUEUE_BACKENDS.find((k) => k.protocols.includes(protocol));
  if (kind === undefined) throw ToolgateOptionError.fromBadOption(option, `must be a ${QUEUE_BACKENDS.flatMap((k) => k.protocols.map((p) => `${p}//`)).join(', ')} URL; got ${protocol}`);
  return kind.open(url, option);
}
