"""Charts back end: the game's tables packed onto the pages of charts.pdf (aid cards, landscape
pages for wide tables) and as PNGs for the module's charts window."""
