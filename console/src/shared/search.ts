/**
 * The header's search, a second entry of shared: the shell loads it after the first paint, so the
 * sign-in screen's JavaScript does not carry it (console.md "Quality bars").
 */
export { GlobalSearch } from './components/GlobalSearch';
