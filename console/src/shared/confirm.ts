/**
 * The confirmation dialog, a second entry of shared: it pulls in Mantine's Modal, which the first
 * screen does not need, so it stays out of the initial JavaScript (console.md "Quality bars").
 */
export { ConfirmDialog } from './components/ConfirmDialog';
