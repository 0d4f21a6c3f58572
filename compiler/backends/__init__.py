"""Back ends: read the frozen model, write files. They never re-read YAML or change the model."""
