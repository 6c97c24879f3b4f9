import type { Intercom, IntercomCreate } from '@vss/schema';
import type { Transport } from '../transport';

export function createIntercoms(transport: Transport) {
  return {
    /** Registers an intercom; its password is stored encrypted and never returned. */
    async create(body: IntercomCreate): Promise<Intercom> {
      return (await transport.call('createIntercom', { body })).data;
    },

    async list(): Promise<Intercom[]> {
      return (await transport.call('listIntercoms', {})).data;
    },

    async get(id: number): Promise<Intercom> {
      return (await transport.call('getIntercom', { params: { intercom: id } })).data;
    },

    /**
     * Asks the device to reboot; resolves once it accepted. A refusal or bad answer is a
     * DeviceError with `timeout: false`, no answer in time one with `timeout: true`.
     */
    async restart(id: number): Promise<void> {
      // The body repeats the path parameter, as in the specification's sample.
      await transport.call('restartIntercom', { params: { intercom: id }, body: { intercom: id } });
    },
  };
}
