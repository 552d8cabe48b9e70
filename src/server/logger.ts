import { pino, type DestinationStream, type Logger } from 'pino';

/**
 * The process logger: JSON lines with an ISO `time` and the level by name (`"level":"info"`),
 * which log stores parse without pino's numeric conventions. Keys are never logged: headers
 * that carry them are redacted, and request logs carry only the RequestRecord's fields.
 * With `buffered`, lines are written in 4 KiB batches instead of one write per line (the
 * access log of a busy gateway); call `logger.flush()` before exiting. `destination` sends
 * the lines elsewhere than stdout (tests read them from a stream).
 */
export function createLogger(level: string, options: { buffered?: boolean; destination?: DestinationStream } = {}): Logger {
  const settings = {
    level,
    base: undefined,
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
    redact: { paths: ['req.headers.authorization', 'req.headers["x-api-key"]', '*.apiKey', '*.api_key'], censor: '[redacted]' },
  };
  if (options.destination) return pino(settings, options.destination);
  return options.buffered ? pino(settings, pino.destination({ dest: 1, sync: false, minLength: 4096 })) : pino(settings);
}
