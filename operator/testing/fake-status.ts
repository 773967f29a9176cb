// The fake API server's errors as the real server sends them: a v1 Status
// object with code, reason and message (and details naming the object), so a
// client's error handling is exercised on the same bodies it meets in a cluster.

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  retryAfterSeconds?: number;
  causes?: { reason?: string; message: string; field?: string }[];
}

const REASONS: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  409: 'Conflict',
  410: 'Expired',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

export function reasonFor(code: number): string {
  return REASONS[code] ?? 'Unknown';
}

export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: StatusDetails,
  ) {
    super(message);
  }

  toStatus(): Record<string, unknown> {
    return statusObject(this.code, this.reason, this.message, this.details);
  }
}

export function statusObject(code: number, reason: string, message: string, details?: StatusDetails): Record<string, unknown> {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, ...(details ? { details } : {}), code };
}

export function notFound(group: string, plural: string, name: string): ApiError {
  const resource = group ? `${plural}.${group}` : plural;
  return new ApiError(404, 'NotFound', `${resource} "${name}" not found`, { name, group: group || undefined, kind: plural });
}

export function alreadyExists(group: string, plural: string, name: string): ApiError {
  const resource = group ? `${plural}.${group}` : plural;
  return new ApiError(409, 'AlreadyExists', `${resource} "${name}" already exists`, { name, group: group || undefined, kind: plural });
}

export function conflict(group: string, plural: string, name: string): ApiError {
  const resource = group ? `${plural}.${group}` : plural;
  return new ApiError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${resource} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
    { name, group: group || undefined, kind: plural },
  );
}

export function invalid(kind: string, group: string, name: string, field: string, message: string): ApiError {
  return new ApiError(422, 'Invalid', `${kind} "${name}" is invalid: ${field}: ${message}`, {
    name,
    group: group || undefined,
    kind,
    causes: [{ reason: 'FieldValueInvalid', message, field }],
  });
}

export function badRequest(message: string): ApiError {
  return new ApiError(400, 'BadRequest', message);
}

export function expired(resourceVersion: string, oldest: number): ApiError {
  return new ApiError(410, 'Expired', `too old resource version: ${resourceVersion} (${oldest})`);
}
