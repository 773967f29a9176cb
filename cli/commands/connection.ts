// Where the server is and who is asking: `--url` and `--api-key` override
// ORCA_URL and ORCA_API_KEY. The URL defaults to what `npm start` serves;
// there is no default key, and a missing or malformed setting is a usage
// error before anything is sent.
import { OrcaClient, type RetryEvent } from '../../client/index.ts';
import { UsageError } from './args.ts';

export const DEFAULT_URL = 'http://localhost:8080';

export interface Connection {
  url: string;
  apiKey: string;
}

export function connection(values: { url?: string; 'api-key'?: string }, env: NodeJS.ProcessEnv = process.env): Connection {
  const url = (values.url ?? env.ORCA_URL ?? '').trim() || DEFAULT_URL;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`${values.url === undefined ? 'ORCA_URL' : '--url'} is not a URL: '${url}'`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new UsageError(`${values.url === undefined ? 'ORCA_URL' : '--url'} must start with http:// or https://, not '${url}'`);
  }
  const apiKey = (values['api-key'] ?? env.ORCA_API_KEY ?? '').trim();
  if (apiKey === '') {
    throw new UsageError('no API key: set ORCA_API_KEY (or pass --api-key); signing up gives you one (README.md, "From signup to a completed instance")');
  }
  return { url, apiKey };
}

export function connect(values: { url?: string; 'api-key'?: string; json?: boolean }, env?: NodeJS.ProcessEnv): OrcaClient {
  const { url, apiKey } = connection(values, env);
  // The library repeats only what is safe to repeat; a person waiting at the prompt should see why it takes a while.
  // With --json, stderr holds at most the problem document, whole, for a script to parse.
  const onRetry = (event: RetryEvent) =>
    process.stderr.write(
      `orca: ${event.status === 0 ? 'no answer' : `${event.status}`} from ${event.method} ${new URL(event.url).pathname}; trying again in ${event.delayMs} ms\n`,
    );
  return new OrcaClient({ url, apiKey, onRetry: values.json ? undefined : onRetry });
}
