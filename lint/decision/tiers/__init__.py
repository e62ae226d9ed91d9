"""The exact tier model of a pod's egress (CLUSTER-POLICIES.md §12).

One model of what a pod can reach, asked two questions: reach (``check``)
and ``explain --to``. ``model`` holds what the readers give the engine;
``points`` the destination space and the allowance on it (§12.1);
``match`` what a rule matches (§12.2); ``evaluate`` the tiers on one point
or cell (§12.3); ``cells`` the space split where every match is constant
(§12.5); ``questions`` reach and explain (§12.5, §12.6). ``kleene`` holds
the three-valued connectives all of them use.
"""
