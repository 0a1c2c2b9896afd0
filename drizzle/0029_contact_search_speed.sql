-- Reserved in session 6 for common-name search (issue 20); nothing tried on the medium bench
-- database paid (bench/README.md, scenario 2c), so it does nothing.
SELECT 1;
