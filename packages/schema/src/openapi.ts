import { z } from 'zod';
import { operations, type Operation } from './operations';

const STATUS_TEXT: Record<number, string> = {
  200: 'OK', 201: 'Created', 204: 'No Content', 400: 'Bad Request', 401: 'Token missing or invalid',
  403: 'Forbidden', 404: 'Not Found', 410: 'Gone', 422: 'Validation failed', 500: 'Server error',
  502: 'The device refused or answered badly', 503: 'Database unavailable', 504: 'The device did not answer in time',
};

const jsonSchema = (schema: z.ZodType, io: 'input' | 'output') =>
  z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' });

function parameterSchema(kind: 'integer' | 'uid') {
  return kind === 'integer'
    ? { type: 'integer', minimum: 1, maximum: 2147483647 }
    : { type: 'string', pattern: '^[a-zA-Z0-9_-]+$' };
}

function describe(operationId: string, operation: Operation) {
  const parameters = [
    ...Object.entries(operation.pathParams ?? {}).map(([name, kind]) => ({
      name, in: 'path', required: true, schema: parameterSchema(kind),
    })),
    ...Object.entries(operation.query?.shape ?? {}).map(([name, schema]) => ({
      // A parameter is required when leaving it out fails its contract.
      name, in: 'query', required: !(schema as z.ZodType).safeParse(undefined).success,
      schema: jsonSchema(schema as z.ZodType, 'input'),
    })),
  ];
  const responses = Object.fromEntries(
    Object.entries(operation.responses).map(([status, schema]) => [
      status,
      schema === null
        ? { description: STATUS_TEXT[Number(status)] ?? 'Response' }
        : {
            description: STATUS_TEXT[Number(status)] ?? 'Response',
            content: {
              [(status === '200' && operation.produces) || 'application/json']: { schema: jsonSchema(schema, 'output') },
            },
          },
    ]),
  );
  return {
    operationId,
    summary: operation.summary,
    tags: [operation.tag],
    ...(operation.deprecated ? { deprecated: true } : {}),
    ...(operation.auth === 'api-token' || operation.auth === 'access-token'
      ? { security: [{ bearer: [] }, { queryToken: [] }] }
      : { security: [] }),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(operation.body
      ? {
          requestBody: {
            required: operation.bodyRequired ?? false,
            content: { 'application/json': { schema: jsonSchema(operation.body, 'input') } },
          },
        }
      : {}),
    responses,
  };
}

/** The OpenAPI 3.1 document of every operation in the table. */
export function buildOpenApiDocument(info: { version: string; serverUrl?: string } = { version: '0.1.0' }) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [operationId, operation] of Object.entries(operations) as [string, Operation][]) {
    (paths[operation.path] ??= {})[operation.method] = describe(operationId, operation);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'VSS API',
      version: info.version,
      description: 'Video streaming and surveillance server: tokens, cameras, streams, analytics cases, intercoms.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    ...(info.serverUrl ? { servers: [{ url: info.serverUrl }] } : {}),
    components: {
      securitySchemes: {
        bearer: {
          type: 'http', scheme: 'bearer',
          description: 'API token (media routes: or an access token for the stream); the bare token without "Bearer " is accepted too.',
        },
        queryToken: { type: 'apiKey', in: 'query', name: 'token', description: 'The same token as a query parameter.' },
      },
    },
    paths,
  };
}
