import { createHmac } from 'node:crypto';

/**
 * The X-VSS-Signature of a webhook delivery: `sha256=` and the hex HMAC-SHA256, keyed with the
 * webhook's secret, of `<timestamp>.<body>` (the timestamp is the X-VSS-Timestamp header, Unix
 * seconds), so that a receiver can reject both forged and replayed deliveries.
 */
export function signWebhook(secret: string, timestamp: number | string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

export interface RetrySchedule {
  /** Delay after the first failed attempt; each later one doubles. Default 1 s. */
  initialMs: number;
  /** The longest delay. Default 10 min. */
  maxMs: number;
  /** Attempts in all, the first one included; then the delivery is given up. Default 8. */
  maxAttempts: number;
}

export const DEFAULT_RETRY_SCHEDULE: RetrySchedule = { initialMs: 1_000, maxMs: 600_000, maxAttempts: 8 };

/**
 * When to try again after `attempts` failed attempts: 1 s, 2 s, 4 s … capped; undefined once
 * the attempts are used up.
 */
export function retryDelay(attempts: number, schedule: RetrySchedule = DEFAULT_RETRY_SCHEDULE): number | undefined {
  if (attempts >= schedule.maxAttempts) return undefined;
  return Math.min(schedule.maxMs, schedule.initialMs * 2 ** Math.max(0, attempts - 1));
}

/** Anything that looks like a URL (it may carry credentials) becomes `[url]`: events never carry one. */
export function scrubUrls(text: string): string {
  return text.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]*/gi, '[url]');
}
