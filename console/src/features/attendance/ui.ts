/** Alerts keep the tint for meaning and the body text colour for reading (AA contrast on the light tint). */
export const READABLE_ALERT = { title: { color: 'var(--mantine-color-text)' }, message: { color: 'var(--mantine-color-text)' } };
