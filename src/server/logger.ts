import { pino, type Logger } from 'pino';

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
  };
  return options.buffered ? pino(settings, pino.destination({ dest: 1, sync: false, minLength: 4096 })) : pino(settings);
}
