"""The checks of DESIGN §3, run per declaration and acquisition path."""
