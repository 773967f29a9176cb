// Whether and how to trace, from the standard OpenTelemetry variables
// (docs/observability.md, "Traces"). Tracing is OFF unless asked for:
// on when OTEL_TRACES_EXPORTER is `otlp`, or when it is unset and an OTLP
// endpoint is (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or
// OTEL_EXPORTER_OTLP_ENDPOINT); off when OTEL_SDK_DISABLED is `true` or
// OTEL_TRACES_EXPORTER is `none`. The SDK's own default (export to
// localhost:4318 whenever nothing says otherwise) is not taken: an
// installation that configured no collector pays nothing. Every value Orca
// cannot honour is refused with a message naming its variable, as
// cli/config.ts does for Orca's own.
export type SamplerSetting =
  | { name: 'always_on' | 'always_off' | 'parentbased_always_on' | 'parentbased_always_off' }
  | { name: 'traceidratio' | 'parentbased_traceidratio'; ratio: number };

export interface TracingSettings {
  /** Where spans go: the OTLP/HTTP traces URL. */
  url: string;
  sampler: SamplerSetting;
  /** The resource's service.name (OTEL_SERVICE_NAME; default `orca`). */
  serviceName: string;
}

const SAMPLERS = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'];
const DEFAULT_ENDPOINT = 'http://localhost:4318';

/** undefined: tracing is off. Errors: one message per variable Orca cannot honour. */
export function tracingSettings(
  env: Record<string, string | undefined>,
): { ok: true; settings: TracingSettings | undefined } | { ok: false; errors: string[] } {
  const value = (name: string) => {
    const raw = env[name]?.trim();
    return raw === '' ? undefined : raw;
  };
  const errors: string[] = [];
  if (value('OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return { ok: true, settings: undefined };

  const exporters = value('OTEL_TRACES_EXPORTER')
    ?.split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  const tracesEndpoint = value('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const endpoint = value('OTEL_EXPORTER_OTLP_ENDPOINT');
  if (exporters === undefined || exporters.length === 0) {
    if (tracesEndpoint === undefined && endpoint === undefined) return { ok: true, settings: undefined };
  } else {
    const unsupported = exporters.filter((name) => name !== 'otlp' && name !== 'none');
    if (unsupported.length > 0) errors.push(`OTEL_TRACES_EXPORTER: '${unsupported.join(',')}' is not supported; use otlp, or none to turn tracing off`);
    else if (!exporters.includes('otlp')) return { ok: true, settings: undefined };
  }

  for (const name of ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL']) {
    const protocol = value(name);
    if (protocol !== undefined && protocol !== 'http/json' && protocol !== 'http/protobuf') {
      errors.push(`${name}: '${protocol}' is not supported; Orca exports OTLP over HTTP (http/json or http/protobuf)`);
    }
  }

  // The signal-specific endpoint is used as it is; the general one gets the traces path (OTLP exporter specification).
  const url = tracesEndpoint ?? `${(endpoint ?? DEFAULT_ENDPOINT).replace(/\/+$/, '')}/v1/traces`;
  const urlVariable = tracesEndpoint !== undefined ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' : 'OTEL_EXPORTER_OTLP_ENDPOINT';
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) errors.push(`${urlVariable}: '${url}' is not an http(s) URL`);

  const sampler = samplerSetting(value('OTEL_TRACES_SAMPLER'), value('OTEL_TRACES_SAMPLER_ARG'), errors);
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, settings: { url, sampler: sampler!, serviceName: value('OTEL_SERVICE_NAME') ?? 'orca' } };
}

function samplerSetting(name: string | undefined, arg: string | undefined, errors: string[]): SamplerSetting | undefined {
  const sampler = (name ?? 'parentbased_always_on').toLowerCase();
  if (!SAMPLERS.includes(sampler)) {
    errors.push(`OTEL_TRACES_SAMPLER: '${name}' is not supported; use one of ${SAMPLERS.join(', ')}`);
    return undefined;
  }
  if (sampler !== 'traceidratio' && sampler !== 'parentbased_traceidratio') return { name: sampler as 'always_on' };
  const ratio = arg === undefined ? 1 : Number(arg);
  if (!Number.isFinite(ratio) || ratio < 0 || ratio > 1) {
    errors.push(`OTEL_TRACES_SAMPLER_ARG: '${arg}' is not a ratio between 0 and 1 (0.1 keeps one trace in ten)`);
    return undefined;
  }
  return { name: sampler, ratio };
}
