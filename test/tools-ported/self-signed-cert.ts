/**
 * A self-signed TLS certificate for loopback test servers, made with node:crypto alone (Node
 * 20 parses X.509 but does not write it): a P-256 key and a v3 certificate for `127.0.0.1`
 * and `localhost`, valid from a day ago to a day ahead, DER-encoded by hand, signed with
 * ECDSA-SHA256. Also the base64 SHA-256 of its public key (SPKI), the value Chromium's
 * `--ignore-certificate-errors-spki-list` takes to accept this one certificate for one run.
 */
import crypto from 'node:crypto';

/** What {@link selfSignedCert} made. */
export interface SelfSignedCert {
  /** PEM certificate and PKCS#8 key, for `tls.createServer` / `https.createServer`. */
  cert: string;
  key: string;
  /** Base64 SHA-256 of the DER SubjectPublicKeyInfo. */
  spkiSha256: string;
}

/** One DER element: tag, length, content. */
function der(tag: number, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content);
  const n = body.length;
  const length = n < 0x80 ? Buffer.from([n]) : n < 0x100 ? Buffer.from([0x81, n]) : Buffer.from([0x82, n >> 8, n & 0xff]);
  return Buffer.concat([Buffer.from([tag]), length, body]);
}

/** An OBJECT IDENTIFIER in dotted form. */
function oid(dotted: string): Buffer {
  const [a, b, ...rest] = dotted.split('.').map(Number);
  const bytes = [a! * 40 + b!];
  for (const arc of rest) {
    const sevens: number[] = [];
    let v = arc;
    do {
      sevens.unshift(v & 0x7f);
      v >>>= 7;
    } while (v > 0);
    bytes.push(...sevens.map((s, i) => (i < sevens.length - 1 ? s | 0x80 : s)));
  }
  return der(0x06, Buffer.from(bytes));
}

const seq = (...c: Buffer[]) => der(0x30, ...c);
const utcTime = (d: Date) => der(0x17, Buffer.from(`${d.toISOString().slice(2, 19).replace(/[-T:]/g, '')}Z`));
const pem = (label: string, body: Buffer) => `-----BEGIN ${label}-----\n${body.toString('base64').replace(/.{64}/g, '$&\n').replace(/\n?$/, '\n')}-----END ${label}-----\n`;

/** A fresh key and certificate; see the module comment. */
export function selfSignedCert(): SelfSignedCert {
  const { publicKey, privateKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const ecdsaSha256 = seq(oid('1.2.840.10045.4.3.2'));
  const name = seq(der(0x31, seq(oid('2.5.4.3'), der(0x0c, Buffer.from('toolgate test')))));
  const day = 24 * 3600 * 1000;
  // subjectAltName: iPAddress 127.0.0.1 ([7]) and dNSName localhost ([2]).
  const san = seq(der(0x87, Buffer.from([127, 0, 0, 1])), der(0x82, Buffer.from('localhost')));
  const extensions = der(0xa3, seq(seq(oid('2.5.29.17'), der(0x04, san))));
  const serial = crypto.randomBytes(8);
  serial[0]! &= 0x7f;
  const tbs = seq(
    der(0xa0, der(0x02, Buffer.from([2]))),
    der(0x02, serial),
    ecdsaSha256,
    name,
    seq(utcTime(new Date(Date.now() - day)), utcTime(new Date(Date.now() + day))),
    name,
    spki,
    extensions,
  );
  const signature = crypto.sign('sha256', tbs, { key: privateKey, dsaEncoding: 'der' });
  const cert = seq(tbs, ecdsaSha256, der(0x03, Buffer.from([0]), signature));
  return {
    cert: pem('CERTIFICATE', cert),
    key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    spkiSha256: crypto.createHash('sha256').update(spki).digest('base64'),
  };
}
