-- Reserved for issue 15 (dashboard and retention funnel); replaced by its work in session 6.
SELECT 1;
