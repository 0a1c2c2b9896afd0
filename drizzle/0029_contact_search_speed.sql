-- Reserved for issue 20 (common names, the medium bench size); replaced by its work in session 6.
SELECT 1;
