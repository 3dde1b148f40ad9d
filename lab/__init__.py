"""The agent's lab: arenas, baselines, result pooling, policy fitting, experiment scripts and their results.

Not installed with the package: run it from a checkout (``treset-agent arena``, ``pool`` and
``python -m lab.inference`` find it there).  ``MEASUREMENTS.md`` is the log of what was measured.
"""
