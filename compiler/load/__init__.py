"""Loading: YAML with a source map, strictly typed into the model."""
