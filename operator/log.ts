// The operator's log: one JSON line per entry on stderr, shaped as pino
// writes them elsewhere in Orca (numeric level, time, msg), so one log
// pipeline reads every Orca process. Never given a secret: callers log
// resource names and reasons, not API keys.
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface OperatorLog {
  (level: LogLevel, fields: Record<string, unknown>, message: string): void;
}

const LEVELS: Record<LogLevel, number> = { debug: 20, info: 30, warn: 40, error: 50 };

export function jsonLog(options: { level?: LogLevel; write?: (line: string) => void; base?: Record<string, unknown> } = {}): OperatorLog {
  const threshold = LEVELS[options.level ?? 'info'];
  const write = options.write ?? ((line: string) => process.stderr.write(line));
  return (level, fields, message) => {
    if (LEVELS[level] < threshold) return;
    write(`${JSON.stringify({ level: LEVELS[level], time: Date.now(), ...options.base, ...fields, msg: message })}\n`);
  };
}

export const silentLog: OperatorLog = () => {};
