"""Charts back end: the game's tables as PDF pages and as PNGs for the module's charts window."""
