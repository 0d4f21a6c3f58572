"""Benchmarks and the generated games they (and the property tests) run on."""
