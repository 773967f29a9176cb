// What the engine tells an operator about (a command set aside, a batch
// refused): pino's call shape, so the API can hand in its own logger; by
// default one JSON line on stderr, as pino writes it, with the active
// span's trace_id and span_id when there is one (tracing on).
import { traceFields } from '../tracing.ts';

export interface EngineLog {
  warn(fields: Record<string, unknown>, message: string): void;
}

export const stderrLog: EngineLog = {
  warn(fields, message) {
    process.stderr.write(`${JSON.stringify({ level: 40, time: Date.now(), ...traceFields(), ...fields, msg: message })}\n`);
  },
};
