// Fetching a URL an administrator configured (the JWT IdP's keysEndpoint), guarded against request forgery: bounded in
// time and size, redirects followed by hand (at most MAX_REDIRECTS) and each target checked again, and unless
// GATEHOUSE_ALLOW_PRIVATE_FETCH no connection to a private, loopback or link-local address. The address is checked
// where the socket connects (the `lookup` hook), so a name that resolves differently a second time (DNS rebinding)
// gains nothing; IP literals, which skip the lookup, are checked before.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';

const MAX_REDIRECTS = 3;

export interface SafeFetchOptions {
  allowPrivate: boolean;
  timeoutMs: number;
  maxBytes: number;
}

export class FetchRefused extends Error {
  override name = 'FetchRefused';
}

const PRIVATE = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
] as const)
  PRIVATE.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 127],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  PRIVATE.addSubnet(net, prefix, 'ipv6');

/** Whether an address must not be reached from the server (IPv4-mapped IPv6 addresses judged as IPv4). */
export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return PRIVATE.check(mapped, 'ipv4');
  const family = isIP(address);
  if (family === 0) return true;
  return PRIVATE.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '', 0);
    const list = addresses as unknown as LookupAddress[];
    const bad = list.find((a) => isPrivateAddress(a.address));
    if (bad) return callback(new FetchRefused(`${hostname} resolves to a private address`), '', 0);
    if ((options as { all?: boolean }).all) return (callback as (e: null, a: LookupAddress[]) => void)(null, list);
    return callback(null, list[0]!.address, list[0]!.family);
  });
};

/** GETs `url` and returns its body as text; throws FetchRefused or a network error otherwise. */
export async function safeFetchText(url: string, options: SafeFetchOptions): Promise<string> {
  let target = new URL(url);
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const answer = await getOnce(target, options);
    if (answer.location === undefined) return answer.body;
    target = new URL(answer.location, target);
  }
  throw new FetchRefused('too many redirects');
}

function checkTarget(url: URL, allowPrivate: boolean): void {
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new FetchRefused(`scheme ${url.protocol} refused`);
  if (url.username || url.password) throw new FetchRefused('credentials in the URL refused');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivate && (isIP(host) ? isPrivateAddress(host) : host === 'localhost'))
    throw new FetchRefused('private address refused');
}

function getOnce(url: URL, options: SafeFetchOptions): Promise<{ body: string; location?: string }> {
  checkTarget(url, options.allowPrivate);
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.get(
      url,
      {
        timeout: options.timeoutMs,
        headers: { accept: 'application/json' },
        ...(options.allowPrivate ? {} : { lookup: publicOnlyLookup }),
      },
      (response) => {
        const status = response.statusCode ?? 0;
        if (status >= 300 && status < 400 && response.headers.location) {
          response.resume();
          return resolve({ body: '', location: response.headers.location });
        }
        if (status !== 200) {
          response.resume();
          return reject(new FetchRefused(`status ${status}`));
        }
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > options.maxBytes) {
            reject(new FetchRefused(`body larger than ${options.maxBytes} bytes`));
            request.destroy();
            return;
          }
          chunks.push(chunk);
        });
        response.on('end', () => resolve({ body: Buffer.concat(chunks).toString('utf8') }));
        response.on('error', reject);
      },
    );
    // one deadline for the whole exchange, not only for idle sockets
    const deadline = setTimeout(() => request.destroy(new FetchRefused('timed out')), options.timeoutMs);
    request.on('close', () => clearTimeout(deadline));
    request.on('timeout', () => request.destroy(new FetchRefused('timed out')));
    request.on('error', reject);
  });
}
