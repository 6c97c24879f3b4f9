import type { AnalyticsCase, AnalyticsCaseCreate, VssEventOf } from '@vss/schema';
import type { Transport } from '../transport';
import type { EventsNamespace, EventStreamOptions } from './events';

export function createAnalyticCases(transport: Transport, events: EventsNamespace) {
  // The specification's sample body repeats the path parameters; sending it keeps servers that
  // follow the sample to the letter happy, and ours checks that the two agree.
  const target = (camera: number, caseId: number) => ({
    params: { camera, analytic_case_camera: caseId },
    body: { camera, analytic_case_camera: caseId },
  });

  return {
    async create(cameraId: number, body: AnalyticsCaseCreate): Promise<AnalyticsCase> {
      return (await transport.call('createAnalyticsCase', { params: { camera: cameraId }, body })).data;
    },

    async get(cameraId: number, caseId: number): Promise<AnalyticsCase> {
      return (await transport.call('getAnalyticsCase', { params: { camera: cameraId, analytic_case_camera: caseId } })).data;
    },

    /** Stops the case (it becomes STOPPED); stopping a stopped case changes nothing. */
    async stop(cameraId: number, caseId: number): Promise<AnalyticsCase> {
      return (await transport.call('stopAnalyticsCase', target(cameraId, caseId))).data;
    },

    /** Restarts a STOPPED case (it becomes PENDING); in any other status the server answers 422. */
    async restart(cameraId: number, caseId: number): Promise<AnalyticsCase> {
      return (await transport.call('restartAnalyticsCase', target(cameraId, caseId))).data;
    },

    /**
     * The status changes of one case (`analytics_case.status` events), from the server's event
     * stream; reconnects like `events.stream` and ends when `signal` aborts.
     */
    async *events(
      cameraId: number,
      caseId: number,
      options: EventStreamOptions = {},
    ): AsyncGenerator<VssEventOf<'analytics_case.status'>, void, undefined> {
      for await (const event of events.stream(options)) {
        if (event.type === 'analytics_case.status' && event.data.id === caseId && event.data.camera_id === cameraId) {
          yield event;
        }
      }
    },
  };
}
