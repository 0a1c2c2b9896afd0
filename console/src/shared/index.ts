import './focus.css';

export { api, type RequestBody } from './api/client';
export { ApiError, errorMessage, unwrap } from './api/errors';
export { Can } from './components/Can';
export { ErrorAlert } from './components/ErrorAlert';
export { GroupPicker, useGroupChoices, type PickedGroup } from './components/GroupPicker';
export { Loading, Page } from './components/Page';
export { useFormat } from './format';
export { CHURCH_KEY, SessionProvider, useSession, useSignedIn, type Session, type Tenant, type User } from './session/session';
