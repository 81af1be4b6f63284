/**
 * The queue backends (`queue-backend.ts`), and opening the one a `--queue` URL names. A new
 * kind of server is one file (its {@link QueueBackendKind}) and one entry of
 * {@link QUEUE_BACKENDS}: the usage text, the options' errors and the docs' list of URL forms
 * are made from it. This file loads no backend until one is opened (the CLI's usage text
 * reads it).
 *
 * @module
 */
import { ToolgateOptionError } from '../errors/errors.js';
import type { QueueBackend, QueueBackendKind, QueueOpenOptions } from './queue-backend.js';

/** One kind of queue server: the URL protocols it serves, what messages show, its backend (loaded when opened). */
interface QueueBackendEntry {
  /** URL protocols served, with the colon (`redis:`). */
  readonly protocols: readonly string[];
  /** The URL form messages and the usage text show (`redis://HOST:PORT`). */
  readonly example: string;
  load(): Promise<QueueBackendKind>;
}

/** Every kind of queue server. */
const QUEUE_BACKENDS: readonly QueueBackendEntry[] = [
  { protocols: ['redis:', 'rediss:'], example: 'redis://HOST:PORT', load: async () => (await import('./redis-queue.js')).redisQueue },
  { protocols: ['postgres:', 'postgresql:'], example: 'postgres://USER@HOST:PORT/DATABASE', load: async () => (await import('./postgres-queue.js')).postgresQueue },
];

/** The URL forms `--queue` takes, for messages and the usage text (`redis://HOST:PORT or postgres://USER@HOST:PORT/DATABASE`). */
export const QUEUE_URL_FORMS = QUEUE_BACKENDS.map((kind) => kind.example).join(' or ');

/** The URL schemes `--queue` takes (`redis://, rediss://, postgres://, postgresql://`). */
const QUEUE_URL_SCHEMES = QUEUE_BACKENDS.flatMap((kind) => kind.protocols.map((p) => `${p}//`)).join(', ');

/**
 * Open the queue backend `url` names.
 * @param option - the option named in errors. Default `queue`.
 * @param options - how many connections it may hold (`connections`, PostgreSQL).
 * @throws ToolgateOptionError when the URL is not one of a known kind; what the backend's `open` throws.
 */
export async function openQueueBackend(url: string, option = 'queue', options: QueueOpenOptions = {}): Promise<QueueBackend> {
  let protocol: string;
  try {
    protocol = new URL(url).protocol;
  } catch {
    const { redactUrl } = await import('../ledger/postgres/database.js');
    throw ToolgateOptionError.fromBadOption(option, `must be a URL (${QUEUE_URL_FORMS}); got ${JSON.stringify(redactUrl(url).slice(0, 80))}`);
  }
  const kind = QUEUE_BACKENDS.find((k) => k.protocols.includes(protocol));
  if (kind === undefined) throw ToolgateOptionError.fromBadOption(option, `must be a ${QUEUE_URL_SCHEMES} URL; got ${protocol}`);
  return (await kind.load()).open(url, option, options);
}
