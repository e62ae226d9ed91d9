"""``egress-lint generate``: the reference manifests for every declaration, from Jinja templates."""
