"""The parallel room: work shared out over forked processes, and how long
the process keeps what it built.

- ``shares``: ``map_units`` has this process and forked children take
  units of work from one queue, and collects their results in order; a
  child that fails, hangs past its deadline, or answers garbage costs only
  time, as the units it took are then done here. It also says how many
  processes the machine runs at once (``available_processes``).
- ``children``: one forked child, its pipe read with a deadline, and its
  end: killed if still running, reaped, its pipe closed.
- ``records``: the one encoding children answer in, records as plain
  values ``marshal`` writes, worked out from the type hints.
- ``lifetime``: the garbage-collector and exit policy: the collector paused
  while a run builds, the last run held, and the console script's exit
  without interpreter teardown.

How work is cut into units is the callers' own: files in runs of neighbours,
in waves (``lint.loading.shares``), sandboxes by namespace
(``lint.checks.shares``). Only Linux forks; elsewhere every unit is done in
this process.
"""
