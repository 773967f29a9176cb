// A throwaway self-signed TLS certificate for the fake API server's HTTPS
// mode, made in-process (node:crypto has keys and signatures but no X.509
// writer, and shelling out to openssl would make the tests depend on it).
// kubectl does not send a bearer token to a plain-HTTP server, so HTTPS is what
// lets kubectl (and the operator's own HTTPS code path) talk to the fake. The
// certificate is its own CA, valid for 127.0.0.1 and localhost for one day;
// it is generated per server and never written anywhere but the kubeconfig.
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';

function length(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let rest = n; rest > 0; rest >>= 8) bytes.unshift(rest & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function tlv(tag: number, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), length(body.length), body]);
}

const sequence = (...parts: Buffer[]) => tlv(0x30, ...parts);

function oid(dotted: string): Buffer {
  const [first, second, ...rest] = dotted.split('.').map(Number);
  const bytes = [first * 40 + second];
  for (const arc of rest) {
    const chunk = [arc & 0x7f];
    for (let value = arc >> 7; value > 0; value >>= 7) chunk.unshift((value & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return tlv(0x06, Buffer.from(bytes));
}

function utcTime(date: Date): Buffer {
  const text = date.toISOString().replace(/[-:T]/g, '').slice(2, 14) + 'Z';
  return tlv(0x17, Buffer.from(text, 'ascii'));
}

function name(commonName: string): Buffer {
  return sequence(tlv(0x31, sequence(oid('2.5.4.3'), tlv(0x0c, Buffer.from(commonName, 'utf8')))));
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return sequence(oid(id), ...(critical ? [tlv(0x01, Buffer.from([0xff]))] : []), tlv(0x04, value));
}

function pem(label: string, der: Buffer): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

export interface Certificate {
  /** PEM of the certificate, which is also the CA to trust. */
  cert: string;
  /** PEM (PKCS #8) of its private key. */
  key: string;
}

export function selfSignedCertificate(commonName = 'orca-fake-apiserver'): Certificate {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const ecdsaWithSha256 = sequence(oid('1.2.840.10045.4.3.2'));
  const serial = randomBytes(16);
  // Positive, and its first byte not zero: DER wants the shortest encoding, and OpenSSL refuses a padded one.
  serial[0] = (serial[0] & 0x7f) | 0x40;
  const now = Date.now();
  const subjectAltName = sequence(tlv(0x87, Buffer.from([127, 0, 0, 1])), tlv(0x82, Buffer.from('localhost', 'ascii')));
  const tbs = sequence(
    tlv(0xa0, tlv(0x02, Buffer.from([2]))),
    tlv(0x02, serial),
    ecdsaWithSha256,
    name(commonName),
    sequence(utcTime(new Date(now - 3_600_000)), utcTime(new Date(now + 86_400_000))),
    name(commonName),
    publicKey.export({ type: 'spki', format: 'der' }),
    tlv(
      0xa3,
      sequence(
        extension('2.5.29.19', true, sequence(tlv(0x01, Buffer.from([0xff])))),
        extension('2.5.29.15', true, tlv(0x03, Buffer.from([0x02, 0x84]))),
        extension('2.5.29.17', false, subjectAltName),
      ),
    ),
  );
  const signature = sign('sha256', tbs, privateKey);
  const der = sequence(tbs, ecdsaWithSha256, tlv(0x03, Buffer.from([0]), signature));
  return { cert: pem('CERTIFICATE', der), key: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string };
}
