// How values read in the page: dates in the reader's locale inside <time>,
// states as words with a colour (never colour alone), JSON indented.
import { html } from 'htm/preact';

export function When(props: { iso: string | null | undefined }) {
  if (!props.iso) return html`<span class="muted">—</span>`;
  const date = new Date(props.iso);
  return html`<time datetime=${props.iso}>${Number.isNaN(date.getTime()) ? props.iso : date.toLocaleString()}</time>`;
}

const STATE_WORDS: Record<string, string> = {
  ACTIVE: 'Active',
  COMPLETED: 'Completed',
  TERMINATED: 'Terminated',
  CANCELED: 'Canceled',
  INCIDENT: 'Incident',
  OPEN: 'Open',
  RESOLVED: 'Closed',
  CREATED: 'Open',
  FAILED: 'Failed (incident)',
};

export function StateTag(props: { state: string }) {
  const word = STATE_WORDS[props.state] ?? props.state;
  return html`<span class=${`state state-${props.state.toLowerCase()}`}>${word}</span>`;
}

export function formatJson(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

export function JsonBlock(props: { value: unknown; label: string }) {
  return html`<pre class="json" tabindex="0" aria-label=${props.label}><code>${formatJson(props.value)}</code></pre>`;
}
