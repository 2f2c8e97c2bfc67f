/** The parts of the generated OpenAPI document the finishing steps touch. */
export type Json = Record<string, unknown>;

export interface Media {
  schema?: Json;
  example?: unknown;
  examples?: Record<string, { summary?: string; value: unknown }>;
}

export interface Operation {
  summary?: string;
  description?: string;
  tags?: string[];
  security?: Json[];
  parameters?: Json[];
  requestBody?: { required?: boolean; description?: string; content?: Record<string, Media> };
  responses?: Record<string, { description?: string; content?: Record<string, Media>; $ref?: string }>;
}

export interface OpenApiDocument {
  paths?: Record<string, Record<string, unknown>>;
  components?: Json & { schemas?: Json; responses?: Json; headers?: Json };
}

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'] as const;

export function isApiPath(path: string): boolean {
  return path === '/api' || path.startsWith('/api/');
}

export function isJson(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
