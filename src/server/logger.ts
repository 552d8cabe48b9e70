import { pino, type Logger } from 'pino';
import { redactSecrets, redactValue } from '../errors/redact.js';

/**
 * The process logger. Keys are never logged: headers that carry them are redacted, and
 * request logs carry only method, path, status, route and timing.
 * With `buffered`, lines are written in 4 KiB batches instead of one write per line (the
 * access log of a busy gateway); call `logger.flush()` before exiting.
 */
export function createLogger(level: string, options: { buffered?: boolean } = {}): Logger {
  const settings = {
    level,
    base: undefined,
    redact: { paths: ['req.headers.authorization', 'req.headers["x-api-key"]', '*.apiKey', '*.api_key'], censor: '[redacted]' },
    // Provider keys by exact value (an upstream message can quote one) and key-shaped strings,
    // in every field and message of every line.
    formatters: { log: (object: Record<string, unknown>) => redactValue(object) },
    hooks: {
      logMethod(this: Logger, args: unknown[], method: (...a: unknown[]) => void) {
        method.apply(this, args.map((a) => (typeof a === 'string' ? redactSecrets(a) : a)));
      },
    },
  };
  return options.buffered ? pino(settings, pino.destination({ dest: 1, sync: false, minLength: 4096 })) : pino(settings);
}
