"""Images shared by the module and print back ends: counters, blocks, cards, markers, boards."""
