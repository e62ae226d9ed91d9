"""Hostile and broken input: limits, fail-closed mutations, fuzzing, output
safety and determinism (issue 7)."""
