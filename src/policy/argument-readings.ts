/**
 * The readings of one argument value that a rule's `args` glob is matched against
 * ({@link argumentReadings}). A tool does not read a URL as the text it was given: the
 * WHATWG parser (what `fetch`, `safeFetch` and most MCP servers use) trims it, lower-cases its
 * scheme and host, maps full-width and percent-encoded host characters, drops a default port,
 * takes `\` for `/`, and ends the host at `?`, `#` or `\`. So `https://evil.com?.example.com/x`
 * is a request to evil.com that the glob `https://*.example.com/**` matches as text, and
 * `https://EVIL.com/x` one that `https://evil.com/**` does not. A rule is matched against
 * every reading: an `allow` only when each matches (its narrowest reading), a `deny` or `ask`
 * when any does.
 *
 * @module
 */

/** Schemes whose URLs the WHATWG parser normalises (special schemes). */
const SPECIAL = new Set(['http:', 'https:', 'ws:', 'wss:', 'ftp:', 'file:']);

/**
 * The strings `value` may be read as: the text itself and, when it parses (trimmed, as
 * `safeFetch` does) as a URL of a special scheme, its normalised form (`URL.href`), that form
 * without credentials (`https://u:p@evil.com/` goes to evil.com), without a trailing dot on the host (`evil.com.` is `evil.com` in DNS), and that form with
 * its percent-escapes decoded (a server may decode `%61dmin` to `admin`). For a `deny` or `ask`
 * rule (`broad`), a number or boolean is read as its text and an array as each of its
 * strings, numbers and booleans; for an `allow`, only a string value has readings. Empty
 * when no reading exists (the rule does not match).
 */
export function argumentReadings(value: unknown, broad: boolean): string[] {
  if (typeof value === 'string') return stringReadings(value);
  if (!broad) return [];
  if (typeof value === 'number' || typeof value === 'boolean') return [String(value)];
  if (Array.isArray(value)) return value.flatMap((item: unknown) => (Array.isArray(item) ? [] : argumentReadings(item, true)));
  return [];
}

/**
 * Whether `text` may parse as a URL of a special scheme: its scheme read as the parser reads it
 * (leading C0 controls and white space skipped, as `trim` and the parser skip them, tabs and newlines anywhere dropped). Most argument
 * values are paths or words: they skip the parse, whose failure (an exception) costs several
 * µs per rule and call.
 */
function mayBeSpecialUrl(text: string): boolean {
  const scheme = /^([A-Za-z][A-Za-z0-9+.\-]*):/.exec(text.replace(/[\t\n\r]/g, '').replace(/^[\u0000-\u0020\s]+/, ''));
  return scheme !== null && SPECIAL.has(`${scheme[1]!.toLowerCase()}:`);
}

/** The last string read and its readings: a call's rules read the same value one after another. */
let last: { text: string; readings: string[] } | undefined;

function stringReadings(text: string): string[] {
  if (last?.text === text) return last.readings;
  const readings = urlReadings(text);
  last = { text, readings };
  return readings;
}

function urlReadings(text: string): string[] {
  const readings = [text];
  if (!mayBeSpecialUrl(text)) return readings;
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return readings;
  }
  if (!SPECIAL.has(url.protocol)) return readings;
  const add = (reading: string): void => {
    if (!readings.includes(reading)) readings.push(reading);
  };
  add(url.href);
  if (url.username !== '' || url.password !== '') {
    url.username = '';
    url.password = '';
    add(url.href);
  }
  if (url.hostname.endsWith('.')) {
    url.hostname = url.hostname.replace(/\.+$/, '');
    add(url.href);
  }
  try {
    add(decodeURIComponent(url.href));
  } catch {
    // a lone % escape: the server cannot decode it either
  }
  return readings;
}
