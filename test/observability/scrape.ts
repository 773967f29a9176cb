// Reading a Prometheus scrape in tests: GET /metrics over HTTP, parsed into
// samples (name, labels, value) from the text exposition format, and the
// value of one series by name and a subset of its labels.
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Scrape {
  text: string;
  contentType: string;
  samples: Sample[];
  /** The value of the one series of `name` whose labels include `labels`; undefined when there is none. */
  value(name: string, labels?: Record<string, string>): number | undefined;
  /** Every series of `name` whose labels include `labels`. */
  all(name: string, labels?: Record<string, string>): Sample[];
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parseScrape(text: string, contentType = ''): Scrape {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = SAMPLE.exec(line);
    if (match === null) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, name, value] of (match[2] ?? '').matchAll(LABEL)) labels[name] = value.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    samples.push({ name: match[1], labels, value: Number(match[3]) });
  }
  const all = (name: string, labels: Record<string, string> = {}) =>
    samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  return {
    text,
    contentType,
    samples,
    all,
    value(name, labels = {}) {
      const found = all(name, labels);
      if (found.length > 1) throw new Error(`${found.length} series of ${name} match ${JSON.stringify(labels)}`);
      return found[0]?.value;
    },
  };
}

export async function scrape(baseUrl: string): Promise<Scrape> {
  const response = await fetch(new URL('/metrics', baseUrl));
  if (response.status !== 200) throw new Error(`GET /metrics: ${response.status} ${await response.text()}`);
  return parseScrape(await response.text(), response.headers.get('content-type') ?? '');
}
