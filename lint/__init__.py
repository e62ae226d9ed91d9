"""egress-lint: offline egress checks for Kubernetes agent-sandbox pods."""

__version__ = "0.1.0"
