/**
 * The session endpoints of E7 (POST, GET, DELETE /api/v1/session; PUT /api/v1/user/password), as
 * agreed while they are being built on the server. Written by hand only until the server's OpenAPI
 * document has them: then schema.d.ts types them and this file goes.
 */
interface Json<T> {
  content: { 'application/json': T };
}
interface NoParameters {
  query?: never;
  header?: never;
  path?: never;
  cookie?: never;
}
interface ErrorBody {
  error: string;
  message: string;
  errors?: Record<string, string[]>;
  retry_after?: number;
}
type Errors = Record<401 | 403 | 422 | 429, { headers: Record<string, unknown> } & Json<ErrorBody>>;

export interface Session {
  user: { id: number; email: string; name: string | null };
  csrf_token: string;
  expires_at: string;
  idle_expires_at: string;
}

export interface SessionPaths {
  '/api/v1/session': {
    parameters: NoParameters;
    get: { parameters: NoParameters; responses: { 200: { headers: Record<string, unknown> } & Json<{ data: Session }> } & Errors };
    post: {
      parameters: NoParameters;
      requestBody: Json<{ email: string; password: string }>;
      responses: { 201: { headers: Record<string, unknown> } & Json<{ data: Session }> } & Errors;
    };
    delete: { parameters: NoParameters; responses: { 204: { headers: Record<string, unknown>; content?: never } } & Errors };
  };
  '/api/v1/user/password': {
    parameters: NoParameters;
    put: {
      parameters: NoParameters;
      requestBody: Json<{ current_password: string; password: string }>;
      responses: { 200: { headers: Record<string, unknown> } & Json<{ message: string }> } & Errors;
    };
  };
}
