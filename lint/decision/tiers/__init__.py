"""The exact tier model of a pod's egress (CLUSTER-POLICIES.md §12).

One model of what a pod can reach, asked two questions: reach (``check``)
and ``explain --to``. ``model`` holds what the readers give the engine.
"""
