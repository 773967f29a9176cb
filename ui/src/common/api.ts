// Same-origin calls to Orca's REST and GraphQL API with the session's
// bearer token. Every failure becomes an ApiProblem whose `message` is fit
// to show in the page: the server's problem+json detail and failing field,
// or, when nothing answers (a restart), a sentence saying so. A 401 ends
// the session, which sends the user back to sign-in with a message.
import { currentSession, endSession, EXPIRED_MESSAGE, startSession } from './session.ts';

export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

interface ProblemBody {
  title?: string;
  detail?: string;
  errors?: { field: string; message: string }[];
}

export const UNREACHABLE = 'Orca did not answer: the server may be restarting or the network is down. This page keeps trying.';

async function problemOf(response: Response): Promise<ApiProblem> {
  let body: ProblemBody = {};
  try {
    body = (await response.json()) as ProblemBody;
  } catch {
    // Not problem+json (a proxy's page): the status says enough.
  }
  const first = body.errors?.[0];
  const detail = body.detail ?? body.title ?? `The server answered ${response.status}.`;
  const message = first ? `${detail} (${first.field}: ${first.message})` : detail;
  return new ApiProblem(response.status, message, first?.field);
}

export interface CallOptions {
  method?: string;
  json?: unknown;
  body?: string;
  contentType?: string;
  query?: Record<string, string | number | undefined>;
}

export function withQuery(path: string, query: Record<string, string | number | undefined> = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== '') params.set(name, String(value));
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

async function send(path: string, options: CallOptions): Promise<Response> {
  const session = currentSession();
  if (!session) {
    endSession(EXPIRED_MESSAGE);
    throw new ApiProblem(401, EXPIRED_MESSAGE);
  }
  const headers: Record<string, string> = { authorization: `Bearer ${session.token}`, accept: 'application/json' };
  let body = options.body;
  if (options.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.json);
  } else if (options.contentType) headers['content-type'] = options.contentType;
  let response: Response;
  try {
    response = await fetch(withQuery(path, options.query), { method: options.method ?? 'GET', headers, body });
  } catch {
    throw new ApiProblem(0, UNREACHABLE);
  }
  if (response.status === 401) {
    endSession(EXPIRED_MESSAGE);
    throw new ApiProblem(401, EXPIRED_MESSAGE);
  }
  if (response.status >= 502 && response.status <= 504 && !response.headers.get('content-type')?.includes('json')) throw new ApiProblem(0, UNREACHABLE);
  if (!response.ok) throw await problemOf(response);
  return response;
}

/** A JSON answer (undefined for 204). */
export async function api<T>(path: string, options: CallOptions = {}): Promise<T> {
  const response = await send(path, options);
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

export async function apiText(path: string, options: CallOptions = {}): Promise<string> {
  return (await send(path, options)).text();
}

/** One GraphQL operation; its first error becomes an ApiProblem. */
export async function graphql<T>(query: string, variables: Record<string, unknown>): Promise<T> {
  type GraphqlError = { message: string; extensions?: { status?: number; errors?: { field: string; message: string }[] } };
  const answer = await api<{ data?: T; errors?: GraphqlError[] }>('/api/v1/graphql', {
    method: 'POST',
    json: { query, variables },
  });
  const error = answer.errors?.[0];
  if (error) {
    const first = error.extensions?.errors?.[0];
    throw new ApiProblem(error.extensions?.status ?? 400, first ? `${error.message} (${first.field}: ${first.message})` : error.message, first?.field);
  }
  return answer.data as T;
}

/** Exchanges the API key for a bearer token; the key goes no further than this request. */
export async function signIn(apiKey: string): Promise<void> {
  let response: Response;
  try {
    response = await fetch('/api/token', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ api_key: apiKey }),
    });
  } catch {
    throw new ApiProblem(0, UNREACHABLE);
  }
  if (response.status === 401) throw new ApiProblem(401, 'That API key is unknown or has been retired. Check it and try again.');
  if (!response.ok) throw await problemOf(response);
  const token = (await response.json()) as { access_token: string; expires_in: number };
  startSession(token.access_token, token.expires_in);
}
