"""``egress-lint explain``: one sandbox's effective egress and one destination's verdict."""
