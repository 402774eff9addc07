Btj

locationp