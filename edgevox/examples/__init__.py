"""Example tool sets used by the demo, tests and benchmarks."""
