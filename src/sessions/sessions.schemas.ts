import { Type, type Static } from 'typebox';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './password-hash.js';

export const SignInBody = Type.Object(
  {
    email: Type.String({ maxLength: 255, examples: ['ada@example.com'] }),
    // Any length is checked against the stored hash: a password set before a rule changed still works.
    password: Type.String({ maxLength: PASSWORD_MAX_LENGTH }),
  },
  { $id: 'SignInBody' },
);
export type SignInBody = Static<typeof SignInBody>;

export const Session = Type.Object(
  {
    user: Type.Object({ id: Type.Integer(), email: Type.String(), name: Type.Union([Type.String(), Type.Null()]) }),
    csrf_token: Type.String({ description: 'Send it as `X-CSRF-Token` on every request of this session that is not a GET.' }),
    expires_at: Type.String({ format: 'date-time', description: 'The absolute end: 7 days after sign-in.' }),
    idle_expires_at: Type.String({
      format: 'date-time',
      description: 'The session ends if unused until then (12 hours after its last request).',
    }),
  },
  { $id: 'Session' },
);

export const SessionResponse = Type.Object({ data: Session });

export const ChangePasswordBody = Type.Object(
  {
    current_password: Type.String({ maxLength: PASSWORD_MAX_LENGTH }),
    password: Type.String({ minLength: PASSWORD_MIN_LENGTH, maxLength: PASSWORD_MAX_LENGTH }),
  },
  { $id: 'ChangePasswordBody' },
);
export type ChangePasswordBody = Static<typeof ChangePasswordBody>;
