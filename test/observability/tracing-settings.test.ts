// Which OTEL_* settings turn tracing on, and how a value Orca cannot honour
// is refused (api/tracing/settings.ts, docs/observability.md "Traces").
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tracingSettings } from '../../api/tracing/settings.ts';

const on = (env: Record<string, string>) => {
  const result = tracingSettings(env);
  if (!result.ok) throw new Error(result.errors.join('; '));
  return result.settings;
};
const errors = (env: Record<string, string>) => {
  const result = tracingSettings(env);
  return result.ok ? [] : result.errors;
};

describe('tracing is off unless OTEL_* ask for it', () => {
  it('is off with no OTEL_ variable, or only ones that do not name an exporter or endpoint', () => {
    expect(on({})).toBeUndefined();
    expect(on({ OTEL_TRACES_SAMPLER: 'always_on', OTEL_SERVICE_NAME: 'x', OTEL_TRACES_EXPORTER: ' ' })).toBeUndefined();
  });

  it('is on with OTEL_TRACES_EXPORTER=otlp, to the default endpoint', () => {
    expect(on({ OTEL_TRACES_EXPORTER: 'otlp' })).toEqual({
      url: 'http://localhost:4318/v1/traces',
      sampler: { name: 'parentbased_always_on' },
      serviceName: 'orca',
    });
  });

  it('is on with an OTLP endpoint and no exporter named: the general endpoint gets /v1/traces, the traces endpoint is used as it is', () => {
    expect(on({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })?.url).toBe('http://collector:4318/v1/traces');
    expect(on({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://collector/otlp/traces', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://other' })?.url).toBe(
      'https://collector/otlp/traces',
    );
  });

  it('is off with OTEL_TRACES_EXPORTER=none or OTEL_SDK_DISABLED=true, whatever else is set', () => {
    expect(on({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBeUndefined();
    expect(on({ OTEL_SDK_DISABLED: 'true', OTEL_TRACES_EXPORTER: 'otlp' })).toBeUndefined();
  });

  it('reads the sampler and its ratio, and the service name', () => {
    const settings = on({
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.1',
      OTEL_SERVICE_NAME: 'orca-eu',
    });
    expect(settings?.sampler).toEqual({ name: 'parentbased_traceidratio', ratio: 0.1 });
    expect(settings?.serviceName).toBe('orca-eu');
    expect(on({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_TRACES_SAMPLER: 'traceidratio' })?.sampler).toEqual({ name: 'traceidratio', ratio: 1 });
  });
});

describe('a value Orca cannot honour is refused, naming its variable', () => {
  it('refuses an exporter other than otlp or none', () => {
    expect(errors({ OTEL_TRACES_EXPORTER: 'zipkin' })).toEqual([expect.stringMatching(/^OTEL_TRACES_EXPORTER: 'zipkin' is not supported/)]);
  });

  it('refuses an unknown sampler and a ratio outside 0..1', () => {
    expect(errors({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_TRACES_SAMPLER: 'sometimes' })).toEqual([expect.stringMatching(/^OTEL_TRACES_SAMPLER: 'sometimes'/)]);
    expect(errors({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '10%' })).toEqual([
      expect.stringMatching(/^OTEL_TRACES_SAMPLER_ARG: '10%' is not a ratio/),
    ]);
  });

  it('refuses an endpoint that is no http(s) URL and the grpc protocol, all at once', () => {
    expect(errors({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'collector:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toEqual([
      expect.stringMatching(/^OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' is not supported/),
      expect.stringMatching(/^OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'collector:4317' is not an http\(s\) URL/),
    ]);
  });
});

describe('orca start', () => {
  it('refuses to start on OTEL_* values it cannot honour, naming each, before it opens anything', async () => {
    const bin = fileURLToPath(new URL('../../bin/orca.js', import.meta.url));
    const env = { ...process.env, OTEL_TRACES_EXPORTER: 'jaeger', OTEL_TRACES_SAMPLER: 'sometimes', ORCA_DATA_DIR: '/nonexistent/orca-never-opened' };
    const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, [bin, 'start'], { env, timeout: 60_000 }, (error, out, err) =>
        resolve({ code: error ? Number(error.code ?? 1) : 0, stdout: out, stderr: err }),
      );
    });
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain("orca start: OTEL_TRACES_EXPORTER: 'jaeger' is not supported");
    expect(stderr).toContain("orca start: OTEL_TRACES_SAMPLER: 'sometimes' is not supported");
  });
});
