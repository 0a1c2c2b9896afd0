-- Reserved for issue 14 (the 10,000-row giving import); replaced by its work in session 6.
SELECT 1;
