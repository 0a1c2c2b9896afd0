-- Placeholder: filled by the change that needs it (issue speed work of session 4).
SELECT 1;
