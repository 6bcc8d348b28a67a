// Logs go to stderr so stdout stays clean for the MCP protocol and for --json output.
import { pino, type Logger } from 'pino';

export type { Logger };

export function createLogger(level: string): Logger {
  return pino(
    {
      level,
      base: undefined,
      // Credentials can reach a log line only through these fields; redact them wherever they appear.
      redact: {
        paths: ['*.authorization', '*.Authorization', '*["x-api-key"]', '*["x-llm-key"]', 'key', 'secret'],
        censor: '[redacted]',
      },
    },
    pino.destination(2),
  );
}
