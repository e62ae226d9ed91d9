"""Reporting: a Report in, text out.

``model`` holds the report's records; ``reporters`` is the registry the
``--format`` choices come from (text, JSON, SARIF); ``ordering`` is the
documented order of sandboxes and findings; ``fingerprints`` gives each
finding the identity baselines and SARIF use.
"""
