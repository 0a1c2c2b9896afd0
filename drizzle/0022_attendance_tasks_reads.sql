-- Reserved for issue 12/13's attendance and tasks reads; the existing indexes served every query
-- they changed to (053ce4b, e2fa939), so it does nothing.
SELECT 1;
