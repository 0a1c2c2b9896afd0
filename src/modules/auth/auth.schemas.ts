import { Type, type Static } from 'typebox';
import { Body, Email, Id, Name, Nullable, Password } from '../../lib/schemas.js';

const ChurchName = Type.String({ minLength: 1, maxLength: 63, description: 'The tenant slug' });
const Login = Type.String({ minLength: 1, maxLength: 254 });
const OpaqueToken = Type.String({ minLength: 1, maxLength: 512 });

export const LoginBody = Body({
  username: Type.String({ minLength: 1, maxLength: 254, description: 'Username or email' }),
  password: Type.String({ minLength: 1, maxLength: 256 }),
  churchName: ChurchName,
  refreshCookie: Type.Optional(Type.Boolean({
    description: 'true: the refresh token is set as an HttpOnly cookie scoped to /api/auth instead of being returned in the body (the console)',
  })),
});
export type LoginBody = Static<typeof LoginBody>;

export const TokenResponse = Type.Object({
  accessToken: Type.String(),
  refreshToken: Type.Optional(Type.String({ description: 'Absent when the refresh token was set as the `parish_refresh` cookie' })),
  expiresIn: Type.Integer({ description: 'Access token lifetime in seconds' }),
  user: Type.Object({
    id: Id,
    username: Type.String(),
    email: Nullable(Type.String()),
    contactId: Id,
    roles: Type.Array(Type.String(), { description: 'Role names' }),
    permissions: Type.Array(Type.String()),
  }),
});

export const RefreshBody = Body({
  refreshToken: Type.Optional({ ...OpaqueToken, description: 'Omit (send `{}`) to use the `parish_refresh` cookie' }),
});
export type RefreshBody = Static<typeof RefreshBody>;

export const ForgotPasswordBody = Body({
  churchName: ChurchName,
  username: Type.Optional(Login),
  email: Type.Optional(Login),
});
export type ForgotPasswordBody = Static<typeof ForgotPasswordBody>;

export const ResetPasswordParams = Type.Object({ token: OpaqueToken });
export const ResetPasswordBody = Body({ password: Password });

export const MessageResponse = Type.Object({ message: Type.String() });

export const RegisterBody = Body({
  churchName: ChurchName,
  username: Type.String({ minLength: 3, maxLength: 100, pattern: '^[^\\s@]+$', description: 'No spaces and no @' }),
  email: Email,
  password: Password,
  firstName: Name,
  lastName: Name,
});
export type RegisterBody = Static<typeof RegisterBody>;

export const RegisterResponse = Type.Object({
  id: Id,
  username: Type.String(),
  email: Nullable(Type.String()),
  contactId: Id,
  roles: Type.Array(Type.String()),
});
