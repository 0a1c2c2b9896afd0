import type { ModuleDocs } from '../../plugins/operation-docs.js';

/** OpenAPI prose of the auth routes (merged into the routes by the docs plugin). */
export const authDocs: ModuleDocs = {
  'POST /api/auth/login': {
    summary: 'Log in',
    description: '`churchName` is the tenant slug; `username` may also be the user\'s email. Answers an access token (JWT, 15 minutes) and a ' +
      'refresh token (opaque, 30 days, single use), with the user\'s role names and permission keys.\n\n' +
      '**Two forms of the refresh token.** API clients get it in the body (`refreshToken`). A browser application (the console) sends ' +
      '`refreshCookie: true`: the token is then set as the cookie `parish_refresh` (`HttpOnly; SameSite=Strict; Path=/api/auth`, `Secure` ' +
      'except on a loopback address outside production, 30 days) and left out of the body, so JavaScript never sees it; refresh and logout ' +
      'read it from the cookie when their body has no `refreshToken`.',
    errors: {
      401: 'Invalid credentials (unknown church, unknown user, wrong password or disabled account alike)',
      429: 'More than 10 failed logins for the account in 15 minutes, or too many requests from the address',
    },
    example: { churchName: 'grace-chapel', username: 'admin', password: 'correct horse battery' },
  },
  'POST /api/auth/refresh': {
    summary: 'Exchange a refresh token for new tokens',
    description: 'Rotation: the answer carries a NEW refresh token and the old one stops working. Reusing a rotated token revokes its whole family (every token of that login).\n\n' +
      'The token comes from the body (`refreshToken`, answered in the body) or, with the body `{}`, from the `parish_refresh` cookie ' +
      '(answered as a new cookie; a refused cookie is cleared). See login.',
    errors: { 401: 'Unknown, expired, revoked or already used refresh token, or none sent' },
    example: { refreshToken: 'c0ffee…the opaque token from login' },
  },
  'POST /api/auth/logout': {
    summary: 'Log out',
    description: 'Revokes the refresh token\'s family (this login session); an unknown token is not an error. ' +
      'With the body `{}` the token is read from the `parish_refresh` cookie, and the cookie is cleared.',
    example: { refreshToken: 'c0ffee…the opaque token from login' },
  },
  'POST /api/auth/forgot-password': {
    summary: 'Ask for a password reset email',
    description: 'By `username` or `email`. The answer is the same whether the account exists or not; the email links to the configured public URL, valid one hour.',
    errors: { 429: 'Too many requests for the account or from the address' },
    example: { churchName: 'grace-chapel', email: 'ruth@example.org' },
  },
  'PUT /api/auth/reset-password/:token': {
    summary: 'Set a new password with a reset token',
    description: 'The token from the reset email (single use); every refresh token of the user is revoked.',
    errors: { 400: 'Invalid or expired reset token, or a password outside 8–256 characters' },
    example: { password: 'a new long passphrase' },
  },
  'POST /api/register': {
    summary: 'Register as a member of a church',
    description: 'Creates the user and a linked Person contact; the user gets only the `Member` role.',
    errors: {
      403: 'The church does not allow self-registration',
      404: 'Unknown church',
      409: 'The username or email is already taken in the church',
    },
    example: { churchName: 'grace-chapel', username: 'ruth.adams', email: 'ruth@example.org', password: 'a long passphrase', firstName: 'Ruth', lastName: 'Adams' },
  },
};
