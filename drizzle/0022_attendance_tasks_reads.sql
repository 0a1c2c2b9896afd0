-- Reserved by the lead; replaced by its owner.
SELECT 1;
