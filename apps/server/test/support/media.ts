import type { TestServer } from './server';

/** Polls until `check` returns a value, or fails after `timeoutMs` with what it last saw. */
export async function eventually<T>(
  check: () => Promise<T | undefined | false>,
  { timeoutMs = 30_000, intervalMs = 200, what = 'condition' } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

export interface StreamView {
  uid: string;
  status: string;
  url: string | null;
  reconnection: { attempts: number; total: number; last_error: string | null; last_error_at: string | null; reset_at: string | null };
}

export async function getStream(server: TestServer, uid: string): Promise<StreamView> {
  return (await server.request(`/api/admin/v1/streams/${uid}`)).json();
}

/** Waits until the stream reports `status`. */
export function streamStatus(server: TestServer, uid: string, status: string, timeoutMs = 30_000) {
  return eventually(
    async () => {
      const stream = await getStream(server, uid);
      return stream.status === status ? stream : undefined;
    },
    { timeoutMs, what: `stream ${uid} to be ${status}` },
  );
}

/** Records the media engine's events of one stream from now on. */
export function recordEvents(server: TestServer, uid: string) {
  const events = server.vss.media!.supervisor.events;
  const segments: { startedAt: Date; durationMs: number; discontinuity: boolean }[] = [];
  const gaps: { from: Date; to: Date; reason: string }[] = [];
  const onSegment = (event: { uid: string; startedAt: Date; durationMs: number; discontinuity: boolean }) => {
    if (event.uid === uid) segments.push(event);
  };
  const onGap = (event: { uid: string; from: Date; to: Date; reason: string }) => {
    if (event.uid === uid) gaps.push(event);
  };
  events.on('segment', onSegment);
  events.on('gap', onGap);
  return {
    segments,
    gaps,
    stop() {
      events.off('segment', onSegment);
      events.off('gap', onGap);
    },
  };
}
