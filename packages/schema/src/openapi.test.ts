import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from './openapi';
import { operations } from './operations';

describe('OpenAPI document', () => {
  const document = buildOpenApiDocument({ version: '1.2.3' });

  it('describes every operation of the table once, under its own id', () => {
    const ids = Object.values(document.paths).flatMap((methods) =>
      Object.values(methods).map((operation) => (operation as { operationId: string }).operationId),
    );
    expect(ids.sort()).toEqual(Object.keys(operations).sort());
  });

  it('gives integer path parameters a positive range and uids their pattern', () => {
    const restart = document.paths['/api/admin/v1/cameras/{camera}/analytic-cases/{analytic_case_camera}/restart/']!
      .post as { parameters: { name: string; schema: unknown }[] };
    expect(restart.parameters.map((parameter) => parameter.name)).toEqual(['camera', 'analytic_case_camera']);
    const stream = document.paths['/api/admin/v1/streams/{uid}']!.get as { parameters: { schema: unknown }[] };
    expect(stream.parameters[0]!.schema).toEqual({ type: 'string', pattern: '^[a-zA-Z0-9_-]+$' });
  });
});
