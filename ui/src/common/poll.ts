// Pages update while you watch: usePoll loads once, then again every few
// seconds (and on demand after an action), keeping the last good data on
// screen when a poll fails, with the failure beside it. A failure that is
// the server being away (a restart) clears itself on the next good poll.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

export interface Polled<T> {
  data: T | undefined;
  error: string | null;
  /** Status of the last failure (0: nothing answered). */
  status: number | null;
  loading: boolean;
  reload: () => Promise<void>;
}

export const POLL_MS = 2000;

export function usePoll<T>(load: () => Promise<T>, deps: unknown[], intervalMs: number = POLL_MS): Polled<T> {
  // Each answer is tagged with the dependencies it was asked for, so a page
  // never shows the previous filter's or page's data under the new ones.
  const asked = JSON.stringify(deps);
  const [state, setState] = useState<{ data: T | undefined; error: string | null; status: number | null; loading: boolean; for: string }>({
    data: undefined,
    error: null,
    status: null,
    loading: true,
    for: asked,
  });
  const askedRef = useRef(asked);
  askedRef.current = asked;
  const generation = useRef(0);
  const loadRef = useRef(load);
  loadRef.current = load;

  const reload = useCallback(async () => {
    const mine = generation.current;
    const forDeps = askedRef.current;
    try {
      const data = await loadRef.current();
      if (mine === generation.current) setState({ data, error: null, status: null, loading: false, for: forDeps });
    } catch (error) {
      const status = (error as { status?: number }).status ?? null;
      const message = error instanceof Error ? error.message : String(error);
      if (mine === generation.current) setState((previous) => ({ ...previous, error: message, status, loading: false, for: forDeps }));
    }
  }, []);

  useEffect(() => {
    generation.current += 1;
    setState({ data: undefined, error: null, status: null, loading: true, for: askedRef.current });
    void reload();
    if (intervalMs <= 0) return;
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') void reload();
    }, intervalMs);
    return () => clearInterval(timer);
  }, deps);

  if (state.for !== asked) return { data: undefined, error: null, status: null, loading: true, reload };
  return { data: state.data, error: state.error, status: state.status, loading: state.loading, reload };
}
