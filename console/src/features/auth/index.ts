export { ForgotPasswordPage } from './ForgotPasswordPage';
export { SetPasswordPage } from './SetPasswordPage';
export { SignInPage } from './SignInPage';
