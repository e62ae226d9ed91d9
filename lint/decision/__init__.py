"""The pure decision engine of egress-lint.

Everything in this subpackage takes plain JSON-shaped Python values (dict,
list, str, int, float, bool, None) and returns frozen records. It does no
I/O and imports no YAML, click or pydantic, so every rule of
``spec/SEMANTICS.md`` can be tested on its own.
"""
