// Client-side addresses: each page has its own path under the app's base
// (/console/, /tasklist/), which the server answers with the app (history
// fallback), so a copied link opens the same page. Links are real <a
// href>s; a plain click is handled here without a reload.
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import type { ComponentChildren } from 'preact';

export interface Route {
  /** The path after the base, without a leading slash: '', 'instances/123'. */
  path: string;
  /** The path's segments, decoded ('%zz' stays as typed rather than breaking the page). */
  segments: string[];
  query: URLSearchParams;
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

let base = '/';
const listeners = new Set<() => void>();

export function setBase(path: string): void {
  base = path;
}

export function href(path: string, query?: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) if (value !== undefined && value !== '') params.set(name, String(value));
  const text = params.toString();
  return `${base}${path}${text ? `?${text}` : ''}`;
}

function current(): Route {
  const path = location.pathname.startsWith(base) ? location.pathname.slice(base.length) : '';
  const trimmed = path.replace(/\/+$/, '');
  return { path: trimmed, segments: trimmed.split('/').map(decode), query: new URLSearchParams(location.search) };
}

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (options.replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  for (const listener of listeners) listener();
}

export function useRoute(): Route {
  const [route, setRoute] = useState(current);
  useEffect(() => {
    const update = () => setRoute(current());
    listeners.add(update);
    addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      removeEventListener('popstate', update);
    };
  }, []);
  return route;
}

export function Link(props: { to: string; children: ComponentChildren; class?: string; 'aria-current'?: 'page' | undefined }) {
  const onClick = (event: MouseEvent) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(props.to);
  };
  return html`<a href=${props.to} class=${props.class} aria-current=${props['aria-current']} onClick=${onClick}>${props.children}</a>`;
}
