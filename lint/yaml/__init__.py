"""The YAML room: how the tool reads YAML as Kubernetes reads it.

It holds the Kubernetes dialect of YAML and nothing else:

- ``composer``: libyaml's node composer (PyYAML's pure-Python one when
  PyYAML lacks libyaml), with a resolver that only marks plain scalars;
- ``scalars`` and ``construct``: go-yaml v2's scalar rules, as
  sigs.k8s.io/yaml applies them, and the builder that turns a node tree
  into a JSON-shaped value with them;
- ``parse``: one document of text through the composer and the builder,
  with its errors as line-numbered failures, and plain JSON read directly;
- ``fast_parse``: the yaml_rs fast path, and the argument that each value it
  vouches for is the one ``parse`` builds;
- ``tags``: the YAML tag constants, written once.

``lint.loading`` turns files into documents with these; the declaration file
(``lint.declarations.reading``) is read by ruamel.yaml instead, not in this
dialect. ``docs/yaml.md`` describes both.
"""
