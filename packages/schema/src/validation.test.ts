import { describe, expect, it } from 'vitest';
import { CameraCreateV2 } from './cameras';
import { issuesToErrors, validationErrorBody } from './validation';

const errorsOf = (input: unknown) => {
  const result = CameraCreateV2.safeParse(input, { reportInput: true });
  if (result.success) throw new Error('expected a validation failure');
  return issuesToErrors(result.error.issues);
};

describe('validation errors', () => {
  it('keys nested fields by dotted path and explains each reason', () => {
    const errors = errorsOf({
      mac: '00:11:22:33:44:55',
      group_id: 1,
      onvif_credentials: { login: 'admin', password: 'x', port: 0 },
      streams: [{ type: 'high', is_archive_enabled: true, archive_storage_days: 91 }],
    });
    expect(errors).toEqual({
      name: ['The name field is required.'],
      'onvif_credentials.port': ['The onvif credentials.port field must be at least 1.'],
      'streams.0.archive_storage_days': ['The streams.0.archive storage days field must not be greater than 90.'],
    });
  });

  it('makes the message the first reason plus a count of the rest', () => {
    expect(validationErrorBody({ a: ['First.', 'Second.'], b: ['Third.'] }).message).toBe('First. (and 2 more errors)');
    expect(validationErrorBody({ a: ['Only.'] }).message).toBe('Only.');
  });

  it('refuses a stream type given twice and a missing group', () => {
    const errors = errorsOf({
      name: 'x',
      mac: '00:11:22:33:44:55',
      streams: [
        { type: 'low', is_archive_enabled: false },
        { type: 'low', is_archive_enabled: false },
      ],
    });
    expect(Object.keys(errors).sort()).toEqual(['group_id', 'streams.1.type']);
  });
});
