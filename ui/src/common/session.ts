// The signed-in session: the bearer token from POST /api/token and when it
// expires, kept in sessionStorage (this tab only, gone with it). The API
// key itself is never stored and never put in a URL. Listeners hear when
// the session starts or ends, with the message the sign-in page shows
// (an expired token, a retired key).

export interface Session {
  token: string;
  /** Epoch milliseconds. */
  expiresAt: number;
}

const STORAGE_KEY = 'orca.session';
type Listener = (session: Session | null, message: string | null) => void;
const listeners = new Set<Listener>();
let expiryTimer: ReturnType<typeof setTimeout> | undefined;

export const EXPIRED_MESSAGE = 'Your session has expired. Sign in again with your API key.';

export function currentSession(): Session | null {
  try {
    const stored = JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? 'null') as Session | null;
    if (stored && typeof stored.token === 'string' && stored.expiresAt > Date.now()) return stored;
  } catch {
    // A damaged entry is the same as none.
  }
  return null;
}

export function onSessionChange(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function announce(session: Session | null, message: string | null) {
  for (const listener of listeners) listener(session, message);
}

function watchExpiry(session: Session | null) {
  clearTimeout(expiryTimer);
  // The token cannot be renewed without the key, which is not kept: at expiry the user signs in again.
  if (session) expiryTimer = setTimeout(() => endSession(EXPIRED_MESSAGE), Math.max(0, session.expiresAt - Date.now()));
}

export function startSession(token: string, expiresInSeconds: number): Session {
  // A little early, so no request goes out with a token about to lapse.
  const session = { token, expiresAt: Date.now() + Math.max(0, expiresInSeconds - 15) * 1000 };
  sessionStorage.setItem(STORAGE_KEY, JSON.stringify(session));
  watchExpiry(session);
  announce(session, null);
  return session;
}

export function endSession(message: string | null): void {
  sessionStorage.removeItem(STORAGE_KEY);
  watchExpiry(null);
  announce(null, message);
}

watchExpiry(currentSession());
