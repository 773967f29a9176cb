// Small pieces every page uses: the document title, a pager over cursor
// pages (the API hands out `nextCursor`; the pager keeps the ones before, so
// "Previous page" works too) and a not-found page.
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';

export function useTitle(title: string, app: string): void {
  useEffect(() => {
    document.title = `${title} · Orca ${app}`;
  }, [title, app]);
}

export interface Pager {
  cursor: string | undefined;
  page: number;
  next: (cursor: string) => void;
  previous: () => void;
  reset: () => void;
}

export function usePager(resetOn: unknown[]): Pager {
  const [stack, setStack] = useState<(string | undefined)[]>([undefined]);
  useEffect(() => setStack([undefined]), resetOn);
  return {
    cursor: stack[stack.length - 1],
    page: stack.length,
    next: (cursor) => setStack((s) => [...s, cursor]),
    previous: () => setStack((s) => (s.length > 1 ? s.slice(0, -1) : s)),
    reset: () => setStack([undefined]),
  };
}

export function PagerNav(props: { pager: Pager; nextCursor: string | null | undefined; label: string }) {
  const { pager } = props;
  return html`<nav class="pager" aria-label=${props.label}>
    <button type="button" class="secondary" disabled=${pager.page <= 1} onClick=${pager.previous}>Previous page</button>
    <span>Page ${pager.page}</span>
    <button type="button" class="secondary" disabled=${!props.nextCursor} onClick=${() => props.nextCursor && pager.next(props.nextCursor)}>Next page</button>
  </nav>`;
}

export function NotFoundPage(props: { app: string }) {
  useTitle('Page not found', props.app);
  return html`<h1>Page not found</h1>
    <p>There is no page at this address.</p>`;
}
