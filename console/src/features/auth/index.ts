export { SetPasswordPage } from './SetPasswordPage';
export { SignInPage } from './SignInPage';
