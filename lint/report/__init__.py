"""Reporters: a Report in, text out (text, JSON, SARIF)."""
