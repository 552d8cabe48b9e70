import { pino, type DestinationStream, type Logger } from 'pino';
import { redactSecrets, redactValue } from '../errors/redact.js';

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
    redact: { paths: ['req.headers.authorization', 'req.headers["x-api-key"]', '*.apiKey', '*.api_key'], censor: '[redacted]' },
    formatters: {
      level: (label: string) => ({ level: label }),
      // Provider keys by exact value (an upstream message can quote one) and key-shaped strings,
      // in every field and message of every line.
      log: (object: Record<string, unknown>) => redactValue(object),
    },
    hooks: {
      logMethod(this: Logger, args: unknown[], method: (...a: unknown[]) => void) {
        method.apply(this, args.map((a) => (typeof a === 'string' ? redactSecrets(a) : a)));
      },
    },
  };
  if (options.destination) return pino(settings, options.destination);
  return options.buffered ? pino(settings, pino.destination({ dest: 1, sync: false, minLength: 4096 })) : pino(settings);
}
